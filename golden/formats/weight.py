"""Weight formats for direct convolution, image input and deconvolution.

in-memory-data-formats: Weight Format. Weights are (K, C, R, S) arrays: K kernels of
C channels, R rows (height) and S columns (width).

Direct convolution ("Basic Weight for Direct Convolution"): kernels go in groups of
atomic K (int8) or atomic K / 2 (int16, fp16) kernels (32 / 16 on nv_full); each
kernel is cut into 1x1xC' small cubes of atomic C elements (64 on nv_full: 64 bytes
int8, 128 bytes int16/fp16; the last one shorter, no zero fill); inside a group
the small cubes are scanned C' -> K -> W -> H -> C, groups follow each other
compactly, and the whole is zero-filled to a multiple of 128 bytes.

Image input ("Basic Weight for image input"): channel pre-extension turns each
kernel row into one channel, extended channel s * C + c holding tap (c, r, s), so
the kernel becomes (K, C * S, R, 1) (WEIGHT_SIZE_EXT: width 1, height R, channel
C*S). Channel post-extension (2 or 4 lines) then puts `factor` consecutive rows of
one kernel into one small cube; a last, shorter row group gets no zero rows.

Deconvolution (programming guide: Deconvolution): the kernel is split into
stride_x * stride_y kernels of ceil(R/stride_y) x ceil(S/stride_x) taps, each
mapped as a direct-convolution weight. Set (y, x), y-major, takes taps
r = y + stride_y * r', s = x + stride_x * s' without flipping (nvdla/sw's weight
translation does the same); the weights given are already (K, C, R, S) with K the
deconvolution's output channels.

NVIDIA's dc_/img_ traces program CDMA.D_WEIGHT_BYTES with the 128-byte aligned size
(aligned_size(dc_weight_bytes(...))), e.g. 0x4980 for 3x4x49x32 int8.
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigurationError
from golden.formats.feature import as_byte_buffer, as_elements, element_dtype

RULE = "in-memory-data-formats: Basic Weight for Direct Convolution"
TAIL_ALIGN = 128


def kernels_per_group(precision: str, atomic_k: int) -> int:
    """32 int8 / 16 int16-fp16 kernels on nv_full (atomic K 32); atomic K / 2 for two-byte weights."""
    return atomic_k if element_dtype(precision).itemsize == 1 else atomic_k // 2


def small_cube_elements(atomic_c: int) -> int:
    """Elements in a 1x1xC' small cube: atomic C (64 on nv_full, 8 on nv_small)."""
    return atomic_c


def aligned_size(nbytes: int, align: int = TAIL_ALIGN) -> int:
    return -(-nbytes // align) * align


def kernel_shape(shape) -> tuple[int, int, int, int]:
    shape = tuple(int(v) for v in shape)
    if len(shape) != 4 or min(shape) <= 0:
        raise ConfigurationError(f"weights must be a non-empty (K, C, R, S) array, got {shape}", rule=RULE, fields=())
    return shape


def _dc_layout(values: np.ndarray, group: int, cube: int, out: np.ndarray | None = None) -> np.ndarray:
    """(K, C, R, S) values -> 1-D array in memory order (written into `out` when given)."""
    kernels, channels, rows, cols = values.shape
    if out is None:
        out = np.empty(values.size, dtype=values.dtype)
    full_groups, rest_k = divmod(kernels, group)
    split = full_groups * group * channels * rows * cols
    if full_groups:
        source = values[:full_groups * group].reshape(full_groups, group, channels, rows, cols)
        _group_layout(source, out[:split].reshape(full_groups, -1), cube)
    if rest_k:
        _group_layout(values[full_groups * group:][None], out[split:].reshape(1, -1), cube)
    return out


def _group_layout(groups: np.ndarray, dest: np.ndarray, cube: int) -> None:
    """(G, k, C, R, S) -> dest (G, n): C' fastest, then K, W, H, C blocks."""
    count, kernels, channels, rows, cols = groups.shape
    blocks, rest_c = divmod(channels, cube)
    split = blocks * cube * kernels * rows * cols
    if blocks:
        full = groups[:, :, :blocks * cube].reshape(count, kernels, blocks, cube, rows, cols)
        dest[:, :split].reshape(count, blocks, rows, cols, kernels, cube)[...] = full.transpose(
            0, 2, 4, 5, 1, 3)
    if rest_c:
        tail = groups[:, :, blocks * cube:].transpose(0, 3, 4, 1, 2)
        dest[:, split:].reshape(count, rows, cols, kernels, rest_c)[...] = tail


def _dc_unlayout(flat: np.ndarray, shape, group: int, cube: int) -> np.ndarray:
    """Inverse of _dc_layout."""
    kernels, channels, rows, cols = shape
    out = np.empty(shape, dtype=flat.dtype)
    full_groups, rest_k = divmod(kernels, group)
    split = full_groups * group * channels * rows * cols
    if full_groups:
        target = out[:full_groups * group].reshape(full_groups, group, channels, rows, cols)
        _group_unlayout(flat[:split].reshape(full_groups, -1), target, cube)
    if rest_k:
        _group_unlayout(flat[split:].reshape(1, -1), out[full_groups * group:][None], cube)
    return out


def _group_unlayout(data: np.ndarray, target: np.ndarray, cube: int) -> None:
    count, kernels, channels, rows, cols = target.shape
    blocks, rest_c = divmod(channels, cube)
    split = blocks * cube * kernels * rows * cols
    if blocks:
        full = data[:, :split].reshape(count, blocks, rows, cols, kernels, cube)
        dest = target[:, :, :blocks * cube].reshape(count, kernels, blocks, cube, rows, cols)  # a view: split only
        # one strided copy per kernel tap: numpy loops fastest when the destination's inner axis is long,
        # and in the (K, C, R, S) cube the taps are the short contiguous one
        for row in range(rows):
            for col in range(cols):
                dest[..., row, col] = full[:, :, row, col].transpose(0, 2, 1, 3)
    if rest_c:
        target[:, :, blocks * cube:] = data[:, split:].reshape(count, rows, cols, kernels, rest_c).transpose(
            0, 3, 4, 1, 2)


class _OrderCache:
    """Memory orders are pure functions of the geometry; keep the last few."""

    def __init__(self, size: int = 8):
        self.size = size
        self.items: dict = {}

    def get(self, key, build):
        if key not in self.items:
            if len(self.items) >= self.size:
                self.items.pop(next(iter(self.items)))
            self.items[key] = build()
        return self.items[key]


_ORDERS = _OrderCache()


def _index(shape) -> np.ndarray:
    return np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)


def reserve_buffer(buf, base_offset: int, nbytes: int, align: int) -> np.ndarray:
    """The output buffer with its 128-byte-aligned tail zeroed (data bytes are written by the caller)."""
    end = base_offset + aligned_size(nbytes, align)
    if buf is None:
        out = np.empty(end, dtype=np.uint8)
        out[:base_offset] = 0
    else:
        out = as_byte_buffer(buf)
        if base_offset < 0 or end > out.size:
            raise ConfigurationError(f"weights need {end - base_offset} bytes at offset {base_offset}, "
                                     f"buffer has {out.size}", rule=RULE, fields=("WEIGHT_BYTES",))
    out[base_offset + nbytes:end] = 0
    return out


def _emit(values: np.ndarray, buf, base_offset: int, align: int) -> np.ndarray:
    out = reserve_buffer(buf, base_offset, values.nbytes, align)
    out[base_offset:base_offset + values.nbytes] = values.view(np.uint8)
    return out


def take_elements(buf, base_offset: int, count: int, dtype: np.dtype) -> np.ndarray:
    raw = as_byte_buffer(buf)
    end = base_offset + count * dtype.itemsize
    if base_offset < 0 or end > raw.size:
        raise ConfigurationError(f"weights need bytes [{base_offset}, {end}), buffer has {raw.size}",
                                 rule=RULE, fields=("WEIGHT_BYTES",))
    return raw[base_offset:end].view(dtype)


def dc_weight_bytes(shape, precision: str) -> int:
    """WEIGHT_BYTES: K * C * R * S * bytes per element (before the 128-byte tail)."""
    return int(np.prod(kernel_shape(shape))) * element_dtype(precision).itemsize


def pack_dc_weights(weights, precision: str, atomic_c: int, atomic_k: int, *, buf=None,
                    base_offset: int = 0) -> np.ndarray:
    """Direct-convolution weight bytes, zero-filled to a multiple of 128 bytes."""
    values = as_elements(weights, precision)
    kernel_shape(values.shape)
    out = reserve_buffer(buf, base_offset, values.nbytes, TAIL_ALIGN)
    dest = out[base_offset:base_offset + values.nbytes].view(values.dtype)
    _dc_layout(values, kernels_per_group(precision, atomic_k), small_cube_elements(atomic_c), dest)
    return out


def unpack_dc_weights(buf, base_offset: int, shape, precision: str, atomic_c: int,
                      atomic_k: int) -> np.ndarray:
    shape = kernel_shape(shape)
    dtype = element_dtype(precision)
    flat = take_elements(buf, base_offset, int(np.prod(shape)), dtype)
    return _dc_unlayout(flat, shape, kernels_per_group(precision, atomic_k), small_cube_elements(atomic_c))


# -- image input -------------------------------------------------------------------------------

def pre_extend(weights) -> np.ndarray:
    """Channel pre-extension: (K, C, R, S) -> (K, S*C, R, 1), channel s*C + c = tap (c, r, s)."""
    values = np.asarray(weights)
    kernels, channels, rows, cols = kernel_shape(values.shape)
    return values.transpose(0, 3, 1, 2).reshape(kernels, cols * channels, rows, 1)


def undo_pre_extend(extended, channels: int) -> np.ndarray:
    values = np.asarray(extended)
    kernels, wide, rows, one = kernel_shape(values.shape)
    if one != 1 or wide % channels:
        raise ConfigurationError(f"{values.shape} is not a pre-extended kernel of {channels} channels",
                                 rule="in-memory-data-formats: Basic Weight for image input",
                                 fields=("WEIGHT_CHANNEL_EXT",))
    return values.reshape(kernels, wide // channels, channels, rows).transpose(0, 2, 3, 1)


POST_EXTENSION_RULE = "in-memory-data-formats: Weight Channel Post-extension for image input"


def check_post_extension(channels_ext: int, factor: int, atomic_c: int) -> None:
    """Post-extension is 1, 2 or 4 lines; 2 lines need C <= 32, 4 lines C <= 16 (atomic C 64)."""
    if factor not in (1, 2, 4):
        raise ConfigurationError(f"channel post-extension must be 1, 2 or 4 lines, not {factor}",
                                 fields=("CDMA.D_DATAIN_FORMAT",), rule=POST_EXTENSION_RULE)
    if factor > 1 and channels_ext * factor > atomic_c:
        raise ConfigurationError(
            f"{factor}-line post-extension needs extended channels <= {atomic_c // factor}, "
            f"got {channels_ext}", rule=POST_EXTENSION_RULE, fields=("WEIGHT_CHANNEL_EXT", "Y_EXTENSION"))


def _post_layout(index: np.ndarray, group: int, factor: int) -> np.ndarray:
    """(K, C, R) values -> 1-D memory order of `factor`-line post-extended weights."""
    kernels, channels, rows = index.shape
    full_groups, rest_k = divmod(kernels, group)
    pieces = []
    if full_groups:
        groups = index[:full_groups * group].reshape(full_groups, group, channels, rows)
        pieces.append(_row_group_order(groups, factor))
    if rest_k:
        pieces.append(_row_group_order(index[full_groups * group:][None], factor))
    return np.concatenate([p.ravel() for p in pieces])


def _row_group_order(groups: np.ndarray, factor: int) -> np.ndarray:
    """(G, k, C, R) -> per group: row groups, then kernels, then `factor` rows of C channels."""
    count, kernels, channels, rows = groups.shape
    blocks, rest = divmod(rows, factor)
    parts = []
    if blocks:
        full = groups[..., :blocks * factor].reshape(count, kernels, channels, blocks, factor)
        parts.append(full.transpose(0, 3, 1, 4, 2).reshape(count, -1))
    if rest:
        parts.append(groups[..., blocks * factor:].transpose(0, 1, 3, 2).reshape(count, -1))
    return np.concatenate(parts, axis=1)


def image_order(shape, precision: str, atomic_c: int, atomic_k: int, post_extension: int = 1):
    kernels, channels, rows, cols = kernel_shape(shape)
    wide = channels * cols
    check_post_extension(wide, post_extension, atomic_c)
    group = kernels_per_group(precision, atomic_k)

    def build():
        extended = pre_extend(_index((kernels, channels, rows, cols)))
        if post_extension == 1:
            return _dc_layout(extended, group, small_cube_elements(atomic_c))
        return _post_layout(extended[..., 0], group, post_extension)

    return _ORDERS.get(("img", kernels, channels, rows, cols, group, atomic_c, post_extension), build)


def pack_image_weights(weights, precision: str, atomic_c: int, atomic_k: int, post_extension: int = 1,
                       *, buf=None, base_offset: int = 0) -> np.ndarray:
    """Image-input weights: pre-extension, optional 2/4-line post-extension, DC mapping, 128-byte tail."""
    values = as_elements(weights, precision)
    order = image_order(values.shape, precision, atomic_c, atomic_k, post_extension)
    return _emit(values.reshape(-1)[order], buf, base_offset, TAIL_ALIGN)


def unpack_image_weights(buf, base_offset: int, shape, precision: str, atomic_c: int, atomic_k: int,
                         post_extension: int = 1) -> np.ndarray:
    shape = kernel_shape(shape)
    dtype = element_dtype(precision)
    order = image_order(shape, precision, atomic_c, atomic_k, post_extension)
    out = np.empty(order.size, dtype=dtype)
    out[order] = take_elements(buf, base_offset, order.size, dtype)
    return out.reshape(shape)


# -- deconvolution -----------------------------------------------------------------------------

def split_deconv_kernels(weights, stride_x: int, stride_y: int) -> list[np.ndarray]:
    """The stride_x * stride_y kernel sets, row-major over (y phase, x phase).

    Set (i, j) holds taps r = i + stride_y * r', s = j + stride_x * s', zero-filled to
    ceil(R / stride_y) x ceil(S / stride_x) where the phase has fewer taps.
    """
    values = np.asarray(weights)
    kernels, channels, rows, cols = kernel_shape(values.shape)
    if stride_x < 1 or stride_y < 1:
        raise ConfigurationError("deconvolution strides must be >= 1",
                                 rule="programming-guide: Deconvolution", fields=("CONV_X_STRIDE", "CONV_Y_STRIDE"))
    out_rows, out_cols = -(-rows // stride_y), -(-cols // stride_x)
    padded = np.zeros((kernels, channels, out_rows * stride_y, out_cols * stride_x), dtype=values.dtype)
    padded[:, :, :rows, :cols] = values
    phases = padded.reshape(kernels, channels, out_rows, stride_y, out_cols, stride_x)
    return [np.ascontiguousarray(phases[:, :, :, i, :, j]) for i in range(stride_y) for j in range(stride_x)]


def merge_deconv_kernels(sets, shape, stride_x: int, stride_y: int) -> np.ndarray:
    kernels, channels, rows, cols = kernel_shape(shape)
    out_rows, out_cols = -(-rows // stride_y), -(-cols // stride_x)
    if len(sets) != stride_x * stride_y:
        raise ConfigurationError(f"expected {stride_x * stride_y} kernel sets, got {len(sets)}",
                                 rule="programming-guide: Deconvolution", fields=("CONV_X_STRIDE", "CONV_Y_STRIDE"))
    stacked = np.stack(list(sets)).reshape(stride_y, stride_x, kernels, channels, out_rows, out_cols)
    full = stacked.transpose(2, 3, 4, 0, 5, 1).reshape(kernels, channels, out_rows * stride_y,
                                                        out_cols * stride_x)
    return np.ascontiguousarray(full[:, :, :rows, :cols])


def pack_deconv_weights(weights, precision: str, atomic_c: int, atomic_k: int, stride_x: int,
                        stride_y: int) -> list[np.ndarray]:
    """One direct-convolution weight buffer per kernel set (one hardware layer each)."""
    return [pack_dc_weights(part, precision, atomic_c, atomic_k)
            for part in split_deconv_kernels(as_elements(weights, precision), stride_x, stride_y)]
