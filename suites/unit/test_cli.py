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


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "ci.cli", *args], capture_output=True, text=True, cwd=cwd)


def test_a_5000_digit_register_value_is_one_line_without_traceback(tmp_path):
    trace = tmp_path / "t.cfg"
    trace.write_text("reg_write(NVDLA_SDP.D_OP_ENABLE_0, " + "7" * 5000 + ");\n")
    result = _cli("play", str(trace), "--profile", "nv_large")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "t.cfg:1" in result.stderr


def test_an_internal_error_is_one_line_and_debug_shows_the_traceback(monkeypatch, capsys):
    import ci.commands.profiles as profiles

    def broken(args):
        raise ZeroDivisionError("a bug\nsecond line")

    monkeypatch.setattr(profiles, "run", broken)
    assert main(["profiles"]) == 3
    err = capsys.readouterr().err
    assert err.strip() == ("nvdla-verif profiles: internal error: ZeroDivisionError: a bug "
                           "(--debug shows the traceback)")
    assert main(["--debug", "profiles"]) == 3
    assert "Traceback" in capsys.readouterr().err


def test_memory_limit_option_bounds_the_golden_model(tmp_path):
    trace = tmp_path / "t.cfg"
    trace.write_text("mem_init(pri_mem, 0x80000000, 0x80000000, ALL_ZERO);\n")  # 2 GiB
    result = _cli("--memory-limit", "1GiB", "play", str(trace), "--profile", "nv_large")
    assert result.returncode == 2 and "memory limit of 1.0 GiB" in result.stdout + result.stderr
    assert _cli("--memory-limit", "lots", "profiles").returncode == 2


def _options(parser, path=("nvdla-verif",)):
    """(command path, subcommand help or None, action) of every option and argument of every (sub)command."""
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helped = {choice.dest: choice.help for choice in action._choices_actions}
            for name, command in action.choices.items():
                yield (*path, name), helped.get(name), None
                yield from _options(command, (*path, name))
        elif not isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
            yield path, None, action


def test_every_option_has_help_and_states_its_default():
    """`--help` of every command describes every option and argument, and names the default of each that has
    one (issue 46: generate's --seed, -n, --layers, fuzz's and coverage's --seed, report html DIR, regress's
    --level)."""
    import argparse

    from ci.cli import build_parser

    lacking = []
    for path, command_help, action in _options(build_parser()):
        where = " ".join(path)
        if action is None:
            if not command_help:
                lacking.append(f"{where}: no help")
            continue
        name = "/".join(action.option_strings) or action.dest
        text = action.help or ""
        if not text or text == argparse.SUPPRESS:
            lacking.append(f"{where} {name}: no help")
        elif (action.default not in (None, [], argparse.SUPPRESS) and action.default is not False
              and action.const is None and "default" not in text):
            lacking.append(f"{where} {name}: default {action.default!r} not stated")
    assert not lacking, "\n".join(lacking)


def test_play_says_how_much_of_the_output_it_leaves_out(capsys):
    """The shipped example writes 16 channels; play prints the first two and must say the rest exist."""
    assert main(["play"]) == 0
    out = capsys.readouterr().out
    shape = next(line for line in out.splitlines() if "output (C, H, W) = " in line)
    channels = int(shape.split("= (")[1].split(",")[0])
    shown = sum(line.strip().startswith("channel ") for line in out.splitlines())
    assert channels > shown > 0
    assert f"{channels - shown} more channels" in out
