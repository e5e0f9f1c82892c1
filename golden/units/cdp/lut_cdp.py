"""CDP's integer LUT datapath, on top of the shared engine's register decoding (golden/units/lut.py).

TEMPORARY home (see report): the shared engine follows SDP's cmod (35-bit fraction, int32 result,
32-bit START/END, counters of the chosen table). CDP's cmod (nvdla/hw cmod/cdp/NV_NVDLA_cdp.cpp,
lookup_lut / lookup_lut_int8) differs in these points, which this module implements:

* START/END are 38-bit signed (LOW/HIGH pairs); the interpolation fraction keeps 16 bits (the bits
  below 2**16 of the offset within the entry are dropped): y0 + round((y1 - y0) * f16 / 2**16).
* Out of range: y0 + round((x - START|END - bias) * SCALE / 2**SHIFT) (SHIFT signed 5-bit, negative
  shifts left), saturated to 56 bits; bias = 2**LE_INDEX_OFFSET for an exponent-table underflow when
  the offset is >= 0 (SDP's engine adds it only for offsets > 0).
* Every table result saturates to int16 (the LUT output is 16 bits wide).
* Counters: UFLOW when both tables underflow, OFLOW when both overflow, LE_HIT / LO_HIT when exactly
  one table hits, HYBRID otherwise (both hit, or mixed misses).
"""

from __future__ import annotations

import numpy as np

from golden.numerics.integer import saturate, shift_left_saturate, shift_right_round
from golden.units.lut import LE_DEPTH, LO_DEPTH, LutParams, LutTables

INTERMEDIATE_BITS = 56
FRACTION_BITS = 16


def _scaled(value: np.ndarray, shift: int) -> np.ndarray:
    """value / 2**shift rounded half away from zero (a negative shift multiplies), saturated to 56 bits."""
    if shift >= 0:
        return saturate(shift_right_round(value, shift), INTERMEDIATE_BITS)[0]
    return shift_left_saturate(value, -shift, INTERMEDIATE_BITS)[0]


def _fraction16(remainder: np.ndarray, bits) -> np.ndarray:
    """A remainder of `bits` bits (int or array, >= 0) as a 16-bit fraction (truncating extra bits)."""
    bits = np.asarray(bits, dtype=np.int64)
    return np.where(bits > FRACTION_BITS, remainder >> np.maximum(bits - FRACTION_BITS, 0),
                    remainder << np.maximum(FRACTION_BITS - bits, 0))


class _Table:
    """One table's lookup: flags and the 16-bit result for every element of x."""

    def __init__(self, x, entries, depth, start, end, scales, shifts, bias=0):
        self.x, self.entries, self.depth = x, entries.astype(np.int64), depth
        self.start, self.end, self.scales, self.shifts, self.bias = start, end, scales, shifts, bias

    def result(self, under, over, idx, frac):
        idx = np.where(under | over, 0, idx)
        y0, y1 = self.entries[idx], self.entries[np.minimum(idx + 1, self.depth - 1)]
        hit_y = y0 + _scaled((y1 - y0) * frac, FRACTION_BITS)
        under_y = self.entries[0] + _scaled((self.x - self.start - self.bias) * self.scales[0], self.shifts[0])
        over_y = self.entries[-1] + _scaled((self.x - self.end) * self.scales[1], self.shifts[1])
        y = np.where(under, under_y, np.where(over, over_y, hit_y))
        return under, over, saturate(y, 16)[0]


def _linear(table: _Table, select: int):
    t = table.x - table.start
    positive = np.maximum(t, 0)
    if select >= 0:
        idx = positive >> select
        frac = _fraction16(positive & ((1 << select) - 1), select)
    else:
        idx = positive << -select
        frac = np.zeros_like(t)
    under = t <= 0
    over = ~under & (idx >= table.depth - 1)
    return table.result(under, over, idx, frac)


def _exponent(table: _Table, offset: int):
    t = table.x - table.start
    positive = np.maximum(t, 1)
    log2 = np.frexp(positive.astype(np.float64))[1].astype(np.int64) - 1  # exact below 2**53
    idx = log2 - offset
    under = (t <= 0) | (idx < 0)
    over = ~under & (idx >= table.depth - 1)
    frac = _fraction16(positive - (np.int64(1) << log2), log2)
    return table.result(under, over, idx, frac)


def lookup(x, params: LutParams, tables: LutTables) -> tuple[np.ndarray, dict[str, int]]:
    """CDP LUT on int64 square sums; returns (int16-range int64 results, D_PERF_LUT_* counters)."""
    x = np.asarray(x, dtype=np.int64)
    le_entries, lo_entries = tables.le.view(np.int16), tables.lo.view(np.int16)
    exponent = params.le_function == "EXPONENT"
    bias = (1 << params.le_index_offset) if exponent and params.le_index_offset >= 0 else 0
    le_table = _Table(x, le_entries, LE_DEPTH, params.le_start, params.le_end,
                      (params.le_uflow_scale, params.le_oflow_scale),
                      (params.le_uflow_shift, params.le_oflow_shift), bias)
    lo_table = _Table(x, lo_entries, LO_DEPTH, params.lo_start, params.lo_end,
                      (params.lo_uflow_scale, params.lo_oflow_scale),
                      (params.lo_uflow_shift, params.lo_oflow_shift))
    le_under, le_over, le_y = (_exponent(le_table, params.le_index_offset) if exponent
                               else _linear(le_table, params.le_index_select))
    lo_under, lo_over, lo_y = _linear(lo_table, params.lo_index_select)
    return select(le_under, le_over, le_y, lo_under, lo_over, lo_y, params)


def select(le_under, le_over, le_y, lo_under, lo_over, lo_y, params: LutParams):
    """The hybrid choice between the LE and LO results and the CDP counters."""
    le_hit, lo_hit = ~(le_under | le_over), ~(lo_under | lo_over)
    both_under, both_over = le_under & lo_under, le_over & lo_over
    one_hit = ~both_under & ~both_over & (le_hit ^ lo_hit)
    hybrid = ~both_under & ~both_over & ~one_hit
    use_lo = ((both_under & (params.uflow_priority == "LO")) | (both_over & (params.oflow_priority == "LO"))
              | (one_hit & lo_hit) | (hybrid & (params.hybrid_priority == "LO")))
    counters = {
        "D_PERF_LUT_UFLOW": int(np.count_nonzero(both_under)),
        "D_PERF_LUT_OFLOW": int(np.count_nonzero(both_over)),
        "D_PERF_LUT_HYBRID": int(np.count_nonzero(hybrid)),
        "D_PERF_LUT_LE_HIT": int(np.count_nonzero(one_hit & le_hit)),
        "D_PERF_LUT_LO_HIT": int(np.count_nonzero(one_hit & lo_hit)),
    }
    return np.where(use_lo, lo_y, le_y), counters
