"""The one timer of the benchmark scripts (speed is measured here, never in tests)."""

from __future__ import annotations

import time


def best_time(function, repeat: int = 5, *, number: int = 1, warmup: bool = False) -> float:
    """Seconds per call of `function`: the best of `repeat` runs of `number` calls each, after one untimed
    call when `warmup` (first-call costs such as allocation or caches stay out of the measurement)."""
    if warmup:
        function()
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            function()
        best = min(best, (time.perf_counter() - start) / number)
    return best
