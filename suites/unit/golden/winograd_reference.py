"""An independent reference of the fp16 Winograd input transform (cmod hls/csc_libs/csc_cvt.cpp
NV_NVDLA_CSC_pra_cell): every element of B^T d is one fp17 add or subtract rounded to nearest even,
every element of (B^T d) B another, then Fp17ToFp16. Written from the format definitions (fp17: 1 sign,
6 exponent, 10 mantissa bits; fp16: IEEE binary16 with denormals, clipped to 65504); nothing of the
golden model's numerics is used."""

from __future__ import annotations

import numpy as np

FP16_MAX = 65504.0


def fp17(x: np.ndarray) -> np.ndarray:
    """Round to 11 significant bits, ties to even. The sum or difference of two fp17 values is exact in
    float64, and fp16-derived sums stay far inside fp17's exponent range (no denormal, no clip)."""
    mantissa, exponent = np.frexp(x)
    return np.ldexp(np.rint(np.ldexp(mantissa, 11)), exponent - 11)


def fp16(x: np.ndarray) -> np.ndarray:
    """IEEE binary16 rounding with denormals; overflow clips to the largest finite value."""
    return np.clip(x, -FP16_MAX, FP16_MAX).astype(np.float16)


def fp17_sum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a + b rounded to fp17. An exact zero takes the first operand's sign (cmod nvdla_float.h FpAdd: the
    operand with the larger magnitude, the first on a tie), where IEEE would give +0."""
    total = fp17(a + b)
    return np.where(total == 0, np.copysign(0.0, a), total)


def stage(x: np.ndarray, axis: int) -> np.ndarray:
    """B^T along `axis`: x0 - x2, x1 + x2, x2 - x1, x1 - x3, each rounded to fp17."""
    x0, x1, x2, x3 = (np.take(x, i, axis=axis) for i in range(4))
    return np.stack([fp17_sum(x0, -x2), fp17_sum(x1, x2), fp17_sum(x2, -x1), fp17_sum(x1, -x3)], axis=axis)


def staged_reference(tiles: np.ndarray) -> np.ndarray:
    """(..., 4, 4) fp16 tiles -> the transformed fp16 tiles."""
    return fp16(stage(stage(tiles.astype(np.float64), axis=-2), axis=-1))
