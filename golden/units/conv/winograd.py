"""Winograd convolution F(2x2, 3x3) (programming guide: Features, Winograd; precision-preservation:
pra_trunc; weight format: in-memory-data-formats "Basic Weight for Winograd Convolution").

The arithmetic follows nvdla/hw cmod (nvdlav1 branch):

* CDMA stores the padded input, folded by the stride into channels (channel extension: extended channel
  (i * stride_x + j) * C' + c holds line y' * stride_y + i, column x' * stride_x + j of channel c, C' = C
  rounded up to a 32-byte atom; the weight format uses the same order), so CSC convolves 3x3 at stride 1.
  CDMA moves whole atoms: the C' - C padding lanes carry what memory holds in them, and a padding position
  is a whole atom of the pad value, lanes included (cmod cdma.cpp WinoConvDataResponseSequencerCommon,
  atom_pad_value_int16). Their weights exist (C' * sx * sy channels) and need not be zero: nvdlav1's C model
  disagreed on 71 of 113 generated integer Winograd layers, each with a non-zero pad value, while the lanes
  were taken as zero.
* CSC takes 4x4 tiles at every even (x, y) and pre-transforms them, T = B^T d B (cmod csc pra_cell,
  B^T = [[1,0,-1,0],[0,1,1,0],[0,-1,1,0],[0,1,0,-1]]), then pra_trunc: drop PRA_TRUNCATE bits rounding
  half away from zero and saturate to int8/int16 (IntShiftRight). fp16: each element goes to fp17, the
  rows of B^T d are one fp17 add or subtract each, rounded to nearest even, the columns of (B^T d) B are
  another, rounded again, and the result is converted to fp16 (cmod hls/csc_libs/csc_cvt.cpp
  NV_NVDLA_CSC_pra_cell; vmod/nvdla/csc/NV_NVDLA_CSC_pra_cell.v). Rounding once in float64 instead
  differs from the hardware by up to ten times the CC Winograd threshold, which bounds the accumulation
  only.
* CMAC multiplies T element-wise with the stored 4x4 weights U = G g G^T and sums over channels, then
  post-transforms each tile to 2x2 outputs, Y = A^T M A with A^T = [[1,1,1,0],[0,1,-1,-1]] (cmod cmac
  pp_phase2/pp_phase3).
* CACC: cc_out_trunc and int32 saturation as in direct mode.

Output size (programming guide: CACC.D_DATAOUT_SIZE_0): DATAOUT = DATAIN_SIZE_EXT - 4; the last two
extended columns/lines are read by no tile.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from golden.formats.feature import element_bits, element_bytes
from golden.numerics import corners
from golden.numerics.fp import fp16_to_fp17, fp17_to_fp16
from golden.numerics.fp_arith import fp_add, fp_sub
from golden.numerics.integer import truncate
from golden.units.conv import cacc, cdma, cmac, csc, tolerance
from golden.units.conv.direct import ConvResult

BT = np.array([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]], dtype=np.int64)
AT = np.array([[1, 1, 1, 0], [0, 1, -1, -1]], dtype=np.int64)


def padded_channels(channels: int, precision: str, atom_bytes: int = 32) -> int:
    per_atom = atom_bytes // element_bytes(precision)
    return -(-channels // per_atom) * per_atom


def extend(cube: np.ndarray, pad, pads: tuple[int, int, int, int], stride: tuple[int, int],
           ext_hw: tuple[int, int], channels: int) -> np.ndarray:
    """(C, H, W) -> the (C' * sy * sx, He, We) plane CDMA writes to CBUF. pads = (top, left, bottom, right)."""
    (sy, sx), (ext_h, ext_w) = stride, ext_hw
    top, left = pads[0], pads[1]
    plane = np.full((channels, ext_h * sy, ext_w * sx), pad, dtype=cube.dtype)
    c, h, w = cube.shape
    h_in, w_in = min(h, ext_h * sy - top), min(w, ext_w * sx - left)
    plane[:c, top:top + h_in, left:left + w_in] = cube[:, :h_in, :w_in]
    phases = plane.reshape(channels, ext_h, sy, ext_w, sx)
    return np.ascontiguousarray(phases.transpose(2, 4, 0, 1, 3)).reshape(sy * sx * channels, ext_h, ext_w)


def tiles(plane: np.ndarray, out_hw: tuple[int, int]) -> np.ndarray:
    """(C, Ty, Tx, 4, 4) view of the 4x4 tiles at even positions, Ty x Tx = out / 2."""
    channels = plane.shape[0]
    ty, tx = out_hw[0] // 2, out_hw[1] // 2
    sc, sh, sw = plane.strides
    return as_strided(plane, shape=(channels, ty, tx, 4, 4), strides=(sc, 2 * sh, 2 * sw, sh, sw),
                      writeable=False)


def _fp17_stage(x: np.ndarray, axis: int) -> np.ndarray:
    """One B^T product along `axis` of fp17 patterns: x0-x2, x1+x2, x2-x1, x1-x3, each rounded."""
    x0, x1, x2, x3 = (np.take(x, i, axis=axis) for i in range(4))
    rows = (fp_sub(x0, x2, "fp17"), fp_add(x1, x2, "fp17"), fp_sub(x2, x1, "fp17"), fp_sub(x1, x3, "fp17"))
    return np.stack(rows, axis=axis)


def pre_transform_fp16(tile: np.ndarray) -> np.ndarray:
    """B^T d B of fp16 tiles (..., 4, 4) in two rounded fp17 stages, then to fp16 (see the docstring)."""
    bits = fp16_to_fp17(np.ascontiguousarray(tile, dtype=np.float16).view(np.uint16))
    rows = _fp17_stage(bits, axis=-2)
    return fp17_to_fp16(_fp17_stage(rows, axis=-1)).view(np.float16)


def pre_transform(tile: np.ndarray, precision: str, pra_truncate: int) -> np.ndarray:
    """B^T d B per tile, then pra_trunc (int) or the fp17 stages to fp16."""
    if precision == "fp16":
        return pre_transform_fp16(tile)
    wide = np.einsum("ij,...jk,lk->...il", BT, tile.astype(np.int64), BT)
    corners.convertor("conv.pra_truncate", wide, pra_truncate, element_bits(precision))
    out, _ = truncate(wide, pra_truncate, element_bits(precision))
    return out


def multiply(transformed: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """sum_c T[c, ty, tx, p] * U[k, c, p] -> (K, Ty, Tx, 4, 4); exact for integers (see cmac)."""
    channels, ty, tx = transformed.shape[:3]
    kernels = weights.shape[0]
    t = np.moveaxis(transformed.reshape(channels, ty * tx, 16), 2, 0)  # (16, C, tiles)
    u = np.moveaxis(weights.reshape(kernels, channels, 16), 2, 0)  # (16, K, C)
    m = cmac.exact_matmul(u, t)  # (16, K, tiles)
    return np.moveaxis(m, 0, 2).reshape(kernels, ty, tx, 4, 4)


def post_transform(m: np.ndarray) -> np.ndarray:
    """A^T M A per tile -> (K, 2 * Ty, 2 * Tx)."""
    at = AT if m.dtype.kind != "f" else AT.astype(np.float64)
    y = np.einsum("ij,ktxjl,ml->ktxim", at, m, at)
    kernels, ty, tx = y.shape[:3]
    return y.transpose(0, 1, 3, 2, 4).reshape(kernels, 2 * ty, 2 * tx)


def convolve(cube: np.ndarray, weights: np.ndarray, precision: str, pad_value: int,
             pads: tuple[int, int, int, int], stride: tuple[int, int], out_hw: tuple[int, int],
             pra_truncate: int = 0, clip_truncate: int = 0, nan_to_zero: bool = False):
    """cube (N, C, H, W), transformed weights (K, C'*sx*sy, 4, 4) -> (N, K, Ho, Wo), saturations, tiles."""
    channels = weights.shape[1] // (stride[0] * stride[1])
    ext_hw = (out_hw[0] + 4, out_hw[1] + 4)
    pad = csc.pad_element(pad_value, precision)
    outs, count, tols, status = [], 0, [], {}
    wts = weights
    if precision == "fp16":
        wts, nan_w, inf_w = cdma.fp16_operands(weights, nan_to_zero, cdma.INF_WINOGRAD)
        nan_d, inf_d = int(np.isnan(cube.astype(np.float32)).sum()), int(np.isinf(cube.astype(np.float32)).sum())
        status = {("CDMA", "D_NAN_INPUT_DATA_NUM"): nan_d, ("CDMA", "D_NAN_INPUT_WEIGHT_NUM"): nan_w,
                  ("CDMA", "D_INF_INPUT_DATA_NUM"): inf_d, ("CDMA", "D_INF_INPUT_WEIGHT_NUM"): inf_w}
    for image in cube:
        plane = extend(image, pad, pads, stride, ext_hw, channels)
        data = plane
        if precision == "fp16":
            data = cdma.fp16_operands(plane, nan_to_zero, cdma.INF_WINOGRAD)[0]
        transformed = pre_transform(tiles(data, out_hw), precision, pra_truncate)
        sums = post_transform(multiply(transformed, wts))
        if precision == "fp16":
            out = cacc.deliver_fp(sums)
            tols.append(tolerance.winograd_max_exp(transformed, weights))
        else:
            out, saturated = cacc.deliver_int(sums, clip_truncate)
            count += saturated
        outs.append(out)
    tol = tolerance.winograd_tolerance(tols, weights.shape[1]) if tols else None
    return ConvResult(np.stack(outs), count, status, tol)

