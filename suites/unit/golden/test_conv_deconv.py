"""Deconvolution composite (conv layers -> SDP -> Rubik contract) equals a numpy transposed convolution."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from golden.config import get_profile
from golden.errors import ProfileFeatureError
from golden.units.conv.deconv import deconvolve

BITS = {"int8": 8, "int16": 16}


def transposed_convolution(x, w, sx, sy):
    """out[k, y*sy + r, x*sx + s] += sum_c w[k, c, r, s] * x[c, y, x]."""
    k, _, kh, kw = w.shape
    _, h, wd = x.shape
    out = np.zeros((k, (h - 1) * sy + kh, (wd - 1) * sx + kw), np.int64)
    for r in range(kh):
        for s in range(kw):
            out[:, r:r + (h - 1) * sy + 1:sy, s:s + (wd - 1) * sx + 1:sx] += np.einsum("kc,chw->khw", w[:, :, r, s], x)
    return out


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["int8", "int16"]), st.integers(1, 3), st.integers(1, 3), st.integers(1, 5),
       st.integers(1, 5), st.integers(1, 20), st.integers(1, 24), st.integers(0, 2**32 - 1))
def test_deconvolution_equals_transposed_convolution(precision, sx, sy, kh, kw, channels, kernels, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(-20, 21, (channels, int(rng.integers(1, 6)), int(rng.integers(1, 6))))
    w = rng.integers(-20, 21, (kernels, channels, kh, kw))
    got, _ = deconvolve(get_profile("nv_full"), x, w, (sy, sx), precision)
    expected = transposed_convolution(x, w, sx, sy)
    bits = BITS[precision]
    expected = np.clip(expected, -(1 << (bits - 1)), (1 << (bits - 1)) - 1)  # SDP writes int8/int16
    full = np.zeros(got.shape, np.int64)
    full[:, :expected.shape[1], :expected.shape[2]] = expected  # the phase layers cover a few more lines
    np.testing.assert_array_equal(got.astype(np.int64), full)


def test_deconvolution_needs_rubik():
    try:
        deconvolve(get_profile("nv_large"), np.ones((1, 2, 2), int), np.ones((1, 1, 2, 2), int), (2, 2))
    except ProfileFeatureError as exc:
        assert "RUBIK" in str(exc)
    else:
        raise AssertionError("nv_large has no Rubik")
