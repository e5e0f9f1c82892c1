"""The output width PDP's line buffer holds (rule PDP-LINE-BUFFER-WIDTH).

The expected limits are NVIDIA's RTL case statements written out here (vmod/nvdla/pdp/NV_NVDLA_PDP_CORE_cal2d.v,
nv_small preprocessed lines 796-834): lines kept = kernel height for stride 1, ceil(kernel/2) for stride 2,
2 or 3 (kernel <= 6 or not) for stride 3, 2 for a larger stride, 1 when the stride is at least the kernel; banks
per line 8 / 4 / 2 / 1 for 1 / 2 / 3-4 / 5-8 lines; 16 output columns per bank (asserts at lines 653-656). On
nv_small's RTL the nightly's layer (conv -> SDP -> PDP on the fly, 22 output columns, kernel 5x8, stride 1)
never raised PDP's done; the same layer with kernel width 7 (16 columns) finished bit-exact and with kernel
width 6 (17 columns) hung again.
"""

from __future__ import annotations

import pytest

from golden.config import get_profile
from golden.errors import ConfigurationError
from golden.regs.regmap import RegisterMap
from golden.rules import Facts
from golden.units.pdp import config as pdp_config
from golden.units.pdp.rules import max_out_width
from stimulus.choose import Seeded
from stimulus.conv import layers as conv
from stimulus.families import layers
from stimulus.pdp import layers as pdp

PROFILE = get_profile("nv_small")
RULE = "PDP-LINE-BUFFER-WIDTH"


def rtl_lines(kernel: int, stride: int) -> int:
    if stride >= kernel:
        return 1
    return {1: kernel, 2: kernel // 2 + kernel % 2, 3: 2 if kernel <= 6 else 3}.get(stride, 2)


def rtl_columns(kernel: int, stride: int) -> int:
    banks = {1: 8, 2: 4, 3: 2, 4: 2}.get(rtl_lines(kernel, stride), 1)
    return 16 * banks


@pytest.mark.parametrize("stride", range(1, 9))
def test_limit_is_the_rtls_bank_arithmetic(stride):
    for kernel in range(1, 9):
        assert max_out_width(kernel, stride) == rtl_columns(kernel, stride), (kernel, stride)


def test_hand_worked_limits():
    # kernel 8 stride 1: 8 lines, one bank each: 16; kernel 3 stride 1: 3 lines, 2 banks: 32;
    # kernel 8 stride 2: 4 lines: 32; kernel 2 stride 1: 64; kernel 2 stride 2: 1 line over 8 banks: 128
    assert [max_out_width(k, s) for k, s in ((8, 1), (3, 1), (8, 2), (2, 1), (2, 2))] == [16, 32, 32, 64, 128]


def _layer(out_w: int, kernel_h: int, stride_h: int, split=None):
    """An offline int8 max pooling of `out_w` columns (kernel width 1), kernel height / stride as given."""
    height = kernel_h
    spec = pdp.PdpSpec("int8", "max", (1, height, out_w), (1, out_w), (1, kernel_h), (1, stride_h), (0, 0, 0, 0),
                       split=split, src=(pdp.BASE, 8 * out_w, 8 * out_w * height),
                       dst=(pdp.BASE + pdp.DST_OFFSET, 8 * out_w, 8 * out_w))
    regs = pdp.build(spec, PROFILE, Seeded(5).data()).values(RegisterMap.for_profile(PROFILE))
    return pdp_config.decode(regs), Facts(regs, PROFILE)


@pytest.mark.parametrize(("kernel_h", "stride_h", "limit"), [(8, 1, 16), (5, 1, 16), (4, 1, 32), (8, 2, 32),
                                                             (2, 1, 64), (1, 1, 128)])
def test_one_column_past_the_limit_is_rejected_naming_the_rule(kernel_h, stride_h, limit):
    pdp_config.validate(*_layer(limit, kernel_h, stride_h), strict=True)
    with pytest.raises(ConfigurationError) as info:
        pdp_config.validate(*_layer(limit + 1, kernel_h, stride_h), strict=True)
    assert info.value.rule.startswith(RULE) and "PDP.D_DATA_CUBE_OUT_WIDTH.CUBE_OUT_WIDTH" in info.value.fields


def test_split_passes_are_bounded_one_by_one():
    # 34 columns (kernel 1, stride 1) split 17 + 17 under kernel height 8: each pass is one column too wide;
    # split 16 + 16 + 2 it fits, though the cube is wider than 16
    with pytest.raises(ConfigurationError) as info:
        pdp_config.validate(*_layer(34, 8, 1, split=(2, (17, 1, 17), (17, 1, 17))), strict=True)
    assert info.value.rule.startswith(RULE)
    pdp_config.validate(*_layer(34, 8, 1, split=(3, (16, 16, 2), (16, 16, 2))), strict=True)


def test_the_nightlys_on_the_fly_layer_is_now_drawn_within_the_line_buffer():
    regmap = RegisterMap.for_profile(PROFILE)
    for layer in layers("conv", PROFILE, 1769626998, 14, 2):
        if layer.fields.get("SDP.D_FEATURE_MODE_CFG.OUTPUT_DST") == "PDP":
            regs = layer.values(regmap)
            pdp_config.validate(pdp_config.decode(regs), Facts(regs, PROFILE), strict=True)


def test_on_the_fly_pooling_never_draws_a_pass_wider_than_the_buffer():
    for seed in range(300):
        spec = conv.pool(Seeded([seed]), PROFILE, "int8", (3, 92, 22 + seed % 60), pdp.BASE)
        assert spec.out_hw[1] <= max_out_width(spec.kernel[1], spec.stride[1])
