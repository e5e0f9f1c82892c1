"""SIGTERM stops a command within seconds, with nothing of it left running, even when it was started the way a
shell starts a background job (`cmd &`: SIGINT ignored, inherited by everything it starts)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

PROGRAM = Path(__file__).with_name("golden_program.py")
HANG = f"command:{sys.executable} {PROGRAM} --fault hang"


def _as_a_background_job() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _started_by(mark: str) -> list[int]:
    """The processes whose environment carries `mark` (every descendant of the command inherits it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if f"NVDLA_STOP_MARK={mark}".encode() in environ.split(b"\0") and state != "Z":
            found.append(int(entry.name))
    return found


def _stopped_by_sigterm(command: list[str], tmp_path: Path) -> tuple[subprocess.CompletedProcess, float, list]:
    """Start the command as a background job, send it SIGTERM once an external program runs, and return its
    result, the seconds it took to end, and what it left running."""
    mark = uuid.uuid4().hex
    env = {**os.environ, "TMPDIR": str(tmp_path), "NVDLA_STOP_MARK": mark}
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=_as_a_background_job)
    try:
        deadline = time.monotonic() + 120
        while not list(tmp_path.glob("nvdla-*/program.log")) and time.monotonic() < deadline:
            assert process.poll() is None, process.communicate()
            time.sleep(0.05)
        time.sleep(0.5)  # the program runs inside its folder
        process.send_signal(signal.SIGTERM)
        sent = time.monotonic()
        try:
            out, err = process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            pytest.fail("still running 10 s after SIGTERM")
        took = time.monotonic() - sent
        time.sleep(0.2)
        left = _started_by(mark)
    finally:
        for pid in _started_by(mark):
            os.kill(pid, signal.SIGKILL)
        process.kill()
        process.wait()
    return subprocess.CompletedProcess(command, process.returncode, out, err), took, left


def test_sigterm_stops_a_regress_started_with_sigint_ignored(nvdla_data, tmp_path):
    pytest.importorskip("xdist")
    out = tmp_path / "out"
    command = [sys.executable, "-m", "ci.cli", "regress", "--level", "smoke", "--impl", HANG, "--seed", "3",
               "--nvdla-data", str(nvdla_data), "--out", str(out), "-j", "2", "--test", "nvidia/*", "--shrink", "0"]
    result, took, left = _stopped_by_sigterm(command, tmp_path)
    assert result.returncode == 130, result.stdout + result.stderr
    assert took < 10
    assert left == [], "processes of the regress were left running"
    assert "--resume runs the rest" in result.stderr


def test_sigterm_stops_a_conform_with_workers_started_with_sigint_ignored(nvdla_data, tmp_path):
    traces = nvdla_data / "trace_tests" / "nv_small"
    command = [sys.executable, "-m", "ci.cli", "conform", str(traces / "sdp_1x1x1_pass_through_int8"),
               str(traces / "sdp_1x1x8_pass_through_int8_0"), str(traces / "sdp_8x8x32_bypass_int8_0"),
               "--impl", HANG, "-j", "2", "--json", str(tmp_path / "results.json")]
    result, took, left = _stopped_by_sigterm(command, tmp_path)
    assert result.returncode == 130, result.stdout + result.stderr
    assert took < 10
    assert left == [], "workers or external programs of the conform were left running"
    assert list(tmp_path.glob("nvdla-*")) == [], "an external program's work folder was left behind"
    assert "Traceback" not in result.stderr
