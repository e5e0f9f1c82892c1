"""What the testplan's tests share, whatever their kind: the levels, the plan's error, and seeds and counts per
level (ci/regression/plan.py reads the plan, ci/regression/kinds/ expands its tests)."""

from __future__ import annotations

import hashlib

from golden.errors import NvdlaVerifError

LEVELS = ("smoke", "nightly", "weekly")


class PlanError(NvdlaVerifError):
    """A testplan that cannot be read or names something that does not exist."""


def derived_seed(base: int, test: str, index: int) -> int:
    """The seed of the index-th layer of a per-run test: the same on every machine for the same base seed."""
    digest = hashlib.sha256(f"{base}:{test}:{index}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def count_for(test: dict, level: str) -> int:
    counts = test.get("count", {})
    rank = LEVELS.index(level)
    # The count of the highest level at or below this one that names one (a weekly count never shrinks a nightly).
    for name in reversed(LEVELS[:rank + 1]):
        if name in counts:
            return int(counts[name])
    return 0


def seeds(test: dict, level: str, base: int, stream: str) -> list[int]:
    """A seeded test's seeds at the level: its fixed list, or `count` derived from the run's base seed."""
    if test["seeds"] == "fixed":
        return [int(s) for s in test["fixed_seeds"]]
    return [derived_seed(base, stream, i) for i in range(count_for(test, level))]
