"""Mismatch reports: one per surface a region check compared, readable as text and drawable as a picture."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from scoreboards.picture import draw

FIRST_SHOWN = 8


@dataclass
class SurfaceReport:
    unit: str  # the unit that wrote the surface (or "memory" for bytes outside every surface)
    name: str  # the surface's name, e.g. "SDP output"
    memory: str
    base: int
    shape: tuple[int, ...]  # (C, H, W) or (N, C, H, W); (bytes,) outside every surface
    precision: str
    rule: str  # the comparator's rule, e.g. "bit-exact"
    compared: int  # elements compared
    mismatches: int
    first: list[dict] = field(default_factory=list)  # {n?, c, h, w, address, got, expected, error, allowed}
    worst: dict | None = None  # the largest error relative to its allowance
    per_channel: np.ndarray | None = field(default=None, repr=False)  # mismatches per channel
    per_plane: np.ndarray | None = field(default=None, repr=False)  # mismatches per (h, w), over channels
    source: str = ""  # the document and section of the rule

    @property
    def ok(self) -> bool:
        return self.mismatches == 0

    @property
    def fraction(self) -> float:
        return self.mismatches / self.compared if self.compared else 0.0

    def cube_text(self) -> str:
        if len(self.shape) < 3:
            return f"{self.shape[0]} bytes"
        c, h, w = self.shape[-3:]
        batch = f" x {self.shape[0]} batches" if len(self.shape) == 4 else ""
        return f"W={w} H={h} C={c}{batch} {self.precision}"

    @property
    def title(self) -> str:
        if self.name == self.unit:
            return f"{self.unit} output"
        return self.name if self.name.startswith(self.unit) else f"{self.unit} {self.name}"

    def summary(self) -> str:
        head = f"{self.title} at {self.memory} {self.base:#x} ({self.cube_text()}), {self.rule}"
        if self.ok:
            return f"{head}: {self.compared} elements match"
        text = (f"{head}: {self.mismatches} of {self.compared} elements mismatch ({self.fraction:.2%})")
        if self.worst:
            text += f"; worst {_element(self.worst)}"
        return text

    def text(self) -> str:
        lines = [self.summary()]
        if self.source:
            lines.append(f"  rule: {self.source}")
        lines += [f"  {_element(m)}" for m in self.first]
        if self.per_channel is not None and self.mismatches:
            bad = np.flatnonzero(self.per_channel)
            shown = ", ".join(f"C={int(c)}: {int(self.per_channel[c])}" for c in bad[:16])
            lines.append(f"  mismatches by channel: {shown}{' ...' if bad.size > 16 else ''}")
        return "\n".join(lines)

    def picture(self, path: str | Path) -> Path:
        """A PNG of where the mismatches lie: per channel, and per (H, W) position summed over channels."""
        return draw(self, Path(path))


def _element(m: dict) -> str:
    where = " ".join(f"{k.upper()}={m[k]}" for k in ("n", "c", "h", "w") if k in m)
    where = where or "outside every surface"
    text = f"{where} @{m['address']:#x}: got {m['got']:g}, expected {m['expected']:g}"
    if m.get("allowed"):
        text += f", error {m['error']:.3g} > allowed {m['allowed']:.3g}"
    return text
