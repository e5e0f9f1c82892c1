"""Pixel (image input) formats, pitch linear (in-memory-data-formats: Pixel Format, Table 33).

A pixel cube is (C, H, W) in the order the convolution pipeline sees channels
(R, G, B, A or Y, U, V, A; nvdla/hw cmod CDMA stores image data "in the order of
RGBA"), holding each component's raw value: uint8 for 8-bit components, uint16 for
10/12/16-bit ones (10-bit fields of the packed 32-bit formats as 0..1023, their
alpha as 0..3), np.float16 for the _F formats.

Memory: line h of plane p starts at base_p + h * line_stride_p (LINE_STRIDE,
LINE_UV_STRIDE for the UV plane of the semi-planar formats); pixel w sits at
(x_p + w) * bytes_per_pixel_p inside the line. x_p is PIXEL_X_OFFSET, the pixels
between the atom-aligned address and the ROI, taken modulo the pixels of plane p in
one memory atom: Table 33's ranges (0..atom/bytes_per_pixel_0 - 1) are for a 32-byte
atom, and nvdla/hw's CDMA (NV_NVDLA_CDMA_IMG_ctrl.v) masks the offset per plane with
atom/bytes_per_pixel_p - 1, asserting "Pixel X offset is out of range" for plane 0.
So on an 8-byte-atom profile R8 allows 0..7, and the UV plane (2 bytes per pixel)
of a semi-planar format starts at its own aligned address with x_1 = x_0 mod atom/2.

Component order inside a pixel: a name lists its components from the most to the least significant end of
the little-endian pixel word (A8B8G8R8: R is byte 0; R8G8B8A8: A is byte 0;
Y8___U8V8: the UV plane holds V then U), as NVIDIA's C model reads them.

Signedness (programming guide: CDMA.PIXEL_SIGN_OVERRIDE): with the CDMA converter
on, integer components are extended to int17, zero-extended for UNSIGNED_INT and
sign-extended for SIGNED_INT (0x87 -> 0x00087 or 0x1ff87); with the converter off
every value is read as int8/int16/fp16 whatever the override says.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from golden.errors import ConfigurationError
from golden.formats.feature import as_byte_buffer

RULE = "in-memory-data-formats: Pixel Format (Table 33)"


@dataclass(frozen=True)
class PixelFormat:
    name: str                 # register enum name (CDMA.D_DATAIN_FORMAT.PIXEL_FORMAT)
    code: int                 # register value
    planes: int
    channels: int             # valid channel size setting
    precision: str            # valid input precision setting
    x_offset_max: int         # valid X offset range is 0..x_offset_max
    plane_bytes: tuple        # bytes per pixel of each plane
    component_bits: int       # 8, 10, 12 or 16 (container: 8 or 16 bits; packed formats: field width)
    order: tuple = ()         # memory element of each channel (byte/halfword formats)
    fields: tuple = ()        # (bit offset, width) of each channel in the 32-bit word (packed formats)
    floating: bool = False
    signed: bool = False      # the format's own signedness; PIXEL_SIGN_OVERRIDE decides in hardware

    @property
    def packed(self) -> bool:
        return bool(self.fields)

    @property
    def dtype(self) -> np.dtype:
        if self.floating:
            return np.dtype("<f2")
        return np.dtype(np.uint8) if self.component_bits == 8 else np.dtype("<u2")

    @property
    def element_bytes(self) -> int:
        return 1 if self.component_bits == 8 else 2


def _f(name, code, planes, channels, precision, x_max, plane_bytes, bits, order=(), fields=(), **kw):
    return PixelFormat(name, code, planes, channels, precision, x_max, plane_bytes, bits, order, fields, **kw)


RGBA, ARGB, BGRA, ABGR = (0, 1, 2, 3), (2, 1, 0, 3), (1, 2, 3, 0), (3, 2, 1, 0)
_P_ABGR = ((0, 10), (10, 10), (20, 10), (30, 2))
_P_ARGB = ((20, 10), (10, 10), (0, 10), (30, 2))
_P_BGRA = ((2, 10), (12, 10), (22, 10), (0, 2))
_P_RGBA = ((22, 10), (12, 10), (2, 10), (0, 2))

#: Table 33, one row per PIXEL_FORMAT register value.
FORMATS: dict[str, PixelFormat] = {f.name: f for f in (
    _f("T_R8", 0, 1, 1, "int8", 31, (1,), 8, (0,)),
    _f("T_R10", 1, 1, 1, "int16", 15, (2,), 10, (0,)),
    _f("T_R12", 2, 1, 1, "int16", 15, (2,), 12, (0,)),
    _f("T_R16", 3, 1, 1, "int16", 15, (2,), 16, (0,)),
    _f("T_R16_I", 4, 1, 1, "int16", 15, (2,), 16, (0,), signed=True),
    # Table 33 says int16; nvdlav1's CDMA (vmod NV_NVDLA_CDMA_IMG_ctrl.v: pixel precision 3 for format 5,
    # assertion "Unmatch input fp16 precision") and its C model read T_R16_F as fp16, as the other _F formats
    _f("T_R16_F", 5, 1, 1, "fp16", 15, (2,), 16, (0,), floating=True),
    _f("T_A16B16G16R16", 6, 1, 4, "int16", 3, (8,), 16, RGBA),
    _f("T_X16B16G16R16", 7, 1, 4, "int16", 3, (8,), 16, RGBA),
    _f("T_A16B16G16R16_F", 8, 1, 4, "fp16", 3, (8,), 16, RGBA, floating=True),
    _f("T_A16Y16U16V16", 9, 1, 4, "int16", 3, (8,), 16, ARGB, signed=True),
    _f("T_V16U16Y16A16", 10, 1, 4, "int16", 3, (8,), 16, BGRA),
    _f("T_A16Y16U16V16_F", 11, 1, 4, "fp16", 3, (8,), 16, ARGB, floating=True),
    _f("T_A8B8G8R8", 12, 1, 4, "int8", 7, (4,), 8, RGBA),
    _f("T_A8R8G8B8", 13, 1, 4, "int8", 7, (4,), 8, ARGB),
    _f("T_B8G8R8A8", 14, 1, 4, "int8", 7, (4,), 8, BGRA),
    _f("T_R8G8B8A8", 15, 1, 4, "int8", 7, (4,), 8, ABGR),
    _f("T_X8B8G8R8", 16, 1, 4, "int8", 7, (4,), 8, RGBA),
    _f("T_X8R8G8B8", 17, 1, 4, "int8", 7, (4,), 8, ARGB),
    _f("T_B8G8R8X8", 18, 1, 4, "int8", 7, (4,), 8, BGRA),
    _f("T_R8G8B8X8", 19, 1, 4, "int8", 7, (4,), 8, ABGR),
    _f("T_A2B10G10R10", 20, 1, 4, "int16", 7, (4,), 10, fields=_P_ABGR),
    _f("T_A2R10G10B10", 21, 1, 4, "int16", 7, (4,), 10, fields=_P_ARGB),
    _f("T_B10G10R10A2", 22, 1, 4, "int16", 7, (4,), 10, fields=_P_BGRA),
    _f("T_R10G10B10A2", 23, 1, 4, "int16", 7, (4,), 10, fields=_P_RGBA),
    _f("T_A2Y10U10V10", 24, 1, 4, "int16", 7, (4,), 10, fields=_P_ARGB),
    _f("T_V10U10Y10A2", 25, 1, 4, "int16", 7, (4,), 10, fields=_P_BGRA),
    _f("T_A8Y8U8V8", 26, 1, 4, "int8", 7, (4,), 8, ARGB),
    _f("T_V8U8Y8A8", 27, 1, 4, "int8", 7, (4,), 8, BGRA),
    _f("T_Y8___U8V8_N444", 28, 2, 3, "int8", 31, (1, 2), 8, (0, 2, 1)),
    _f("T_Y8___V8U8_N444", 29, 2, 3, "int8", 31, (1, 2), 8, (0, 1, 2)),
    _f("T_Y10___U10V10_N444", 30, 2, 3, "int16", 15, (2, 4), 10, (0, 2, 1)),
    _f("T_Y10___V10U10_N444", 31, 2, 3, "int16", 15, (2, 4), 10, (0, 1, 2)),
    _f("T_Y12___U12V12_N444", 32, 2, 3, "int16", 15, (2, 4), 12, (0, 2, 1)),
    _f("T_Y12___V12U12_N444", 33, 2, 3, "int16", 15, (2, 4), 12, (0, 1, 2)),
    _f("T_Y16___U16V16_N444", 34, 2, 3, "int16", 15, (2, 4), 16, (0, 2, 1)),
    _f("T_Y16___V16U16_N444", 35, 2, 3, "int16", 15, (2, 4), 16, (0, 1, 2)),
)}
BY_CODE = {f.code: f for f in FORMATS.values()}
SIGN_OVERRIDES = ("UNSIGNED_INT", "SIGNED_INT")
#: The memory atom Table 33's X offset ranges are written for.
TABLE_ATOM = 32


def x_offset_limit(fmt: PixelFormat, atom: int = TABLE_ATOM) -> int:
    """The largest PIXEL_X_OFFSET: the plane-0 pixels of one memory atom, less one."""
    return max(atom // fmt.plane_bytes[0], 1) - 1


def plane_offsets(fmt: PixelFormat, x_offset: int, atom: int = TABLE_ATOM) -> tuple[int, ...]:
    """Each plane's X offset in pixels: PIXEL_X_OFFSET modulo the plane's pixels per atom (see the docstring)."""
    return tuple(x_offset % max(atom // size, 1) for size in fmt.plane_bytes)


def pixel_format(name_or_code) -> PixelFormat:
    table = BY_CODE if isinstance(name_or_code, int) else FORMATS
    try:
        return table[name_or_code]
    except KeyError:
        raise ConfigurationError(f"unknown pixel format {name_or_code!r}",
                                 fields=("CDMA.D_DATAIN_FORMAT.PIXEL_FORMAT",), rule=RULE) from None


def check_settings(fmt: PixelFormat, channels: int, precision: str | None = None, x_offset: int = 0,
                   atom: int = TABLE_ATOM) -> None:
    """The per-format valid settings of Table 33: channel size, input precision, X offset (for the atom)."""
    if channels != fmt.channels:
        raise ConfigurationError(f"{fmt.name} needs channel size {fmt.channels}, got {channels}",
                                 fields=("CDMA.D_DATAIN_SIZE_1.DATAIN_CHANNEL",), rule=RULE)
    if precision is not None and precision != fmt.precision:
        raise ConfigurationError(f"{fmt.name} needs input precision {fmt.precision}, got {precision}",
                                 fields=("CDMA.D_MISC_CFG.IN_PRECISION",), rule=RULE)
    if not 0 <= x_offset <= x_offset_limit(fmt, atom):
        raise ConfigurationError(f"{fmt.name} allows PIXEL_X_OFFSET 0..{x_offset_limit(fmt, atom)} with a "
                                 f"{atom}-byte memory atom, got {x_offset}",
                                 fields=("CDMA.D_PIXEL_OFFSET.PIXEL_X_OFFSET",), rule=RULE)


def _line_strides(fmt, line_stride, uv_line_stride):
    strides = (line_stride,) if fmt.planes == 1 else (line_stride, uv_line_stride)
    if any(s is None for s in strides):
        raise ConfigurationError(f"{fmt.name} has {fmt.planes} planes: give line_stride and uv_line_stride",
                                 fields=("CDMA.D_LINE_UV_STRIDE",), rule=RULE)
    return strides


def pixel_span(fmt, height: int, width: int, line_stride: int, uv_line_stride=None,
               x_offset: int = 0, atom: int = TABLE_ATOM) -> tuple[int, ...]:
    """Bytes of each plane from its (atom-aligned) start address to the last pixel's end."""
    fmt = fmt if isinstance(fmt, PixelFormat) else pixel_format(fmt)
    strides = _line_strides(fmt, line_stride, uv_line_stride)
    return tuple((height - 1) * s + (x + width) * b for s, b, x in zip(strides, fmt.plane_bytes,
                                                                     plane_offsets(fmt, x_offset, atom), strict=True))


def _check_lines(fmt, width, strides, x_offset, atom):
    for plane, (stride, size, x) in enumerate(zip(strides, fmt.plane_bytes, plane_offsets(fmt, x_offset, atom),
                                                  strict=True)):
        if stride < (x + width) * size:
            raise ConfigurationError(
                f"{fmt.name} plane {plane}: line stride {stride} < {(x + width) * size} bytes of pixels",
                fields=("CDMA.D_LINE_STRIDE" if plane == 0 else "CDMA.D_LINE_UV_STRIDE",),
                rule="programming-guide: Register definition (CDMA.LINE_STRIDE/LINE_UV_STRIDE)")


def _pixel_words(fmt: PixelFormat, cube: np.ndarray) -> np.ndarray:
    """(H, W, elements) memory elements of every pixel (both planes side by side)."""
    channels, height, width = cube.shape
    if fmt.packed:
        word = np.zeros((height, width), dtype=np.uint32)
        for channel, (shift, bits) in enumerate(fmt.fields):
            if (cube[channel] >> bits).any():
                raise ConfigurationError(f"{fmt.name} channel {channel} holds values beyond {bits} bits",
                                         rule=RULE, fields=())
            word |= cube[channel].astype(np.uint32) << np.uint32(shift)
        return word.astype("<u4").view(np.uint8).reshape(height, width, 4)
    out = np.empty((height, width, len(fmt.order)), dtype=fmt.dtype)
    for channel, position in enumerate(fmt.order):
        out[:, :, position] = cube[channel]
    return out


def pack_pixels(cube, fmt, line_stride: int, uv_line_stride=None, x_offset: int = 0, *,
                fill: int = 0, atom: int = TABLE_ATOM) -> tuple[np.ndarray, ...]:
    """Pitch-linear bytes of each plane (new np.uint8 buffers; bytes between pixels are `fill`)."""
    fmt = fmt if isinstance(fmt, PixelFormat) else pixel_format(fmt)
    values = np.asarray(cube)
    if fmt.floating and values.dtype in (np.uint16, np.int16):
        values = values.view(np.float16)
    values = np.ascontiguousarray(values, dtype=fmt.dtype)
    if values.ndim != 3:
        raise ConfigurationError(f"pixel cube must be (C, H, W), got {values.shape}", rule=RULE, fields=())
    channels, height, width = values.shape
    check_settings(fmt, channels, x_offset=x_offset, atom=atom)
    strides = _line_strides(fmt, line_stride, uv_line_stride)
    _check_lines(fmt, width, strides, x_offset, atom)
    words = _pixel_words(fmt, values).view(np.uint8).reshape(height, width, -1)
    planes, start = [], 0
    for stride, size, span, x in zip(strides, fmt.plane_bytes,
                                     pixel_span(fmt, height, width, line_stride, uv_line_stride, x_offset, atom),
                                     plane_offsets(fmt, x_offset, atom), strict=True):
        plane = np.full(span, fill, dtype=np.uint8)
        lines = np.lib.stride_tricks.as_strided(plane[x * size:], shape=(height, width, size),
                                                strides=(stride, size, 1))
        lines[...] = words[:, :, start:start + size]
        start += size
        planes.append(plane)
    return tuple(planes)


def unpack_pixels(planes, fmt, height: int, width: int, line_stride: int, uv_line_stride=None,
                  x_offset: int = 0, base_offsets=None, atom: int = TABLE_ATOM) -> np.ndarray:
    """The (C, H, W) raw component cube stored pitch-linear in the given plane buffers."""
    fmt = fmt if isinstance(fmt, PixelFormat) else pixel_format(fmt)
    if isinstance(planes, (bytes, bytearray, memoryview, np.ndarray)):
        planes = (planes,)
    if len(planes) != fmt.planes:
        raise ConfigurationError(f"{fmt.name} has {fmt.planes} plane(s), got {len(planes)} buffer(s)",
                                 rule=RULE, fields=("PIXEL_FORMAT",))
    check_settings(fmt, fmt.channels, x_offset=x_offset, atom=atom)
    strides = _line_strides(fmt, line_stride, uv_line_stride)
    _check_lines(fmt, width, strides, x_offset, atom)
    spans = pixel_span(fmt, height, width, line_stride, uv_line_stride, x_offset, atom)
    base_offsets = base_offsets or (0,) * fmt.planes
    parts = []
    for buf, base, stride, size, span, x in zip(planes, base_offsets, strides, fmt.plane_bytes, spans,
                                                plane_offsets(fmt, x_offset, atom), strict=True):
        raw = as_byte_buffer(buf)
        if base < 0 or base + span > raw.size:
            raise ConfigurationError(f"{fmt.name}: plane needs bytes [{base}, {base + span}), buffer has "
                                     f"{raw.size}", rule=RULE, fields=("LINE_STRIDE",))
        parts.append(np.lib.stride_tricks.as_strided(raw[base + x * size:], shape=(height, width, size),
                                                     strides=(stride, size, 1)))
    pixels = np.concatenate(parts, axis=2) if len(parts) > 1 else np.ascontiguousarray(parts[0])
    if fmt.packed:
        word = np.ascontiguousarray(pixels).view("<u4")[..., 0]
        cube = np.stack([(word >> np.uint32(shift)) & np.uint32((1 << bits) - 1)
                         for shift, bits in fmt.fields]).astype(np.uint16)
        return cube
    elements = np.ascontiguousarray(pixels).view(fmt.dtype)
    return np.stack([elements[:, :, position] for position in fmt.order])


def pipeline_values(cube, fmt, *, sign_override: str = "UNSIGNED_INT", converter: bool = True) -> np.ndarray:
    """Values entering the CDMA converter: int17 as int32 (converter on), int8/int16 (off), fp16 as is.

    Packed 10-bit components enter as 16-bit values with the field in the top bits (<< 6, the
    2-bit alpha << 14), as NVIDIA's C model of the CDMA does.
    """
    fmt = fmt if isinstance(fmt, PixelFormat) else pixel_format(fmt)
    if sign_override not in SIGN_OVERRIDES:
        raise ConfigurationError(f"PIXEL_SIGN_OVERRIDE must be one of {SIGN_OVERRIDES}",
                                 fields=("CDMA.D_DATAIN_FORMAT.PIXEL_SIGN_OVERRIDE",), rule=RULE)
    values = np.asarray(cube)
    if fmt.floating:
        return values.view(np.float16) if values.dtype != np.float16 else values
    container = values.astype(np.int64)
    if fmt.packed:
        shifts = np.array([16 - bits for _, bits in fmt.fields]).reshape(-1, 1, 1)
        container = container << shifts
    width = 8 if fmt.component_bits == 8 else 16
    container &= (1 << width) - 1
    signed = container - ((container >> (width - 1)) << width)
    if not converter:
        return signed.astype(np.int8 if width == 8 else np.int16)
    return (signed if sign_override == "SIGNED_INT" else container).astype(np.int32)
