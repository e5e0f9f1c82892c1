"""Sparse weight compression (in-memory-data-formats: Sparse Compression option).

Input is a mapped weight stream (any of the four weight formats, without its
128-byte tail) and the element count of each kernel group. One bit per element
(1 = kept, 0 = zero weight) forms the WMB surface, bits little-endian (element i
of the stream is bit i % 8 of byte i // 8); the non-zero elements, in stream
order, form the compressed weight surface; one little-endian 32-bit WGS per group
gives the group's compressed size in bytes. Each surface is zero-filled to a
multiple of 128 bytes. "Zero" means an all-zero bit pattern, so an fp16 -0.0
is kept and decompression is lossless.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from golden.errors import ConfigurationError
from golden.formats.feature import as_byte_buffer, element_dtype
from golden.formats.weight import TAIL_ALIGN, aligned_size, kernels_per_group

RULE = "in-memory-data-formats: Sparse Compression option"


@dataclass(frozen=True)
class CompressedWeights:
    wgs: np.ndarray       # uint8, 128-byte aligned
    wmb: np.ndarray       # uint8, 128-byte aligned
    weight: np.ndarray    # uint8, 128-byte aligned
    weight_bytes: int     # compressed bytes before the tail
    wmb_bytes: int        # WMB bytes before the tail (CDMA.D_WMB_BYTES counts the mask bytes)


def group_elements(kernels: int, elements_per_kernel: int, precision: str, atomic_k: int) -> np.ndarray:
    """Element count of each kernel group (the last group may have fewer kernels)."""
    group = kernels_per_group(precision, atomic_k)
    full, rest = divmod(kernels, group)
    counts = [group * elements_per_kernel] * full + ([rest * elements_per_kernel] if rest else [])
    return np.array(counts, dtype=np.int64)


def _padded(data: np.ndarray) -> np.ndarray:
    out = np.zeros(aligned_size(data.size, TAIL_ALIGN), dtype=np.uint8)
    out[:data.size] = data
    return out


def compress(mapped, precision: str, groups) -> CompressedWeights:
    """WGS, WMB and compressed weight surfaces of a mapped weight stream."""
    dtype = element_dtype(precision)
    counts = np.asarray(groups, dtype=np.int64)
    total = int(counts.sum())
    raw = as_byte_buffer(mapped)
    if raw.size < total * dtype.itemsize:
        raise ConfigurationError(f"weight stream has {raw.size} bytes, groups need {total * dtype.itemsize}",
                                 rule=RULE, fields=("WEIGHT_BYTES",))
    elements = raw[:total * dtype.itemsize].view(f"<u{dtype.itemsize}")
    keep = elements != 0
    kept_per_group = np.add.reduceat(keep.astype(np.int64), np.r_[0, np.cumsum(counts)[:-1]]) \
        if counts.size else np.zeros(0, np.int64)
    wgs = (kept_per_group * dtype.itemsize).astype("<u4").view(np.uint8)
    wmb = np.packbits(keep, bitorder="little")
    weight = elements[keep].view(np.uint8)
    return CompressedWeights(_padded(wgs), _padded(wmb), _padded(weight), int(weight.size), int(wmb.size))


def decompress(wgs, wmb, weight, precision: str, groups) -> np.ndarray:
    """The mapped weight stream (np.uint8, no tail) from the three surfaces; checks WGS against WMB."""
    dtype = element_dtype(precision)
    counts = np.asarray(groups, dtype=np.int64)
    total = int(counts.sum())
    mask_bytes = as_byte_buffer(wmb)
    if mask_bytes.size * 8 < total:
        raise ConfigurationError(f"WMB has {mask_bytes.size * 8} bits for {total} weights",
                                 fields=("CDMA.D_WMB_BYTES",), rule=RULE)
    keep = np.unpackbits(mask_bytes, bitorder="little", count=total).astype(bool)
    kept = int(keep.sum())
    sizes = as_byte_buffer(wgs)[:4 * counts.size].view("<u4").astype(np.int64)
    expected = np.add.reduceat(keep.astype(np.int64), np.r_[0, np.cumsum(counts)[:-1]]) * dtype.itemsize \
        if counts.size else np.zeros(0, np.int64)
    if sizes.size != counts.size or not np.array_equal(sizes, expected):
        raise ConfigurationError("WGS group sizes disagree with the WMB bit masks",
                                 fields=("CDMA.D_WGS_ADDR",), rule=RULE)
    data = as_byte_buffer(weight)
    if data.size < kept * dtype.itemsize:
        raise ConfigurationError(f"compressed weight surface has {data.size} bytes, WMB keeps "
                                 f"{kept * dtype.itemsize}", fields=("CDMA.D_WEIGHT_BYTES",), rule=RULE)
    out = np.zeros(total, dtype=f"<u{dtype.itemsize}")
    out[keep] = data[:kept * dtype.itemsize].view(f"<u{dtype.itemsize}")
    return out.view(np.uint8)
