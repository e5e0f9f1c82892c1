"""`nvdla-verif conform --impl rtl` end to end, on the fixture and on a user's file list.

The fixture's own Verilog, listed in a file list of the user's kind, stands in for a user's
NVDLA build: the hook-up path (--rtl-filelist/--rtl-top/--rtl-define) builds it under its own
cache key and plays the trace on it.
"""

import json

import pytest

pytest.importorskip("cocotb")  # rtl/build.py and rtl/runner.py import it (the `rtl` extra)

from ci.cli import main  # noqa: E402
from rtl.build import FIXTURE_TOP, fixture_sources  # noqa: E402
from rtl.suite import nvidia_trace  # noqa: E402

TRACE = "sdp_1x1x1_pass_through_int8"


@pytest.fixture
def trace_path():
    path = nvidia_trace(TRACE)
    if not path.exists():
        pytest.skip("NVIDIA traces not available")
    return path


def _user_filelist(folder):
    filelist = folder / "my_nvdla.f"
    filelist.write_text("// a user's Verilator file list\n" + "\n".join(str(p) for p in fixture_sources()) + "\n")
    return filelist


def _conform(args, out):
    code = main(["conform", *args, "--json", str(out)])
    return code, json.loads(out.read_text())


def test_conform_on_the_fixture(trace_path, fixture_build, tmp_path):
    code, report = _conform([str(trace_path), "--impl", "rtl"], tmp_path / "out.json")
    assert code == 0
    assert report["summary"]["passed"] == 1, report


def test_conform_on_a_user_filelist(trace_path, fixture_build, tmp_path, monkeypatch):
    monkeypatch.setenv("NVDLA_RTL_CACHE", str(tmp_path / "cache"))
    filelist = _user_filelist(tmp_path)
    code, report = _conform([str(trace_path), "--impl", "rtl", "--rtl-filelist", str(filelist),
                             "--rtl-top", FIXTURE_TOP, "--rtl-define", "FX_USER_BUILD"], tmp_path / "out.json")
    assert code == 0, report
    assert report["summary"]["passed"] == 1
    assert any(p.is_dir() and p.name.startswith(f"{FIXTURE_TOP}-") for p in (tmp_path / "cache").iterdir())


def test_a_user_build_with_a_bug_fails(trace_path, fixture_build, tmp_path, monkeypatch):
    monkeypatch.setenv("NVDLA_RTL_CACHE", str(tmp_path / "cache"))
    filelist = _user_filelist(tmp_path)
    code, report = _conform([str(trace_path), "--impl", "rtl", "--rtl-filelist", str(filelist),
                             "--rtl-top", FIXTURE_TOP, "--rtl-define", "FX_BUG_WSTRB"], tmp_path / "out.json")
    assert code == 1
    assert report["summary"]["failed"] == 1, report
