"""Mistakes a person makes at the terminal end with one line and the usage (2) or the project's error exit (2),
never an internal error or a traceback; global options work after the command too; a closed pipe is quiet."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ci.cli import main

CASES = [
    (["generate", "--unit", "sdp", "-n", "0", "--out", "{tmp}/g"], "argument -n: 0 is less than 1"),
    (["generate", "--unit", "sdp", "-n", "-5", "--out", "{tmp}/g"], "argument -n: -5 is less than 1"),
    (["generate", "--unit", "sdp", "--layers", "0", "--out", "{tmp}/g"], "argument --layers: 0 is less than 1"),
    (["coverage", "-n", "-1"], "argument -n: -1 is less than 0"),
    (["fuzz", "-n", "0"], "argument -n: 0 is less than 1"),
    (["conform", "{tmp}", "-j", "0"], "argument -j: 0 is less than 1"),
    (["regress", "-j", "x"], "argument -j: 'x' is not a whole number"),
    (["regress", "--impl", "golden", "--profile", "nv_smal"], "unknown hardware profile 'nv_smal'"),
    (["regress", "--impl", "golden", "--nvdla-data", "{tmp}"], "no NVIDIA trace (.cfg or input.txn) in it"),
    (["regress", "--impl", "golden", "--rtl-profile", "nv_small"], "--rtl-profile/--rtl-spec needs --impl rtl"),
    (["conform", "{tmp}", "--impl", "rtl", "--rtl-profile", "nv_smal"], "unknown hardware profile 'nv_smal'"),
    (["conform", "{tmp}", "--impl", "rtl", "--rtl-spec", "{tmp}/none.spec"], "cannot read profile spec"),
    (["fuzz", "--unit", "rubik", "--profile", "nv_small"], "profile nv_small has no rubik"),
    (["generate", "--unit", "bdma", "--out", "{tmp}/g"], "profile nv_small has no bdma"),
    (["coverage", "--merge", "{tmp}/missing.yaml", "--export", "{tmp}/x.yaml"], "no such coverage export"),
    (["coverage", "-n", "0", "--traces", "{tmp}"], "no trace (.cfg or input.txn) under"),
    (["regress", "--impl", "golden", "--out", "{tmp}/file.txt"], "a file, not a results folder"),
    (["play", "{tmp}/no_such.cfg"], "cannot read trace: No such file or directory"),
    (["play", "--profile", "nv_smal"], "unknown hardware profile 'nv_smal'"),
    (["conform", "{tmp}/nowhere"], "no such file or folder"),
    (["conform", "{tmp}", "--impl", "no_such_impl"], "unknown implementation 'no_such_impl'"),
    (["report", "merge", "{tmp}/a", "{tmp}/b", "--out", "{tmp}/m"], "not a regress results folder"),
    (["report", "html", "{tmp}/nowhere"], "no Allure results"),
    (["profiles", "--spec", "{tmp}/none.spec"], "cannot read profile spec"),
    (["generate", "--unit", "sdp", "--profile", "nv_smal", "--out", "{tmp}/g"], "unknown hardware profile"),
    (["rules", "--unit", "XYZ"], "no rules for unit XYZ; units with rules:"),
    (["regress", "--impl", "golden", "--plan", "{tmp}/none.hjson"], "cannot read the testplan"),
    (["regress", "--impl", "no_such_impl", "--seed", "1"], "unknown implementation 'no_such_impl'"),
    (["regress", "--impl", "golden", "--shard", "5/4"], "i must be between 1 and n"),
    (["regress", "--level", "daily"], "invalid choice: 'daily'"),
    (["profiles", "nv_smal", "--memory-limit", "1GiB"], "unknown hardware profile 'nv_smal'"),
    (["regress", "--impl", "golden", "--on", "pbs"], "invalid choice: 'pbs'"),
    (["regress", "--impl", "golden", "--shards", "4"], "--shards is for a batch run: add --on slurm or --on lsf"),
    (["regress", "--impl", "golden", "--on", "slurm", "--shard", "1/4"], "--shard runs one part here; --on slurm"),
    (["regress", "--impl", "golden", "--on", "slurm", "--mem-per-shard", "lots"], "memory 'lots': expected a size"),
    (["regress", "--impl", "golden", "--on", "lsf", "--time-limit", "1:xx"], "time limit '1:xx': expected minutes"),
    (["regress", "--impl", "golden", "--on", "slurm", "--retries", "-1"], "--retries: 0 or more"),
    (["regress", "--impl", "golden", "--launcher-config", "{tmp}/none.json"], "--launcher-config"),
    (["regress", "--impl", "golden", "--launcher-config", "{tmp}/file.txt"], "not JSON"),
    (["regress", "--impl", "golden", "--launcher-config", "{tmp}/bad.json"], "shards: 0 is less than the minimum"),
    (["regress", "--impl", "golden", "--launcher-config", "{tmp}/typo.json"], "'partition' was unexpected"),
]


@pytest.mark.parametrize("words, message", CASES, ids=[" ".join(c[0][:3]) for c in CASES])
def test_a_wrong_selection_is_one_line_and_exit_2(words, message, tmp_path, capsys):
    words = [w.replace("{tmp}", str(tmp_path)) for w in words]
    (tmp_path / "file.txt").write_text("not a folder\n")
    (tmp_path / "bad.json").write_text('{"on": "slurm", "shards": 0}')
    (tmp_path / "typo.json").write_text('{"on": "slurm", "partition": "debug"}')
    try:
        code = main(words)
    except SystemExit as exc:  # argparse's usage error
        code = exc.code
    captured = capsys.readouterr()
    assert code == 2, captured
    assert message in captured.err + captured.out
    assert "internal error" not in captured.err and "Traceback" not in captured.err
    assert len([line for line in captured.err.splitlines() if "error" in line]) == 1, captured.err


def test_global_options_are_taken_after_the_command():
    parser = __import__("ci.cli", fromlist=["build_parser"]).build_parser()
    after = parser.parse_args(["rules", "--debug", "--memory-limit", "1GiB"])
    assert after.debug is True and after.memory_limit == 1 << 30
    before = parser.parse_args(["--debug", "--memory-limit", "1GiB", "rules"])
    assert before.debug is True and before.memory_limit == 1 << 30
    assert parser.parse_args(["rules"]).debug is False


def test_a_closed_pipe_ends_quietly():
    shell = subprocess.run(f"{sys.executable} -m ci.cli rules | head -1", shell=True, capture_output=True,
                           text=True, timeout=120)
    assert len(shell.stdout.splitlines()) == 1
    assert "BrokenPipe" not in shell.stderr and "internal error" not in shell.stderr, shell.stderr


def test_coverage_names_every_trace_it_cannot_read_and_takes_a_traces_profile_from_its_folder(tmp_path, capsys,
                                                                                           nvdla_data):
    for name, text in (("a", "garbage line\n"), ("b", "reg_write(0x1\n")):
        (tmp_path / name).mkdir()
        (tmp_path / name / f"{name}.cfg").write_text(text)
    assert main(["coverage", "-n", "0", "--traces", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "2 of 2 traces cannot be sampled" in err and "a.cfg:1" in err and "b.cfg:1" in err
    large = nvdla_data / "trace_tests" / "nv_large" / "pdp_8x8x32_1x1_max_int8_0"
    assert main(["coverage", "-n", "0", "--traces", str(large)]) == 0
    assert "nv_large pdp" in capsys.readouterr().out


def test_an_external_program_that_cannot_start_is_one_error_before_any_trace(nvdla_data, tmp_path, capsys):
    traces = nvdla_data / "trace_tests" / "nv_small"
    assert main(["conform", str(traces), "--impl", "command:./no_such_model --fast"]) == 2
    err = capsys.readouterr().err
    assert "cannot start './no_such_model': no such file" in err and len(err.splitlines()) == 1
    (tmp_path / "model.sh").write_text("#!/bin/sh\nexit 0\n")
    assert main(["conform", str(traces), "--impl", f"command:{tmp_path / 'model.sh'}"]) == 2
    assert "not executable" in capsys.readouterr().err


def test_a_programs_relative_paths_mean_the_callers_folder(nvdla_data, monkeypatch, capsys):
    """The program runs inside its request folder; `python suites/...` typed in the repository still works."""
    from pathlib import Path

    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    trace = nvdla_data / "trace_tests" / "nv_small" / "sdp_1x1x1_pass_through_int8"
    program = f"command:{sys.executable} suites/unit/ci/golden_program.py"
    assert main(["conform", str(trace), "--impl", program]) == 0, capsys.readouterr()


def test_more_workers_than_cpus_are_capped_with_a_message(nvdla_data, capsys):
    import os

    trace = nvdla_data / "trace_tests" / "nv_small" / "sdp_1x1x1_pass_through_int8"
    assert main(["conform", str(trace), "-j", "1000"]) == 0
    cpus = len(os.sched_getaffinity(0))
    assert f"-j 1000: this machine has {cpus} CPUs; running {cpus} in parallel" in capsys.readouterr().out
