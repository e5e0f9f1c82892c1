"""NVDLA numerics: integer convertor/truncation/shifter/saturation and NVDLA's fp16/fp17/fp32."""

from golden.numerics import fp, fp_arith, integer
from golden.numerics.fp import (
    INF_MAPPING,
    flush_nan,
    fp16_to_float32,
    fp16_to_fp17,
    fp16_to_fp32,
    fp17_to_fp16,
    fp17_to_fp32,
    fp32_to_fp16,
    fp32_to_fp17,
    nan_count,
)
from golden.numerics.fp_arith import fp_add, fp_max, fp_min, fp_mul, fp_sub
from golden.numerics.integer import as_signed, convertor, saturate, shift_left_saturate, shift_right_round, truncate

__all__ = [
    "INF_MAPPING", "as_signed", "convertor", "flush_nan", "fp", "fp16_to_float32", "fp16_to_fp17", "fp16_to_fp32",
    "fp17_to_fp16", "fp17_to_fp32", "fp32_to_fp16", "fp32_to_fp17", "fp_add", "fp_arith", "fp_max",
    "fp_min", "fp_mul", "fp_sub", "integer", "nan_count", "saturate", "shift_left_saturate",
    "shift_right_round", "truncate",
]
