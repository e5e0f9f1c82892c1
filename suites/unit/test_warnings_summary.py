"""pytest says the golden model's LimitationWarnings once, in one line per run (issue 46: nine paragraphs of about
600 characters each ended every run of the suite); other warnings stay in pytest's own summary."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = '''
import warnings

import pytest

from golden.rules import LimitationWarning


@pytest.mark.parametrize("n", range(3))
def test_limitation(n):
    warnings.warn("D_DP_BS_CFG: " + "a long explanation " * 30 + f"[rule: sdp.advisory_{n % 2}]", LimitationWarning)


def test_other():
    warnings.warn("an unrelated warning", UserWarning)
'''


def test_limitation_warnings_are_summarised_in_one_line(tmp_path):
    (tmp_path / "test_some.py").write_text(TESTS)
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "conftest", "-p", "no:cacheprovider", "-q",
                          "test_some.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 0, run.stdout + run.stderr
    assert "a long explanation" not in run.stdout, run.stdout
    lines = [line for line in run.stdout.splitlines() if "LimitationWarning" in line]
    assert len(lines) == 1 and lines[0].startswith("3 LimitationWarnings"), run.stdout
    assert "sdp.advisory_0 x2" in lines[0] and "sdp.advisory_1 x1" in lines[0], lines[0]
    assert "an unrelated warning" in run.stdout
