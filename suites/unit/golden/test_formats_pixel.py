"""Pixel formats of Table 33: settings as data, pitch-linear round trips, byte order, sign handling."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from golden.errors import ConfigurationError
from golden.formats.pixel import (
    FORMATS,
    check_settings,
    pack_pixels,
    pipeline_values,
    pixel_format,
    pixel_span,
    unpack_pixels,
)
from golden.regs.regmap import RegisterMap

# Table 33 as printed: (# planes, channel size, input precision, max X offset), but T_R16_F: the table says int16,
# nvdlav1's RTL asserts fp16 (vmod/nvdla/cdma/NV_NVDLA_CDMA_IMG_ctrl.v, "Unmatch input fp16 precision").
TABLE_33 = {
    "T_R8": (1, 1, "int8", 31), "T_R10": (1, 1, "int16", 15), "T_R12": (1, 1, "int16", 15),
    "T_R16": (1, 1, "int16", 15), "T_R16_I": (1, 1, "int16", 15), "T_R16_F": (1, 1, "fp16", 15),
    "T_A16B16G16R16": (1, 4, "int16", 3), "T_X16B16G16R16": (1, 4, "int16", 3),
    "T_A16B16G16R16_F": (1, 4, "fp16", 3), "T_A16Y16U16V16": (1, 4, "int16", 3),
    "T_V16U16Y16A16": (1, 4, "int16", 3), "T_A16Y16U16V16_F": (1, 4, "fp16", 3),
    **{name: (1, 4, "int8", 7) for name in (
        "T_A8B8G8R8", "T_A8R8G8B8", "T_B8G8R8A8", "T_R8G8B8A8", "T_X8B8G8R8", "T_X8R8G8B8",
        "T_B8G8R8X8", "T_R8G8B8X8", "T_A8Y8U8V8", "T_V8U8Y8A8")},
    **{name: (1, 4, "int16", 7) for name in (
        "T_A2B10G10R10", "T_A2R10G10B10", "T_B10G10R10A2", "T_R10G10B10A2", "T_A2Y10U10V10",
        "T_V10U10Y10A2")},
    "T_Y8___U8V8_N444": (2, 3, "int8", 31), "T_Y8___V8U8_N444": (2, 3, "int8", 31),
    **{f"T_Y{b}___{a}{b}{c}{b}_N444": (2, 3, "int16", 15)
       for b in (10, 12, 16) for a, c in (("U", "V"), ("V", "U"))},
}


def test_every_table_33_row_is_data():
    assert set(FORMATS) == set(TABLE_33)
    for name, (planes, channels, precision, x_max) in TABLE_33.items():
        fmt = FORMATS[name]
        assert (fmt.planes, fmt.channels, fmt.precision, fmt.x_offset_max) == (planes, channels, precision,
                                                                              x_max), name
        # The X offset range covers exactly one 32-byte atom of plane 0.
        assert (fmt.x_offset_max + 1) * fmt.plane_bytes[0] == 32, name


def test_register_codes_match_the_register_map():
    field = RegisterMap("master").get("CDMA", "D_DATAIN_FORMAT").field("PIXEL_FORMAT")
    enums = field.enums if hasattr(field, "enums") else field.enum
    assert {name: fmt.code for name, fmt in FORMATS.items()} == dict(enums)
    assert pixel_format(15).name == "T_R8G8B8A8"


def random_cube(rng, fmt, height, width):
    if fmt.floating:
        return rng.integers(0, 1 << 16, (fmt.channels, height, width), dtype=np.uint16).view(np.float16)
    if fmt.packed:
        limits = np.array([(1 << bits) for _, bits in fmt.fields]).reshape(-1, 1, 1)
        return (rng.integers(0, 1 << 16, (fmt.channels, height, width)) % limits).astype(np.uint16)
    top = 1 << (8 if fmt.component_bits == 8 else 16)
    return rng.integers(0, top, (fmt.channels, height, width)).astype(fmt.dtype)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(sorted(FORMATS)), st.integers(1, 5), st.integers(1, 20), st.integers(0, 31),
       st.integers(0, 3), st.integers(0, 2**32 - 1))
def test_round_trip(name, height, width, x_offset, extra, seed):
    fmt = FORMATS[name]
    x_offset = x_offset % (fmt.x_offset_max + 1)
    cube = random_cube(np.random.default_rng(seed), fmt, height, width)
    strides = [-(-(x_offset + width) * b // 32) * 32 + 32 * extra for b in fmt.plane_bytes]
    uv = strides[1] if fmt.planes == 2 else None
    planes = pack_pixels(cube, fmt, strides[0], uv, x_offset, fill=0xCD)
    assert tuple(p.size for p in planes) == pixel_span(fmt, height, width, strides[0], uv, x_offset)
    back = unpack_pixels(planes, fmt, height, width, strides[0], uv, x_offset)
    assert back.dtype == cube.dtype and np.array_equal(back.view(np.uint8), cube.view(np.uint8))
    for plane, size in zip(planes, fmt.plane_bytes, strict=True):
        skipped = x_offset % (32 // size)  # the UV plane's offset wraps at its own atom (nvdla/hw IMG_ctrl mask)
        assert (plane[:skipped * size] == 0xCD).all()             # redundant pixels before the ROI


def test_x_offset_range_follows_the_memory_atom():
    """nv_small's 8-byte atom: RTL IMG_ctrl masks plane 0 with atom/bytes-per-pixel - 1 and asserts on more."""
    check_settings(FORMATS["T_R8"], 1, x_offset=7, atom=8)
    check_settings(FORMATS["T_A8B8G8R8"], 4, x_offset=1, atom=8)
    check_settings(FORMATS["T_A16B16G16R16"], 4, x_offset=0, atom=8)
    for name, channels, bad in (("T_R8", 1, 8), ("T_A8B8G8R8", 4, 2), ("T_A16B16G16R16", 4, 1)):
        with pytest.raises(ConfigurationError, match="8-byte memory atom"):
            check_settings(FORMATS[name], channels, x_offset=bad, atom=8)
    check_settings(FORMATS["T_R8"], 1, x_offset=31)  # Table 33, 32-byte atom


def test_semi_planar_uv_plane_wraps_its_offset_at_its_atom():
    """T_Y8___U8V8 on an 8-byte atom with PIXEL_X_OFFSET 5: Y starts 5 bytes in, the UV plane (4 pixels of 2 bytes
    per atom) 5 mod 4 = 1 pixel, i.e. 2 bytes, in."""
    yuv = np.array([[[10]], [[20]], [[30]]], dtype=np.uint8)  # Y, U, V of one pixel
    luma, chroma = pack_pixels(yuv, "T_Y8___U8V8_N444", 8, 8, x_offset=5, fill=0xEE, atom=8)
    assert list(luma) == [0xEE] * 5 + [10]
    assert list(chroma) == [0xEE, 0xEE, 30, 20]  # V then U (module docstring)
    back = unpack_pixels((luma, chroma), "T_Y8___U8V8_N444", 1, 1, 8, 8, x_offset=5, atom=8)
    assert back.ravel().tolist() == [10, 20, 30]


@pytest.mark.parametrize("name, memory", [
    ("T_A8B8G8R8", [1, 2, 3, 4]), ("T_X8B8G8R8", [1, 2, 3, 4]), ("T_A8R8G8B8", [3, 2, 1, 4]),
    ("T_B8G8R8A8", [4, 1, 2, 3]), ("T_R8G8B8A8", [4, 3, 2, 1]), ("T_A8Y8U8V8", [3, 2, 1, 4]),
    ("T_V8U8Y8A8", [4, 1, 2, 3]),
])
def test_byte_order_of_8_bit_formats(name, memory):
    cube = np.array([1, 2, 3, 4], dtype=np.uint8).reshape(4, 1, 1)    # R(Y)=1, G(U)=2, B(V)=3, A=4
    (plane,) = pack_pixels(cube, name, line_stride=32)
    assert list(plane) == memory


def test_packed_10_bit_and_semi_planar_layouts():
    cube = np.array([0x3FF, 0x001, 0x155, 0x2], dtype=np.uint16).reshape(4, 1, 1)
    (plane,) = pack_pixels(cube, "T_A2B10G10R10", 32)
    assert plane.view("<u4")[0] == 0x3FF | 0x001 << 10 | 0x155 << 20 | 0x2 << 30
    (plane,) = pack_pixels(cube, "T_R10G10B10A2", 32)
    assert plane.view("<u4")[0] == 0x3FF << 22 | 0x001 << 12 | 0x155 << 2 | 0x2
    yuv = np.array([10, 20, 30], dtype=np.uint8).reshape(3, 1, 1)      # Y, U, V
    luma, chroma = pack_pixels(yuv, "T_Y8___U8V8_N444", 32, 32, x_offset=1)
    assert luma[1] == 10 and list(chroma[2:4]) == [30, 20]             # U8V8: V at the lower address
    luma, chroma = pack_pixels(yuv, "T_Y8___V8U8_N444", 32, 32)
    assert list(chroma[:2]) == [20, 30]


def test_sign_override_worked_example():
    # programming guide, CDMA.PIXEL_SIGN_OVERRIDE: R_8 value 0x87 enters the converter as 0x00087
    # (UNSIGNED_INT) or 0x1ff87 (SIGNED_INT, int17); without the converter it is int8 -121.
    cube = np.array([[[0x87]]], dtype=np.uint8)
    assert pipeline_values(cube, "T_R8", sign_override="UNSIGNED_INT")[0, 0, 0] == 0x87
    signed = pipeline_values(cube, "T_R8", sign_override="SIGNED_INT")[0, 0, 0]
    assert signed == -121 and (int(signed) & 0x1FFFF) == 0x1FF87
    raw = pipeline_values(cube, "T_R8", sign_override="UNSIGNED_INT", converter=False)
    assert raw.dtype == np.int8 and raw[0, 0, 0] == -121
    ten = np.array([0x3FF, 0, 0, 3], dtype=np.uint16).reshape(4, 1, 1)
    assert list(pipeline_values(ten, "T_A2B10G10R10")[:, 0, 0]) == [0xFFC0, 0, 0, 0xC000]
    half = np.array([[[0x3C00]]], dtype=np.uint16)
    assert pipeline_values(half, "T_R16_F").dtype == np.float16


def test_invalid_settings_name_the_field():
    fmt = FORMATS["T_A8B8G8R8"]
    for kwargs, field in [(dict(channels=3), "DATAIN_CHANNEL"), (dict(channels=4, x_offset=8), "PIXEL_X_OFFSET"),
                          (dict(channels=4, precision="int16"), "IN_PRECISION")]:
        with pytest.raises(ConfigurationError) as info:
            check_settings(fmt, **kwargs)
        assert any(field in f for f in info.value.fields)
    with pytest.raises(ConfigurationError):
        pack_pixels(np.zeros((4, 1, 9), np.uint8), fmt, line_stride=32)       # 36 bytes in a 32-byte line
    with pytest.raises(ConfigurationError):
        pack_pixels(np.full((4, 1, 1), 1024, np.uint16), "T_A2B10G10R10", 32)
    with pytest.raises(ConfigurationError):
        pack_pixels(np.zeros((3, 1, 1), np.uint8), "T_Y8___U8V8_N444", 32)   # no UV line stride
