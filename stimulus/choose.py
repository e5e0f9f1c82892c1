"""Where a generator's choices come from: a seeded numpy generator, or hypothesis (so a failure shrinks).

A generator asks a `Chooser` for every decision: `size` (a number biased to its ends, so sizes of 1 and
the largest legal ones come up on purpose), `integer` (uniform), `choice`, `flag`, and `data` (a numpy
generator for bulk bytes, seeded from one drawn number). `Seeded(seed)` gives the same decisions for the
same seed on any machine (numpy's PCG64 and only integer draws); `Drawn(draw)` takes them from a
hypothesis `data.draw`, whose shrinking moves every decision towards its first option and its lower end.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

#: Chance that `size` returns one of its ends instead of a uniform value.
CORNER = 0.25


class Chooser(Protocol):
    """What a generator asks for its decisions (Seeded, Drawn, the shrinker's recorder)."""

    def integer(self, low: int, high: int) -> int: ...

    def size(self, low: int, high: int) -> int: ...

    def choice(self, options: Sequence) -> Any: ...

    def flag(self, chance: float = 0.5) -> bool: ...

    def data(self) -> np.random.Generator: ...


class Seeded:
    def __init__(self, seed: int | list[int]):
        self.rng = np.random.default_rng(seed)

    def integer(self, low: int, high: int) -> int:
        """Uniform in [low, high]."""
        return int(self.rng.integers(low, high + 1))

    def size(self, low: int, high: int) -> int:
        """In [low, high], one of the ends with probability CORNER."""
        if high > low and self.rng.random() < CORNER:
            return high if self.rng.random() < 0.5 else low
        return self.integer(low, high)

    def choice(self, options: Sequence):
        return options[int(self.rng.integers(0, len(options)))]

    def flag(self, chance: float = 0.5) -> bool:
        return bool(self.rng.random() < chance)

    def data(self) -> np.random.Generator:
        return np.random.default_rng(int(self.rng.integers(0, 1 << 63)))


class Drawn:
    """Decisions drawn by hypothesis (`Drawn(data.draw)` inside a test given `st.data()`)."""

    def __init__(self, draw):
        from hypothesis import strategies as st  # test-time dependency only
        self._st = st
        self._draw = draw

    def integer(self, low: int, high: int) -> int:
        return self._draw(self._st.integers(low, high))

    def size(self, low: int, high: int) -> int:
        return self.integer(low, high)

    def choice(self, options: Sequence):
        return options[self.integer(0, len(options) - 1)]

    def flag(self, chance: float = 0.5) -> bool:
        return self._draw(self._st.booleans())

    def data(self) -> np.random.Generator:
        return np.random.default_rng(self.integer(0, (1 << 32) - 1))
