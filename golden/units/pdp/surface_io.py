"""Reading and writing a feature cube at a DMA surface (shared by the PDP and CDP models).

The unit's DMA touches only the atoms of the cube: line and surface gaps are neither read nor
written, so a write keeps the bytes of the gaps (a CRC region may span them). The cube read keeps
the padding channels of the last atom (C rounded up to the atom), because PDP and CDP process whole
atoms and write them back.
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigurationError
from golden.formats.feature import (
    atom_elements,
    element_dtype,
    feature_span,
    pack_feature,
    surfaces,
    unpack_feature,
    unpack_feature_padded,
)
from golden.memory import Memory
from golden.units.base import Surface


def padded_channels(channels: int, precision: str, atom_bytes: int) -> int:
    per_atom = atom_elements(precision, atom_bytes)
    return surfaces(channels, per_atom) * per_atom


def read_cube(memory: Memory, base: int, shape: tuple[int, int, int], precision: str,
              line_stride: int, surface_stride: int, atom_bytes: int) -> np.ndarray:
    """The (C_padded, H, W) cube at `base`; only the atoms' bytes must have been written."""
    span = feature_span(shape, precision, line_stride, surface_stride, atom_bytes)
    raw = memory.read(base, span, unwritten="allow")
    if memory.unwritten != "allow":
        # Apply the memory's never-written policy to the atoms only, not to the gaps between lines.
        mask = memory.is_written(base, span).view(np.uint8)
        byte_channels = surfaces(shape[0], atom_elements(precision, atom_bytes)) * atom_bytes
        atoms = unpack_feature(mask, 0, (byte_channels, *shape[1:]), "int8", line_stride, surface_stride,
                               atom_bytes)
        if not atoms.all():
            # Report through the memory's policy, line by line so that gap bytes are not counted (rare path).
            n_surfaces = byte_channels // atom_bytes
            for surface in range(n_surfaces):
                for line in range(shape[1]):
                    memory.read(base + surface * surface_stride + line * line_stride, shape[2] * atom_bytes)
    return unpack_feature_padded(raw, 0, shape, precision, line_stride, surface_stride, atom_bytes)


def write_cube(memory: Memory, base: int, cube: np.ndarray, precision: str, line_stride: int,
               surface_stride: int, atom_bytes: int, name: str) -> Surface:
    """Write a (C_padded, H, W) cube's atoms at `base`, keeping the gap bytes; returns the Surface."""
    dtype = element_dtype(precision)
    if precision == "fp16":
        cube = np.ascontiguousarray(cube, dtype=np.uint16).view(dtype)
    span = feature_span(cube.shape, precision, line_stride, surface_stride, atom_bytes)
    if cube.shape[1] > 1 and line_stride < cube.shape[2] * atom_bytes:
        raise ConfigurationError(f"{name} line stride {line_stride} is smaller than one line",
                                 fields=(f"{name}.DST_LINE_STRIDE",),
                                 rule="programming-guide: Limitation/Data Format (LINE_STRIDE)")
    buf = memory.read(base, span, unwritten="allow")
    pack_feature(cube, precision, line_stride, surface_stride, atom_bytes, buf=buf)
    memory.write(base, buf)
    return Surface(memory=memory.name, base=base, shape=tuple(cube.shape), precision=precision,
                   line_stride=line_stride, surface_stride=surface_stride, atom_bytes=atom_bytes,
                   name=name)
