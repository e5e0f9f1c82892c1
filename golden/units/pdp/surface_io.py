"""Reading and writing a feature cube at a DMA surface (shared by the PDP and CDP models).

The unit's DMA touches only the atoms of the cube: line and surface gaps are neither read nor
written, so a write keeps the bytes of the gaps (a CRC region may span them). The cube read keeps
the padding channels of the last atom (C rounded up to the atom), because PDP and CDP process whole
atoms and write them back.
"""

from __future__ import annotations

import numpy as np

from golden.formats.feature import atom_elements, element_dtype, surfaces
from golden.memory import Memory
from golden.units.base import Surface
from golden.units.dma import read_feature, write_feature


def padded_channels(channels: int, precision: str, atom_bytes: int) -> int:
    per_atom = atom_elements(precision, atom_bytes)
    return surfaces(channels, per_atom) * per_atom


def read_cube(memory: Memory, base: int, shape: tuple[int, int, int], precision: str,
              line_stride: int, surface_stride: int, atom_bytes: int, name: str = "PDP_RDMA") -> np.ndarray:
    """The (C_padded, H, W) cube at `base` read by `name`'s DMA (its rules were checked by the unit's validation)."""
    return read_feature(memory, base, shape, precision, line_stride, surface_stride, atom_bytes, name=name,
                        padded=True)


def write_cube(memory: Memory, base: int, cube: np.ndarray, precision: str, line_stride: int,
               surface_stride: int, atom_bytes: int, name: str) -> Surface:
    """Write a (C_padded, H, W) cube's atoms at `base`, keeping the gap bytes; returns the Surface."""
    if precision == "fp16":
        cube = np.ascontiguousarray(cube, dtype=np.uint16).view(element_dtype(precision))
    write_feature(memory, base, cube, precision, line_stride, surface_stride, atom_bytes, name=name)
    return Surface(memory=memory.name, base=base, shape=tuple(cube.shape), precision=precision,
                   line_stride=line_stride, surface_stride=surface_stride, atom_bytes=atom_bytes,
                   name=name)
