import subprocess
import sys

from ci.cli import main


def test_help_lists_subcommands(capsys):
    try:
        main(["--help"])
    except SystemExit as exit_:
        assert exit_.code == 0
    out = capsys.readouterr().out
    assert "profiles" in out


def test_version(capsys):
    try:
        main(["--version"])
    except SystemExit as exit_:
        assert exit_.code == 0
    assert "nvdla-verif" in capsys.readouterr().out


def test_profiles_table(capsys):
    assert main(["profiles"]) == 0
    out = capsys.readouterr().out
    assert "nv_full" in out and "nv_small" in out


def test_project_errors_are_one_line_without_traceback(tmp_path):
    bad = tmp_path / "bad.spec"
    bad.write_text("#define NOT_A_THING_7\n")
    result = subprocess.run([sys.executable, "-m", "ci.cli", "profiles", "--spec", str(bad)],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "bad.spec:1: unknown parameter NOT_A_THING_7" in result.stderr


def test_rtl_options_are_checked_before_anything_runs(tmp_path, capsys):
    assert main(["conform", str(tmp_path), "--rtl-top", "NV_nvdla"]) == 2
    assert "--rtl-top and --rtl-define need --rtl-filelist FILE" in capsys.readouterr().err
    assert main(["conform", str(tmp_path), "--impl", "rtl", "--rtl-filelist", str(tmp_path / "no.f"),
                 "--rtl-top", "NV_nvdla"]) == 2
    assert "no.f: RTL file list not found" in capsys.readouterr().err
    filelist = tmp_path / "rtl.f"
    filelist.write_text("top.v\n")
    assert main(["conform", str(tmp_path), "--rtl-filelist", str(filelist), "--rtl-top", "NV_nvdla"]) == 2
    assert "--rtl-filelist needs --impl rtl" in capsys.readouterr().err
    assert main(["conform", str(tmp_path), "--impl", "rtl", "--rtl-filelist", str(filelist)]) == 2
    assert "needs --rtl-top NAME" in capsys.readouterr().err
