"""regress killed with SIGKILL halfway, then resumed, gives the same final report as an uninterrupted run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from suites.unit.ci.regress_helpers import SMALL_TRACES, data_root

#: The golden model in a separate process per layer (slow enough to be killed halfway).
PROGRAM = f"command:{sys.executable} {Path(__file__).with_name('golden_program.py')}"


def _regress(nvdla_data, out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "ci.cli", "regress", "--level", "smoke", "--impl", PROGRAM, "--seed", "3",
            "--nvdla-data", str(nvdla_data), "--out", str(out), "-j", "1", "--test", "nvidia/*", *extra]


def _running(words: str) -> bool:
    return subprocess.run(["pgrep", "-f", words], stdout=subprocess.DEVNULL).returncode == 0


def _verdicts(out: Path) -> list[tuple]:
    report = json.loads((out / "results.json").read_text())
    return sorted((r["id"], r["status"], r["detail"]) for r in report["tests"])


@pytest.mark.slow
def test_a_killed_regress_resumes_to_the_same_report(nvdla_data, tmp_path):
    # six small nv_small traces, all in the smoke level, killed after three (before: the 21 smoke traces, after 5)
    data = data_root(nvdla_data, tmp_path / "data")
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    subprocess.run(_regress(data, whole), capture_output=True, timeout=900, check=False)
    assert len(_verdicts(whole)) == len(SMALL_TRACES)
    process = subprocess.Popen(_regress(data, cut), stdout=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 600
    while process.poll() is None and time.monotonic() < deadline:
        if len(list((cut / "results").glob("*.json"))) >= 3:
            os.killpg(process.pid, signal.SIGKILL)
            break
        time.sleep(0.05)
    process.wait()
    # regress's pytest session has a session of its own: it may finish the test it was running before it ends
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and _running(str(cut)):
        time.sleep(0.1)
    finished = len(list((cut / "results").glob("*.json")))
    if finished == len(_verdicts(whole)):
        pytest.fail("the run finished before it could be killed")
    assert not (cut / "results.json").exists()
    resumed = subprocess.run(_regress(data, cut, "--resume"), capture_output=True, text=True, timeout=900)
    assert f"{finished} tests done before" in resumed.stdout, resumed.stdout + resumed.stderr
    assert _verdicts(cut) == _verdicts(whole)


def test_resume_with_other_options_is_refused(nvdla_data, tmp_path, capsys):
    from ci.cli import main

    out = tmp_path / "out"
    out.mkdir()
    (out / "manifest.json").write_text(json.dumps({"level": "nightly"}))
    assert main(_regress(nvdla_data, out, "--resume")[3:]) == 2
    assert "the stopped run had other options" in capsys.readouterr().err
