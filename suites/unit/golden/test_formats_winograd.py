"""Winograd weights: channel padding/extension, G g G^T, 4x4x4 small cubes scanned K -> C."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from golden.errors import ConfigurationError
from golden.formats.winograd import (
    extend_channels,
    pack_winograd_weights,
    pad_channels,
    phase1,
    transform,
    unpack_winograd_weights,
    untransform,
)


def test_transform_matches_the_documented_matrix():
    g = np.arange(9, dtype=float).reshape(3, 3)
    G = np.array([[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]])
    assert np.allclose(transform(g[None, None])[0, 0], G @ g @ G.T)
    assert transform(g[None, None])[0, 0][0, 0] == g[0, 0]           # corner taps pass through
    assert transform(g[None, None])[0, 0][1, 1] == g.sum() / 4
    assert np.allclose(transform(g[None, None], scale=4.0), 4 * transform(g[None, None]))
    assert np.allclose(untransform(transform(g[None, None], 2.0), 2.0)[0, 0], g)


def test_fig15_5x5_stride2_extends_to_3x3_with_four_times_the_channels():
    # Fig. 15: a 5x5 kernel at stride 2 becomes 3x3 with C * 2 * 2 channels (64 -> 256 bytes).
    weights = np.arange(2 * 32 * 25, dtype=np.int16).reshape(2, 32, 5, 5)
    extended = extend_channels(weights, 2, 2)
    assert extended.shape == (2, 128, 3, 3)
    # channel (i * sx + j) * C + c holds tap (2r' + i, 2s' + j); taps past the kernel are zero
    assert extended[1, (1 * 2 + 0) * 32 + 5, 1, 2] == weights[1, 5, 3, 4]
    assert extended[0, (1 * 2 + 1) * 32 + 7, 2, 2] == 0
    assert np.count_nonzero(extended) == np.count_nonzero(weights)
    with pytest.raises(ConfigurationError):
        extend_channels(weights, 1, 1)


def test_channels_are_padded_to_32_bytes():
    assert pad_channels(np.ones((1, 5, 3, 3), np.int8), "int8").shape == (1, 32, 3, 3)
    assert pad_channels(np.ones((1, 17, 3, 3), np.int16), "int16").shape == (1, 32, 3, 3)
    out = phase1(np.ones((1, 3, 3, 3)), "int16")
    assert out.shape == (1, 16, 4, 4) and (out[:, 3:] == 0).all()


def test_small_cubes_are_4x4x4_scanned_k_then_c():
    # 16 int16 kernels per group (atomic K 32): cube 0 of K0..K15, then cube 1 of K0..K15.
    weights = np.arange(17 * 8 * 16, dtype=np.int16).reshape(17, 8, 4, 4)
    buf = pack_winograd_weights(weights, "int16", atomic_k=32)
    words = buf.view("<i2")
    cube = lambda k, b: weights[k, 4 * b:4 * b + 4].transpose(1, 2, 0).ravel()   # row, column, channel
    assert np.array_equal(words[:64], cube(0, 0))
    assert np.array_equal(words[64:128], cube(1, 0))
    assert np.array_equal(words[16 * 64:17 * 64], cube(0, 1))
    assert np.array_equal(words[32 * 64:33 * 64], cube(16, 0))          # the 17th kernel: group 2
    assert buf.size % 128 == 0


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["int8", "int16", "fp16"]), st.integers(1, 70), st.integers(1, 12),
       st.sampled_from([8, 32]), st.integers(0, 2**32 - 1))
def test_round_trip(precision, kernels, blocks, atomic_k, seed):
    dtype = {"int8": np.int8, "int16": np.int16, "fp16": np.float16}[precision]
    size = np.dtype(dtype).itemsize
    raw = np.random.default_rng(seed).integers(0, 256, (kernels, 4 * blocks, 4, 4, size), dtype=np.uint8)
    weights = raw.view(dtype).reshape(kernels, 4 * blocks, 4, 4)
    buf = pack_winograd_weights(weights, precision, atomic_k)
    assert buf.size == -(-weights.nbytes // 128) * 128 and (buf[weights.nbytes:] == 0).all()
    back = unpack_winograd_weights(buf, 0, weights.shape, precision, atomic_k)
    assert np.array_equal(back.view(np.uint8), weights.view(np.uint8))


def test_shape_errors():
    with pytest.raises(ConfigurationError):
        pack_winograd_weights(np.zeros((1, 3, 4, 4), np.int8), "int8", 32)
    with pytest.raises(ConfigurationError):
        transform(np.zeros((1, 1, 4, 4)))
