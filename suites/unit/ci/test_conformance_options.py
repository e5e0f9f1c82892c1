"""suites/conformance takes --impl/--ref: an implementation with a wrong byte fails there through the
scoreboards, the same program without the fault passes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
PROGRAM = Path(__file__).resolve().parent / "golden_program.py"


def _conformance(nvdla_data, impl: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", str(REPO / "suites" / "conformance"), "-q", "-p",
                           "no:cacheprovider", "-p", "no:randomly", "--nvdla-data", str(nvdla_data), "--impl", impl,
                           "-k", "nv_small and sdp_3x3x33_bs_int8_reg_0"], cwd=REPO, capture_output=True, text=True,
                          timeout=300)


@pytest.mark.slow
def test_conformance_plays_the_implementation_the_options_name(nvdla_data):
    good = _conformance(nvdla_data, f"command:{sys.executable} {PROGRAM}")
    assert good.returncode == 0, good.stdout[-2000:]
    assert "1 passed" in good.stdout
    bad = _conformance(nvdla_data, f"command:{sys.executable} {PROGRAM} --fault wrong-byte")
    assert bad.returncode == 1
    assert "scoreboard vs golden" in bad.stdout and "1 of 360 elements mismatch" in bad.stdout
