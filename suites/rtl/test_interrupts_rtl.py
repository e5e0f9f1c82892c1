"""Ctrl-C during a regress on the fixture RTL (simulators running), then --resume: the results of an
uninterrupted run (suites/unit/ci/test_interrupts.py does the same with an external program)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("cocotb")
pytest.importorskip("hjson")
pytest.importorskip("xdist")

from suites.unit.ci.regress_helpers import interrupted  # noqa: E402


def _regress(nvdla_data, out, *extra: str) -> list[str]:
    return [sys.executable, "-m", "ci.cli", "regress", "--level", "smoke", "--impl", "rtl", "--seed", "3",
            "--nvdla-data", str(nvdla_data), "--out", str(out), "-j", "2", "--test", "nvidia/*", *extra]


def _outcome(out) -> tuple:
    report = json.loads((out / "results.json").read_text())
    junit = re.sub(r' time="[^"]*"', "", (out / "junit.xml").read_text())
    return sorted((r["id"], r["status"], r["detail"]) for r in report["tests"]), report["signoff"], junit


def test_ctrl_c_on_the_fixture_rtl_then_resume_is_the_uninterrupted_run(nvdla_data, fixture_build, tmp_path):
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    subprocess.run(_regress(nvdla_data, whole), capture_output=True, timeout=1200, check=False)
    scratch = tmp_path / "tmp"  # the simulations' run folders, so that this run's processes can be told apart
    scratch.mkdir()
    code, out, err = interrupted(_regress(nvdla_data, cut), cut, signal.SIGINT, timeout_s=900,
                                 env={**os.environ, "TMPDIR": str(scratch)})
    assert code == 130, out + err
    assert _running_in(scratch) == [], "a simulator was left running"
    resumed = subprocess.run(_regress(nvdla_data, cut, "--resume"), capture_output=True, text=True, timeout=1200)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert _outcome(cut) == _outcome(whole)


def _running_in(folder: Path) -> list[str]:
    """The processes whose working directory is inside the folder."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and str(Path(os.readlink(proc / "cwd"))).startswith(str(folder)):
                found.append((proc / "cmdline").read_text().replace("\0", " "))
        except OSError:
            continue
    return found
