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
* fp16 uses the cmod's fp16 compare for max / min and fp17 adds / multiplies for the average
  (golden.numerics.fp_arith), in the cmod's operand order; the average adds the padding registers'
  low 17 bits as fp17 values, as NVIDIA's RTL does (pool_fp16_average).
* The split-width passes of a legal split produce the same windows as one pass over the whole width,
  so the model pools the whole cube once (validated by the split equalities in config.py).
"""

from __future__ import annotations

import numpy as np

from golden.numerics import corners, fp, fp_arith
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


def window_max(values: np.ndarray, kernel, stride, pads, fill) -> np.ndarray:
    """The largest value of each pooling window of a (C, H, W) array, padding filled with `fill`."""
    oh_ow = out_shape(values.shape[1:], kernel, stride, pads)
    return _windows(_pad(np.asarray(values), pads, fill), kernel, stride, oh_ow, np.maximum)


def out_shape(in_hw, kernel, stride, pads) -> tuple[int, int]:
    (height, width), (kw, kh), (sw, sh), (pl, pt, pr, pb) = in_hw, kernel, stride, pads
    return (height + pt + pb - kh) // sh + 1, (width + pl + pr - kw) // sw + 1


def padding_counts(size: int, kernel: int, stride: int, before: int, out: int) -> np.ndarray:
    """Padded positions of each output window along one axis."""
    start = np.arange(out) * stride - before
    inside = np.minimum(start + kernel, size) - np.maximum(start, 0)
    return kernel - inside


def padding_sum(in_hw, kernel, stride, pads, pad_values) -> np.ndarray:
    """(OH, OW) integer the cmod adds to each average window (pad_values[n-1] is PAD_VALUE_nX)."""
    (height, width), (kw, kh), (sw, sh), (pl, pt, _, _) = in_hw, kernel, stride, pads
    oh, ow = out_shape(in_hw, kernel, stride, pads)
    table = np.concatenate(([0], np.asarray(pad_values, dtype=np.int64)))
    cols = padding_counts(width, kw, sw, pl, ow)
    rows = padding_counts(height, kh, sh, pt, oh)
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
    corners.rounding("pdp.divide.width.round", total * recip[0], 16)
    by_width = shift_right_round(total * recip[0], 16)
    corners.rounding("pdp.divide.height.round", by_width * recip[1], 16)
    scaled = shift_right_round(by_width * recip[1], 16)
    corners.saturation("pdp.out.narrow", scaled, out_bits)
    wrap = 1 << out_bits
    return (scaled + wrap // 2) % wrap - wrap // 2


def _masked_reduce(array: np.ndarray, axis: int, taps: int, step: int, before: int, count: int,
                   combine) -> np.ndarray:
    """Reduce the real elements of `count` windows along `axis` (1 or 2) of a (C, H, W) array, first tap first
    as combine(accumulated, new); padded taps are skipped."""
    size = array.shape[axis]
    acc = started = None
    for tap in range(taps):
        index = np.arange(count) * step + tap - before
        valid = (index >= 0) & (index < size)
        taken = np.take(array, np.clip(index, 0, size - 1), axis=axis)
        valid = valid.reshape((-1, 1) if axis == 1 else (-1,))
        if acc is None:
            acc, started = taken, valid
            continue
        acc = np.where(valid & started, combine(acc, taken), np.where(valid, taken, acc))
        started = started | valid
    assert acc is not None, "a window has at least one tap"
    return acc


def _masked_windows(values: np.ndarray, kernel, stride, pads, width_op, height_op) -> np.ndarray:
    """Separable window reduction visiting only the real elements of each window, in the cmod's order:
    along a row left to right as width_op(accumulated, new), then down the rows as height_op(new row,
    accumulated) (cmod LineOperation / PoolingStage0Calc operand order)."""
    (kw, kh), (sw, sh), (pl, pt, _, _) = kernel, stride, pads
    oh, ow = out_shape(values.shape[1:], kernel, stride, pads)
    rows = _masked_reduce(values, 2, kw, sw, pl, ow, width_op)
    return _masked_reduce(rows, 1, kh, sh, pt, oh, lambda acc, new: height_op(new, acc))


def pool_fp16_extreme(bits: np.ndarray, method: str, kernel, stride, pads) -> np.ndarray:
    """fp16 max / min pooling on uint16 patterns with the cmod's fp16 compare (a NaN operand wins, INF
    stays INF: in-memory-data-formats, INF table "INF (For Max/Min)")."""
    op = fp_arith.fp_max if method == "max" else fp_arith.fp_min
    return _masked_windows(bits, kernel, stride, pads, op, op).astype(np.uint16)


def pool_fp16_average(bits: np.ndarray, kernel, stride, pads, recip_bits,
                      pad_values=(0,) * 7) -> tuple[np.ndarray, np.ndarray]:
    """fp16 average pooling as NVIDIA's RTL and cmod compute it: fp16 -> fp17 (INF -> +/-4292870144), each
    window row summed left to right with fp17 adds, plus PAD_VALUE_nX for its n padded columns; the rows
    summed down the window, plus PAD_VALUE_nX x kernel_width for its n padded rows; times RECIP_KERNEL_WIDTH
    then RECIP_KERNEL_HEIGHT (fp17 patterns); fp17 -> fp16 (rounded, clipped). Every step is an fp17
    operation rounded to nearest even. Returns (uint16 patterns, float64 max |x| of each window's real
    elements) for the documented PDP FP16 threshold.

    `pad_values` are the raw PAD_VALUE_1X..7X fields; their low 17 bits are fp17 patterns. The
    precision-preservation document says the padding registers are ignored for the FP16 pipe; the hardware
    uses them, and the RTL decides (NVIDIA nvdlav1 vmod/nvdla/pdp, the C model agrees):

    * rows: NV_NVDLA_PDP_CORE_cal1d.v:3089-3095 pad_table_out = PAD_VALUE_nX, n = kernel width minus the
      window's real columns (:3134); with fp16 average pooling (:3297) each row sum goes through
      u_HLS_fp17_add_0..3 (:3230-3284) as sum + pad_table_out[16:0], also when n = 0 (the table gives 0).
      cmod: pdp/NV_NVDLA_pdp.cpp:516-522 keeps the raw fields for fp16; LineOperation (:1445-1468) hands the
      n-padded value to hls_wrapper/pdp_hls_wrapper.cpp HLS_PDP_PoolingStage0Calc_FP16_W (:30-120), which
      adds it after the window's last real element.
    * columns: NV_NVDLA_PDP_CORE_cal2d.v:6542 and :6599-6607 select PAD_VALUE_nX for the n padded rows;
      :9128-9137 give kernel_width as an fp17 number (1.0 .. 8.0); mul_padx_kwidth (:9153) multiplies the
      two in fp17 and u_HLS_fp17_add_0..3 (:9225-9275) add the product to the column sum. cmod:
      PoolingStage0Calc (:1557-1586) and HLS_PDP_PoolingStage0Calc_FP16_H (:141-230; its kernel_width_map
      at :126 has no entry for a kernel width of 8, the RTL's 17'h8800 is 8.0).
    Adding +0 or -0 leaves every fp17 value the PDP holds unchanged (golden.numerics.fp_arith), so windows
    without padding are unaffected by the zero the table gives them.
    """
    def add(a, b):
        return fp_arith.fp_add(a, b, "fp17")

    (kw, kh), (sw, sh), (pl, pt, _, _) = kernel, stride, pads
    height, width = bits.shape[1:]
    oh, ow = out_shape((height, width), kernel, stride, pads)
    table = np.array([0, *pad_values], dtype=np.uint32) & np.uint32(0x1FFFF)
    rows = _masked_reduce(fp.fp16_to_fp17(bits).astype(np.uint32), 2, kw, sw, pl, ow, add)
    rows = add(rows, table[padding_counts(width, kw, sw, pl, ow)])
    total = _masked_reduce(rows, 1, kh, sh, pt, oh, lambda acc, new: add(new, acc))
    kernel_width = fp.fp32_to_fp17(np.float32(kw))
    padded_lines = fp_arith.fp_mul(table[padding_counts(height, kh, sh, pt, oh)], kernel_width, "fp17")
    total = add(total, padded_lines[:, None])
    scaled = fp_arith.fp_mul(fp_arith.fp_mul(total, np.uint32(recip_bits[0] & 0x1FFFF), "fp17"),
                             np.uint32(recip_bits[1] & 0x1FFFF), "fp17")
    if corners.active():
        corners.fp16_patterns("pdp.fp.in", bits)
        wide = fp.fp32_to_float64(fp.fp17_to_fp32(scaled))
        corners.fp16_rounding("pdp.fp.out.round", np.where(np.isfinite(wide), wide, 0), 10)
    values = np.abs(fp.fp16_to_float64_mapped(bits, "pdp_average"))
    magnitude = _masked_windows(values, kernel, stride, pads, np.fmax, np.fmax)
    return fp.fp17_to_fp16(scaled), magnitude
