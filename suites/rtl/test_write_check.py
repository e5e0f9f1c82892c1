"""The whole-memory write check on RTL: a fixture mutant that writes its output right and one atom more, where a
next surface would start, passes the trace's CRC and fails the write check; the clean fixture passes both."""

from __future__ import annotations

import pytest

pytest.importorskip("cocotb")  # rtl/build.py and rtl/runner.py import it (the `rtl` extra)

from golden.implementation import Golden  # noqa: E402
from rtl.build import BuildOptions  # noqa: E402
from rtl.implementation import Rtl  # noqa: E402
from rtl.suite import nvidia_trace  # noqa: E402
from scoreboards.verdict import verify  # noqa: E402

TRACE = "sdp_3x3x33_bs_int8_reg_0"


def _checks(result) -> dict[str, bool]:
    return {check.command: check.passed for check in result.checks}


def test_the_clean_fixture_writes_only_its_surfaces(fixture_build, nv_small):
    result = verify(nvidia_trace(TRACE), nv_small, Rtl(), Golden())
    assert result.status == "passed", result.detail
    assert _checks(result) == {"scoreboard vs golden": True, "check_crc": True, "memory writes": True}


def test_a_stray_write_fails_although_the_crc_matches(fixture_build, nv_small):
    stray = Rtl(build_options=BuildOptions(defines=("FX_BUG_STRAY_WRITE",)))
    result = verify(nvidia_trace(TRACE), nv_small, stray, Golden())
    assert result.status == "failed"
    assert _checks(result) == {"scoreboard vs golden": True, "check_crc": True, "memory writes": False}
    # the output: 5 surfaces of 0x300 bytes from 0x900001c0; the stray atom where a sixth would start
    assert "wrote 8 bytes outside every surface golden's layers write: pri_mem 0x900010c0 (+0x8)" in result.detail
    assert result.cycles > 0
