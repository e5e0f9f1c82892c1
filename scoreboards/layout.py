"""Where each element of a surface's cube lies in memory (../shared/spec/nvdla-in-memory-data-formats.md,
"Feature Data Format": atoms of channels, lines of atoms, surfaces of lines, batches of surfaces).

byte(n, c, h, w) = base + n*batch_stride + (c // per_atom)*surface_stride + h*line_stride + w*atom
                   + (c % per_atom)*element_bytes,  per_atom = atom_bytes // element_bytes

The same form describes Rubik's planes (an "atom" of one element) and BDMA's copies (int8 lines).
"""

from __future__ import annotations

import numpy as np

from golden.formats.feature import element_bytes
from golden.units.base import Surface


def element_offsets(surface: Surface) -> np.ndarray:
    """The byte offset from surface.base of every element, shaped like surface.shape ((C, H, W) or (N, C, H, W))."""
    return surface.element_offsets()


def coordinates(index: tuple[int, ...]) -> dict[str, int]:
    """{n, c, h, w} of an element index into a (C, H, W) or (N, C, H, W) cube."""
    names = ("n", "c", "h", "w") if len(index) == 4 else ("c", "h", "w")
    return {name: int(i) for name, i in zip(names, index, strict=True)}


def element_patterns(region: np.ndarray, offsets: np.ndarray, precision: str) -> np.ndarray:
    """The element patterns at `offsets` (relative to the region) of a region's bytes, little-endian."""
    if element_bytes(precision) == 1:
        raw = region[offsets]
        return raw.view(np.int8).astype(np.int64) if precision == "int8" else raw.astype(np.int64)
    pattern = region[offsets].astype(np.uint16) | (region[offsets + 1].astype(np.uint16) << 8)
    return pattern if precision == "fp16" else pattern.view(np.int16).astype(np.int64)
