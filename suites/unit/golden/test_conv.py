"""Convolution model (golden/units/conv): direct convolution against a reference written here, and the
relations that must hold exactly (dilation, batch, compression), over random legal layers."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from golden.config import get_profile
from golden.errors import ConfigurationError
from golden.units import conv
from golden.units.conv.program import DirectLayer, direct_layer
from scoreboards.conv_fp16 import allowed_error

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def reference_sums(cube, weights, stride, dilation, pad, out_hw, pad_element):
    """sum_{c,r,s} x[c, y*sy + r*dy - pt, x*sx + s*dx - pl] * w[k, c, r, s]; outside the cube: pad_element."""
    cube4 = cube if cube.ndim == 4 else cube[None]
    n, c, h, w = cube4.shape
    k, _, rows, cols = weights.shape
    (sy, sx), (dy, dx), (pt, pl), (ho, wo) = stride, dilation, pad, out_hw
    plane = np.full((n, c, pt + (ho - 1) * sy + (rows - 1) * dy + 1 + h,
                     pl + (wo - 1) * sx + (cols - 1) * dx + 1 + w), pad_element, dtype=np.float64
                    if cube.dtype.kind == "f" else object)
    plane[:, :, pt:pt + h, pl:pl + w] = cube4
    out = np.zeros((n, k, ho, wo), dtype=plane.dtype)
    for r in range(rows):
        for s in range(cols):
            window = plane[:, :, r * dy:r * dy + (ho - 1) * sy + 1:sy, s * dx:s * dx + (wo - 1) * sx + 1:sx]
            out += np.einsum("kc,nchw->nkhw", weights[:, :, r, s].astype(plane.dtype), window)
    return out


def round_half_away(values, shift):
    if shift == 0:
        return values
    half = 1 << (shift - 1)
    return np.vectorize(lambda v: (abs(v) + half) >> shift if v >= 0 else -((abs(v) + half) >> shift),
                        otypes=[object])(values)


def saturate_int32(values):
    clipped = np.clip(values, -(1 << 31), (1 << 31) - 1)
    return clipped.astype(np.int64), int(np.count_nonzero(clipped != values))


@st.composite
def direct_layers(draw, precision="int8", max_channels=40, batch=False):
    rows, cols = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    dilation = (draw(st.integers(1, 3)), draw(st.integers(1, 3))) if draw(st.booleans()) else (1, 1)
    stride = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    span_h, span_w = (rows - 1) * dilation[0] + 1, (cols - 1) * dilation[1] + 1
    height, width = draw(st.integers(span_h, span_h + 6)), draw(st.integers(span_w, span_w + 6))
    pad = (draw(st.integers(0, span_h - 1)), draw(st.integers(0, span_w - 1)))
    channels, kernels = draw(st.integers(1, max_channels)), draw(st.integers(1, 40))
    batch = draw(st.sampled_from([None, 2, 3])) if batch else None
    bits = {"int8": 8, "int16": 16}.get(precision)
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    shape = (channels, height, width) if batch is None else (batch, channels, height, width)
    if bits:
        lo, hi = -(1 << (bits - 1)), 1 << (bits - 1)
        cube = rng.integers(lo, hi, size=shape)
        weights = rng.integers(lo, hi, size=(kernels, channels, rows, cols))
        pad_value = draw(st.integers(0, 0xFFFF))
    else:
        cube = rng.normal(0, 2, size=shape).astype(np.float16)
        weights = rng.normal(0, 1, size=(kernels, channels, rows, cols)).astype(np.float16)
        pad_value = int(np.float16(draw(st.floats(-4, 4, width=16))).view(np.uint16))
    truncate = draw(st.integers(0, 16)) if bits else 0
    layer = DirectLayer(precision=precision, stride=stride, dilation=dilation, pad=pad, pad_value=pad_value,
                        clip_truncate=truncate)
    return cube, weights, layer


def run_layer(profile_name, cube, weights, layer):
    try:
        ctx = direct_layer(get_profile(profile_name), cube, weights, layer)
        return conv.run(ctx), ctx
    except ConfigurationError as exc:
        # a drawn geometry the limitation rules forbid (e.g. a right padding >= kernel after stride fixup)
        assume(False)
        raise AssertionError from exc


def expected_int(cube, weights, layer, result, bits):
    ho, wo = result.output.shape[-2:]
    pad_element = int(np.int64(layer.pad_value & ((1 << bits) - 1)))
    if pad_element >> (bits - 1):
        pad_element -= 1 << bits
    sums = reference_sums(cube, weights, layer.stride, layer.dilation, layer.pad, (ho, wo), pad_element)
    values, count = saturate_int32(round_half_away(sums, layer.clip_truncate))
    return (values if cube.ndim == 4 else values[0]), count


@SETTINGS
@given(direct_layers("int8"))
def test_int8_direct_matches_reference(case):
    cube, weights, layer = case
    result, _ = run_layer("nv_large", cube, weights, layer)
    values, count = expected_int(cube, weights, layer, result, 8)
    assert result.output.dtype == np.int32
    np.testing.assert_array_equal(result.output, values)
    assert result.status[("CACC", "D_OUT_SATURATION")] == count


@SETTINGS
@given(direct_layers("int16", batch=True))
def test_int16_direct_matches_reference(case):
    cube, weights, layer = case
    result, _ = run_layer("nv_full", cube, weights, layer)
    values, count = expected_int(cube, weights, layer, result, 16)
    np.testing.assert_array_equal(result.output, values)
    assert result.status[("CACC", "D_OUT_SATURATION")] == count


@SETTINGS
@given(direct_layers("int8", max_channels=20))
def test_int8_on_nv_small_geometry(case):
    cube, weights, layer = case
    result, _ = run_layer("nv_small", cube[..., :12] if cube.shape[-1] > 12 else cube, weights, layer)
    trimmed = cube[..., :12] if cube.shape[-1] > 12 else cube
    values, _ = expected_int(trimmed, weights, layer, result, 8)
    np.testing.assert_array_equal(result.output, values)


def test_saturation_counts_and_clips():
    cube = np.full((64, 4, 4), 127)
    weights = np.full((2, 64, 3, 3), 127)
    weights[1] = -128
    layer = DirectLayer(precision="int8", clip_truncate=0)
    ctx = direct_layer(get_profile("nv_full"), cube, weights, layer)
    small = conv.run(ctx)
    assert small.status[("CACC", "D_OUT_SATURATION")] == 0  # 64*9*127*127 fits int32
    cube16 = np.full((64, 4, 4), 32767)
    w16 = np.full((2, 64, 3, 3), 32767)
    w16[1] = -32768
    big = conv.run(direct_layer(get_profile("nv_full"), cube16, w16, DirectLayer(precision="int16")))
    assert big.status[("CACC", "D_OUT_SATURATION")] == 2 * 2 * 2
    assert (big.output[0] == 2**31 - 1).all() and (big.output[1] == -(2**31)).all()
    again = conv.run(direct_layer(get_profile("nv_full"), cube16, w16, DirectLayer(precision="int16",
                                                                                   clip_truncate=16)))
    assert again.status[("CACC", "D_OUT_SATURATION")] == 0
    np.testing.assert_array_equal(again.output[0], round_half_away(np.full((2, 2), 64 * 9 * 32767 * 32767,
                                                                           dtype=object), 16).astype(np.int64))


@SETTINGS
@given(direct_layers("int8"))
def test_dilation_equals_zero_dilated_kernel(case):
    cube, weights, layer = case
    dy, dx = layer.dilation
    assume((dy, dx) != (1, 1))
    dilated, _ = run_layer("nv_large", cube, weights, layer)
    k, c, rows, cols = weights.shape
    spread = np.zeros((k, c, (rows - 1) * dy + 1, (cols - 1) * dx + 1), dtype=weights.dtype)
    spread[:, :, ::dy, ::dx] = weights
    plain = DirectLayer(precision="int8", stride=layer.stride, pad=layer.pad, pad_value=layer.pad_value,
                        clip_truncate=layer.clip_truncate)
    direct, _ = run_layer("nv_large", cube, spread, plain)
    np.testing.assert_array_equal(dilated.output, direct.output)


@SETTINGS
@given(direct_layers("int16", batch=True))
def test_batch_equals_single_layers(case):
    cube, weights, layer = case
    assume(cube.ndim == 4)
    batched, _ = run_layer("nv_full", cube, weights, layer)
    assert batched.output.shape[0] == cube.shape[0]
    for n in range(cube.shape[0]):
        single, _ = run_layer("nv_full", cube[n], weights, layer)
        np.testing.assert_array_equal(batched.output[n], single.output)


@SETTINGS
@given(direct_layers("int8"), st.floats(0.0, 0.9))
def test_compressed_weights_equal_uncompressed(case, sparsity):
    cube, weights, layer = case
    weights = np.where(np.random.default_rng(7).random(weights.shape) < sparsity, 0, weights)
    plain, _ = run_layer("nv_full", cube, weights, layer)
    packed, ctx = run_layer("nv_full", cube, weights, DirectLayer(**{**layer.__dict__, "compressed": True}))
    assert ctx.regs.enum("CDMA", "D_WEIGHT_FORMAT", "WEIGHT_FORMAT") == "COMPRESSED"
    np.testing.assert_array_equal(plain.output, packed.output)


@SETTINGS
@given(direct_layers("fp16", batch=True))
def test_fp16_within_cc_dc_threshold(case):
    cube, weights, layer = case
    result, _ = run_layer("nv_full", cube, weights, layer)
    assert result.output.dtype == np.float32
    ho, wo = result.output.shape[-2:]
    pad = float(np.uint16(layer.pad_value).view(np.float16))
    exact = reference_sums(cube.astype(np.float64), weights.astype(np.float64), layer.stride, layer.dilation,
                           layer.pad, (ho, wo), pad)
    exact = exact if cube.ndim == 4 else exact[0]
    allowed = allowed_error(result.output.astype(np.float16).view(np.uint16), result.tolerance.max_exp,
                            result.tolerance.taps)
    assert result.tolerance.rule == "CC DC" and allowed.shape == result.output.shape
    assert (np.abs(result.output - exact) <= allowed).all()


def test_fp16_tolerance_follows_the_document():
    """One window: data exponent 3 (&~3 = 0), weight exponent 5 (&~3 = 4): max_exp = 4, R*S*C = 2."""
    cube = np.array([[[8.0]], [[1.0]]], dtype=np.float16)  # exponents 3 and 0
    weights = np.array([[[[32.0]], [[1.0]]]], dtype=np.float16)  # exponents 5 and 0
    result = conv.run(direct_layer(get_profile("nv_full"), cube, weights, DirectLayer(precision="fp16")))
    out = float(result.output[0, 0, 0])
    assert out == 257.0
    assert result.tolerance.max_exp[0, 0, 0] == 4 and result.tolerance.taps == 2
    expected = 2.0 ** (4 - 20) * 2 * 2 + 2.0 ** (8 - 10)  # exp(257) = 8
    bound = allowed_error(result.output.astype(np.float16).view(np.uint16), result.tolerance.max_exp,
                            result.tolerance.taps)
    assert bound[0, 0, 0] == expected


def test_fp16_inf_and_nan_inputs():
    cube = np.array([[[np.inf]], [[np.nan]]], dtype=np.float16)
    weights = np.array([[[[1.0]], [[0.0]]], [[[1.0]], [[1.0]]]], dtype=np.float16)
    keep = conv.run(direct_layer(get_profile("nv_full"), cube, weights, DirectLayer(precision="fp16")))
    assert np.isnan(keep.output[:, 0, 0]).all()  # 0 * NaN and 1 * NaN propagate
    assert keep.status[("CDMA", "D_INF_INPUT_DATA_NUM")] == 1
    assert keep.status[("CDMA", "D_NAN_INPUT_DATA_NUM")] == 1
    flush = conv.run(direct_layer(get_profile("nv_full"), cube, weights,
                                  DirectLayer(precision="fp16", nan_to_zero=True)))
    np.testing.assert_array_equal(flush.output[:, 0, 0], [65536.0, 65536.0])  # INF -> 65536 (DC)


def test_single_batch_output_is_three_dimensional():
    result = conv.run(direct_layer(get_profile("nv_small"), np.ones((3, 5, 5), int), np.ones((4, 3, 3, 3), int),
                                   DirectLayer(pad=(1, 1))))
    assert result.output.shape == (4, 4, 4)  # top/left padding only
    assert result.output[0, 2, 2] == 27 and result.output[0, 0, 0] == 12


@pytest.mark.parametrize("precision,profile", [("int16", "nv_large"), ("fp16", "nv_small")])
def test_profile_without_the_precision_is_rejected(precision, profile):
    from golden.errors import ProfileFeatureError
    with pytest.raises(ProfileFeatureError):
        conv.run(direct_layer(get_profile(profile), np.ones((8, 4, 4)), np.ones((8, 8, 1, 1)),
                              DirectLayer(precision=precision)))


def test_accumulator_wraps_at_48_bits():
    from golden.units.conv.cacc import wrap_assembly
    sums = np.array([2**47 - 1, 2**47, -(2**47), -(2**47) - 1, 5 * 2**48 + 3])
    np.testing.assert_array_equal(wrap_assembly(sums), [2**47 - 1, -(2**47), -(2**47), 2**47 - 1, 3])


@pytest.mark.parametrize("clip_truncate", range(32))
def test_float32_sums_deliver_like_int64_sums(clip_truncate):
    """The int32 fast path for float32 GEMM sums (|sum| < 2**24) rounds exactly as the int64 path."""
    from golden.units.conv.cacc import deliver_int
    rng = np.random.default_rng(clip_truncate)
    edges = [0, 1, -1, 2**23, -(2**23), 2**24 - 1, -(2**24 - 1)]
    halves = [m * (1 << max(clip_truncate - 1, 0)) for m in (-3, -1, 1, 3)] if clip_truncate < 25 else []
    sums = np.concatenate([edges, halves, rng.integers(-(2**24) + 1, 2**24, 5000)]).astype(np.int64)
    fast, fast_count = deliver_int(sums.astype(np.float32), clip_truncate)
    exact, exact_count = deliver_int(sums, clip_truncate)
    assert fast.dtype == exact.dtype == np.int32
    np.testing.assert_array_equal(fast, exact)
    assert fast_count == exact_count == 0
