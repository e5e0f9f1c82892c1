"""Where each fp16 element's threshold comes from when units pass values on unchanged.

nvdla-precision-preservation.md states FP16 thresholds for the units that compute (the convolution thresholds
and the window ones of pooling and square sums) and "bit-by-bit identical" for the rest. A unit that moves bytes
(Unit.moves_bytes), passes values through or selects one input of a window (Unit.passed_on) hands on the
threshold of the unit that computed each value, element by element. So a surface's comparator follows its
values, not the unit that wrote it last; which comparator a threshold rule takes is declared with the unit that
computes it (Unit.thresholds).

Elements are followed through a unit that moves bytes by running it once more on two shadow memories in which
every element of a tolerant fp16 surface holds the low and the high half of its number (a tag) instead of its
value: the tags come out where the unit put the values. Max/min pooling takes the largest threshold of its
window: the hardware's choice among near-equal inputs may differ from the reference's by at most that.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import golden.units
from golden.memory import Memory, MemorySystem
from golden.units.base import Surface, Tolerance

#: max_exp of an element no convolution computed: no threshold (bit-exact).
NO_EXPONENT = -(1 << 20)


def per_exponent(rule: str) -> bool:
    """Whether a threshold rule's elements carry max_exp, taps and scale (the convolution comparator's) rather than
    max_value."""
    return golden.units.comparators().get(rule) == "convolution"


def fit(array, shape: tuple[int, ...], fill) -> np.ndarray:
    """`array` (a unit's output cube, or a number for every element) on a surface's cube: extra channels (atom
    padding) get `fill`."""
    array = np.asarray(array)
    if array.ndim != len(shape):
        array = np.broadcast_to(array, shape)
    if array.shape == tuple(shape):
        return array
    out = np.full(shape, fill, dtype=np.result_type(array, np.asarray(fill)))
    channels = min(array.shape[-3], shape[-3])
    out[..., :channels, :, :] = array[..., :channels, :, :]
    return out


@dataclass
class Elements:
    """Threshold parameters of a list of elements: the rule of each (an index into `rules`, -1 for none),
    and max_exp, taps, scale (convolution rules) or max_value (window rules)."""

    rules: tuple[str, ...]
    rule: np.ndarray
    max_exp: np.ndarray
    taps: np.ndarray
    scale: np.ndarray
    max_value: np.ndarray

    @classmethod
    def of(cls, tolerance: Tolerance, shape: tuple[int, ...]) -> Elements:
        """The elements of a surface of `shape` written with `tolerance` (flattened, C-order)."""
        convolution = per_exponent(tolerance.rule)
        max_exp = fit(tolerance.max_exp, shape, NO_EXPONENT) if convolution else np.full(shape, NO_EXPONENT)
        max_value = np.zeros(shape) if convolution else fit(tolerance.max_value, shape, 0.0)
        computed = max_exp > NO_EXPONENT if convolution else np.ones(shape, bool)
        taps, scale = (fit(v, shape, 0).astype(np.float64).ravel() for v in (tolerance.taps, tolerance.scale))
        return cls((tolerance.rule,), np.where(computed, 0, -1).astype(np.int8).ravel(),
                   max_exp.astype(np.int64).ravel(), taps, scale, np.abs(max_value).astype(np.float64).ravel())

    @classmethod
    def none(cls, size: int = 0) -> Elements:
        return cls((), np.full(size, -1, np.int8), np.full(size, NO_EXPONENT, np.int64), np.zeros(size),
                   np.zeros(size), np.zeros(size))

    @classmethod
    def join(cls, parts: list[Elements]) -> Elements:
        rules = tuple(dict.fromkeys(r for p in parts for r in p.rules))
        index = [np.array([rules.index(r) for r in p.rules] + [-1], np.int8)[p.rule] for p in parts]
        return cls(rules, np.concatenate(index), *(np.concatenate([getattr(p, name) for p in parts])
                                                   for name in ("max_exp", "taps", "scale", "max_value")))

    def take(self, index: np.ndarray) -> Elements:
        """The elements at `index` (-1: an element with no threshold)."""
        index = np.asarray(index, np.int64)
        extended = Elements.join([self, Elements.none(1)]) if self.rules else Elements.none(self.rule.size + 1)
        pick = np.where(index < 0, extended.rule.size - 1, index)
        return Elements(extended.rules, extended.rule[pick], extended.max_exp[pick], extended.taps[pick],
                        extended.scale[pick], extended.max_value[pick])

    def tolerance(self, shape: tuple[int, ...]) -> Tolerance | None:
        """The Tolerance of a cube of these elements; None when none has a threshold. Elements of several rules
        keep the most common one's; the others are judged bit-exact (no generated layer mixes them)."""
        counts = np.bincount(self.rule[self.rule >= 0], minlength=len(self.rules))
        if not counts.any():
            return None
        main = int(np.argmax(counts))
        mine = self.rule == main
        rule = self.rules[main]
        if per_exponent(rule):
            return Tolerance(rule, max_exp=np.where(mine, self.max_exp, NO_EXPONENT).reshape(shape),
                             taps=np.where(mine, self.taps, 0).reshape(shape), scale=self.scale.reshape(shape))
        return Tolerance(rule, max_value=np.where(mine, self.max_value, 0.0).reshape(shape))


def surface_elements(written: list) -> tuple[list[Surface], Elements]:
    """The tolerant fp16 surfaces among golden.hardware.WrittenSurface records, and their elements in order."""
    surfaces, parts = [], []
    for record in written:
        if record.tolerance is not None and record.surface.precision == "fp16":
            surfaces.append(record.surface)
            parts.append(Elements.of(record.tolerance, tuple(record.surface.shape)))
    return surfaces, (Elements.join(parts) if parts else Elements.none())


def _blank(memory: Memory) -> Memory:
    """A copy of `memory` with the same bytes written, every one of them 0."""
    shadow = memory.copy()
    for data in shadow._pages.values():
        data[:] = 0
    shadow._uniform = dict.fromkeys(shadow._uniform, 0)
    return shadow


def shadows(memory: MemorySystem, surfaces: list[Surface]) -> tuple[MemorySystem, MemorySystem]:
    """Two shadows of `memory` whose tolerant elements hold the low and high 16 bits of their number + 1."""
    low, high = (MemorySystem(_blank(memory.pri), _blank(memory.sec)) for _ in range(2))
    first = 1
    for surface in surfaces:
        offsets = surface.element_offsets().ravel() + surface.base
        tags = np.arange(first, first + offsets.size, dtype=np.uint32)
        first += offsets.size
        for shadow, half in ((low, tags & 0xFFFF), (high, tags >> 16)):
            shadow.by_name(surface.memory).write_lines(offsets, half.astype("<u2").view(np.uint8).reshape(-1, 2))
    return low, high


def followed(memory: MemorySystem, written: list, run: Callable[[MemorySystem], object],
             read: Callable[[MemorySystem], np.ndarray]) -> Tolerance | None:
    """The threshold of the cube `read` finds after `run` moved bytes on the shadows of `memory`, element by
    element (None: no element has one). `read(shadow)` returns the cube's uint16 patterns."""
    surfaces, elements = surface_elements(written)
    if not surfaces:
        return None
    tags = []
    for shadow in shadows(memory, surfaces):
        run(shadow)
        tags.append(np.asarray(read(shadow)).astype(np.int64))
    return elements.take(((tags[0] | tags[1] << 16) - 1).ravel()).tolerance(tags[0].shape)


def read_surface(surface: Surface) -> Callable[[MemorySystem], np.ndarray]:
    """A reader of an fp16 surface's element patterns (for `followed`)."""
    def read(memory: MemorySystem) -> np.ndarray:
        offsets = surface.element_offsets() + surface.base
        raw = memory.by_name(surface.memory).read_lines(offsets.ravel(), 2, unwritten="allow")
        return np.ascontiguousarray(raw).view("<u2").reshape(offsets.shape)
    return read
