"""Which comparator judges a surface: the one for the FP16 threshold its unit states, else bit-exact."""

from __future__ import annotations

from golden.units.base import Tolerance
from scoreboards.comparators import BitExact, Comparator
from scoreboards.conv_fp16 import ConvThreshold
from scoreboards.window_fp16 import WindowThreshold


def comparator_for(tolerance: Tolerance | None) -> Comparator:
    """The comparator for a surface written with this tolerance (None: bit-exact)."""
    if tolerance is None:
        return BitExact()
    if tolerance.rule in ("CC DC", "CC Winograd"):
        return ConvThreshold(tolerance)
    if tolerance.rule in ("PDP", "CDP"):
        return WindowThreshold(tolerance)
    raise ValueError(f"no comparator for tolerance rule {tolerance.rule!r}")
