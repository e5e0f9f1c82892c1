"""What the FP16 thresholds of convolution need, per element (precision-preservation: the FP16 threshold table).

    CC DC:        |a - b| <= 2**(max_exp - 20) * R * S * C * 2 * scale + 2**(exp(a) - 10)
    CC Winograd:  |a - b| <= 2**(max_exp - 20) * 18 * C * 2 * scale + 2**(exp(a) - 10)

exp(a) = ((a >> 10) & 0x1f) - 15 is the fp16 exponent field of the result a; max_exp is, per output
element, the largest (exp(data) & ~3) + (exp(wt) & ~3) over the R x S x C taps of its window (padding
taps included: they carry PAD_VALUE). `scale` is the factor applied to the convolution result before it
is compared (1 when the CACC output itself is judged). This module computes max_exp; the scoreboards
(scoreboards/conv_fp16.py) apply the formula.

max_exp is a max-plus convolution. It is computed with the same GEMM as the convolution: with levels
L = ((exp & ~3) + 16) / 4 in 0..8 and a base B = 2**b with B > taps, sum(B**(Ld + Lw)) over a window lies
in [B**Lmax, taps * B**Lmax], so Lmax = floor(log2(sum) / b).
"""

from __future__ import annotations

import numpy as np

from golden.units.base import Tolerance
from golden.units.conv import cmac, csc


def fp16_exponent(values) -> np.ndarray:
    """exp(a) = ((a >> 10) & 0x1f) - 15 of fp16 values (any float array is rounded to fp16 first)."""
    with np.errstate(over="ignore"):  # beyond the fp16 range: INF, exponent field 31
        bits = np.asarray(values).astype(np.float16).view(np.uint16).astype(np.int64)
    return ((bits >> 10) & 0x1F) - 15


def _levels(values) -> np.ndarray:
    return ((fp16_exponent(values) & ~3) + 16) // 4


def max_exp(cube: np.ndarray, pad, geometry, weights: np.ndarray) -> np.ndarray:
    """(N, K, Ho, Wo) max over each window of (exp(data) & ~3) + (exp(wt) & ~3)."""
    taps = weights.shape[1] * weights.shape[2] * weights.shape[3]
    bits = max(8, int(taps).bit_length() + 1)
    data_pow = np.ldexp(1.0, bits * _levels(cube))
    pad_pow = float(np.ldexp(1.0, bits * int(_levels(np.float16(pad)))))
    weight_pow = np.ldexp(1.0, bits * _levels(weights))
    win = csc.direct_windows(data_pow, pad_pow, geometry)
    sums = cmac.multiply_accumulate(win, weight_pow)
    level = np.floor(np.log2(sums) / bits).astype(np.int64)
    return 4 * level - 32


def dc_tolerance(cube, pad, geometry, weights, scale: float = 1.0) -> Tolerance:
    """CC DC: max_exp per output element, (N, K, Ho, Wo); taps = R*S*C."""
    taps = weights.shape[1] * weights.shape[2] * weights.shape[3]
    return Tolerance("CC DC", max_exp=max_exp(cube, pad, geometry, weights), taps=taps, scale=scale)


def winograd_max_exp(transformed: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """CC Winograd max_exp over the pre-transformed tile and weights of each 2x2 output block, (K, 2Ty, 2Tx).

    transformed (C, Ty, Tx, 4, 4) fp16, weights (K, C, 4, 4) fp16.
    """
    channels, ty, tx = transformed.shape[:3]
    kernels = weights.shape[0]
    bits = max(8, int(channels * 16).bit_length() + 1)
    data_pow = np.ldexp(1.0, bits * _levels(transformed)).transpose(0, 3, 4, 1, 2).reshape(channels * 16, -1)
    weight_pow = np.ldexp(1.0, bits * _levels(weights)).reshape(kernels, channels * 16)
    level = np.floor(np.log2(weight_pow @ data_pow) / bits).astype(np.int64).reshape(kernels, ty, tx)
    per_tile = 4 * level - 32
    return np.repeat(np.repeat(per_tile, 2, axis=1), 2, axis=2)


def winograd_tolerance(max_exps: list[np.ndarray], channels: int, scale: float = 1.0) -> Tolerance:
    """CC Winograd over the batch's per-image max_exp maps; taps = 18*C."""
    return Tolerance("CC Winograd", max_exp=np.stack(max_exps), taps=18 * channels, scale=scale)
