"""Winograd mode of the convolution model: integer Winograd equals the direct convolution of the same layer
where no truncation loses bits; pra_trunc against a per-tile reference; fp16 within the CC Winograd
threshold; the output-size rules."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from golden.config import get_profile
from golden.errors import ConfigurationError
from golden.formats import winograd as wformat
from golden.units import conv
from golden.units.conv.program import WinogradLayer, winograd_layer
from scoreboards.conv_fp16 import allowed_error
from suites.unit.golden.winograd_reference import staged_reference

SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NV_FULL = get_profile("nv_full")


def direct_reference(cube, weights, stride, pad, out_hw, pad_element):
    c, h, w = cube.shape
    k, _, rows, cols = weights.shape
    (sy, sx), (pt, pl), (ho, wo) = stride, pad, out_hw
    plane = np.full((c, pt + ho * sy + rows + h, pl + wo * sx + cols + w), pad_element,
                    dtype=np.float64 if cube.dtype.kind == "f" else np.int64)
    plane[:, pt:pt + h, pl:pl + w] = cube
    out = np.zeros((k, ho, wo), dtype=plane.dtype)
    for r in range(rows):
        for s in range(cols):
            window = plane[:, r:r + (ho - 1) * sy + 1:sy, s:s + (wo - 1) * sx + 1:sx]
            out += np.einsum("kc,chw->khw", weights[:, :, r, s].astype(plane.dtype), window)
    return out


def round_half_away(values, shift):
    if shift == 0:
        return values
    magnitude = (np.abs(values) + (1 << (shift - 1))) >> shift
    return np.where(values < 0, -magnitude, magnitude)


@st.composite
def winograd_cases(draw, precision="int8"):
    sy, sx = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    rows = draw(st.integers(2 * sy + 1, 3 * sy))  # ceil(R / sy) == 3
    cols = draw(st.integers(2 * sx + 1, 3 * sx))
    out_h, out_w = draw(st.sampled_from([8, 12])), draw(st.sampled_from([8, 12]))
    pt, pl = draw(st.integers(0, rows - 1)), draw(st.integers(0, cols - 1))
    pb, pr = draw(st.integers(0, 4 * sy)), draw(st.integers(0, 4 * sx))
    height, width = (out_h + 4) * sy - pt - pb, (out_w + 4) * sx - pl - pr
    channels, kernels = draw(st.integers(1, 40)), draw(st.integers(1, 20))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    limit = 31 if precision == "int8" else 8191  # B^T d B stays inside the operand type
    if precision == "fp16":
        cube = rng.normal(0, 2, size=(channels, height, width)).astype(np.float16)
        weights = rng.normal(0, 1, size=(kernels, channels, rows, cols)).astype(np.float16)
        pad_value = int(np.float16(draw(st.floats(-2, 2, width=16))).view(np.uint16))
    else:
        cube = rng.integers(-limit, limit + 1, size=(channels, height, width))
        weights = 4 * rng.integers(-3, 4, size=(kernels, channels, rows, cols))  # G g G^T is integral
        pad_value = draw(st.integers(-limit, limit)) & 0xFFFF
    layer = WinogradLayer(precision=precision, stride=(sy, sx), pad=(pt, pl), out_hw=(out_h, out_w),
                          pad_value=pad_value, clip_truncate=draw(st.integers(0, 8)) if precision != "fp16" else 0)
    return cube, weights, layer


def transformed_weights(weights, layer):
    sy, sx = layer.stride
    values = wformat.phase1(weights, layer.precision, sx, sy)
    if layer.precision == "fp16":
        return values.astype(np.float16)
    assert np.array_equal(values, np.round(values))
    return values.astype(np.int64)


def pad_element(layer):
    bits = 8 if layer.precision == "int8" else 16
    value = layer.pad_value & ((1 << bits) - 1)
    return value - (1 << bits) if value >> (bits - 1) else value


@SETTINGS
@pytest.mark.parametrize("precision", ["int8", "int16"])
@given(data=st.data())
def test_integer_winograd_equals_direct(precision, data):
    cube, weights, layer = data.draw(winograd_cases(precision))
    result = conv.run(winograd_layer(NV_FULL, cube, transformed_weights(weights, layer), layer))
    direct = direct_reference(cube, weights, layer.stride, layer.pad, layer.out_hw, pad_element(layer))
    expected = np.clip(round_half_away(direct, layer.clip_truncate), -(2**31), 2**31 - 1)
    assert result.output.dtype == np.int32
    np.testing.assert_array_equal(result.output, expected)


def tile_reference(cube, transformed, layer):
    """Loops over tiles: B^T d B, pra_trunc, * U summed over channels, A^T M A (int8, stride 1 only)."""
    bt = np.array([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]])
    at = np.array([[1, 1, 1, 0], [0, 1, -1, -1]])
    (pt, pl), (ho, wo) = layer.pad, layer.out_hw
    c = cube.shape[0]
    # a padding position is a whole atom of the pad value, its padding lanes too (cmod cdma.cpp
    # WinoConvDataResponseSequencerCommon, atom_pad_value_int16); at a data position the lanes beyond C hold what
    # memory holds there, zeros as the builder packs the cube
    plane = np.full((transformed.shape[1], ho + 4, wo + 4), pad_element(layer), dtype=np.int64)
    h, w = min(cube.shape[1], ho + 4 - pt), min(cube.shape[2], wo + 4 - pl)
    plane[:, pt:pt + h, pl:pl + w] = 0
    plane[:c, pt:pt + h, pl:pl + w] = cube[:, :h, :w]
    out = np.zeros((transformed.shape[0], ho, wo), dtype=np.int64)
    for ty in range(ho // 2):
        for tx in range(wo // 2):
            t = bt @ plane[:, 2 * ty:2 * ty + 4, 2 * tx:2 * tx + 4] @ bt.T
            t = np.clip(round_half_away(t, layer.pra_truncate), -128, 127)
            m = np.einsum("cij,kcij->kij", t, transformed)
            out[:, 2 * ty:2 * ty + 2, 2 * tx:2 * tx + 2] = at @ m @ at.T
    return np.clip(round_half_away(out, layer.clip_truncate), -(2**31), 2**31 - 1)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 3), st.integers(0, 2**32 - 1))
def test_pra_truncate_matches_tile_reference(pra, seed):
    rng = np.random.default_rng(seed)
    cube = rng.integers(-128, 128, size=(12, 10, 9))
    transformed = rng.integers(-128, 128, size=(5, 32, 4, 4))
    layer = WinogradLayer(precision="int8", pad=(1, 2), out_hw=(8, 8), pad_value=int(rng.integers(0, 256)),
                          pra_truncate=pra, clip_truncate=2)
    result = conv.run(winograd_layer(NV_FULL, cube, transformed, layer))
    np.testing.assert_array_equal(result.output, tile_reference(cube, transformed, layer))


def fp16_tile_reference(cube, u, layer):
    """float64 Winograd: the pre-transform in its fp17 stages to fp16 (winograd_reference.py),
    exact products and sums."""
    at = np.array([[1, 1, 1, 0], [0, 1, -1, -1]], dtype=np.float64)
    (sy, sx), (pt, pl), (ho, wo) = layer.stride, layer.pad, layer.out_hw
    channels = u.shape[1] // (sy * sx)
    plane = np.full((channels, (ho + 4) * sy, (wo + 4) * sx), float(np.uint16(layer.pad_value).view(np.float16)))
    plane[cube.shape[0]:] = 0
    h, w = min(cube.shape[1], plane.shape[1] - pt), min(cube.shape[2], plane.shape[2] - pl)
    plane[:cube.shape[0], pt:pt + h, pl:pl + w] = cube[:, :h, :w]
    # fold the stride into channels: channel (i * sx + j) * C + c = plane[c, i::sy, j::sx]
    folded = np.concatenate([plane[:, i::sy, j::sx] for i in range(sy) for j in range(sx)])
    out = np.zeros((u.shape[0], ho, wo))
    for ty in range(ho // 2):
        for tx in range(wo // 2):
            t = staged_reference(folded[:, 2 * ty:2 * ty + 4, 2 * tx:2 * tx + 4]).astype(np.float64)
            m = np.einsum("cij,kcij->kij", t, u.astype(np.float64))
            out[:, 2 * ty:2 * ty + 2, 2 * tx:2 * tx + 2] = at @ m @ at.T
    return out


@SETTINGS
@given(winograd_cases("fp16"))
def test_fp16_winograd_within_threshold(case):
    cube, weights, layer = case
    u = transformed_weights(weights, layer)
    result = conv.run(winograd_layer(NV_FULL, cube, u, layer))
    assert result.output.dtype == np.float32 and result.tolerance.rule == "CC Winograd"
    allowed = allowed_error(result.output.astype(np.float16).view(np.uint16), result.tolerance.max_exp,
                            result.tolerance.taps)
    assert allowed.shape == result.output.shape
    assert (np.abs(result.output - fp16_tile_reference(cube, u, layer)) <= allowed).all()


@pytest.mark.parametrize("out_hw", [(6, 8), (8, 10), (4, 8)])
def test_output_must_be_4_divisible_and_at_least_8(out_hw):
    cube = np.ones((8, out_hw[0] + 2, out_hw[1] + 2), dtype=np.int64)
    layer = WinogradLayer(out_hw=out_hw)
    with pytest.raises(ConfigurationError, match="divisible by 4 and >= 8"):
        conv.run(winograd_layer(NV_FULL, cube, np.ones((4, 32, 4, 4), dtype=np.int64), layer))


@settings(max_examples=10, deadline=None)
@given(winograd_cases("int16"), st.floats(0.0, 0.9))
def test_compressed_winograd_weights_equal_uncompressed(case, sparsity):
    cube, weights, layer = case
    u = transformed_weights(weights, layer)
    u = np.where(np.random.default_rng(5).random(u.shape) < sparsity, 0, u)
    plain = conv.run(winograd_layer(NV_FULL, cube, u, layer))
    packed_ctx = winograd_layer(NV_FULL, cube, u, WinogradLayer(**{**layer.__dict__, "compressed": True}))
    assert packed_ctx.regs.enum("CSC", "D_WEIGHT_FORMAT", "WEIGHT_FORMAT") == "COMPRESSED"
    np.testing.assert_array_equal(conv.run(packed_ctx).output, plain.output)
