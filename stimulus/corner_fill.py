"""What every corner aimer shares: which candidate values land on which corner class (read from an observed
golden run over the candidates), and filling slots with candidates that aim at the classes in turn."""

from __future__ import annotations

import numpy as np

from golden import rules
from golden.numerics import corners


def targets(seen: corners.Corners, size: int) -> list[np.ndarray]:
    """Per (stage, class) met by some of `size` candidates: the candidates' indices, in a fixed order. A stage
    whose last observed array is not one value per candidate (a subset, e.g. a LUT's out-of-range elements) is
    left out."""
    found = []
    for stage in sorted(seen.masks):
        for _, mask in sorted(seen.masks[stage].items()):
            mask = np.ravel(mask)
            if mask.size == size and mask.any():
                found.append(np.flatnonzero(mask))
    return found


def fill(rng, shape, candidates: np.ndarray, hits: list[np.ndarray]) -> np.ndarray:
    """A cube of `shape` whose elements take, in turn over the targets, a candidate of each target."""
    size = int(np.prod(shape))
    which = rng.integers(0, len(hits), size)
    out = np.empty(size, np.int64)
    for t, indices in enumerate(hits):
        chosen = which == t
        out[chosen] = candidates[rng.choice(indices, int(np.count_nonzero(chosen)))]
    return out.reshape(shape)


def fill_within(rng, low: np.ndarray, high: np.ndarray, candidates: np.ndarray, hits: list[np.ndarray]):
    """Per slot i a candidate value in [low[i], high[i]] of a target drawn among those with one there (the
    slot keeps low[i] when none has). `candidates` ascending."""
    low, high = np.asarray(low, np.int64), np.asarray(high, np.int64)
    out = low.copy()
    best = np.full(low.shape, -1.0)
    for indices in hits:
        values = candidates[indices]
        first, last = np.searchsorted(values, low, "left"), np.searchsorted(values, high, "right")
        reachable = last > first
        priority = np.where(reachable, rng.random(low.shape), -1.0)
        take = priority > best
        pick = first + (rng.random(low.shape) * np.maximum(last - first, 1)).astype(np.int64)
        out = np.where(take, values[np.minimum(pick, values.size - 1)], out)
        best = np.maximum(best, priority)
    return out


def legal(unit: str, cfg, regs, profile) -> bool:
    """Whether the rule registry accepts the unit's configuration (advisory rules aside)."""
    return not [r for r, _ in rules.violations(unit, cfg, rules.Facts(regs, profile)) if not r.advisory]
