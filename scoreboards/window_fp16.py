"""PDP and CDP: the FP16 window thresholds of nvdla-precision-preservation.md.

    (fabs(a-b) <= 0.0001) && (fabs(a-b) / max_value <= 0.001)

max_value is the largest value inside the element's pooling window (PDP) or square-sum window (CDP),
supplied by the golden model as a magnitude. The second condition is evaluated as
fabs(a-b) <= 0.001 * max_value, so a window of zeros allows no error. NaN and INF elements must agree
exactly.

Pooling what an fp16 convolution computed (golden/provenance.py) adds the error its inputs may carry: an
average moves by no more than the largest of them, the CC threshold of the window's largest max_exp with
exp(a) taken from max_value (no input of the window is larger).
"""

from __future__ import annotations

import numpy as np

from golden.numerics.fp import fp16_bits
from golden.provenance import NO_EXPONENT, fit
from golden.units.base import Tolerance
from scoreboards.comparators import Judgement, special_agreement, values
from scoreboards.conv_fp16 import allowed_error as conv_allowed_error

ABSOLUTE = 0.0001
RELATIVE = 0.001


def allowed_error(max_value: np.ndarray) -> np.ndarray:
    return np.minimum(ABSOLUTE, RELATIVE * np.abs(max_value))


class WindowThreshold:
    def __init__(self, tolerance: Tolerance):
        self.tolerance = tolerance
        self.rule = f"{tolerance.rule} FP16 threshold"
        self.source = (f"nvdla-precision-preservation.md, FP16 thresholds, {tolerance.rule}: fabs(a-b) <= 0.0001 "
                       "and fabs(a-b)/max_value <= 0.001")

    def judge(self, got, expected, precision) -> Judgement:
        got_v, expected_v = values(got, precision), values(expected, precision)
        max_value = np.abs(fit(self.tolerance.max_value, np.shape(expected), fill=0.0))
        special, agree = special_agreement(got_v, expected_v)
        with np.errstate(invalid="ignore"):
            error = np.where(special, np.where(agree, 0.0, np.inf), np.abs(got_v - expected_v))
        allowed = allowed_error(max_value) + self._carried(max_value)
        ok = np.where(special, agree, error <= allowed)
        return Judgement(ok, error, allowed, got_v, expected_v)

    def _carried(self, max_value: np.ndarray) -> np.ndarray | float:
        carried = self.tolerance.carried
        if carried is None:
            return 0.0
        shape = max_value.shape
        max_exp = fit(carried.max_exp, shape, NO_EXPONENT)
        taps, scale = (fit(v, shape, 0) for v in (carried.taps, carried.scale))
        largest = fp16_bits(np.minimum(max_value, 65504.0).astype(np.float16))
        return np.where(max_exp <= NO_EXPONENT, 0.0, conv_allowed_error(largest, max_exp, taps, scale))
