"""The stages added for the CDP LUT extrapolation (observed over all elements) and SDP's fp16 -> int16 output:
classes worked out by hand."""

from __future__ import annotations

import numpy as np

from golden.numerics import corners
from golden.units.cdp.lut import lookup
from golden.units.lut import LutParams, LutTables


def _masks(seen, stage):
    return {name: np.flatnonzero(mask).tolist() for name, mask in seen.masks[stage].items() if mask.any()}


def test_cdp_underflow_extrapolation_classes_map_back_to_their_elements():
    # LE linear from START 100 (select 0, span 64), LO the same START (span 256): sums at or below 100 underflow
    # both tables, UFLOW_PRIORITY LE: (x - 100) * 1 >> 2. x = 94: -6, dropped 2 = one half (tie, negative);
    # 95: -5, dropped 1 (one below); 96: -4, nothing dropped; 97: -3, dropped 3 (one above); 150 hits the table.
    params = LutParams(le_start=100, le_end=164, lo_start=100, lo_end=356, le_uflow_scale=1, le_uflow_shift=2)
    x = np.array([94, 95, 96, 97, 150])
    with corners.observe(masks=True) as seen:
        lookup(x, params, LutTables())
    assert _masks(seen, "cdp.lut.extrap.round") == {"tie-": [0], "below_tie": [1], "above_tie": [3]}
    assert seen.elements["cdp.lut.extrap.round"] == 4
    assert seen.masks["cdp.lut.extrap.round"]["tie-"].shape == x.shape


def test_sdp_fp16_to_int16_rounding_and_saturation_classes():
    # fp16 patterns: 0.5 (0x3800), -1.5 (0xBE00), 0.5 - 2**-12 (0x37FF: the spacing in [0.25, 0.5) is 2**-12),
    # 0.5 + 2**-11 (0x3801: the spacing in [0.5, 1) is 2**-11), +0, -32768 (0xF800), 32768 (0x7800), -INF, NaN
    bits = np.array([0x3800, 0xBE00, 0x37FF, 0x3801, 0x0000, 0xF800, 0x7800, 0xFC00, 0x7E00], np.uint16)
    with corners.observe(masks=True) as seen:
        corners.fp16_to_int("s", bits, 16)
    assert _masks(seen, "s.round") == {"tie+": [0], "tie-": [1], "below_tie": [2], "above_tie": [3],
                                       "zero": [4]}
    assert _masks(seen, "s.saturate") == {"at_min": [5], "sat_max": [6], "sat_min": [7]}
    assert seen.elements["s.round"] == 8  # the NaN is left out
