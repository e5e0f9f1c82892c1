import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("cocotb")  # rtl/build.py and rtl/runner.py import it (the `rtl` extra)

from golden.settings import RtlSettings  # noqa: E402
from rtl.build import (  # noqa: E402
    COVERAGE_ARGS,
    BuildError,
    BuildOptions,
    _filelist_inputs,
    build,
    build_key,
    fixture_sources,
)

REPO = Path(__file__).resolve().parents[2]


def test_fixture_sources_are_the_shipped_verilog():
    names = {p.name for p in fixture_sources()}
    assert "nvdla_fixture.v" in names and all(n.endswith(".v") for n in names)


def test_build_key_depends_on_defines_and_top(monkeypatch):
    monkeypatch.setattr("rtl.build._tool_versions", lambda: "verilator 5.006 cocotb 1.8.1")
    plain = build_key(BuildOptions())
    assert plain == build_key(BuildOptions())
    assert plain.startswith("nvdla_fixture-")
    assert build_key(BuildOptions(defines=("FX_BUG_WSTRB",))) != plain


def test_filelist_inputs_and_key(tmp_path, monkeypatch):
    monkeypatch.setattr("rtl.build._tool_versions", lambda: "v")
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "defs.vh").write_text("`define X 1\n")
    (tmp_path / "top.v").write_text("module top; endmodule\n")
    filelist = tmp_path / "files.f"
    filelist.write_text("// my RTL\n+incdir+inc\n-DFOO\ntop.v\n")
    assert _filelist_inputs(filelist) == [tmp_path / "inc" / "defs.vh", tmp_path / "top.v"]
    options = BuildOptions(filelist, "top")
    key = build_key(options)
    (tmp_path / "inc" / "defs.vh").write_text("`define X 2\n")
    assert build_key(options) != key


def test_filelist_needs_a_top(tmp_path):
    with pytest.raises(BuildError, match="--rtl-top"):
        _ = BuildOptions(tmp_path / "files.f").toplevel


def test_options_from_the_rtl_settings(monkeypatch):
    monkeypatch.setenv("NVDLA_RTL_FILELIST", "/x/files.f")
    monkeypatch.setenv("NVDLA_RTL_TOP", "NV_nvdla")
    monkeypatch.setenv("NVDLA_RTL_DEFINES", "A=1 B")
    options = BuildOptions.from_settings(RtlSettings.from_environment())
    assert (options.filelist, options.toplevel, options.defines) == (Path("/x/files.f"), "NV_nvdla", ("A=1", "B"))
    monkeypatch.delenv("NVDLA_RTL_FILELIST")
    assert BuildOptions.from_settings(RtlSettings.from_environment()).is_fixture
    covered = BuildOptions.from_settings(RtlSettings(coverage="/tmp/cov", cache="/tmp/cache"))
    assert covered.extra_args == COVERAGE_ARGS and covered.cache_dir == Path("/tmp/cache")


def test_parallel_builds_share_one_build(tmp_path, fixture_build):
    code = ("import sys; from pathlib import Path; from rtl.build import BuildOptions, build; "
            "print(build(BuildOptions(cache_dir=Path(sys.argv[1]), defines=('FX_BUG_WSTRB',))))")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE, text=True, env=env)
             for _ in range(2)]
    dirs = {p.communicate(timeout=600)[0].strip() for p in procs}
    assert all(p.returncode == 0 for p in procs)
    assert len(dirs) == 1
    build_dir = Path(dirs.pop())
    assert (build_dir / ".complete").exists()
    commands = [line for line in (build_dir / "build.log").read_text().splitlines() if line.startswith("$ ")]
    assert sum(" -cc " in line for line in commands) == 1


def test_filelist_comments_and_quotes(tmp_path):
    (tmp_path / "top.v").write_text("module top; endmodule\n")
    (tmp_path / "my core.v").write_text("module core; endmodule\n")
    filelist = tmp_path / "files.f"
    filelist.write_text("// the user's RTL\n/* block\n comment's */ top.v # trailing\n'my core.v'\n")
    assert _filelist_inputs(filelist) == [tmp_path / "top.v", tmp_path / "my core.v"]


def test_filelist_errors_name_the_file(tmp_path):
    filelist = tmp_path / "files.f"
    filelist.write_text("top.v 'unclosed\n")
    with pytest.raises(BuildError, match=r"files\.f: cannot parse the RTL file list"):
        _filelist_inputs(filelist)
    with pytest.raises(BuildError, match=r"absent\.f: cannot read the RTL file list"):
        _filelist_inputs(tmp_path / "absent.f")


def test_a_relative_file_list_builds_from_any_folder(tmp_path, verilator, monkeypatch):
    # the list's paths are relative to the list's folder (Verilator -F), as the cache key reads them
    rtl = tmp_path / "my_rtl"
    (rtl / "src").mkdir(parents=True)
    (rtl / "src" / "leaf.v").write_text("module leaf(input wire a, output wire y); assign y = ~a; endmodule\n")
    (rtl / "src" / "top.v").write_text("module top(input wire clk, input wire a, output wire y);\n"
                                       "  leaf u_leaf(.a(a), .y(y));\nendmodule\n")
    (rtl / "files.f").write_text("src/leaf.v\nsrc/top.v\n")
    monkeypatch.chdir(tmp_path)
    options = BuildOptions(Path("my_rtl/files.f"), "top", cache_dir=tmp_path / "cache")
    lines = []
    build_dir = build(options, progress=lines.append)
    assert (build_dir / "top").is_file()
    assert "Verilator" in (build_dir / "toolchain.txt").read_text()
    assert lines[0].startswith("rtl build: verilating top") and "built in" in lines[-1]


def test_a_build_error_is_reported_in_full(tmp_path, verilator):
    folder = tmp_path / ("deep_" * 40)   # an error line of more than 200 characters, never cut
    folder.mkdir()
    (folder / "top.v").write_text("module top(input wire a); wire x = ;\nendmodule\n")
    (folder / "files.f").write_text("top.v\n")
    with pytest.raises(BuildError) as caught:
        build(BuildOptions(folder / "files.f", "top", cache_dir=tmp_path / "cache"), progress=None)
    error_lines = [line for line in str(caught.value).splitlines() if "%Error" in line and "syntax error" in line]
    assert error_lines and str(folder / "top.v") in error_lines[0] and len(error_lines[0]) > 200
