"""Feature-cube DMA: what every unit's feature-data DMA obeys, in one place.

* Table 35 (in-memory-data-formats: Alignment of Start Address and Stride) and the line/surface stride rules
  of every DMA are rules of the registry (golden/units/dma_rules.py), checked by each unit's validation
  before its DMAs run (golden/formats/alignment.py holds the table).
* The surface's span (first to last byte) fits the memory's address width and limit
  (Memory.check_span: an error naming the surface and its size).
* Only the atoms of the cube are read and written, line by line (Memory.read_lines / write_lines): the
  bytes between lines and surfaces keep their contents, the never-written policy counts the atoms
  only, and a huge stride costs no memory.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from golden.formats import feature
from golden.memory import DENSE_FACTOR, Memory


def line_offsets(base: int, shape4, per_atom: int, line_stride: int, surface_stride: int,
                 batch_stride: int | None) -> np.ndarray:
    """Address of every line of atoms of an (N, C, H, W) cube, batch -> surface -> line order."""
    batch, channels, height, _ = shape4
    count = feature.surfaces(channels, per_atom)
    return (base + np.arange(batch, dtype=np.int64)[:, None, None] * (batch_stride or 0)
            + np.arange(count, dtype=np.int64)[None, :, None] * surface_stride
            + np.arange(height, dtype=np.int64)[None, None, :] * line_stride).reshape(-1)


def _layout(shape, precision: str, atom: int):
    shape4 = tuple(int(v) for v in shape) if len(shape) == 4 else (1, *(int(v) for v in shape))
    per_atom = feature.atom_elements(precision, atom)
    line = shape4[3] * atom
    compact = (line, shape4[2] * line, feature.surfaces(shape4[1], per_atom) * shape4[2] * line)
    return shape4, per_atom, compact


def read_feature(memory: Memory, base: int, shape, precision: str, line_stride: int, surface_stride: int,
                 atom: int, batch_stride: int | None = None, *, name: str, padded: bool = False) -> np.ndarray:
    """The cube of `shape` ((C, H, W) or (N, C, H, W)) at `base`; `padded` keeps the last atom's padding."""
    shape4, per_atom, (line, surface, cube_bytes) = _layout(shape, precision, atom)
    if min(shape4) <= 0:
        return feature.unpack_feature(np.zeros(0, np.uint8), 0, shape, precision, line, surface, atom)
    span = feature.feature_span(shape, precision, line_stride, surface_stride, atom, batch_stride)
    memory.check_span(base, span, f"{name} input surface")
    offsets = line_offsets(base, shape4, per_atom, line_stride, surface_stride, batch_stride)
    lines = memory.read_lines(offsets, line, who=name).reshape(-1)
    unpack = feature.unpack_feature_padded if padded else feature.unpack_feature
    return unpack(lines, 0, shape, precision, line, surface, atom, cube_bytes if len(shape) == 4 else None)


def write_feature(memory: Memory, base: int, cube: np.ndarray, precision: str, line_stride: int,
                  surface_stride: int, atom: int, batch_stride: int | None = None, *, name: str) -> None:
    """Write the atoms of a (C, H, W) or (N, C, H, W) cube at `base`, keeping the gap bytes."""
    shape4, per_atom, (line, surface, cube_bytes) = _layout(cube.shape, precision, atom)
    feature.check_layout(cube.shape, precision, line_stride, surface_stride, atom, batch_stride)
    span = feature.feature_span(cube.shape, precision, line_stride, surface_stride, atom, batch_stride)
    memory.check_span(base, span, f"{name} output surface")
    count = feature.surfaces(shape4[1], per_atom)
    if (line_stride, surface_stride if count > 1 else surface, batch_stride if shape4[0] > 1 else cube_bytes) == \
            (line, surface, cube_bytes):  # line, surface and batch packed: one contiguous write
        memory.write(base, feature.pack_feature(cube, precision, line, surface, atom, batch_stride))
        return
    if span <= DENSE_FACTOR * cube_bytes * shape4[0]:  # one window: pack in place, mark the atoms written
        window = memory.read(base, span, unwritten="allow")
        feature.pack_feature(cube, precision, line_stride, surface_stride, atom, batch_stride, buf=window)
        atoms = np.zeros(span, bool)
        as_strided(atoms, (shape4[0], count, shape4[2], line), (batch_stride or 0, surface_stride, line_stride, 1))[
            ...] = True
        memory.write_back(base, window, atoms)
        return
    packed = feature.pack_feature(cube, precision, line, surface, atom, cube_bytes if cube.ndim == 4 else None)
    offsets = line_offsets(base, shape4, per_atom, line_stride, surface_stride, batch_stride)
    memory.write_lines(offsets, packed.reshape(offsets.size, line))
