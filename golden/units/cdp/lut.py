"""CDP's LUT datapath (integer and fp16), on the LUT registers and RAM of golden/units/lut.py.

golden/units/lut.py decodes the S_LUT_* registers, holds the LE/LO RAMs and computes SDP's lookup
(35-bit fraction, int32 result, 32-bit START/END, counters of the chosen table). CDP's cmod
(nvdla/hw cmod/cdp/NV_NVDLA_cdp.cpp, lookup_lut / lookup_lut_int8) differs in these points, which
this module implements:

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

from golden.numerics import corners, fp, fp_arith
from golden.numerics.integer import saturate, shift_left_saturate, shift_right_round
from golden.units.lut import LE_DEPTH, LO_DEPTH, LutParams, LutTables

INTERMEDIATE_BITS = 56
FRACTION_BITS = 16


def _scaled(value: np.ndarray, shift: int, ties_toward_zero: bool = False) -> np.ndarray:
    """value / 2**shift rounded half away from zero (a negative shift multiplies), saturated to 56 bits."""
    if shift >= 0:
        return saturate(_round(value, shift, ties_toward_zero), INTERMEDIATE_BITS)[0]
    return shift_left_saturate(value, -shift, INTERMEDIATE_BITS)[0]


def _round(value, shift: int, ties_toward_zero: bool = False) -> np.ndarray:
    """value / 2**shift rounded half away from zero (NVIDIA RTL cdp/NV_NVDLA_CDP_DP_INTP_unit.v, the rounding
    after the right shift, shared by interpolation and extrapolation); `ties_toward_zero`: exact halves rounded
    the other way, to see whether a tie reaches the output (lrn.py, corners.reach)."""
    rounded = shift_right_round(value, shift)
    if ties_toward_zero and shift > 0:
        value = np.asarray(value, np.int64)
        tie = (np.abs(value) & ((1 << shift) - 1)) == 1 << (shift - 1)
        rounded = rounded - np.sign(value) * tie
    return rounded


def _fraction16(remainder: np.ndarray, bits) -> np.ndarray:
    """A remainder of `bits` bits (int or array, >= 0) as a 16-bit fraction (truncating extra bits)."""
    if np.ndim(bits) == 0:
        return remainder >> (bits - FRACTION_BITS) if bits > FRACTION_BITS else remainder << (FRACTION_BITS - bits)
    bits = np.asarray(bits, dtype=np.int64)
    return np.where(bits > FRACTION_BITS, remainder >> np.maximum(bits - FRACTION_BITS, 0),
                    remainder << np.maximum(FRACTION_BITS - bits, 0))


def _linear_flags(x, start: int, select: int, depth: int):
    """(under, over) of a linear table: x <= START, or index (x - START) >> SELECT beyond the last entry."""
    last = (depth - 1) << select if select >= 0 else -(-(depth - 1) >> -select)  # first t with index >= depth-1
    return x <= _bounded(start), x >= _bounded(start + last)


def _exponent_flags(x, start: int, offset: int, depth: int):
    """(under, over) of an exponent table: index floor(log2(x - START)) - OFFSET below 0 or beyond the last."""
    low = 1 << max(offset, 0)  # smallest t with log2(t) >= offset
    high = start + (1 << (offset + depth - 1)) if offset + depth - 1 >= 0 else start + 1
    return x < _bounded(start + low), x >= _bounded(high)


def _bounded(threshold: int) -> int:
    """A comparison threshold clamped to what any square sum (< 2**40) can reach, so it fits the array dtype."""
    return max(-(1 << 40), min(1 << 40, threshold))


def _hit(x, start: int, select: int, exponent: bool):
    """(index, 16-bit fraction) for elements inside a table."""
    t = np.asarray(x, np.int64) - start  # x may be int32 (int8 square sums); START is 38-bit
    if exponent:
        log2 = np.frexp(t.astype(np.float64))[1].astype(np.int64) - 1  # exact below 2**53
        return log2 - select, _fraction16(t - (np.int64(1) << log2), log2)
    if select < 0:
        return t << -select, np.zeros_like(t)
    return t >> select, _fraction16(t & ((1 << select) - 1), select)


def lookup(x, params: LutParams, tables: LutTables, ties_toward_zero: str = "") -> tuple[np.ndarray, dict[str, int]]:
    """CDP LUT on integer square sums; returns (int16-range int64 results, D_PERF_LUT_* counters).
    `ties_toward_zero` "interp" or "extrap": that rounding's exact ties rounded the other way (lrn.py's reach)."""
    x = np.asarray(x)
    exponent = params.le_function == "EXPONENT"
    le_under, le_over = (_exponent_flags(x, params.le_start, params.le_index_offset, LE_DEPTH) if exponent
                         else _linear_flags(x, params.le_start, params.le_index_select, LE_DEPTH))
    lo_under, lo_over = _linear_flags(x, params.lo_start, params.lo_index_select, LO_DEPTH)
    use_lo, counters = choose(le_under, le_over, lo_under, lo_over, params)
    le_entries = tables.le.view(np.int16).astype(np.int64)
    lo_entries = tables.lo.view(np.int16).astype(np.int64)
    bias = (1 << params.le_index_offset) if exponent and params.le_index_offset >= 0 else 0
    y = np.empty(x.shape, np.int64)
    cases = [  # (elements, entries, start, select or offset, exponent index, (under/over: origin, scale, shift))
        (~use_lo, le_entries, params.le_start, params.le_index_offset if exponent else params.le_index_select,
         exponent, le_under, le_over, (params.le_start + bias, params.le_uflow_scale, params.le_uflow_shift),
         (params.le_end, params.le_oflow_scale, params.le_oflow_shift)),
        (use_lo, lo_entries, params.lo_start, params.lo_index_select, False, lo_under, lo_over,
         (params.lo_start, params.lo_uflow_scale, params.lo_uflow_shift),
         (params.lo_end, params.lo_oflow_scale, params.lo_oflow_shift)),
    ]
    for chosen, entries, start, select, is_exponent, under, over, uflow, oflow in cases:
        hit = chosen & ~under & ~over
        other = ties_toward_zero == "interp"
        if hit.all():
            y[...] = _interpolate(x, entries, start, select, is_exponent, other)
        elif hit.any():
            y[hit] = _interpolate(x[hit], entries, start, select, is_exponent, other)
        for mask, entry, (origin, scale, shift) in ((chosen & under, 0, uflow), (chosen & over, -1, oflow)):
            if mask.any():
                y[mask] = entries[entry] + _scaled((x[mask].astype(np.int64) - origin) * scale, shift,
                                                   ties_toward_zero == "extrap")
    if corners.active():
        _observe_extrapolation(x, cases)
    corners.saturation("cdp.lut.out.saturate", y, 16)
    return np.clip(y, -(1 << 15), (1 << 15) - 1, out=y), counters


def _observe_extrapolation(x, cases) -> None:
    """The extrapolations' right shifts as one stage over all elements (the ones that took none masked out),
    so that a class maps back to the element that met it. A negative SHIFT multiplies: no rounding there."""
    value, shift, taken = np.zeros(x.shape, np.int64), np.zeros(x.shape, np.int64), np.zeros(x.shape, bool)
    for chosen, *_, under, over, uflow, oflow in cases:
        for mask, (origin, scale, s) in ((chosen & under, uflow), (chosen & over, oflow)):
            if s >= 0:
                value = np.where(mask, (x.astype(np.int64) - origin) * scale, value)
                shift, taken = np.where(mask, s, shift), taken | mask
    corners.convertor("cdp.lut.extrap", value, shift, INTERMEDIATE_BITS, where=taken)


def _interpolate(x, entries, start, select, exponent, ties_toward_zero=False):
    idx, frac = _hit(x, start, select, exponent)
    y0 = entries[idx]
    corners.rounding("cdp.lut.interp.round", (entries[idx + 1] - y0) * frac, FRACTION_BITS)
    return y0 + _round((entries[idx + 1] - y0) * frac, FRACTION_BITS, ties_toward_zero)


def choose(le_under, le_over, lo_under, lo_over, params: LutParams):
    """The hybrid choice of table per element (True: LO) and the CDP counters."""
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
    return use_lo, counters


# ---- fp16 pipeline (cmod hls_wrapper/cdp_hls_wrapper.cpp, HLS_CDP_lookup_lut) ------------------------------------

def _fp_table(total, entries, upper: int, start: int | np.integer, end: int | np.integer, scales, offset: int,
              select: int, exponent: bool):
    """One table on fp32 square sums: (under, over, fp17 result). START/END are fp32 patterns (LOW word),
    SCALEs fp16 patterns; the interpolation fraction keeps 16 bits and becomes an fp17 number."""
    start, end = np.uint32(start & 0xFFFFFFFF), np.uint32(end & 0xFFFFFFFF)
    d = fp_arith.fp_sub(total, start, "fp32").astype(np.int64)
    value = fp.fp32_to_float64(d.astype(np.uint32))
    under = ~(value > 0)  # <= 0 or NaN
    if exponent:
        idx = ((d >> 23) & 0xFF) - 127 - offset
        frac = (d >> 7) & 0xFFFF
        under |= idx < 0
        over = ~under & (idx >= upper)
    else:
        shifted = np.ldexp(np.where(under, 0.0, value), -select).astype(np.float32).astype(np.float64)
        over = ~under & (shifted >= upper)
        whole = np.trunc(np.minimum(shifted, upper))
        idx = whole.astype(np.int64)
        frac = ((shifted - whole) * 65536).astype(np.int64)
    idx = np.where(under | over, 0, idx)
    table = entries.astype(np.uint16)
    y0, y1 = table[idx], table[idx + 1]
    difference = fp.fp32_to_fp17(fp_arith.fp_sub(fp.fp16_to_fp32(y1), fp.fp16_to_fp32(y0), "fp32"))
    fraction = fp.fp32_to_fp17((frac / 65536.0).astype(np.float32))
    hit_y = fp_arith.fp_add(fp_arith.fp_mul(difference, fraction, "fp17"), fp.fp16_to_fp17(y0), "fp17")
    if exponent:
        origin = fp_arith.fp_add(start, fp.fp32_bits(np.float32(2.0**offset)), "fp32")
        d = fp_arith.fp_sub(total, origin, "fp32")
    under_y = fp_arith.fp_add(fp_arith.fp_mul(fp.fp32_to_fp17(d), fp.fp16_to_fp17(np.uint16(scales[0] & 0xFFFF)),
                                              "fp17"), fp.fp16_to_fp17(table[0]), "fp17")
    over_d = fp.fp32_to_fp17(fp_arith.fp_sub(total, end, "fp32"))
    over_y = fp_arith.fp_add(fp_arith.fp_mul(over_d, fp.fp16_to_fp17(np.uint16(scales[1] & 0xFFFF)), "fp17"),
                             fp.fp16_to_fp17(table[upper]), "fp17")
    return under, over, np.where(under, under_y, np.where(over, over_y, hit_y)).astype(np.uint32)


def lookup_fp(total, params: LutParams, tables: LutTables) -> tuple[np.ndarray, dict[str, int]]:
    """CDP LUT on fp32 square-sum patterns; returns (fp17 patterns, D_PERF_LUT_* counters).

    NaN and INF sums (fp16 NaN/INF inputs) widen and scale with numpy's invalid-value flag raised; they are
    underflows / overflows by the comparisons below, as in the SDP LUT (golden/units/lut.py: lookup)."""
    with np.errstate(invalid="ignore", over="ignore"):
        return _lookup_fp(total, params, tables)


def _lookup_fp(total, params: LutParams, tables: LutTables):
    exponent = params.le_function == "EXPONENT"
    le_under, le_over, le_y = _fp_table(total, tables.le, LE_DEPTH - 1, params.le_start, params.le_end,
                                        (params.le_uflow_scale, params.le_oflow_scale), params.le_index_offset,
                                        params.le_index_select, exponent)
    lo_under, lo_over, lo_y = _fp_table(total, tables.lo, LO_DEPTH - 1, params.lo_start, params.lo_end,
                                        (params.lo_uflow_scale, params.lo_oflow_scale), 0,
                                        params.lo_index_select, False)
    use_lo, counters = choose(le_under, le_over, lo_under, lo_over, params)
    return np.where(use_lo, lo_y, le_y), counters
