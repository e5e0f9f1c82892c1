"""Data a generated layer reads: feature cubes with their edge values on purpose, surfaces and strides.

Integer cubes mix uniform values with the type's extremes; fp16 cubes mix moderate normals with NaN,
+-INF, denormals, +-0 and the largest finite values (in-memory-data-formats: FP16). Strides are whole
atoms, at the minimum (packed) with probability `CORNER` of stimulus/choose.py or a few atoms of gap.
"""

from __future__ import annotations

import numpy as np

from golden.formats.feature import feature_span, pack_feature

FP16_SPECIALS = np.array([0x7E00, 0x7C00, 0xFC00, 0x0001, 0x8001, 0x03FF, 0x0000, 0x8000, 0x7BFF, 0xFBFF],
                         dtype=np.uint16)
INT_RANGES = {"int8": (-128, 127), "int16": (-32768, 32767)}


def values(rng: np.random.Generator, precision: str, shape: tuple, edges: float = 0.05,
           scale: float = 4.0) -> np.ndarray:
    """Elements of `precision` (fp16 as np.float16), a fraction `edges` of them edge values."""
    size = int(np.prod(shape))
    edge = rng.random(size) < edges
    if precision == "fp16":
        bits = rng.normal(0.0, scale, size).astype(np.float16).view(np.uint16)
        bits = np.where(edge, FP16_SPECIALS[rng.integers(0, FP16_SPECIALS.size, size)], bits)
        return bits.astype(np.uint16).view(np.float16).reshape(shape)
    low, high = INT_RANGES[precision]
    data = rng.integers(low, high + 1, size, dtype=np.int64)
    data = np.where(edge, np.where(rng.random(size) < 0.5, low, high), data)
    return data.astype(np.int8 if precision == "int8" else np.int16).reshape(shape)


def strides(choose, shape: tuple, atom: int, max_gap: int = 2) -> tuple[int, int]:
    """(line, surface) strides of a (C, H, W) cube: packed, or a few atoms of gap each.

    A 1x1xC cube is always packed (programming-guide: Limitation/Data Format).
    """
    _, height, width = shape
    if width == 1 and height == 1:
        return atom, atom
    line = width * atom + atom * choose.size(0, max_gap)
    return line, line * height + atom * choose.size(0, max_gap)


def surface_bytes(rng: np.random.Generator, cube: np.ndarray, precision: str, line: int, surface: int,
                  atom: int) -> bytes:
    """The cube in feature format, its gaps filled with random bytes (a read of a gap shows)."""
    span = feature_span(cube.shape, precision, line, surface, atom)
    buf = rng.integers(0, 256, span, dtype=np.uint8)
    return pack_feature(cube, precision, line, surface, atom, buf=buf).tobytes()
