"""Feature data format (in-memory-data-formats: Feature Data Format).

A cube (C, H, W), or (N, C, H, W) for multi-batch, is split into 1x1x(atom)
byte cubes; atoms are laid out C' -> W -> H -> C: atoms of one line are
compact, lines are LINE_STRIDE apart, surfaces (one atom of channels each)
SURFACE_STRIDE apart, and batch n starts at n * BATCH_STRIDE (programming
guide: Limitation/Multi-batch). Channels are padded up to a whole atom; the
padding "can be any value except NaN" so pack writes `pad_value` there.

The atom is the profile's memory atom (Profile.memory_atomic_size): 32 bytes on
nv_full/nv_large, 16 on nv_medium_512, 8 on nv_small. The element count per
atom is atom_bytes // bytes_per_element.

All functions work on a flat np.uint8 buffer and a byte offset into it: the
caller reads `feature_span(...)` bytes from memory at the surface address and
passes them in, or writes the returned buffer back.
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigurationError

#: Element dtype of each precision. fp16 is np.float16 (bit pattern preserved; use .view(np.uint16)).
ELEMENT_DTYPES: dict[str, np.dtype] = {"int8": np.dtype("<i1"), "int16": np.dtype("<i2"), "fp16": np.dtype("<f2")}

RULE = "in-memory-data-formats: Feature Data Format"


def element_dtype(precision: str) -> np.dtype:
    try:
        return ELEMENT_DTYPES[precision]
    except KeyError:
        raise ConfigurationError(
            f"unknown precision {precision!r}; known: {', '.join(ELEMENT_DTYPES)}",
            rule="in-memory-data-formats: Precision Type", fields=("PRECISION",)) from None


#: The register encoding of a precision (IN_PRECISION, PROC_PRECISION and the like in every unit).
PRECISION_CODES = {"int8": 0, "int16": 1, "fp16": 2}


def element_bytes(precision: str) -> int:
    return element_dtype(precision).itemsize


def element_bits(precision: str) -> int:
    """Bits per element: 8 for int8, 16 for int16 and fp16 (the width int results saturate to)."""
    return 8 * element_bytes(precision)


def as_elements(cube, precision: str) -> np.ndarray:
    """The cube as a C-contiguous array of the precision's dtype (fp16 also accepts raw uint16 bits)."""
    dtype = element_dtype(precision)
    array = np.asarray(cube)
    if precision == "fp16" and array.dtype in (np.uint16, np.int16):
        return np.ascontiguousarray(array).view(dtype)
    return np.ascontiguousarray(array, dtype=dtype)


def as_byte_buffer(buf) -> np.ndarray:
    """A flat np.uint8 view of bytes / bytearray / memoryview / uint8 array (no copy)."""
    if isinstance(buf, np.ndarray):
        return buf.reshape(-1).view(np.uint8)
    return np.frombuffer(buf, dtype=np.uint8)


def atom_elements(precision: str, atom_bytes: int) -> int:
    size = element_bytes(precision)
    if atom_bytes <= 0 or atom_bytes % size:
        raise ConfigurationError(f"atom of {atom_bytes} bytes does not hold whole {precision} elements",
                                 rule=RULE, fields=("PRECISION",))
    return atom_bytes // size


def surfaces(channels: int, per_atom: int) -> int:
    return -(-channels // per_atom)


def packed_strides(shape, precision: str, atom_bytes: int) -> tuple[int, int]:
    """(line_stride, surface_stride) of the line- and surface-packed layout of a (C, H, W) cube."""
    _, height, width = shape[-3:]
    return width * atom_bytes, width * height * atom_bytes


def is_line_packed(shape, line_stride: int, atom_bytes: int) -> bool:
    """programming-guide: Register definition, CDMA.D_DAIN_MAP: LINE_STRIDE == bytes per line."""
    return line_stride == shape[-1] * atom_bytes


def is_surface_packed(shape, line_stride: int, surface_stride: int) -> bool:
    """programming-guide: Register definition, CDMA.D_DAIN_MAP: SURF_STRIDE == LINE_STRIDE * H."""
    return surface_stride == line_stride * shape[-2]


def surface_packed_1x1_shape(channels: int, precision: str, atom_bytes: int) -> tuple[int, int, int]:
    """The (C, H, W) cube a surface-packed 1x1xC cube can be treated as: (C/atom) x 1 x atom.

    Its bytes are identical to those of the original cube (Feature Data Format: "If a 1x1xC
    feature data cube maps as surface-packed, NVDLA can treat it like (C/32)x1x32 cube").
    """
    per_atom = atom_elements(precision, atom_bytes)
    return per_atom, 1, surfaces(channels, per_atom)


def _batched(shape):
    shape = tuple(int(v) for v in shape)
    if len(shape) == 3:
        return (1, *shape), False
    if len(shape) == 4:
        return shape, True
    raise ConfigurationError(f"feature cube must be (C, H, W) or (N, C, H, W), got shape {shape}", rule=RULE, fields=())


def _check_layout(shape4, per_atom, atom_bytes, line_stride, surface_stride, batch_stride, writing):
    batch, channels, height, width = shape4
    if min(shape4) <= 0:
        raise ConfigurationError(f"empty feature cube {shape4}", rule=RULE, fields=("WIDTH", "HEIGHT", "CHANNEL"))
    if min(line_stride, surface_stride) < 0 or (batch_stride or 0) < 0:
        raise ConfigurationError("negative stride", fields=("LINE_STRIDE", "SURFACE_STRIDE"), rule=RULE)
    if batch > 1 and batch_stride is None:
        raise ConfigurationError("a multi-batch cube needs batch_stride", fields=("BATCH_STRIDE",),
                                 rule="programming-guide: Limitation/Multi-batch")
    if not writing:
        return
    # Overlapping lines/surfaces/batches would make pack ambiguous.
    line_bytes = width * atom_bytes
    if height > 1 and line_stride < line_bytes:
        raise ConfigurationError(
            f"line stride {line_stride} is smaller than one line ({line_bytes} bytes)",
            fields=("LINE_STRIDE",), rule="programming-guide: Limitation/Data Format (LINE_STRIDE)")
    surface_bytes = (height - 1) * line_stride + line_bytes
    if surfaces(channels, per_atom) > 1 and surface_stride < surface_bytes:
        raise ConfigurationError(
            f"surface stride {surface_stride} is smaller than one surface ({surface_bytes} bytes)",
            fields=("SURFACE_STRIDE",), rule=RULE)
    cube_bytes = (surfaces(channels, per_atom) - 1) * surface_stride + surface_bytes
    if batch > 1 and batch_stride < cube_bytes:
        raise ConfigurationError(
            f"batch stride {batch_stride} is smaller than one cube ({cube_bytes} bytes)",
            fields=("BATCH_STRIDE",), rule="programming-guide: Limitation/Multi-batch")


def check_layout(shape, precision: str, line_stride: int, surface_stride: int, atom_bytes: int,
                 batch_stride: int | None = None) -> None:
    """The checks pack_feature makes before writing: non-empty cube, strides that do not overlap."""
    shape4, _ = _batched(shape)
    _check_layout(shape4, atom_elements(precision, atom_bytes), atom_bytes, line_stride, surface_stride,
                  batch_stride, True)


def feature_span(shape, precision: str, line_stride: int, surface_stride: int, atom_bytes: int,
                 batch_stride: int | None = None) -> int:
    """Bytes from the cube's start address to the end of its last atom."""
    return _span(shape, atom_elements(precision, atom_bytes), atom_bytes, line_stride,
                 surface_stride, batch_stride)


def _span(shape, per_atom, atom_bytes, line_stride, surface_stride, batch_stride):
    (batch, channels, height, width), _ = _batched(shape)
    return ((batch - 1) * (batch_stride or 0) + (surfaces(channels, per_atom) - 1) * surface_stride
            + (height - 1) * line_stride + width * atom_bytes)


def carrier_dtype(size: int) -> np.dtype:
    """An opaque little-endian carrier for elements of `size` bytes (1, 2, 4 or 8)."""
    if size not in (1, 2, 4, 8):
        raise ConfigurationError(f"no carrier for {size}-byte elements", rule=RULE, fields=("PRECISION",))
    return np.dtype(f"<u{size}")


def _atom_view(buf, base, shape4, per_atom, element_size, strides):
    """Writable/readable (N, S, H, W, per_atom) view of the atoms in buf, in element carriers."""
    batch, channels, height, width = shape4
    batch_stride, surface_stride, line_stride = strides
    atom = per_atom * element_size
    need = base + _span(shape4, per_atom, atom, line_stride, surface_stride, batch_stride)
    if base < 0 or need > buf.size:
        raise ConfigurationError(
            f"feature cube needs bytes [{base}, {need}) but the buffer has {buf.size}", rule=RULE,
            fields=("LINE_STRIDE", "SURF_STRIDE"))
    view_shape = (batch, surfaces(channels, per_atom), height, width, per_atom)
    view_strides = (batch_stride or 0, surface_stride, line_stride, atom, element_size)
    view = np.ndarray(view_shape, dtype=carrier_dtype(element_size), buffer=buf, offset=base,
                      strides=view_strides)
    if not buf.flags.writeable:
        view.flags.writeable = False
    return view


def _row_blocks(bytes_per_row: int, height: int, block_bytes: int = 1 << 18):
    """Row slices of about block_bytes each: the transposing copies stay in cache (2x faster)."""
    rows = max(1, block_bytes // max(1, bytes_per_row))
    return [slice(start, start + rows) for start in range(0, height, rows)]


def scatter_elements(elements: np.ndarray, buf: np.ndarray, base: int, per_atom: int, strides,
                     pad_value: int = 0) -> None:
    """Write an (N, C, H, W) array of elements (any dtype) as atoms of per_atom elements."""
    batch, channels, height, width = elements.shape
    size = elements.dtype.itemsize
    values = np.ascontiguousarray(elements).view(carrier_dtype(size))
    view = _atom_view(buf, base, elements.shape, per_atom, size, strides)
    full, rest = divmod(channels, per_atom)
    source = values[:, :full * per_atom].reshape(batch, full, per_atom, height, width)
    for rows in _row_blocks(channels * width * size, height):
        if full:
            view[:, :full, rows] = source[:, :, :, rows].transpose(0, 1, 3, 4, 2)
        if rest:
            view[:, full, rows, :, :rest] = values[:, full * per_atom:, rows].transpose(0, 2, 3, 1)
    if rest:
        view[:, full, :, :, rest:] = int.from_bytes(bytes([pad_value & 0xFF]) * size, "little")


def gather_elements(buf: np.ndarray, base: int, shape4, per_atom: int, size: int, strides) -> np.ndarray:
    """Read the (N, C, H, W) array of `size`-byte element carriers stored as atoms of per_atom elements."""
    batch, channels, height, width = shape4
    view = _atom_view(buf, base, shape4, per_atom, size, strides)
    count = view.shape[1]
    out = np.empty((batch, count, per_atom, height, width), dtype=view.dtype)
    for rows in _row_blocks(count * per_atom * width * size, height):
        out[:, :, :, rows] = view[:, :, rows].transpose(0, 1, 4, 2, 3)
    out = out.reshape(batch, count * per_atom, height, width)
    return out if count * per_atom == channels else out[:, :channels]


def pack_feature(cube, precision: str, line_stride: int, surface_stride: int, atom_bytes: int,
                 batch_stride: int | None = None, *, buf=None, base_offset: int = 0,
                 pad_value: int = 0) -> np.ndarray:
    """Write a (C, H, W) or (N, C, H, W) cube in feature format; returns the np.uint8 buffer.

    Without `buf` a zero-filled buffer of exactly feature_span bytes is allocated (gaps between
    lines/surfaces stay 0); with `buf` (a writable np.uint8 array, e.g. a memory window) the atoms
    are written in place at base_offset and gap bytes keep their contents. Padding channels of
    the last surface get the byte `pad_value`.
    """
    elements = as_elements(cube, precision)
    shape4, _ = _batched(elements.shape)
    per_atom = atom_elements(precision, atom_bytes)
    _check_layout(shape4, per_atom, atom_bytes, line_stride, surface_stride, batch_stride, True)
    if buf is None:
        buf = np.zeros(base_offset + _span(shape4, per_atom, atom_bytes, line_stride, surface_stride,
                                           batch_stride), dtype=np.uint8)
    else:
        buf = as_byte_buffer(buf)
    scatter_elements(elements.reshape(shape4), buf, base_offset, per_atom,
                     (batch_stride, surface_stride, line_stride), pad_value)
    return buf


def unpack_feature(buf, base_offset: int, shape, precision: str, line_stride: int,
                   surface_stride: int, atom_bytes: int, batch_stride: int | None = None) -> np.ndarray:
    """Read a (C, H, W) or (N, C, H, W) cube stored in feature format at buf[base_offset:]."""
    shape4, batched = _batched(shape)
    per_atom = atom_elements(precision, atom_bytes)
    _check_layout(shape4, per_atom, atom_bytes, line_stride, surface_stride, batch_stride, False)
    dtype = element_dtype(precision)
    raw = gather_elements(as_byte_buffer(buf), base_offset, shape4, per_atom, dtype.itemsize,
                          (batch_stride, surface_stride, line_stride))
    cube = np.ascontiguousarray(raw).view(dtype)
    return cube if batched else cube[0]


def unpack_feature_padded(buf, base_offset: int, shape, precision: str, line_stride: int,
                          surface_stride: int, atom_bytes: int,
                          batch_stride: int | None = None) -> np.ndarray:
    """Like unpack_feature, but keeps the padding channels of the last surface (C rounded up)."""
    shape4, batched = _batched(shape)
    per_atom = atom_elements(precision, atom_bytes)
    padded = (shape4[0], surfaces(shape4[1], per_atom) * per_atom, *shape4[2:])
    cube = unpack_feature(buf, base_offset, padded, precision, line_stride, surface_stride, atom_bytes,
                          batch_stride)
    return cube if batched else cube[0]
