"""RECIP_KERNEL_WIDTH / HEIGHT at most 1/kernel (rule PDP-RECIP-KERNEL).

The bound is worked out here from NVIDIA's nv_small RTL, not from the rule's code: vmod/nvdla/pdp/
NV_NVDLA_PDP_CORE_cal2d.v multiplies the 14-bit window sum by {0, RECIP_KERNEL_WIDTH} and keeps bits [26:16]
(11 bits, rounded: a negative value's low half floors, a positive one adds bit 15 to bits [25:16]), then
multiplies that by {0, RECIP_KERNEL_HEIGHT} and keeps bits [23:16] the same way (nv_small lines 5174-5180 and
5252-5258). `rtl_average` below is that slicing; `exact` is the two products rounded half away from zero with
no width limit (the cmod). The nightly's two failing layers (kernel 1x8) programmed 0x10040 / 0x222d and
0xff27 / 0x2080.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from golden.config import get_profile
from golden.errors import ConfigurationError
from golden.regs.regmap import RegisterMap
from golden.rules import Facts
from golden.units.pdp import config as pdp_config
from stimulus.choose import Seeded
from stimulus.pdp import layers as pdp

PROFILE = get_profile("nv_small")
WIDTH, HEIGHT = "PDP.D_RECIP_KERNEL_WIDTH.RECIP_KERNEL_WIDTH", "PDP.D_RECIP_KERNEL_HEIGHT.RECIP_KERNEL_HEIGHT"
#: 1/k in 0.16 fixed point, worked by hand: 65536/3 = 21845.3, /5 = 13107.2, /6 = 10922.7, /7 = 9362.3.
LARGEST = {1: 0x10000, 2: 0x8000, 3: 0x5555, 4: 0x4000, 5: 0x3333, 6: 0x2AAA, 7: 0x2492, 8: 0x2000}


def _slice(product: np.ndarray, keep: int) -> np.ndarray:
    """cal2d's rounding of a product to bits [keep+15:16], read as a `keep`-bit signed value."""
    negative = product < 0
    low = product & 0xFFFF
    floor = product >> 16
    # a negative value with a fraction above one half goes up one (i8_more_neg_0_5); one at or below it floors
    # (i8_less_neg_0_5); a positive value adds bit 15 to its low keep-1 bits, the carry landing in the sign bit
    kept_negative = np.where(low > 0x8000, floor + 1, floor)
    kept_positive = (floor & ((1 << (keep - 1)) - 1)) + (low >> 15)
    kept = np.where(negative, kept_negative, kept_positive) & ((1 << keep) - 1)
    return np.where(kept >= 1 << (keep - 1), kept - (1 << keep), kept)


def rtl_average(total: np.ndarray, recip: tuple[int, int]) -> np.ndarray:
    return _slice(_slice(total * recip[0], 11) * recip[1], 8)


def exact(total: np.ndarray, recip: tuple[int, int]) -> np.ndarray:
    def round_half_away(x):
        return np.sign(x) * ((np.abs(x) + 0x8000) >> 16)
    return round_half_away(round_half_away(total * recip[0]) * recip[1])


def _sums(kw: int, kh: int) -> np.ndarray:
    """Every window sum of int8 values (padding counted as n x one int8 value) of a kw x kh kernel."""
    return np.arange(-128 * kw * kh, 127 * kw * kh + 1, dtype=np.int64)


def test_the_slicing_is_the_rtls_on_hand_worked_values():
    # 1016 x 0x2000 / 2**16 = 127 exactly; -1016 x 0x2000 = -127; 3 x 0x5555 = 0xFFFF -> 0.99998 -> 1
    assert list(rtl_average(np.array([1016, -1016, 3]), (0x10000, 0x2000))) == [127, -127, 0]
    assert rtl_average(np.array([3]), (0x5555, 0x10000))[0] == 1
    # the nightly's layer: eight rows of 127 with 0x2080: 1016 x 8320 / 2**16 = 128.98; the RTL keeps bits
    # [22:16] of 128 (0) plus the rounding bit: 1; the cmod's static_cast of 129 gives -127
    assert exact(np.array([1016]), (0x10000, 0x2080))[0] == 129
    assert rtl_average(np.array([1016]), (0x10000, 0x2080))[0] == 1


@pytest.mark.parametrize("kernel", sorted(LARGEST))
def test_at_the_bound_no_window_leaves_the_rtls_bits(kernel):
    for kw, kh in ((kernel, 8), (8, kernel), (kernel, kernel)):
        totals = _sums(kw, kh)
        recip = (LARGEST[kw], LARGEST[kh])
        np.testing.assert_array_equal(rtl_average(totals, recip), exact(totals, recip))
        assert exact(totals, recip).min() >= -128 and exact(totals, recip).max() <= 127


def test_above_the_bound_the_rtl_wraps_on_either_axis():
    for recip in ((0x10040, 0x222D), (0xFF27, 0x2080), (0x10000, 0x2000 + 32), (0x10000 + 256, 0x2000)):
        totals = _sums(1, 8)
        assert (rtl_average(totals, recip) != exact(totals, recip)).any(), recip


def _layer(kernel: tuple[int, int], recip: dict, method: str = "average"):
    """A legal 1-channel int8 pooling of one window with `kernel`, its RECIP fields set to `recip`."""
    kw, kh = kernel
    spec = pdp.PdpSpec("int8", method, (1, kh, kw), (1, 1), kernel, (1, 1), (0, 0, 0, 0),
                       src=(pdp.BASE, 64, 64 * kh), dst=(pdp.BASE + pdp.DST_OFFSET, 32, 32))
    spec = dataclasses.replace(spec, overrides=recip)
    regs = pdp.build(spec, PROFILE, Seeded(5).data()).values(RegisterMap.for_profile(PROFILE))
    return pdp_config.decode(regs), Facts(regs, PROFILE)


@pytest.mark.parametrize("kernel", sorted(LARGEST))
def test_largest_legal_reciprocal_is_accepted_one_more_is_rejected(kernel):
    for field, shape in ((WIDTH, (kernel, 1)), (HEIGHT, (1, kernel))):
        pdp_config.validate(*_layer(shape, {field: LARGEST[kernel]}), strict=True)
        with pytest.raises(ConfigurationError) as info:
            pdp_config.validate(*_layer(shape, {field: LARGEST[kernel] + 1}), strict=True)
        assert info.value.rule.startswith("PDP-RECIP-KERNEL") and field in info.value.fields


@pytest.mark.parametrize("recip", [(0x10040, 0x222D), (0xFF27, 0x2080)])
def test_the_nightlys_layers_are_rejected_naming_the_rule(recip):
    with pytest.raises(ConfigurationError) as info:
        pdp_config.validate(*_layer((1, 8), {WIDTH: recip[0], HEIGHT: recip[1]}))
    assert info.value.rule.startswith("PDP-RECIP-KERNEL")


def test_max_pooling_ignores_the_reciprocals():
    pdp_config.validate(*_layer((2, 2), {WIDTH: 0x1FFFF, HEIGHT: 0x1FFFF}, "max"), strict=True)
