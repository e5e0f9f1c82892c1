"""The CDMA convertor on feature data (golden.units.conv.cdma): NVIDIA's RTL converts a direct convolution's
feature input when CVT_EN is set, though precision-preservation's cc_cvt row says feature input does not use it.
Expected values are worked by hand (the convertor cell nvdla/hw NV_NVDLA_HLS_shiftrightsu rounds half away from
zero and saturates) or come from NVIDIA's nv_small RTL (recorded/)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from golden import rules
from golden.config import get_profile
from golden.player import play
from golden.units import conv
from golden.units.conv.config import decode
from golden.units.conv.program import DirectLayer, direct_layer

SMALL, FULL = get_profile("nv_small"), get_profile("nv_full")
RECORDED = Path(__file__).parent / "recorded" / "conv_feature_convertor"


def one_by_one(profile, values, precision, convertor):
    """A 1x1 convolution of one channel with the weight 1: the output is what CDMA wrote into the CBUF."""
    cube = np.array(values, dtype=np.int64).reshape(1, 1, len(values))
    weights = np.ones((1, 1, 1, 1), dtype=np.int64)
    ctx = direct_layer(profile, cube, weights, DirectLayer(precision=precision, convertor=convertor))
    return conv.run(ctx).output.reshape(-1).tolist()


def test_int8_feature_data_is_converted():
    # (x - 4) * -3 = 396, 21, 12, -3, -369; >> 1 rounding half away from zero: 198, 10.5, 6, -1.5, -184.5
    assert one_by_one(SMALL, [-128, -3, 0, 5, 127], "int8", (4, -3, 1)) == [127, 11, 6, -2, -128]


def test_int16_feature_data_is_converted():
    # (x + 1000) * 7 = -222,376, 7,000, 7,007, 236,369; >> 3: -27,797, 875, 875.875, 29,546.125
    assert one_by_one(FULL, [-32768, 0, 1, 32767], "int16", (-1000, 7, 3)) == [-27797, 875, 876, 29546]


def test_without_the_convertor_feature_data_pass_unchanged():
    assert one_by_one(SMALL, [-128, -3, 0, 5, 127], "int8", None) == [-128, -3, 0, 5, 127]


def test_nv_small_rtl_output():
    """A generated layer whose PDP output CRC NVIDIA's nv_small RTL reproduced (recorded/README.md)."""
    result = play(RECORDED / "conv_feature_convertor.cfg", SMALL)
    assert result.status == "passed", result.detail


@pytest.mark.parametrize(("precision", "mode", "broken"), [
    ("int8", "direct", False), ("int16", "direct", False), ("fp16", "direct", True), ("int8", "winograd", True)])
def test_the_convertor_on_feature_input_is_kept_to_integer_direct_convolution(precision, mode, broken):
    """NVIDIA's C model rejects fp16 feature data through the convertor and skips it in Winograd mode."""
    ctx = direct_layer(FULL, np.ones((1, 4, 4)), np.ones((1, 1, 3, 3)), DirectLayer(precision=precision))
    cfg = dataclasses.replace(decode(ctx.regs), cvt_en=True, csc_conv_mode=mode)
    found = [r.id for r, _ in rules.violations("CONV", cfg, rules.Facts(profile=FULL))]
    assert ("CONV-FEATURE-CONVERTOR" in found) == broken
