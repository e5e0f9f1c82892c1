"""CMAC: the multiply-accumulate of every output element over its R x S x C window.

Integer layers are exact: the products and partial sums of int8/int16 operands are integers, and a float
GEMM adds integers without rounding while every partial sum stays below 2**24 (float32) or 2**53
(float64); the bound max|x| * max|w| * R*S*C is checked first and an int64 GEMM is used beyond it. The sum
is then the exact sum the hardware's wide accumulator holds (CACC assembly: 48 bits in nvdla/hw cmod
cacc; the sums a legal layer can make stay below 2**47).

fp16 layers: the products of two fp16 values are exact in float64 and the sum is taken in float64; the
hardware adds in its own order and width, which the CC DC / CC Winograd thresholds of
precision-preservation cover (see tolerance.py).
"""

from __future__ import annotations

import numpy as np

#: Largest output plane (K x Ho*Wo x R*S*C work) done in one GEMM before splitting by output rows.
_CHUNK_ELEMENTS = 1 << 24


def magnitude(values: np.ndarray) -> int:
    return max(abs(int(values.min(initial=0))), abs(int(values.max(initial=0))))


def gemm_dtype(x_max: int, w_max: int, taps: int):
    """The cheapest GEMM type that sums integer products exactly: float32, float64 or int64."""
    bound = x_max * w_max * taps
    if bound < 1 << 24:
        return np.float32
    if bound < 1 << 53:
        return np.float64
    return np.int64


def _gemm_dtype(windows: np.ndarray, weights: np.ndarray, taps: int):
    if windows.dtype.kind == "f" or weights.dtype.kind == "f":
        return np.float64
    return gemm_dtype(magnitude(windows), magnitude(weights), taps)


def multiply_accumulate(windows: np.ndarray, weights: np.ndarray, dtype=None) -> np.ndarray:
    """(N, C, R, S, Ho, Wo) windows x (K, C, R, S) weights -> (N, K, Ho, Wo) sums.

    Integer weights give exact integer sums: float32 when the GEMM `dtype` (chosen by gemm_dtype; the
    windows may already be in it) is float32, which holds them all below 2**24, else int64. Float
    weights give float64 sums.
    """
    batch, channels, rows, cols, out_h, out_w = windows.shape
    kernels = weights.shape[0]
    taps = channels * rows * cols
    dtype = dtype or _gemm_dtype(windows, weights, taps)
    wmat = weights.reshape(kernels, taps).astype(dtype)
    out_dtype: type[np.number]
    if weights.dtype.kind == "f":
        out_dtype = np.float64
    else:
        out_dtype = np.float32 if dtype == np.float32 else np.int64
    out = np.empty((batch, kernels, out_h, out_w), dtype=out_dtype)
    rows_per_chunk = max(1, _CHUNK_ELEMENTS // max(1, taps * out_w))
    for n in range(batch):
        for y0 in range(0, out_h, rows_per_chunk):
            y1 = min(out_h, y0 + rows_per_chunk)
            cols_mat = windows[n, :, :, :, y0:y1].astype(dtype, order="C").reshape(taps, (y1 - y0) * out_w)
            if out_dtype == dtype and y1 - y0 == out_h:
                np.matmul(wmat, cols_mat, out=out[n].reshape(kernels, out_h * out_w))
            else:
                out[n, :, y0:y1] = (wmat @ cols_mat).reshape(kernels, y1 - y0, out_w)
    return out


def exact_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b (batched), exact for integer operands (int64 result), float64 for float operands."""
    dtype = _gemm_dtype(a, b, a.shape[-1])
    out = a.astype(dtype) @ b.astype(dtype)
    return out if a.dtype.kind == "f" or b.dtype.kind == "f" else out.astype(np.int64)
