"""conform killed with SIGKILL halfway, then resumed, gives the same final report as an uninterrupted run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

PROGRAM = f"{sys.executable} {Path(__file__).with_name('golden_program.py')}"


def _conform(nvdla_data, out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "ci.cli", "conform", str(nvdla_data / "trace_tests/nv_small"), "-k", "cdp_8x8x64",
            "--impl", f"command:{PROGRAM}", "--json", str(out), *extra]


def _report(path: Path) -> dict:
    report = json.loads(path.read_text())
    for result in report["results"]:
        result.pop("seconds")
    return report


@pytest.mark.slow
def test_a_killed_conform_resumes_to_the_same_report(nvdla_data, tmp_path):
    whole, cut = tmp_path / "whole.json", tmp_path / "cut.json"
    subprocess.run(_conform(nvdla_data, whole), check=False, capture_output=True, timeout=600)
    process = subprocess.Popen(_conform(nvdla_data, cut), stdout=subprocess.PIPE, text=True,
                               start_new_session=True)
    seen = 0
    for line in process.stdout:
        seen += line.startswith("[")
        if seen == 5:
            os.killpg(process.pid, signal.SIGKILL)
            break
    process.wait()
    journal = Path(f"{cut}.journal")
    assert not cut.exists() and len(journal.read_text().splitlines()) >= 1 + 5  # header + the 5 results
    resumed = subprocess.run(_conform(nvdla_data, cut, "--resume"), capture_output=True, text=True, timeout=600)
    assert "done before" in resumed.stdout and resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert _report(cut) == _report(whole) and len(_report(whole)["results"]) == 14
    assert not journal.exists()


def test_resume_refuses_the_journal_of_another_run(nvdla_data, tmp_path, capsys):
    from ci.cli import main

    out = tmp_path / "out.json"
    Path(f"{out}.journal").write_text(json.dumps({"command": "conform", "implementation": "rtl"}) + "\n")
    assert main(["conform", str(nvdla_data / "trace_tests/nv_small"), "-k", "cdp_8x8x64_lrn3_int8_0",
                 "--json", str(out), "--resume"]) == 2
    assert "the journal is of another run" in capsys.readouterr().err
