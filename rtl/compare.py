"""Comparison of DUT memory with the golden model's, behind one interface.

`Comparator.compare(name, got, expected, layout)` returns a `Comparison`. Today the
only comparator is `BitExact`; per-module FP16 thresholds plug in as another
`Comparator`. A mismatch report names the surface (the checked region and, when
known, the cube it holds), the count of mismatching elements and the W/H/C
coordinates of the first ones. `layout` describes the cube in the region:
{"base", "line_stride", "surface_stride", "width", "height", "channel", "atom", "element"}.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

FIRST_SHOWN = 8


@dataclass
class Comparison:
    name: str
    ok: bool
    mismatches: int = 0
    first: list[dict] = field(default_factory=list)

    def report(self) -> str:
        if self.ok:
            return f"{self.name}: match"
        where = "; ".join(_describe(m) for m in self.first)
        return f"{self.name}: {self.mismatches} mismatching bytes; first: {where}"


class Comparator(Protocol):
    def compare(self, name: str, got: np.ndarray, expected: np.ndarray, layout: dict | None,
                base: int) -> Comparison: ...


def _describe(m: dict) -> str:
    if "w" in m:
        return f"W={m['w']} H={m['h']} C={m['c']} @{m['addr']:#x} got {m['got']:#04x} want {m['want']:#04x}"
    return f"@{m['addr']:#x} (outside the cube) got {m['got']:#04x} want {m['want']:#04x}"


def coordinates(addr: int, layout: dict | None) -> dict:
    """W/H/C of the element at byte address addr, or {} when outside the cube."""
    if not layout:
        return {}
    rel = addr - layout["base"]
    atom, element = layout.get("atom", 8), layout.get("element", 1)
    if rel < 0:
        return {}
    surface, rest = divmod(rel, layout["surface_stride"]) if layout["surface_stride"] else (0, rel)
    h, rest = divmod(rest, layout["line_stride"]) if layout["line_stride"] else (0, rest)
    w, byte = divmod(rest, atom)
    c = surface * (atom // element) + byte // element
    if h >= layout["height"] or w >= layout["width"] or surface * (atom // element) >= layout["channel"]:
        return {}
    return {"w": w, "h": h, "c": c}


def _as_bytes(data) -> np.ndarray:
    if isinstance(data, bytes | bytearray | memoryview):
        return np.frombuffer(data, np.uint8)
    return np.asarray(data, np.uint8).ravel()


class BitExact:
    """Every byte equal."""

    def compare(self, name, got, expected, layout=None, base=0) -> Comparison:
        got, expected = _as_bytes(got), _as_bytes(expected)
        if got.shape != expected.shape:
            return Comparison(name, False, max(got.size, expected.size),
                              [{"addr": base, "got": 0, "want": 0, "note": "size differs"}])
        bad = np.flatnonzero(got != expected)
        first = []
        for index in bad[:FIRST_SHOWN]:
            addr = base + int(index)
            first.append({"addr": addr, "got": int(got[index]), "want": int(expected[index]),
                          **coordinates(addr, layout)})
        return Comparison(name, bad.size == 0, int(bad.size), first)


DEFAULT_COMPARATOR = BitExact()
