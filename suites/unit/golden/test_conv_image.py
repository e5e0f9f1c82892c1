"""Image input of the convolution model: every pixel format of Table 33 equals the feature-data layer of the
converted cube, with the CDMA convertor (offset or per-channel mean, scale, truncate, sign override), X
offset, pre-extension and 2/4-line post-extension."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from register_edits import with_fields

from golden.config import get_profile
from golden.errors import ConfigurationError
from golden.formats import pixel
from golden.units import conv
from golden.units.conv.program import DirectLayer, ImageLayer, direct_layer, image_layer

NV_FULL = get_profile("nv_full")
FORMATS = sorted(pixel.FORMATS)


def raw_pixels(fmt, shape, rng):
    if fmt.floating:
        return rng.normal(0, 4, size=shape).astype(np.float16)
    if fmt.packed:
        limits = np.array([(1 << bits) for _, bits in fmt.fields]).reshape(-1, 1, 1)
        return (rng.random(shape) * limits).astype(np.uint16)
    return rng.integers(0, 1 << fmt.component_bits, size=shape).astype(fmt.dtype)


def converted(raw, fmt, layer):
    """The document's convertor: int17 (sign override) - offset/mean, * scale, round >> truncate, saturate."""
    values = pixel.pipeline_values(raw, fmt, sign_override=layer.sign_override, converter=layer.cvt_en)
    if fmt.floating or not layer.cvt_en:
        return values.astype(np.float16 if layer.precision == "fp16" else np.int64)
    offsets = np.array(layer.mean[:raw.shape[0]]).reshape(-1, 1, 1) if layer.mean else layer.cvt_offset
    product = (values.astype(np.int64) - offsets) * layer.cvt_scale
    t = layer.cvt_truncate
    rounded = product if t == 0 else np.where(product >= 0, (product + (1 << (t - 1))) >> t,
                                              -((-product + (1 << (t - 1))) >> t))
    if layer.precision == "fp16":
        # int17, then fp16 rounded to nearest even; beyond the largest normal it is clipped to +-65504
        # (in-memory-data-formats: Rounding)
        return np.clip(np.clip(rounded, -(1 << 16), (1 << 16) - 1), -65504, 65504).astype(np.float16)
    bits = 8 if layer.precision == "int8" else 16
    return np.clip(rounded, -(1 << (bits - 1)), (1 << (bits - 1)) - 1)


@st.composite
def image_cases(draw, name):
    fmt = pixel.pixel_format(name)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if fmt.floating:
        precision = "fp16"
    else:
        precision = draw(st.sampled_from([fmt.precision, "fp16"] + (["int16"] if fmt.precision == "int8" else [])))
    rows, cols = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    height, width = draw(st.integers(rows, rows + 5)), draw(st.integers(cols, cols + 8))
    stride = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    pad = (draw(st.integers(0, rows - 1)), draw(st.integers(0, cols - 1)))
    wide = fmt.channels * cols
    post = draw(st.sampled_from([1] + ([2] if wide <= 32 else []) + ([4] if wide <= 16 else [])))
    # another precision than the format's needs the convertor (CONV-PIXEL-CONVERTOR)
    cvt_en = fmt.precision != precision or (draw(st.booleans()) if not fmt.floating else False)
    mean = tuple(draw(st.lists(st.integers(-300, 300), min_size=4, max_size=4))) if draw(st.booleans()) else None
    layer = ImageLayer(
        pixel_format=name, precision=precision, stride=stride, pad=pad, x_offset=draw(st.integers(0, fmt.x_offset_max)),
        sign_override=draw(st.sampled_from(["UNSIGNED_INT", "SIGNED_INT"])), cvt_en=cvt_en,
        cvt_offset=draw(st.integers(-200, 200)), cvt_scale=draw(st.integers(-40, 40)),
        cvt_truncate=draw(st.integers(0, 6)), mean=mean, post_extension=post,
        pad_value=draw(st.integers(-100, 100)) & 0xFFFF if precision != "fp16" else 0,
        clip_truncate=draw(st.integers(0, 4)) if precision != "fp16" else 0)
    raw = raw_pixels(fmt, (fmt.channels, height, width), rng)
    if precision == "fp16":
        weights = rng.normal(0, 1, size=(draw(st.integers(1, 20)), fmt.channels, rows, cols)).astype(np.float16)
    else:
        bits = 8 if precision == "int8" else 16
        weights = rng.integers(-(1 << (bits - 1)), 1 << (bits - 1),
                               size=(draw(st.integers(1, 20)), fmt.channels, rows, cols))
    return raw, weights, layer


@pytest.mark.parametrize("name", FORMATS)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_pixel_format_equals_feature_layer_of_converted_cube(name, data):
    raw, weights, layer = data.draw(image_cases(name))
    fmt = pixel.pixel_format(name)
    try:
        image_result = conv.run(image_layer(NV_FULL, raw, weights, layer))
    except ConfigurationError as exc:
        # only the right/bottom padding fix-up of a drawn geometry may be refused
        assert "PAD_RIGHT" in str(exc) or "PAD_BOTTOM" in str(exc), exc
        return
    cube = converted(raw, fmt, layer)
    feature_layer = DirectLayer(precision=layer.precision, stride=layer.stride, pad=layer.pad,
                                pad_value=layer.pad_value, clip_truncate=layer.clip_truncate)
    feature_result = conv.run(direct_layer(NV_FULL, cube, weights, feature_layer))
    np.testing.assert_array_equal(image_result.output, feature_result.output)
    assert image_result.status[("CACC", "D_OUT_SATURATION")] == feature_result.status[("CACC", "D_OUT_SATURATION")]


def test_sign_override_example_of_the_guide():
    """R_8 0x87: UNSIGNED -> 0x00087 = 135, SIGNED -> 0x1ff87 = -121 (programming guide, PIXEL_SIGN_OVERRIDE)."""
    raw = np.full((1, 1, 1), 0x87, dtype=np.uint8)
    weights = np.ones((1, 1, 1, 1), dtype=np.int64)
    for override, expected in (("UNSIGNED_INT", 135), ("SIGNED_INT", -121)):
        layer = ImageLayer(pixel_format="T_R8", precision="int16", sign_override=override)
        assert conv.run(image_layer(NV_FULL, raw, weights, layer)).output[0, 0, 0] == expected
    off = ImageLayer(pixel_format="T_R8", precision="int8", cvt_en=False, sign_override="UNSIGNED_INT")
    assert conv.run(image_layer(NV_FULL, raw, weights, off)).output[0, 0, 0] == -121  # no converter: int8


def test_mean_replaces_the_offset_per_channel():
    raw = np.array([10, 20, 30, 40], dtype=np.uint8).reshape(4, 1, 1)
    weights = np.eye(4, dtype=np.int64).reshape(4, 4, 1, 1)
    layer = ImageLayer(pixel_format="T_A8B8G8R8", precision="int16", cvt_offset=5, cvt_scale=3,
                       mean=(1, 2, 3, 4))
    out = conv.run(image_layer(NV_FULL, raw, weights, layer)).output[:, 0, 0]
    np.testing.assert_array_equal(out, [27, 54, 81, 108])
    no_mean = ImageLayer(pixel_format="T_A8B8G8R8", precision="int16", cvt_offset=5, cvt_scale=3)
    np.testing.assert_array_equal(conv.run(image_layer(NV_FULL, raw, weights, no_mean)).output[:, 0, 0],
                                  [15, 45, 75, 105])


@pytest.mark.parametrize("name,post", [("T_R8G8B8A8", 1), ("T_A8B8G8R8", 2), ("T_R8", 4), ("T_Y16___U16V16_N444", 1)])
def test_compressed_image_weights_equal_uncompressed(name, post):
    fmt = pixel.pixel_format(name)
    rng = np.random.default_rng(11)
    raw = raw_pixels(fmt, (fmt.channels, 9, 11), rng)
    bits = 8 if fmt.precision == "int8" else 16
    weights = rng.integers(-(1 << (bits - 1)), 1 << (bits - 1), (7, fmt.channels, 4, 3))
    weights[rng.random(weights.shape) < 0.6] = 0
    layer = ImageLayer(pixel_format=name, precision=fmt.precision, post_extension=post, cvt_scale=3)
    plain = conv.run(image_layer(NV_FULL, raw, weights, layer)).output
    packed = conv.run(image_layer(NV_FULL, raw, weights, ImageLayer(**{**layer.__dict__, "compressed": True})))
    np.testing.assert_array_equal(packed.output, plain)


@pytest.mark.parametrize("precision,cdma_pad,csc_pad", [("int8", 7, 117), ("int8", 0xFF85, 3), ("int16", 0x8001, 250)])
def test_cdma_pads_columns_and_csc_pads_lines(precision, cdma_pad, csc_pad):
    """Image mode splits the padding: CDMA's PAD_VALUE fills the left and right columns, replacing the
    convertor's output (NV_NVDLA_CDMA_IMG_pack.v lp/rp masks, NV_NVDLA_CDMA_cvt.v cvt_data_cell_8b_masked);
    CSC's fills the top and bottom lines whole, corners included (NV_NVDLA_CSC_dl.v dat_img_req_dummy).
    Found by the RTL fuzzing campaign: NVIDIA's nv_small RTL gave 63 where a model padding every side with
    CSC's value gave 43. The expected sums are taken over a plane built by hand from that rule."""
    raw = np.array([[[3, 9, 27, 40, 5], [33, 20, 25, 12, 6], [1, 2, 4, 8, 16]]], dtype=np.uint8)  # T_R8 1x3x5
    weights = np.arange(1, 10, dtype=np.int64).reshape(1, 1, 3, 3) - 5
    # stride 2 with top/left padding 1 leaves one line of bottom and one column of right padding
    layer = ImageLayer(pixel_format="T_R8", precision=precision, stride=(2, 2), pad=(1, 1), pad_value=cdma_pad,
                       cvt_scale=3, cvt_offset=1)
    ctx = with_fields(image_layer(NV_FULL, raw, weights, layer), CSC__D_ZERO_PADDING_VALUE__PAD_VALUE=csc_pad)

    bits = 8 if precision == "int8" else 16
    as_signed = lambda v: ((v & ((1 << bits) - 1)) ^ (1 << (bits - 1))) - (1 << (bits - 1))  # noqa: E731
    plane = np.full((5, 7), as_signed(csc_pad), dtype=np.int64)
    plane[1:4, :] = as_signed(cdma_pad)
    plane[1:4, 1:6] = (raw[0].astype(np.int64) - 1) * 3  # the convertor: (x - offset) * scale, no saturation here
    expected = np.array([[(plane[y:y + 3, x:x + 3] * weights[0, 0]).sum() for x in (0, 2, 4)] for y in (0, 2)])
    np.testing.assert_array_equal(conv.run(ctx).output[0], expected)
