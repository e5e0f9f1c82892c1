"""CACC: the accumulator's delivery to SDP.

Integer pipelines: cc_out_trunc (precision-preservation: Convertor/Truncate, "Truncate the data to
INT32/FP32 before sending to SDP") drops CLIP_TRUNCATE low bits rounding half away from zero, then
saturates to int32; every saturated element counts in CACC.D_OUT_SATURATION ("Always enabled"). The
nvdla/hw cmod (cacc, ReshapeSequencer) rounds the same way (x / 2**t, +-0.5, toward zero).

fp16 pipeline: the accumulator's sum is delivered as fp32 (cmod cacc_fp48_to_fp32); no truncation.
"""

from __future__ import annotations

import numpy as np

from golden.numerics.integer import truncate


def deliver_int(sums: np.ndarray, clip_truncate: int) -> tuple[np.ndarray, int]:
    """int64 sums -> (int32 cube, saturation count)."""
    values, count = truncate(sums, clip_truncate, 32)
    return values.astype(np.int32), count


def deliver_fp(sums: np.ndarray) -> np.ndarray:
    """float64 sums -> the fp32 values CACC hands to SDP (round to nearest even)."""
    return sums.astype(np.float32)
