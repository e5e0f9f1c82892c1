"""Which comparator judges a surface: the one its FP16 threshold's rule is declared with (Unit.thresholds), else
bit-exact."""

from __future__ import annotations

from collections.abc import Callable

import golden.units
from golden.units.base import Tolerance
from scoreboards.comparators import BitExact, Comparator
from scoreboards.conv_fp16 import ConvThreshold
from scoreboards.window_fp16 import WindowThreshold

#: A comparator of golden.units.declaration.COMPARATORS -> the scoreboard's.
COMPARATORS: dict[str, Callable[[Tolerance], Comparator]] = {"convolution": ConvThreshold, "window": WindowThreshold}


def comparator_for(tolerance: Tolerance | None) -> Comparator:
    """The comparator for a surface written with this tolerance (None: bit-exact)."""
    if tolerance is None:
        return BitExact()
    kind = golden.units.comparators().get(tolerance.rule)
    if kind is None:
        raise ValueError(f"no comparator for tolerance rule {tolerance.rule!r}")
    return COMPARATORS[kind](tolerance)
