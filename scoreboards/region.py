"""Compare one checked memory region of an implementation with the reference's, surface by surface.

Every surface the reference's hardware layers wrote into the region is judged element by element
with its comparator (scoreboards/comparators.py); a surface written later covers an earlier one.
The bytes of the region that no surface element covers (line and surface padding, memory no layer
wrote) must be identical.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from golden.steps import CheckRegion
from golden.verdict import surface_span
from scoreboards.choice import comparator_for
from scoreboards.comparators import BitExact
from scoreboards.layout import coordinates, element_bytes, element_offsets, element_patterns
from scoreboards.report import FIRST_SHOWN, SurfaceReport


@dataclass
class RegionComparison:
    step: CheckRegion
    reports: list[SurfaceReport] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.reports)

    @property
    def tolerant(self) -> bool:
        """Whether a threshold (not bit-exactness) judged part of the region."""
        return any(r.rule != BitExact.rule for r in self.reports)

    def summary(self) -> str:
        bad = [r for r in self.reports if not r.ok]
        if not bad:
            return f"{self.step.name}: matches the reference ({'; '.join(r.summary() for r in self.reports)})"
        return f"{self.step.name}: " + "; ".join(r.summary() for r in bad)


def compare_region(step: CheckRegion, got, expected, surfaces=()) -> RegionComparison:
    """got/expected: the region's bytes from the implementation and the reference; surfaces: the
    reference's golden.hardware.WrittenSurface list."""
    got, expected = _as_bytes(got), _as_bytes(expected)
    comparison = RegionComparison(step)
    if got.size != expected.size:
        comparison.reports.append(SurfaceReport("memory", "region", step.memory, step.base, (expected.size,),
                                                "int8", "size", expected.size, expected.size, first=[{
                                                    "address": step.base, "got": got.size,
                                                    "expected": expected.size, "error": 0, "allowed": 0}]))
        return comparison
    covered = np.zeros(got.size, bool)
    for written in reversed(list(surfaces)):
        report = _compare_surface(step, written, got, expected, covered)
        if report is not None:
            comparison.reports.insert(0, report)
    if not covered.all():
        comparison.reports.append(_compare_rest(step, got, expected, covered))
    return comparison


def _as_bytes(data) -> np.ndarray:
    if isinstance(data, bytes | bytearray | memoryview):
        return np.frombuffer(data, np.uint8)
    return np.asarray(data, np.uint8).ravel()


def _compare_surface(step, written, got, expected, covered) -> SurfaceReport | None:
    surface = written.surface
    if surface.memory != step.memory or len(surface.shape) < 3 or got.size < element_bytes(surface.precision):
        return None
    start, end = surface_span(surface)
    if end <= step.base or step.base + got.size <= start:
        return None
    offsets = element_offsets(surface) + (surface.base - step.base)
    size = element_bytes(surface.precision)
    inside = (offsets >= 0) & (offsets + size <= got.size)
    if not inside.any():
        return None
    clipped = np.where(inside, offsets, 0)
    fresh = inside & ~covered[clipped]
    if not fresh.any():
        return None
    comparator = comparator_for(written.tolerance)
    judgement = comparator.judge(element_patterns(got, clipped, surface.precision),
                                 element_patterns(expected, clipped, surface.precision), surface.precision)
    bad = fresh & ~judgement.ok
    for byte in range(size):
        covered[clipped[fresh] + byte] = True
    report = SurfaceReport(written.unit, surface.name or f"{written.unit} output", surface.memory, surface.base,
                           tuple(surface.shape), surface.precision, comparator.rule, int(fresh.sum()),
                           int(bad.sum()), source=comparator.source)
    if report.mismatches:
        _locate(report, bad, judgement, clipped + step.base)
    return report


def _locate(report: SurfaceReport, bad: np.ndarray, judgement, addresses: np.ndarray) -> None:
    def element(index) -> dict:
        return {**coordinates(index), "address": int(addresses[index]), "got": float(judgement.got[index]),
                "expected": float(judgement.expected[index]), "error": float(judgement.error[index]),
                "allowed": float(judgement.allowed[index])}

    where = np.argwhere(bad)
    report.first = [element(tuple(i)) for i in where[:FIRST_SHOWN]]
    excess = np.where(bad, judgement.error - judgement.allowed, -np.inf)
    report.worst = element(np.unravel_index(int(np.argmax(excess)), bad.shape))
    channel_axis = bad.ndim - 3
    report.per_channel = bad.sum(axis=tuple(a for a in range(bad.ndim) if a != channel_axis))
    report.per_plane = bad.reshape(-1, *bad.shape[-2:]).sum(axis=0)


def _compare_rest(step, got, expected, covered) -> SurfaceReport:
    rest = np.flatnonzero(~covered)
    judgement = BitExact().judge(got[rest], expected[rest], "uint8")
    report = SurfaceReport("memory", "bytes outside every surface", step.memory, step.base, (got.size,), "uint8",
                           BitExact.rule, int(rest.size), int((~judgement.ok).sum()), source=BitExact.source)
    for i in np.flatnonzero(~judgement.ok)[:FIRST_SHOWN]:
        report.first.append({"address": step.base + int(rest[i]), "got": float(judgement.got[i]),
                             "expected": float(judgement.expected[i]), "error": float(judgement.error[i]),
                             "allowed": 0.0})
    return report
