"""The RTL's declared profile (--rtl-profile / --rtl-spec) and what it makes of tests made for other profiles.

A test, NVIDIA trace or generated layer made for a profile the RTL's lacks something of is `not applicable`:
counted and listed as such, never run, failed or errored; generated tests that name no profile draw for the
RTL's. The fixture DUT declared as nv_small stands in for a user's nv_small RTL.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("cocotb")  # rtl/build.py and rtl/runner.py import it (the `rtl` extra)
pytest.importorskip("hjson")

from ci.cli import main  # noqa: E402
from ci.regression.results import coverage_cell  # noqa: E402
from rtl.build import FIXTURE_TOP, fixture_sources  # noqa: E402
from rtl.suite import DATA_ROOT  # noqa: E402
from suites.unit.ci.regress_helpers import write_plan  # noqa: E402

SMALL = DATA_ROOT / "trace_tests" / "nv_small" / "sdp_1x1x1_pass_through_int8"
LARGE = DATA_ROOT / "trace_tests" / "nv_large" / "pdp_8x8x32_1x1_max_int8_0"
SPEC = DATA_ROOT / "configs" / "nv_small.spec"


@pytest.fixture
def traces():
    if not (SMALL.is_dir() and LARGE.is_dir()):
        pytest.skip(f"NVIDIA's traces are not at {DATA_ROOT}")
    return SMALL, LARGE


@pytest.mark.parametrize("declared", [["--rtl-profile", "nv_small"], ["--rtl-spec", str(SPEC)]])
def test_conform_plays_only_what_the_declared_profile_has(traces, declared, fixture_build, tmp_path):
    out = tmp_path / "out.json"
    code = main(["conform", *map(str, traces), "--impl", "rtl", *declared, "--json", str(out)])
    report = json.loads(out.read_text())
    by_profile = {r["profile"]: r for r in report["results"]}
    assert code == 0, report
    assert by_profile["nv_small"]["status"] == "passed"
    large = by_profile["nv_large"]
    assert large["status"] == "not applicable"
    assert "MEMORY_ATOMIC_SIZE 32 (it has 8)" in large["detail"] and "SDP_LUT_ENABLE" in large["detail"]
    assert report["summary"]["not applicable"] == 1


def test_the_same_traces_without_a_declared_profile_are_not_called_not_applicable(traces, fixture_build, tmp_path):
    out = tmp_path / "out.json"
    main(["conform", *map(str, traces), "--impl", "rtl", "--json", str(out)])
    statuses = {r["profile"]: r["status"] for r in json.loads(out.read_text())["results"]}
    assert statuses == {"nv_small": "passed", "nv_large": "unsupported"}  # the fixture's own subset check


def _plan(folder: Path) -> Path:
    tests = ",\n".join([
        '{"name": "small", "kind": "nvidia_traces", "glob": "trace_tests/nv_small/sdp_1x1x1_pass_through_int8/*.cfg"}',
        '{"name": "large", "kind": "nvidia_traces", "glob": "trace_tests/nv_large/pdp_8x8x32_1x1_max_int8_0/*.cfg"}',
        '{"name": "gen_large", "kind": "generated", "family": "pdp", "profile": "nv_large", "seeds": "fixed", '
        '"fixed_seeds": [3]}',
        '{"name": "gen_any", "kind": "generated", "family": "sdp", "seeds": "fixed", "fixed_seeds": [3]}'])
    points = ",\n".join([
        '{"name": "mine", "stage": "smoke", "desc": "d", "tests": ["small", "gen_any"]}',
        '{"name": "theirs", "stage": "smoke", "desc": "d", "tests": ["large", "gen_large"]}'])
    return write_plan(folder / "plan.hjson", tests, points)


def test_regress_counts_and_lists_what_the_rtl_profile_lacks_never_failed(traces, fixture_build, tmp_path):
    out = tmp_path / "out"
    code = main(["regress", "--plan", str(_plan(tmp_path)), "--level", "smoke", "--seed", "1", "--impl", "rtl",
                 "--rtl-profile", "nv_small", "--nvdla-data", str(DATA_ROOT), "--out", str(out), "--shrink", "0"])
    report = json.loads((out / "results.json").read_text())
    statuses = {r["id"]: r["status"] for r in report["tests"]}
    assert statuses["nvidia/nv_large/pdp_8x8x32_1x1_max_int8_0"] == "not applicable"
    assert statuses["gen/nv_large/pdp/s3"] == "not applicable"
    assert statuses["nvidia/nv_small/sdp_1x1x1_pass_through_int8"] == "passed"
    assert "gen/nv_small/sdp/s3" in statuses  # the test that names no profile draws for the RTL's
    assert code == (1 if report["counts"]["failed"] + report["counts"]["error"] else 0)
    assert report["counts"]["not applicable"] == 2 and report["meta"]["rtl_profile"] == "nv_small"
    theirs = next(row for row in report["signoff"] if row["testpoint"] == "theirs")
    assert (theirs["ran"], theirs["not applicable"]) == (0, 2) and theirs["pass_rate"] is None
    assert coverage_cell(theirs) == "not applicable"
    summary = (out / "summary.txt").read_text()
    assert "2 not applicable (the RTL is nv_small)" in summary
    listed = summary[summary.index("not applicable (made for"):]
    assert "made for nv_large; rtl is nv_small, without MAC_ATOMIC_C 64 (it has 8)" in listed
    assert "nvidia/nv_large/pdp_8x8x32_1x1_max_int8_0" in listed and "gen/nv_large/pdp/s3" in listed


def test_generated_tests_that_name_no_profile_draw_for_the_rtls(tmp_path, capsys):
    plan = _plan(tmp_path)
    assert main(["regress", "--plan", str(plan), "--level", "smoke", "--seed", "1", "--impl", "rtl",
                 "--rtl-profile", "nv_small_256_full", "--nvdla-data", str(DATA_ROOT), "--list"]) == 0
    listed = capsys.readouterr().out
    assert "gen/nv_small_256_full/sdp/s3" in listed and "gen/nv_large/pdp/s3" in listed
    assert "gen/nv_small/" not in listed


def test_a_reproduce_command_pasted_into_a_fresh_shell_reproduces_the_failure(traces, fixture_build, tmp_path):
    """A user's RTL with a bug (the fixture's write-strobe mutant, hooked up through a file list): the command the
    report prints for the failure, run by a shell that knows nothing of the run, fails the same way."""
    filelist = tmp_path / "my_nvdla.f"
    filelist.write_text("\n".join(str(p) for p in fixture_sources()) + "\n")
    tests = ('{"name": "small", "kind": "nvidia_traces", '
             '"glob": "trace_tests/nv_small/sdp_1x1x1_pass_through_int8/*.cfg"}')
    point = '{"name": "p", "stage": "smoke", "desc": "d", "tests": ["small"]}'
    plan = write_plan(tmp_path / "plan.hjson", tests, point)
    out = tmp_path / "out"
    code = main(["regress", "--plan", str(plan), "--level", "smoke", "--seed", "1", "--impl", "rtl",
                 "--rtl-filelist", str(filelist), "--rtl-top", FIXTURE_TOP, "--rtl-define", "FX_BUG_WSTRB",
                 "--rtl-profile", "nv_small", "--nvdla-data", str(DATA_ROOT), "--out", str(out)])
    assert code == 1
    bucket = json.loads((out / "results.json").read_text())["buckets"][0]
    assert bucket["reproduce"] in (out / "summary.txt").read_text()
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    environment = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", str(tmp_path))}
    shell = subprocess.run(["bash", "-c", bucket["reproduce"]], cwd=fresh, env=environment, capture_output=True,
                           text=True, timeout=900)
    assert shell.returncode == 1, shell.stdout + shell.stderr
    written = json.loads(next(fresh.glob("repro-*.json")).read_text())
    assert [r["status"] for r in written["results"]] == ["failed"]
    assert "--rtl-define FX_BUG_WSTRB" in bucket["reproduce"] and shlex.split(bucket["reproduce"])


def test_a_trace_that_needs_a_port_the_dut_lacks_is_found_before_simulation(tmp_path):
    from rtl.job import Job, Step
    from rtl.runner import missing_port

    (tmp_path / "Vtop.h").write_text("VL_OUT8(&nvdla_core2dbb_aw_awvalid,0,0);\n")
    primary = [Step("fill_memory", 0x100, size=32), Step("check_region", 0x200, size=32)]
    assert missing_port(Job(primary), tmp_path) == ""
    secondary = Job([*primary, Step("load_memory", 0x80, size=32, mem="sec")])
    assert missing_port(secondary, tmp_path) == "the trace uses sec_mem and the DUT has no nvdla_core2cvsram port"
    (tmp_path / "Vtop.h").write_text("VL_OUT8(&nvdla_core2dbb_aw_awvalid,0,0);\n"
                                     "VL_OUT8(&nvdla_core2cvsram_aw_awvalid,0,0);\n")
    assert missing_port(secondary, tmp_path) == ""


def test_an_rtl_that_does_not_build_is_one_error_before_any_trace(traces, verilator, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("NVDLA_RTL_CACHE", str(tmp_path / "cache"))
    (tmp_path / "broken.v").write_text("module NV_nvdla(input wire x);\n  this is not verilog\nendmodule\n")
    filelist = tmp_path / "broken.f"
    filelist.write_text(f"{tmp_path / 'broken.v'}\n")
    code = main(["conform", str(SMALL), str(SMALL.parent / "sdp_8x8x32_bypass_int8_0"), "--impl", "rtl",
                 "--rtl-filelist", str(filelist), "--rtl-top", "NV_nvdla", "--rtl-profile", "nv_small"])
    captured = capsys.readouterr()
    assert code == 2
    assert "Verilator build of NV_nvdla failed" in captured.err and "playing" not in captured.out
    assert len(list((tmp_path / "cache").glob("NV_nvdla-*/build.log"))) == 1
