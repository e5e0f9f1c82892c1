"""Direct-convolution, image-input and deconvolution weight layouts."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from golden.config import PROFILES
from golden.errors import ConfigurationError
from golden.formats.weight import (
    check_post_extension,
    dc_weight_bytes,
    merge_deconv_kernels,
    pack_dc_weights,
    pack_deconv_weights,
    pack_image_weights,
    pre_extend,
    split_deconv_kernels,
    undo_pre_extend,
    unpack_dc_weights,
    unpack_image_weights,
)

GEOMETRIES = sorted({(p.mac_atomic_c, p.mac_atomic_k) for p in PROFILES.values()})
DTYPES = {"int8": np.int8, "int16": np.int16, "fp16": np.float16}


def random_weights(rng, shape, precision):
    size = np.dtype(DTYPES[precision]).itemsize
    raw = rng.integers(0, 256, size=(*shape, size), dtype=np.uint8)
    return raw.view(DTYPES[precision]).reshape(shape)


def expected_element_offsets(shape, group, cube):
    """Element offset of each (k, c, r, s) from the document's C'->K->W->H->C rule, per group."""
    kernels, channels, rows, cols = shape
    k, c, r, s = np.meshgrid(*(np.arange(v) for v in shape), indexing="ij")
    g, kk = divmod(k, group)
    in_group = np.minimum(group, kernels - g * group)
    block, cc = divmod(c, cube)
    width = np.minimum(cube, channels - block * cube)
    return (g * group * channels * rows * cols + block * cube * in_group * rows * cols
            + (r * cols + s) * in_group * width + kk * width + cc)


@settings(max_examples=50, deadline=None)
@given(st.sampled_from(GEOMETRIES), st.sampled_from(["int8", "int16", "fp16"]), st.integers(1, 70),
       st.integers(1, 140), st.integers(1, 4), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_dc_round_trip_and_positions(geometry, precision, kernels, channels, rows, cols, seed):
    atomic_c, atomic_k = geometry
    weights = random_weights(np.random.default_rng(seed), (kernels, channels, rows, cols), precision)
    buf = pack_dc_weights(weights, precision, atomic_c, atomic_k)
    nbytes = dc_weight_bytes(weights.shape, precision)
    assert buf.size == -(-nbytes // 128) * 128 and (buf[nbytes:] == 0).all()
    back = unpack_dc_weights(buf, 0, weights.shape, precision, atomic_c, atomic_k)
    assert np.array_equal(back.view(np.uint8), weights.view(np.uint8))
    group = atomic_k if precision == "int8" else atomic_k // 2
    offsets = expected_element_offsets(weights.shape, group, atomic_c)
    stored = buf[:nbytes].view(DTYPES[precision])
    assert np.array_equal(stored[offsets].view(np.uint8), weights.view(np.uint8))


def test_fig13_group_of_3x3x192_byte_int16_kernels():
    # nv_full: 16 int16 kernels per group, 64-element (128-byte) small cubes; 192 bytes of channels
    # give cubes of 128 and 64 bytes: K0_00, K1_00, ..., K15_00, K0_01, ... K15_17.
    kernels = np.arange(16 * 96 * 9, dtype=np.int16).reshape(16, 96, 3, 3)
    buf = pack_dc_weights(kernels, "int16", atomic_c=64, atomic_k=32)
    words = buf.view("<i2")
    assert np.array_equal(words[:64], kernels[0, :64, 0, 0])                 # K0_00
    assert np.array_equal(words[64:128], kernels[1, :64, 0, 0])              # K1_00
    assert np.array_equal(words[15 * 64:16 * 64], kernels[15, :64, 0, 0])    # K15_00
    assert np.array_equal(words[16 * 64:17 * 64], kernels[0, :64, 0, 1])     # K0_01 (next tap in W)
    second = 16 * 9 * 64
    assert np.array_equal(words[second:second + 32], kernels[0, 64:, 0, 0])  # first 64-byte cube
    assert buf.size == 16 * 96 * 9 * 2                                      # already 128-aligned
    assert np.array_equal(words[-32:], kernels[15, 64:, 2, 2])              # K15_17 comes last


def test_group_boundaries_have_no_fill_and_tail_is_zero():
    weights = np.ones((33, 1, 1, 1), dtype=np.int8)          # 32 + 1 kernels, 1 byte each
    buf = pack_dc_weights(weights, "int8", 64, 32)
    assert buf.size == 128 and (buf[:33] == 1).all() and (buf[33:] == 0).all()


def test_fig14_pre_extension():
    # Fig. 14: a 5x5x3 int16 kernel whose planes are numbered 5*h + w becomes one 1x5x15 kernel:
    # each extended row holds the five taps of the original row for each of the three channels.
    plane = np.arange(25, dtype=np.int16).reshape(5, 5)
    kernel = np.broadcast_to(plane, (1, 3, 5, 5))
    extended = pre_extend(kernel)
    assert extended.shape == (1, 15, 5, 1)              # WEIGHT_SIZE_EXT: width 1, height R, C*S
    for row in range(5):
        assert sorted(extended[0, :, row, 0]) == sorted([5 * row + w for w in range(5)] * 3)
    assert list(extended[0, :, 1, 0]) == [5, 5, 5, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9, 9]
    distinct = np.arange(75).reshape(1, 3, 5, 5)
    assert np.array_equal(undo_pre_extend(pre_extend(distinct), 3), distinct)
    assert pre_extend(distinct)[0, 3 * 2 + 1, 4, 0] == distinct[0, 1, 4, 2]    # channel s*C + c


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(GEOMETRIES), st.sampled_from(["int8", "int16"]), st.integers(1, 40),
       st.integers(1, 4), st.integers(1, 9), st.integers(1, 4), st.sampled_from([1, 2, 4]),
       st.integers(0, 2**32 - 1))
def test_image_weights_round_trip(geometry, precision, kernels, channels, rows, cols, factor, seed):
    atomic_c, atomic_k = geometry
    weights = random_weights(np.random.default_rng(seed), (kernels, channels, rows, cols), precision)
    if factor > 1 and channels * cols * factor > atomic_c:
        with pytest.raises(ConfigurationError):
            pack_image_weights(weights, precision, atomic_c, atomic_k, factor)
        return
    buf = pack_image_weights(weights, precision, atomic_c, atomic_k, factor)
    back = unpack_image_weights(buf, 0, weights.shape, precision, atomic_c, atomic_k, factor)
    assert np.array_equal(back.view(np.uint8), weights.view(np.uint8))
    if factor == 1:
        assert np.array_equal(buf, pack_dc_weights(pre_extend(weights), precision, atomic_c, atomic_k))


def test_post_extension_puts_line_pairs_in_one_small_cube():
    # 2 kernels, 3 channels, 3 rows, 1 column; 2-line post-extension, atomic K 32 (one group):
    # rows (0, 1) of K0, rows (0, 1) of K1, then the odd row 2 of K0 and K1 without zero fill.
    weights = np.arange(2 * 3 * 3, dtype=np.int8).reshape(2, 3, 3, 1)
    buf = pack_image_weights(weights, "int8", 64, 32, post_extension=2)
    row = lambda k, r: list(weights[k, :, r, 0])
    expected = row(0, 0) + row(0, 1) + row(1, 0) + row(1, 1) + row(0, 2) + row(1, 2)
    assert list(buf[:18].view(np.int8)) == expected and (buf[18:] == 0).all()


def test_post_extension_limits():
    check_post_extension(32, 2, 64)
    check_post_extension(16, 4, 64)
    for channels, factor in [(33, 2), (17, 4), (8, 3)]:
        with pytest.raises(ConfigurationError):
            check_post_extension(channels, factor, 64)


@pytest.mark.parametrize("rows, cols, sx, sy", [(3, 3, 2, 2), (5, 4, 2, 3), (4, 4, 1, 2), (2, 2, 3, 3)])
def test_deconvolution_split(rows, cols, sx, sy):
    weights = np.arange(2 * 3 * rows * cols, dtype=np.int16).reshape(2, 3, rows, cols) + 1
    sets = split_deconv_kernels(weights, sx, sy)
    assert len(sets) == sx * sy
    assert all(part.shape == (2, 3, -(-rows // sy), -(-cols // sx)) for part in sets)
    assert sets[1 if sx > 1 else 0][0, 0, 0, 0] == weights[0, 0, 0, 1 if sx > 1 else 0]
    # every tap lands in exactly one set; the rest is zero fill
    assert sum(int(np.count_nonzero(part)) for part in sets) == weights.size
    assert np.array_equal(merge_deconv_kernels(sets, weights.shape, sx, sy), weights)
    buffers = pack_deconv_weights(weights, "int16", 64, 32, sx, sy)
    assert [b.size % 128 for b in buffers] == [0] * (sx * sy)


def test_errors():
    with pytest.raises(ConfigurationError):
        pack_dc_weights(np.zeros((2, 2, 2)), "int8", 64, 32)
    with pytest.raises(ConfigurationError):
        unpack_dc_weights(np.zeros(10, np.uint8), 0, (2, 2, 2, 2), "int8", 64, 32)
