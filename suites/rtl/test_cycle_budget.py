"""Cycle budgets come from the layer's work (bytes moved, convolution MACs), for any unit."""

import pytest

from golden.config import get_profile
from golden.regs.regmap import RegisterMap
from golden.trace import load_trace
from rtl.cycle_budget import BASE_CYCLES, layer_cycle_budget
from rtl.job import job_from_trace
from rtl.suite import nvidia_trace

PROFILE = get_profile("nv_small")
REGMAP = RegisterMap.for_profile(PROFILE)


def _budget(name, tmp_path):
    path = nvidia_trace(name)
    if not path.exists():
        pytest.skip("NVIDIA traces not available")
    return layer_cycle_budget(job_from_trace(load_trace(path)), REGMAP, PROFILE)


def test_a_large_convolution_gets_more_than_it_needs(tmp_path):
    # measured on NVIDIA's nv_small RTL: 81,316 cycles (the fixture's SDP formula gave 29,520)
    assert _budget("dc_8x16x128_3x3x128x32_int8", tmp_path) > 2 * 81_316


def test_pooling_and_small_sdp_layers_still_fail_fast(tmp_path):
    for name in ("pdp_8x8x64_2x2_int8", "sdp_3x3x33_bs_int8_reg_0"):
        assert BASE_CYCLES < _budget(name, tmp_path) < 500_000


@pytest.mark.slow
def test_the_budget_grows_with_the_data_moved(tmp_path):
    assert _budget("sdp_1x8192x1_pass_through_int8_0", tmp_path) > _budget("sdp_1x1x1_pass_through_int8", tmp_path)
