"""What a first-time user reads at the end of a run (issue 46): conform, certify and regress end with one line
that gives the verdict, the counts and why the run exits as it does; a failing trace of conform comes with a
command that plays it again."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import golden.units
from ci.cli import main
from golden.examples import DEFAULT_TRACE


def _trace(folder: Path, crc: str | None = None, data: bool = True) -> Path:
    """The shipped example layer in its own folder; `crc` replaces its expected CRC, without `data` its input
    file is missing."""
    folder.mkdir(parents=True)
    text = DEFAULT_TRACE.read_text()
    if crc is not None:
        text = text.replace("0xd97c87b3", crc)
    (folder / DEFAULT_TRACE.name).write_text(text)
    if data:
        for source in DEFAULT_TRACE.parent.glob("*.dat"):
            shutil.copy(source, folder / source.name)
    return folder / DEFAULT_TRACE.name


def _last_line(capsys) -> tuple[str, str]:
    out = capsys.readouterr().out
    return out.strip().splitlines()[-1], out


def test_conform_says_why_a_run_with_an_error_row_exits_0(tmp_path, capsys):
    _trace(tmp_path / "good")
    _trace(tmp_path / "no_data", data=False)
    assert main(["conform", str(tmp_path), "--profile", "nv_small"]) == 0
    last, out = _last_line(capsys)
    assert "ERROR" in out  # the row of the trace without its data file
    assert last.startswith("conform: PASSED: ") and "exit 0" in last
    assert "1 passed" in last and "of 2 traces" in last
    assert "not counted: 1 lack a data file (not run)" in last


def test_conform_says_why_a_run_without_failures_exits_1(tmp_path, capsys, monkeypatch):
    _trace(tmp_path / "layer")
    monkeypatch.setitem(golden.units.MODELS, "SDP", "golden.units.no_such_sdp_model")
    assert main(["conform", str(tmp_path), "--profile", "nv_small"]) == 1
    last, _ = _last_line(capsys)
    assert last.startswith("conform: FAILED: 1 unsupported of 1 traces (exit 1: ")
    assert "unsupported counts" in last


def test_a_failing_trace_prints_a_command_that_plays_it_again(tmp_path, capsys):
    folder = tmp_path / "it's $(odd)"
    _trace(folder, crc="0x12345678")
    assert main(["conform", str(tmp_path), "--profile", "nv_small", "--ref", "none"]) == 1
    last, out = _last_line(capsys)
    assert last.startswith("conform: FAILED: 1 failed of 1 traces (exit 1: ")
    lines = [line.strip() for line in out.splitlines() if line.strip().startswith("reproduce: ")]
    assert len(lines) == 1
    words = shlex.split(lines[0].removeprefix("reproduce: "))
    arguments = words[words.index("play"):]
    assert Path(arguments[1]) == (folder / DEFAULT_TRACE.name).absolute()
    assert main(arguments) == 1  # the same failure, played alone
    played = capsys.readouterr().out
    assert "FAIL" in played and "check_crc" in played and "0x12345678" in played
