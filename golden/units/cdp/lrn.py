"""CDP arithmetic on whole (C, H, W) cubes: input convertor, square sum across channels, LUT,
multiplication and output convertor.

Widths the documents leave open, read from nvdla/hw cmod/hls/cdp_libs (cdp_icvt, cdp_sq, cdp_ocvt) and
cmod/cdp/NV_NVDLA_cdp.cpp; every shift rounds half away from zero and saturates (ac_fixed AC_RND_INF,
AC_SAT):

              int8                                  int16
  cdp_in_cvt  (x - OFFSET[7:0]) * SCALE >> SHIFTER  (x - OFFSET) * SCALE >> SHIFTER
              -> 9 bits                             -> 17 bits
  square sum  sum of LEN squares (LEN 3/5/7/9)      same, exact (at most 38 bits)
  multiply    lut(sum) * x_cvt -> 25 bits           -> 33 bits
  cdp_out_cvt (v - OFFSET[24:0]) * SCALE >> SHIFTER (v - OFFSET) * SCALE >> SHIFTER (6-bit shifter)
              -> int8                               -> int16

Channels outside the cube (before channel 0, after the last one, and the padding channels of the last
atom) enter as DATIN_OFFSET, i.e. as 0 after the input convertor, so they add nothing to a square sum.
"""

from __future__ import annotations

import numpy as np

from golden.numerics import fp
from golden.numerics.integer import saturate, shift_right_round
from golden.units import lut as shared_lut
from golden.units.cdp import lut_cdp

INT_WIDTHS = {"int8": {"in": 9, "offset": 8, "out_offset": 25, "out": 8},
              "int16": {"in": 17, "offset": 16, "out_offset": 32, "out": 16}}


def _signed(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def window_sum(values: np.ndarray, local_size: int) -> np.ndarray:
    """Sum over the `local_size` channels centred on each channel (zeros beyond the ends), axis 0."""
    half = local_size // 2
    padded = np.concatenate([np.zeros((half, *values.shape[1:]), values.dtype), values,
                             np.zeros((half, *values.shape[1:]), values.dtype)])
    total = padded[:values.shape[0]].copy()
    for tap in range(1, local_size):
        total += padded[tap:tap + values.shape[0]]
    return total


def lrn_int(cube: np.ndarray, channels: int, cfg, tables) -> tuple[np.ndarray, dict[str, int]]:
    """Integer CDP on a (C_padded, H, W) cube whose first `channels` channels are real."""
    widths = INT_WIDTHS[cfg.precision]
    offset, scale, shifter = cfg.datin
    offset = _signed(offset, widths["offset"])
    x = np.asarray(cube, dtype=np.int64).copy()
    x[channels:] = offset  # the cmod fills the padding channels with the offset
    x = saturate(shift_right_round((x - offset) * scale, shifter), widths["in"])[0]
    # int8: 9-bit values, square sums below 2**23 fit int32 (half the memory traffic of int64).
    narrow = x.astype(np.int32) if cfg.precision == "int8" else x
    total = narrow if cfg.sqsum_bypass else window_sum(narrow * narrow, cfg.local_size)
    looked_up, status = lut_cdp.lookup(total, cfg.lut, tables)
    product = looked_up if cfg.mul_bypass else looked_up * x
    out_offset, out_scale, out_shifter = cfg.datout
    converted = shift_right_round((product - _signed(out_offset, widths["out_offset"])) * out_scale, out_shifter)
    out, saturated = saturate(converted, widths["out"])
    status["D_OUT_SATURATION"] = saturated
    return out, status


def _fp_flags(x: np.ndarray, params, precision: str = "fp16"):
    """Underflow/overflow flags of the LE and LO tables for float32 inputs (CDP counters)."""
    def linear(start_bits, select, depth):
        d = x.astype(np.float64) - float(np.uint32(start_bits & 0xFFFFFFFF).view(np.float32))
        under = np.isnan(d) | (d <= 0)
        over = ~under & (np.floor(np.ldexp(np.where(under, 0.0, d), -select)) >= depth - 1)
        return under, over

    def exponent(start_bits, offset, depth):
        d = x.astype(np.float64) - float(np.uint32(start_bits & 0xFFFFFFFF).view(np.float32))
        under = np.isnan(d) | (d <= 0)
        power = np.frexp(np.where(under, 1.0, d))[1] - 1
        under |= power < offset
        return under, ~under & (power - offset >= depth - 1)

    le = (exponent(params.le_start, params.le_index_offset, shared_lut.LE_DEPTH)
          if params.le_function == "EXPONENT" else linear(params.le_start, params.le_index_select, shared_lut.LE_DEPTH))
    lo = linear(params.lo_start, params.lo_index_select, shared_lut.LO_DEPTH)
    return le, lo


def _fp17_values(bits: np.ndarray) -> np.ndarray:
    return fp.fp32_values(fp.fp17_to_fp32(bits)).astype(np.float32)


def lrn_fp16(bits: np.ndarray, channels: int, cfg, tables) -> tuple[np.ndarray, dict[str, int], np.ndarray]:
    """fp16 CDP (convertors not used): fp16 -> fp17 (INF -> +/-4292870144), fp32 squares summed in the
    cmod's order ((c-1 + c+1) + c, then the +/-2, +/-3, +/-4 pairs), the LUT's fp path, fp17 multiply,
    fp17 -> fp16. Returns (uint16 patterns, counters, float64 max |value| of each square-sum window)."""
    bits = np.asarray(bits, dtype=np.uint16).copy()
    bits[channels:] = 0
    x = _fp17_values(fp.fp16_to_fp17(bits))
    if cfg.sqsum_bypass:
        total = x
    else:
        squares = x * x
        half = cfg.local_size // 2
        pad = np.zeros((half, *x.shape[1:]), np.float32)
        padded = np.concatenate([pad, squares, pad])
        count = x.shape[0]

        def at(k):
            return padded[half + k:half + k + count]
        total = (at(-1) + at(1)) + at(0)
        for k in range(2, half + 1):
            total = total + (at(-k) + at(k))
    result = shared_lut.lookup(total, cfg.lut, tables, "fp16")
    y = result.y.astype(np.float32)
    (le_under, le_over), (lo_under, lo_over) = _fp_flags(total, cfg.lut)
    _, status = lut_cdp.choose(le_under, le_over, lo_under, lo_over, cfg.lut)
    if cfg.mul_bypass:
        out = np.where(np.isnan(x), x, y)
    else:
        out = _fp17_values(fp.fp32_to_fp17(y * x))
    magnitude = _window_max(np.abs(x), cfg.local_size)
    status["D_OUT_SATURATION"] = 0
    return fp.fp17_to_fp16(fp.fp32_to_fp17(out)), status, magnitude


def _window_max(values: np.ndarray, local_size: int) -> np.ndarray:
    half = local_size // 2
    pad = np.zeros((half, *values.shape[1:]), values.dtype)
    padded = np.concatenate([pad, values, pad])
    best = padded[:values.shape[0]].astype(np.float64)
    for tap in range(1, local_size):
        best = np.fmax(best, padded[tap:tap + values.shape[0]])
    return best
