"""PDP and CDP: the FP16 window thresholds of nvdla-precision-preservation.md.

    (fabs(a-b) <= 0.0001) && (fabs(a-b) / max_value <= 0.001)

max_value is the largest value inside the element's pooling window (PDP) or square-sum window (CDP),
supplied by the golden model as a magnitude. The second condition is evaluated as
fabs(a-b) <= 0.001 * max_value, so a window of zeros allows no error. NaN and INF elements must agree
exactly.
"""

from __future__ import annotations

import numpy as np

from golden.provenance import fit
from golden.units.base import Tolerance
from scoreboards.comparators import Judgement, special_agreement, values

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
        ok = np.where(special, agree, (error <= ABSOLUTE) & (error <= RELATIVE * max_value))
        return Judgement(ok, error, allowed_error(max_value), got_v, expected_v)
