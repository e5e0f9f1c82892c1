"""Scoreboards: judge an implementation's outcome against a reference's, surface by surface.

    comparator_for(tolerance) -> Comparator      bit-exact, CC DC / CC Winograd or PDP / CDP threshold
    compare_region(step, got, expected, surfaces) -> RegionComparison   with a SurfaceReport per surface
    verify(trace, profile, implementation, reference=None) -> golden.verdict.TraceResult   run, then judge
    compare(program, outcome, reference_outcome, result)   the checks against the reference (golden/verdict.py)

The comparator of each output surface follows the unit that wrote it, as
../shared/spec/nvdla-precision-preservation.md states the FP16 thresholds: SDP and every integer
path bit-by-bit identical; CC DC and CC Winograd within the max_exp threshold; PDP and CDP within
0.0001 absolute and 0.001 of the window's largest value.
"""

from scoreboards.choice import comparator_for
from scoreboards.comparators import BitExact, Comparator, Judgement
from scoreboards.region import RegionComparison, compare_region
from scoreboards.report import SurfaceReport
from scoreboards.verdict import compare, verify

__all__ = ["BitExact", "Comparator", "Judgement", "RegionComparison", "SurfaceReport", "comparator_for",
           "compare", "compare_region", "verify"]
