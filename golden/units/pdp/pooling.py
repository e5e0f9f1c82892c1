"""PDP arithmetic on whole (C, H, W) cubes: max / min / average pooling with paddings and strides.

Facts the documents leave open, read from nvdla/hw cmod/pdp/NV_NVDLA_pdp.cpp:

* Max and min look at the real input elements of a window only; the padding only moves the windows.
* Average pooling sums the real elements into an int16 (int8 input) or int32 (int16 input) line
  buffer and adds the padding registers: per window row that holds input data, PAD_VALUE_nX for its
  n padded columns; for the n padded rows, kernel_width x PAD_VALUE_nX. PAD_VALUE_nX is "n times the
  padding value" (precision-preservation: the padding value compensates the input offset).
* The sum is then multiplied by RECIP_KERNEL_WIDTH and by RECIP_KERNEL_HEIGHT (unsigned 1.16 fixed
  point), each product rounded half away from zero to an integer; the result is cast to the output
  width (the cmod's static_cast keeps the low bits).
* The split-width passes of a legal split produce the same windows as one pass over the whole width,
  so the model pools the whole cube once (validated by the split equalities in config.py).
"""

from __future__ import annotations

import numpy as np

from golden.numerics import fp
from golden.numerics.integer import shift_right_round


def _windows(padded: np.ndarray, kernel, stride, out_hw, reduce) -> np.ndarray:
    """Separable sliding-window reduction of a padded (C, Hp, Wp) array (a loop over kernel taps)."""
    (kw, kh), (sw, sh), (oh, ow) = kernel, stride, out_hw
    rows = padded[:, :, 0:(ow - 1) * sw + 1:sw]
    for tap in range(1, kw):
        rows = reduce(rows, padded[:, :, tap:tap + (ow - 1) * sw + 1:sw])
    out = rows[:, 0:(oh - 1) * sh + 1:sh]
    for tap in range(1, kh):
        out = reduce(out, rows[:, tap:tap + (oh - 1) * sh + 1:sh])
    return out


def _pad(cube: np.ndarray, pads, fill) -> np.ndarray:
    pl, pt, pr, pb = pads
    channels, height, width = cube.shape
    padded = np.full((channels, height + pt + pb, width + pl + pr), fill, dtype=cube.dtype)
    padded[:, pt:pt + height, pl:pl + width] = cube
    return padded


def out_shape(in_hw, kernel, stride, pads) -> tuple[int, int]:
    (height, width), (kw, kh), (sw, sh), (pl, pt, pr, pb) = in_hw, kernel, stride, pads
    return (height + pt + pb - kh) // sh + 1, (width + pl + pr - kw) // sw + 1


def _padding_counts(size: int, kernel: int, stride: int, before: int, out: int) -> np.ndarray:
    """Padded positions of each output window along one axis."""
    start = np.arange(out) * stride - before
    inside = np.minimum(start + kernel, size) - np.maximum(start, 0)
    return kernel - inside


def padding_sum(in_hw, kernel, stride, pads, pad_values) -> np.ndarray:
    """(OH, OW) integer the cmod adds to each average window (pad_values[n-1] is PAD_VALUE_nX)."""
    (height, width), (kw, kh), (sw, sh), (pl, pt, _, _) = in_hw, kernel, stride, pads
    oh, ow = out_shape(in_hw, kernel, stride, pads)
    table = np.concatenate(([0], np.asarray(pad_values, dtype=np.int64)))
    cols = _padding_counts(width, kw, sw, pl, ow)
    rows = _padding_counts(height, kh, sh, pt, oh)
    return (kh - rows)[:, None] * table[cols][None, :] + kw * table[rows][:, None]


def pool_int(cube: np.ndarray, method: str, kernel, stride, pads, pad_values=(0,) * 7, recip=(0, 0),
             out_bits: int = 8) -> np.ndarray:
    """Pool an integer (C, H, W) cube; returns int64 values of `out_bits` bits."""
    cube = np.asarray(cube)
    oh_ow = out_shape(cube.shape[1:], kernel, stride, pads)
    if method in ("max", "min"):
        info = np.iinfo(cube.dtype)
        fill, reduce = (info.min, np.maximum) if method == "max" else (info.max, np.minimum)
        return _windows(_pad(cube, pads, fill), kernel, stride, oh_ow, reduce).astype(np.int64)
    # int32 holds any window sum of int16 data (64 x 2**15); the products below need int64.
    total = _windows(_pad(cube.astype(np.int32), pads, 0), kernel, stride, oh_ow, np.add).astype(np.int64)
    total = total + padding_sum(cube.shape[1:], kernel, stride, pads, pad_values)[None]
    scaled = shift_right_round(shift_right_round(total * recip[0], 16) * recip[1], 16)
    wrap = 1 << out_bits
    return (scaled + wrap // 2) % wrap - wrap // 2


def _fp16_order_key(bits: np.ndarray, nan_key: int) -> np.ndarray:
    """An int32 key ordering fp16 patterns by value (+0 == -0); NaN gets `nan_key`."""
    magnitude = (bits & 0x7FFF).astype(np.int32)
    key = np.where(bits & 0x8000, -magnitude, magnitude)
    return np.where(fp.is_nan(bits), nan_key, key)


def pool_fp16_extreme(bits: np.ndarray, method: str, kernel, stride, pads) -> np.ndarray:
    """fp16 max / min pooling on uint16 patterns: picks an input element, so INF stays INF
    (in-memory-data-formats, INF table: "INF (For Max/Min)") and a NaN in the window wins."""
    big = 1 << 20
    sign = 1 if method == "max" else -1
    key = sign * _fp16_order_key(bits, sign * big).astype(np.int64)
    # Pack (key, bits) into one int64 so that one max-reduction selects the element and its pattern.
    packed = (key << 16) | bits.astype(np.int64)
    fill = np.int64(-(big + 1) << 16)
    best = _windows(_pad(packed, pads, fill), kernel, stride, out_shape(bits.shape[1:], kernel, stride, pads),
                    np.maximum)
    return (best & 0xFFFF).astype(np.uint16)


def pool_fp16_average(bits: np.ndarray, kernel, stride, pads, recip_bits) -> tuple[np.ndarray, np.ndarray]:
    """fp16 average pooling: INF counts as +/-4292870144 (the fp17 maximum), the sum is scaled by the
    fp17 reciprocals and rounded to fp16 with clipping. Returns (uint16 patterns, float64 window max |x|).

    The hardware sums in fp17 in its own order; this model sums exactly, which the documented PDP FP16
    threshold (precision-preservation) covers. The padding registers are ignored for fp16
    (precision-preservation: "for FP16 pipe, they're ignored").
    """
    values = fp.fp16_to_float64_mapped(bits, "pdp_average")
    oh_ow = out_shape(bits.shape[1:], kernel, stride, pads)
    total = _windows(_pad(values, pads, 0.0), kernel, stride, oh_ow, np.add)
    recip = fp.fp32_values(fp.fp17_to_fp32(np.asarray(recip_bits, dtype=np.uint32))).astype(np.float64)
    result = total * recip[0] * recip[1]
    magnitude = _windows(_pad(np.abs(values), pads, 0.0), kernel, stride, oh_ow, np.fmax)
    return fp.fp32_to_fp16(result.astype(np.float32)), magnitude
