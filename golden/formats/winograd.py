"""Winograd weight format (in-memory-data-formats: Basic Weight for Winograd Convolution).

Phase 1, per kernel: channels are zero-filled to whole 32-byte cubes; a convolution
stride other than 1 is folded into channels (channel extension) so that the kernel
becomes 3x3; then each 3x3 plane g becomes the 4x4 plane G g G^T, optionally
multiplied by a scaling factor (the document defers the factor to the Winograd
convolution documentation, which is not part of ../shared/spec).

Channel extension (same document, Fig. 15): extended channel (i * stride_x + j) * C + c
holds tap (r' * stride_y + i, s' * stride_x + j) of channel c, zero where the kernel
has no such tap (nvdla/sw's weight translation uses this order).

Phase 2: the 4x4xC kernels go in groups (32 int8 / 16 int16-fp16 kernels on nv_full),
are cut into 4x4x4-element small cubes stored row, column, then 4 channels, and
scanned K -> C inside a group; groups follow compactly; 128-byte zero tail.
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigurationError
from golden.formats.feature import as_elements, element_dtype
from golden.formats.weight import TAIL_ALIGN, kernel_shape, kernels_per_group, reserve_buffer, take_elements

RULE = "in-memory-data-formats: Basic Weight for Winograd Convolution"

#: The 4x3 weight transform matrix of the document.
G = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0.0, 0.0, 1.0]])
CUBE_CHANNELS = 4


def pad_channels(weights, precision: str, atom_bytes: int = 32) -> np.ndarray:
    """Zero-fill C up to whole 1x1x(atom) byte cubes (32 bytes: 32 int8 / 16 int16 channels)."""
    values = np.asarray(weights)
    kernels, channels, rows, cols = kernel_shape(values.shape)
    per_atom = atom_bytes // element_dtype(precision).itemsize
    padded = -(-channels // per_atom) * per_atom
    out = np.zeros((kernels, padded, rows, cols), dtype=values.dtype)
    out[:, :channels] = values
    return out


def extend_channels(weights, stride_x: int, stride_y: int) -> np.ndarray:
    """Fold the stride into channels: (K, C, R, S) -> (K, C*sx*sy, ceil(R/sy), ceil(S/sx)); must be 3x3."""
    values = np.asarray(weights)
    kernels, channels, rows, cols = kernel_shape(values.shape)
    out_rows, out_cols = -(-rows // stride_y), -(-cols // stride_x)
    if (out_rows, out_cols) != (3, 3):
        raise ConfigurationError(
            f"a {rows}x{cols} kernel with stride {stride_x}x{stride_y} extends to {out_rows}x{out_cols}, "
            "Winograd needs 3x3", fields=("CSC.D_WEIGHT_SIZE_EXT", "CDMA.D_CONV_STRIDE"),
            rule="programming-guide: Limitation/Winograd")
    padded = np.zeros((kernels, channels, out_rows * stride_y, out_cols * stride_x), dtype=values.dtype)
    padded[:, :, :rows, :cols] = values
    phases = padded.reshape(kernels, channels, out_rows, stride_y, out_cols, stride_x)
    # -> (K, i, j, C, r', s') so channel index is (i * sx + j) * C + c
    return np.ascontiguousarray(phases.transpose(0, 3, 5, 1, 2, 4)).reshape(
        kernels, stride_y * stride_x * channels, out_rows, out_cols)


def transform(kernels3x3, scale: float = 1.0) -> np.ndarray:
    """G g G^T (times `scale`) for every 3x3 plane: (K, C, 3, 3) -> (K, C, 4, 4) float64."""
    values = np.asarray(kernels3x3, dtype=np.float64)
    if values.shape[-2:] != (3, 3):
        raise ConfigurationError(f"Winograd transform needs 3x3 planes, got {values.shape}", rule=RULE, fields=())
    return scale * np.einsum("ij,...jk,lk->...il", G, values, G)


def untransform(kernels4x4, scale: float = 1.0) -> np.ndarray:
    """The 3x3 planes whose transform is the given 4x4 planes (G has full column rank)."""
    left = np.linalg.pinv(G)
    return np.einsum("ij,...jk,lk->...il", left, np.asarray(kernels4x4, dtype=np.float64), left) / scale


def phase1(weights, precision: str, stride_x: int = 1, stride_y: int = 1, scale: float = 1.0,
           atom_bytes: int = 32) -> np.ndarray:
    """Channel padding, stride extension and transform: (K, C, R, S) -> (K, C', 4, 4) float64."""
    return transform(extend_channels(pad_channels(weights, precision, atom_bytes), stride_x, stride_y), scale)


def _layout(values: np.ndarray, group: int, out: np.ndarray) -> None:
    kernels, channels, rows, cols = values.shape
    blocks = channels // CUBE_CHANNELS
    full, rest = divmod(kernels, group)
    split = full * group * channels * rows * cols
    pieces = []
    if full:
        pieces.append((values[:full * group].reshape(full, group, blocks, CUBE_CHANNELS, rows, cols),
                       out[:split]))
    if rest:
        tail = values[full * group:].reshape(1, rest, blocks, CUBE_CHANNELS, rows, cols)
        pieces.append((tail, out[split:]))
    for source, dest in pieces:
        count, k = source.shape[:2]
        dest.reshape(count, blocks, k, rows, cols, CUBE_CHANNELS)[...] = source.transpose(0, 2, 1, 4, 5, 3)


def _unlayout(flat: np.ndarray, shape, group: int) -> np.ndarray:
    kernels, channels, rows, cols = shape
    blocks = channels // CUBE_CHANNELS
    out = np.empty(shape, dtype=flat.dtype)
    full, rest = divmod(kernels, group)
    split = full * group * channels * rows * cols
    pieces = []
    if full:
        pieces.append((flat[:split], out[:full * group], full, group))
    if rest:
        pieces.append((flat[split:], out[full * group:], 1, rest))
    for data, target, count, k in pieces:
        source = data.reshape(count, blocks, k, rows, cols, CUBE_CHANNELS).transpose(0, 2, 1, 5, 3, 4)
        target[...] = source.reshape(count * k, channels, rows, cols)
    return out


def _check(shape):
    kernels, channels, rows, cols = kernel_shape(shape)
    if (rows, cols) != (4, 4) or channels % CUBE_CHANNELS:
        raise ConfigurationError(f"Winograd weights are (K, 4m, 4, 4) after phase 1, got {shape}", rule=RULE,
                                 fields=("WEIGHT_CHANNEL_EXT",))
    return kernels, channels, rows, cols


def pack_winograd_weights(transformed, precision: str, atomic_k: int, *, buf=None,
                          base_offset: int = 0) -> np.ndarray:
    """Phase 2 mapping of (K, C', 4, 4) transformed weights (already in the precision's dtype)."""
    values = as_elements(transformed, precision)
    _check(values.shape)
    out = reserve_buffer(buf, base_offset, values.nbytes, TAIL_ALIGN)
    _layout(values, kernels_per_group(precision, atomic_k),
            out[base_offset:base_offset + values.nbytes].view(values.dtype))
    return out


def unpack_winograd_weights(buf, base_offset: int, shape, precision: str, atomic_k: int) -> np.ndarray:
    shape = _check(shape)
    flat = take_elements(buf, base_offset, int(np.prod(shape)), element_dtype(precision))
    return _unlayout(flat, shape, kernels_per_group(precision, atomic_k))
