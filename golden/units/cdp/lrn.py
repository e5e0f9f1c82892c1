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

from golden.numerics import corners, fp, fp_arith
from golden.numerics.integer import as_signed, saturate, shift_right_round
from golden.units.cdp.lut import lookup, lookup_fp

INT_WIDTHS = {"int8": {"in": 9, "offset": 8, "out_offset": 25, "out": 8},
              "int16": {"in": 17, "offset": 16, "out_offset": 32, "out": 16}}


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
    x, total = _converted_and_sums(cube, channels, cfg)
    looked_up, status = lookup(total, cfg.lut, tables)
    out, saturated = _output(_times(looked_up, x, cfg), cfg, observe=True)
    status["D_OUT_SATURATION"] = saturated
    if corners.active():
        _observe_reach(x, total, looked_up, out, cfg, tables)
    return out, status


def lrn_int_product(cube: np.ndarray, channels: int, cfg, tables) -> tuple[np.ndarray, dict[str, int]]:
    """What enters the output convertor (the LUT result times the converted input, or the LUT result alone
    with MUL_BYPASS), and the LUT counters."""
    x, total = _converted_and_sums(cube, channels, cfg)
    looked_up, status = lookup(total, cfg.lut, tables)
    return _times(looked_up, x, cfg), status


def _converted_and_sums(cube: np.ndarray, channels: int, cfg) -> tuple[np.ndarray, np.ndarray]:
    """The input convertor's result and the square sums (the converted values themselves with SQSUM_BYPASS)."""
    widths = INT_WIDTHS[cfg.precision]
    offset, scale, shifter = cfg.datin
    offset = as_signed(offset, widths["offset"])
    x = np.asarray(cube, dtype=np.int64).copy()
    x[channels:] = offset  # the cmod fills the padding channels with the offset
    corners.convertor("cdp.cvt_in", (x - offset) * scale, shifter, widths["in"])
    x = saturate(shift_right_round((x - offset) * scale, shifter), widths["in"])[0]
    # int8: 9-bit values, square sums below 2**23 fit int32 (half the memory traffic of int64).
    narrow = x.astype(np.int32) if cfg.precision == "int8" else x
    return x, (narrow if cfg.sqsum_bypass else window_sum(narrow * narrow, cfg.local_size))


def _times(looked_up: np.ndarray, x: np.ndarray, cfg) -> np.ndarray:
    return looked_up if cfg.mul_bypass else looked_up * x


def _output(product: np.ndarray, cfg, observe: bool = False) -> tuple[np.ndarray, int]:
    """The output convertor: the output and the count of saturated values."""
    widths = INT_WIDTHS[cfg.precision]
    out_offset, out_scale, out_shifter = cfg.datout
    centred = (product - as_signed(out_offset, widths["out_offset"])) * out_scale
    converted = shift_right_round(centred, out_shifter)
    if observe:
        corners.rounding("cdp.cvt_out.round", centred, out_shifter)
        corners.saturation("cdp.cvt_out.saturate", converted, widths["out"])
    # precision-preservation "saturation counters": values outside the output range (the cmod's
    # IntShiftRightSat flags only results more than 1 away from the unrounded shift).
    return saturate(converted, widths["out"])


def _observe_reach(x, total, looked_up, out, cfg, tables) -> None:
    """Which LUT rounding ties reach the output (corners.reach): the LUT rerun with one stage's ties rounded toward
    zero, then the multiply and the output convertor; an element whose output differs met a tie the output
    shows (one the product with 0, the saturation or the output shift loses does not count)."""
    for stage in ("interp", "extrap"):
        with corners.unobserved():
            other, _ = lookup(total, cfg.lut, tables, ties_toward_zero=stage)
            changed = _output(_times(other, x, cfg), cfg)[0] != out
        corners.reach(f"cdp.lut.{stage}.round", other - looked_up, changed)


def lrn_fp16(bits: np.ndarray, channels: int, cfg, tables) -> tuple[np.ndarray, dict[str, int], np.ndarray]:
    """fp16 CDP (the convertors are not used for fp16): fp16 -> fp17 (INF -> +/-4292870144) -> fp32, fp32
    squares summed in the cmod's order ((c-1 + c+1) + c, then + (c-k + c+k) for k = 2..), the CDP LUT's
    fp path (golden/units/cdp/lut.py, lookup_fp), fp17 multiply, fp17 -> fp16; arithmetic as the cmod's
    (golden.numerics.fp_arith). Returns
    (uint16 patterns, counters, float64 max |x| of each square-sum window)."""
    bits = np.asarray(bits, dtype=np.uint16).copy()
    bits[channels:] = 0
    corners.fp16_patterns("cdp.fp.in", bits[:channels])
    x17 = fp.fp16_to_fp17(bits).astype(np.uint32)
    x32 = fp.fp17_to_fp32(x17)
    if cfg.sqsum_bypass:
        total = x32
    else:
        half = cfg.local_size // 2
        squares = fp_arith.fp_mul(x32, x32, "fp32")
        padded = np.concatenate([np.zeros((half, *x32.shape[1:]), np.uint32), squares,
                                 np.zeros((half, *x32.shape[1:]), np.uint32)])
        count = x32.shape[0]

        def at(k):
            return padded[half + k:half + k + count]
        total = fp_arith.fp_add(fp_arith.fp_add(at(-1), at(1), "fp32"), at(0), "fp32")
        for k in range(2, half + 1):
            total = fp_arith.fp_add(total, fp_arith.fp_add(at(-k), at(k), "fp32"), "fp32")
    looked_up, status = lookup_fp(total, cfg.lut, tables)
    if cfg.mul_bypass:
        out = np.where(fp.is_nan(x17, "fp17"), x17, looked_up)
    else:
        out = fp_arith.fp_mul(x17, looked_up, "fp17")
    magnitude = _window_max(np.abs(fp.fp16_to_float64_mapped(bits, "cdp")), cfg.local_size)
    status["D_OUT_SATURATION"] = 0
    result = fp.fp17_to_fp16(out)
    if corners.active():
        wide = fp.fp32_to_float64(fp.fp17_to_fp32(out))
        corners.fp16_rounding("cdp.fp.out.round", np.where(np.isfinite(wide), wide, 0), 10)
        corners.fp16_patterns("cdp.fp.out", result)
    return result, status, magnitude


def _window_max(values: np.ndarray, local_size: int) -> np.ndarray:
    half = local_size // 2
    pad = np.zeros((half, *values.shape[1:]), values.dtype)
    padded = np.concatenate([pad, values, pad])
    best = padded[:values.shape[0]].astype(np.float64)
    for tap in range(1, local_size):
        best = np.fmax(best, padded[tap:tap + values.shape[0]])
    return best
