"""A direct convolution through CSC (windows and padding), CMAC (sums) and CACC (truncation, saturation):
the core of direct-convolution and image-input layers (golden/units/conv/__init__.py, image.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from golden.units.base import Tolerance
from golden.units.conv import cacc, cdma, cmac, csc, tolerance
from golden.units.conv.geometry import Geometry


@dataclass
class ConvResult:
    output: np.ndarray  # (N, K, Ho, Wo)
    saturated: int = 0
    status: dict = field(default_factory=dict)
    tolerance: Tolerance | None = None


def convolve(cube: np.ndarray, weights: np.ndarray, geometry: Geometry, precision: str, pad_value: int,
             clip_truncate: int = 0, *, nan_to_zero: bool = False, tolerance_scale: float = 1.0) -> ConvResult:
    """A direct convolution through CSC, CMAC and CACC.

    cube (N, C, H, W) and weights (K, C, R, S): int64 values for int8/int16, np.float16 for fp16.
    """
    pad = csc.pad_element(pad_value, precision)
    if precision != "fp16":
        taps = weights.shape[1] * weights.shape[2] * weights.shape[3]
        x_max = max(cmac.magnitude(cube), abs(pad))
        dtype = cmac.gemm_dtype(x_max, cmac.magnitude(weights), taps)
        plane = cube if dtype == np.int64 else cube.astype(dtype)
        sums = cmac.multiply_accumulate(csc.direct_windows(plane, pad, geometry), weights, dtype)
        out, count = cacc.deliver_int(sums, clip_truncate)
        return ConvResult(out, count)
    data, nan_d, inf_d = cdma.fp16_operands(cube, nan_to_zero, cdma.INF_DC)
    wts, nan_w, inf_w = cdma.fp16_operands(weights, nan_to_zero, cdma.INF_DC)
    pad_wide = cdma.fp16_operands(np.asarray([pad]), nan_to_zero, cdma.INF_DC)[0][0]
    sums = cmac.multiply_accumulate(csc.direct_windows(data, pad_wide, geometry), wts)
    out = cacc.deliver_fp(sums)
    tol = tolerance.dc_tolerance(cube, pad, geometry, weights, tolerance_scale)
    status = {("CDMA", "D_NAN_INPUT_DATA_NUM"): nan_d, ("CDMA", "D_NAN_INPUT_WEIGHT_NUM"): nan_w,
              ("CDMA", "D_INF_INPUT_DATA_NUM"): inf_d, ("CDMA", "D_INF_INPUT_WEIGHT_NUM"): inf_w}
    return ConvResult(out, 0, status, tol)
