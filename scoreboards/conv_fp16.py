"""CC DC and CC Winograd: the FP16 convolution thresholds of nvdla-precision-preservation.md.

    CC DC:        fabs(a-b) <= 2**(max_exp-20) * R*S*C * 2 * scale + 2**(exp(a)-10)
    CC Winograd:  fabs(a-b) <= 2**(max_exp-20) * 18*C  * 2 * scale + 2**(exp(a)-10)

exp(a) = ((a >> 10) & 0x1f) - 15, the exponent field of a, here the reference's result; max_exp per
element comes from the golden model (golden/units/conv/tolerance.py), and R*S*C or 18*C is its `taps`.
NaN and INF elements must agree exactly. 2^(exp(a)-10) is one unit in the last place of a normal a; for a
denormal a (exponent field 0) the literal formula gives half of one, which no rounding flip fits, so the
field is taken as 1 there, the denormals' own ulp 2^-24 (nvdlav1's C model, an fp16 convolution through SDP
multipliers: a one-ulp denormal difference, generate --unit conv --profile nv_full --seed 2601 trace 85).
"""

from __future__ import annotations

import numpy as np

from golden.provenance import NO_EXPONENT, fit
from golden.units.base import Tolerance
from scoreboards.comparators import Judgement, special_agreement, values


def exponent_field(patterns: np.ndarray) -> np.ndarray:
    """exp(a) = ((a >> 10) & 0x1f) - 15 of fp16 bit patterns, a denormal's field read as 1 (see above)."""
    return np.maximum((np.asarray(patterns, np.int64) >> 10) & 0x1F, 1) - 15


def allowed_error(expected: np.ndarray, max_exp: np.ndarray, taps: int | np.ndarray,
                  scale: float | np.ndarray = 1.0) -> np.ndarray:
    """The document's bound for fp16 patterns `expected` (the reference's results a)."""
    return np.ldexp(1.0, max_exp - 20) * (taps * 2 * scale) + np.ldexp(1.0, exponent_field(expected) - 10)


class ConvThreshold:
    def __init__(self, tolerance: Tolerance):
        self.tolerance = tolerance
        self.rule = f"{tolerance.rule} FP16 threshold"
        factor = "R*S*C" if tolerance.rule == "CC DC" else "18*C"
        self.source = (f"nvdla-precision-preservation.md, FP16 thresholds, {tolerance.rule}: fabs(a-b) <= "
                       f"2^(max_exp-20) * {factor} * 2 * scale + 2^(exp(a)-10), {factor} = {tolerance.taps}")

    def judge(self, got, expected, precision) -> Judgement:
        got_v, expected_v = values(got, precision), values(expected, precision)
        shape = np.shape(expected)
        max_exp = fit(self.tolerance.max_exp, shape, fill=NO_EXPONENT)
        # taps and scale are numbers for a convolution's own output, per element where values were moved
        taps, scale = (fit(v, shape, 0) for v in (self.tolerance.taps, self.tolerance.scale))
        allowed = allowed_error(expected, max_exp, taps, scale)
        allowed = np.where(max_exp <= NO_EXPONENT, 0.0, allowed)  # elements no convolution computed
        special, agree = special_agreement(got_v, expected_v)
        with np.errstate(invalid="ignore"):
            error = np.where(special, np.where(agree, 0.0, np.inf), np.abs(got_v - expected_v))
        ok = np.where(special, agree, error <= allowed)
        return Judgement(ok, error, allowed, got_v, expected_v)
