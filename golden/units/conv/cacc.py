"""CACC: the accumulator's delivery to SDP.

Integer pipelines: cc_out_trunc (precision-preservation: Convertor/Truncate, "Truncate the data to
INT32/FP32 before sending to SDP") drops CLIP_TRUNCATE low bits rounding half away from zero, then
saturates to int32; every saturated element counts in CACC.D_OUT_SATURATION ("Always enabled"). The
nvdla/hw cmod (cacc, ReshapeSequencer) rounds the same way (x / 2**t, +-0.5, toward zero).

The integer accumulator ("assembly" SRAM) is 48 bits wide in the cmod (ACCU_ASSEMBLY_BIT_WIDTH 48,
sc_int<48>): partial sums wrap modulo 2**48, and since every CMAC partial fits, wrapping each addition
equals wrapping the exact sum once. Only C*R*S*|x|*|w| >= 2**47 shows it (int16, 2**17 taps), which the
CBUF of nv_full cannot hold in one layer; the model wraps anyway.

fp16 pipeline: the accumulator's sum is delivered as fp32 (cmod cacc_fp48_to_fp32); no truncation.
"""

from __future__ import annotations

import numpy as np

from golden.numerics import corners
from golden.numerics.integer import truncate

ASSEMBLY_BITS = 48


def wrap_assembly(sums: np.ndarray) -> np.ndarray:
    """The exact sums as the 48-bit two's complement accumulator holds them."""
    half = np.int64(1 << (ASSEMBLY_BITS - 1))
    return ((sums + half) & np.int64((1 << ASSEMBLY_BITS) - 1)) - half


def deliver_int(sums: np.ndarray, clip_truncate: int) -> tuple[np.ndarray, int]:
    """Exact integer sums (int64, or float32 below 2**24) -> (int32 cube, saturation count)."""
    if sums.dtype == np.float32:
        if corners.active():
            corners.convertor("cacc.truncate", sums.astype(np.int64), clip_truncate, 32)
        return _deliver_small(sums, clip_truncate), 0
    wrapped = wrap_assembly(np.asarray(sums, dtype=np.int64))
    corners.convertor("cacc.truncate", wrapped, clip_truncate, 32)
    values, count = truncate(wrapped, clip_truncate, 32)
    return values.astype(np.int32), count


def _deliver_small(sums: np.ndarray, clip_truncate: int) -> np.ndarray:
    """Sums below 2**24 in magnitude: the accumulator cannot wrap nor the int32 result saturate, so the
    rounding shift alone remains, done in int32 (the same half-away-from-zero rounding as truncate)."""
    values = sums.astype(np.int32)
    if clip_truncate <= 0:
        return values
    shift = min(int(clip_truncate), 31)
    values += np.int32((1 << (shift - 1)) - 1) + (values >= 0)
    values >>= shift
    return values


def deliver_fp(sums: np.ndarray) -> np.ndarray:
    """float64 sums -> the fp32 values CACC hands to SDP (round to nearest even)."""
    return sums.astype(np.float32)
