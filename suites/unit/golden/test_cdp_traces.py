"""NVIDIA's CDP traces (trace_tests/{nv_small,nv_large}/cdp_*, int8, one CRC each) through the trace player
(which replays the S_LUT_ACCESS writes into the CDP LUT) and the CDP model."""

from __future__ import annotations

import pytest

from golden.config import get_profile
from golden.player import play

CDP_TRACES = {
    "nv_small": [
        "cdp_1x1x1_lrn3_int8_0", "cdp_1x1x31_lrn3_int8_0", "cdp_33x17x34_lrn5_int8_0", "cdp_8x8x32_lrn3_int8_0",
        "cdp_8x8x32_lrn3_int8_1", "cdp_8x8x32_lrn3_int8_2", "cdp_8x8x32_lrn5_int8_0", "cdp_8x8x32_lrn7_int8_0",
        "cdp_8x8x32_lrn9_int8_0", "cdp_8x8x64_lrn3_int8_0", "cdp_8x8x64_lrn3_int8_1", "cdp_8x8x64_lrn3_int8_10",
        "cdp_8x8x64_lrn3_int8_11", "cdp_8x8x64_lrn3_int8_12", "cdp_8x8x64_lrn3_int8_2", "cdp_8x8x64_lrn3_int8_3",
        "cdp_8x8x64_lrn3_int8_4", "cdp_8x8x64_lrn3_int8_5", "cdp_8x8x64_lrn3_int8_6", "cdp_8x8x64_lrn3_int8_7",
        "cdp_8x8x64_lrn3_int8_8", "cdp_8x8x64_lrn3_int8_9", "cdp_8x8x64_lrn9_int8",
    ],
    # cdp_8x8x64_lrn9_int8_0 reads and writes CV-SRAM (sec_mem).
    "nv_large": ["cdp_8x8x64_lrn9_int8_0", "cdp_passthrough_8x8x32_pack_inc_int8"],
}
CASES = [(profile, name) for profile, names in CDP_TRACES.items() for name in names]


@pytest.mark.parametrize(("profile", "name"), CASES, ids=[f"{p}/{n}" for p, n in CASES])
def test_cdp_trace(nvdla_data, profile, name):
    result = play(nvdla_data / "trace_tests" / profile / name / f"{name}.cfg", get_profile(profile))
    assert result.status == "passed", result.detail
