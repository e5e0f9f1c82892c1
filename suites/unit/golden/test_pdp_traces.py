"""NVIDIA's PDP traces through the trace player and the PDP model: trace_tests/{nv_small,nv_large}/pdp_*
(int8, CRC) and the nvdlav1 traceplayer pdp_max_pooling_int16 (nv_full, golden dump_mem file)."""

from __future__ import annotations

import pytest

from golden.config import get_profile
from golden.player import play

PDP_TRACES = {
    "nv_small": [
        "pdp_12x9x19_8x3_ave_int8_0", "pdp_16x6x16_4x2_split_max_int8_0", "pdp_1x1x1_3x3_ave_int8_0",
        "pdp_1x3x8_8x8_ave_int8_0", "pdp_24x16x1_8x8_ave_int8_0", "pdp_28x28x8_2x2_max_int8_0",
        "pdp_5x7x8_4x1_split_max_int8_0", "pdp_7x9x10_3x3_int8", "pdp_8x8x32_1x1_int8_0", "pdp_8x8x32_1x1_int8_1",
        "pdp_8x8x64_2x2_ave_int8_0", "pdp_8x8x64_2x2_int8", "pdp_8x8x64_2x2_min_int8_0",
        "pdp_8x9x19_3x3_ave_int8_0", "pdp_8x9x19_3x3_ave_int8_1",
    ],
    "nv_large": [
        "pdp_8x8x32_1x1_max_int8_0", "pdp_passthrough_8x8x32_pack_all_zero_int8",
        "pdp_passthrough_8x8x32_pack_inc_int8",
    ],
}
# SDP -> PDP on the fly: PDP pools the SDP output cube (`upstream`).
CHAINED = {"nv_large": ["pdp_3x3x33_2x2_ave_int8_0"], "nv_small": ["sdp_pdp_32x16x32_pass_through_int8_0"]}

CASES = [(profile, name) for profile, names in PDP_TRACES.items() for name in names]
CHAINED_CASES = [(profile, name) for profile, names in CHAINED.items() for name in names]


def _play(nvdla_data, profile: str, name: str):
    result = play(nvdla_data / "trace_tests" / profile / name / f"{name}.cfg", get_profile(profile))
    return result


@pytest.mark.parametrize(("profile", "name"), CASES, ids=[f"{p}/{n}" for p, n in CASES])
def test_pdp_trace(nvdla_data, profile, name):
    result = _play(nvdla_data, profile, name)
    assert result.status == "passed", result.detail


@pytest.mark.parametrize(("profile", "name"), CHAINED_CASES, ids=[f"{p}/{n}" for p, n in CHAINED_CASES])
def test_sdp_pdp_chained_trace(nvdla_data, profile, name):
    result = _play(nvdla_data, profile, name)
    assert result.status == "passed", result.detail


def test_traceplayer_pdp_max_pooling_int16(nvdla_data):
    result = play(nvdla_data / "traceplayer" / "pdp_max_pooling_int16" / "input.txn", get_profile("nv_full"))
    assert result.status == "passed", result.detail
    assert any(check.command.startswith("dump_mem") for check in result.checks), "no golden dump compared"
