"""Feature data format: round trips, the documented byte positions, padding, 1x1xC, batches."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from golden.config import PROFILES
from golden.errors import ConfigurationError
from golden.formats.feature import (
    feature_span,
    pack_feature,
    packed_strides,
    surface_packed_1x1_shape,
    unpack_feature,
    unpack_feature_padded,
)

ATOMS = sorted({p.memory_atomic_size for p in PROFILES.values()})
SIZES = {"int8": 1, "int16": 2, "fp16": 2}


def random_cube(rng, shape, precision):
    bits = rng.integers(0, 1 << (8 * SIZES[precision]), size=shape, dtype=np.uint32)
    if precision == "int8":
        return bits.astype(np.uint8).view(np.int8)
    raw = bits.astype(np.uint16)
    return raw.view(np.float16) if precision == "fp16" else raw.view(np.int16)


def expected_offsets(shape, precision, line, surface, atom, batch_stride=0):
    """Byte offset of every element from the document's rule, computed independently."""
    size = SIZES[precision]
    per_atom = atom // size
    n, c, h, w = np.meshgrid(*(np.arange(v) for v in shape), indexing="ij")
    return (n * batch_stride + (c // per_atom) * surface + h * line + w * atom + (c % per_atom) * size)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(ATOMS), st.sampled_from(["int8", "int16", "fp16"]),
       st.integers(1, 3), st.integers(1, 70), st.integers(1, 5), st.integers(1, 6),
       st.integers(0, 3), st.integers(0, 3), st.integers(0, 3), st.integers(0, 2**32 - 1))
def test_round_trip_and_byte_positions(atom, precision, n, c, h, w, extra_line, extra_surface,
                                       extra_batch, seed):
    rng = np.random.default_rng(seed)
    cube = random_cube(rng, (n, c, h, w), precision)
    line = w * atom + extra_line * atom
    surface = h * line + extra_surface * atom
    single = feature_span((c, h, w), precision, line, surface, atom)
    batch_stride = single + extra_batch * atom
    buf = pack_feature(cube, precision, line, surface, atom, batch_stride, pad_value=0xA5)
    assert buf.size == feature_span(cube.shape, precision, line, surface, atom, batch_stride)
    back = unpack_feature(buf, 0, cube.shape, precision, line, surface, atom, batch_stride)
    assert back.dtype.itemsize == SIZES[precision]
    assert np.array_equal(back.view(np.uint8), cube.view(np.uint8))
    # Every element sits where the document puts it (little-endian bytes).
    offsets = expected_offsets(cube.shape, precision, line, surface, atom, batch_stride)
    raw = cube.view(np.uint8).reshape(*cube.shape, SIZES[precision])
    for byte in range(SIZES[precision]):
        assert np.array_equal(buf[offsets + byte], raw[..., byte])
    # Padding channels of the last surface hold pad_value; gap bytes stay zero.
    per_atom = atom // SIZES[precision]
    padded_c = -(-c // per_atom) * per_atom
    written = np.zeros(buf.size, dtype=bool)
    all_offsets = expected_offsets((n, padded_c, h, w), precision, line, surface, atom, batch_stride)
    for byte in range(SIZES[precision]):
        written[all_offsets + byte] = True
    data = np.zeros(buf.size, dtype=bool)
    for byte in range(SIZES[precision]):
        data[offsets + byte] = True
    assert (buf[written & ~data] == 0xA5).all()
    assert (buf[~written] == 0).all()


def test_pack_into_existing_buffer_keeps_gaps_and_honours_base():
    cube = np.arange(2 * 3 * 4, dtype=np.int8).reshape(2, 3, 4)
    memory = np.full(1000, 0x77, dtype=np.uint8)
    pack_feature(cube, "int8", line_stride=160, surface_stride=512, atom_bytes=32, buf=memory,
                 base_offset=96)
    assert (memory[:96] == 0x77).all()
    assert memory[96 + 32 * 3 + 1] == 1 * 12 + 0 * 4 + 3      # channel 1, h 0, w 3
    assert memory[96 + 160 + 32 * 2] == 0 * 12 + 1 * 4 + 2     # channel 0, h 1, w 2
    assert (memory[96 + 128:96 + 160] == 0x77).all()           # gap after line 0
    assert memory[96 + 2] == 0                                 # padding channel 2 of atom (0, 0)
    assert np.array_equal(unpack_feature(memory, 96, cube.shape, "int8", 160, 512, 32), cube)


def test_packed_strides_match_nvidia_traces():
    # README of ../shared/nvdla: an 8x8x32 int8 cube has line/surface stride 0x40/0x200 on
    # nv_small (8-byte atoms) and 0x100/0x800 on nv_large (32-byte atoms).
    assert packed_strides((32, 8, 8), "int8", PROFILES["nv_small"].memory_atomic_size) == (0x40, 0x200)
    assert packed_strides((32, 8, 8), "int8", PROFILES["nv_large"].memory_atomic_size) == (0x100, 0x800)


@pytest.mark.parametrize("precision", ["int8", "int16", "fp16"])
@pytest.mark.parametrize("atom", ATOMS)
def test_surface_packed_1x1xC_is_the_same_bytes_as_its_wide_cube(precision, atom):
    rng = np.random.default_rng(1)
    channels = 3 * atom + 5
    cube = random_cube(rng, (channels, 1, 1), precision)
    line, surface = packed_strides(cube.shape, precision, atom)
    narrow = pack_feature(cube, precision, line, surface, atom)
    per_atom, height, width = surface_packed_1x1_shape(channels, precision, atom)
    assert (height, per_atom) == (1, atom // SIZES[precision])
    padded = np.zeros(per_atom * width, dtype=cube.dtype)
    padded[:channels] = cube[:, 0, 0]
    wide_cube = padded.reshape(width, per_atom).T.reshape(per_atom, 1, width)
    wide = pack_feature(wide_cube, precision, *packed_strides(wide_cube.shape, precision, atom), atom)
    assert np.array_equal(narrow, wide)


def test_unpack_padded_returns_padding_channels():
    cube = np.ones((5, 2, 2), dtype=np.int8)
    buf = pack_feature(cube, "int8", 64, 128, 32, pad_value=9)
    padded = unpack_feature_padded(buf, 0, cube.shape, "int8", 64, 128, 32)
    assert padded.shape == (32, 2, 2)
    assert (padded[:5] == 1).all() and (padded[5:] == 9).all()


def test_accepts_raw_fp16_bits_and_bytes_objects():
    bits = np.array([[[0x3C00, 0x7E01]]], dtype=np.uint16)        # 1.0 and a NaN payload
    buf = pack_feature(bits, "fp16", 64, 64, 32)
    back = unpack_feature(bytes(buf), 0, bits.shape, "fp16", 64, 64, 32)
    assert back.dtype == np.float16 and np.array_equal(back.view(np.uint16), bits)


@pytest.mark.parametrize("kwargs, field", [
    (dict(line_stride=32, surface_stride=256), "LINE_STRIDE"),
    (dict(line_stride=64, surface_stride=64), "SURFACE_STRIDE"),
])
def test_overlapping_layouts_are_rejected_with_the_field(kwargs, field):
    cube = np.zeros((40, 2, 2), dtype=np.int8)
    with pytest.raises(ConfigurationError) as info:
        pack_feature(cube, "int8", atom_bytes=32, **kwargs)
    assert field in info.value.fields


def test_short_buffer_and_bad_precision_are_configuration_errors():
    with pytest.raises(ConfigurationError):
        unpack_feature(np.zeros(10, np.uint8), 0, (1, 1, 1), "int8", 32, 32, 32)
    with pytest.raises(ConfigurationError):
        unpack_feature(np.zeros(64, np.uint8), 0, (1, 1, 1), "int4", 32, 32, 32)
    with pytest.raises(ConfigurationError):
        pack_feature(np.zeros((2, 1, 1, 1), np.int8), "int8", 32, 32, 32)   # batch without stride
