"""PDP model against numpy references written here: max / min / average pooling of random cubes with
paddings, padding values and strides; split-width runs against per-split numpy passes and the unsplit
run; fp16 INF / NaN rules; the programming guide's limitations."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.lib.stride_tricks import sliding_window_view

from golden.config import get_profile
from golden.errors import ConfigurationError
from golden.formats.feature import feature_span, pack_feature, packed_strides, unpack_feature
from golden.memory import MemorySystem
from golden.regs.regmap import RegisterMap
from golden.regs.values import RegisterValues
from golden.units import pdp
from golden.units.base import LayerContext

FULL = get_profile("nv_full")
REGMAP = RegisterMap.for_layout("nvdlav1")
SRC, DST, ATOM = 0x8000_0000, 0x8100_0000, 32
METHOD_CODES = {"average": 0, "max": 1, "min": 2}
FORMAT_CODES = {"int8": 0, "int16": 1, "fp16": 2}


def layer_fields(shape, precision, method, kernel, stride, pads, out_hw, pad_value=0, recip=(0, 0), split=None,
                 on_the_fly=False):
    """PDP + PDP_RDMA register fields of a packed cube at SRC pooled into a packed cube at DST."""
    channels, height, width = shape
    (kw, kh), (sw, sh), (pl, pt, pr, pb), (oh, ow) = kernel, stride, pads, out_hw
    in_line, in_surface = packed_strides(shape, precision, ATOM)
    out_line, out_surface = packed_strides((channels, oh, ow), precision, ATOM)
    fields = {
        "PDP.D_DATA_CUBE_IN_WIDTH.CUBE_IN_WIDTH": width - 1, "PDP.D_DATA_CUBE_IN_HEIGHT.CUBE_IN_HEIGHT": height - 1,
        "PDP.D_DATA_CUBE_IN_CHANNEL.CUBE_IN_CHANNEL": channels - 1,
        "PDP.D_DATA_CUBE_OUT_WIDTH.CUBE_OUT_WIDTH": ow - 1, "PDP.D_DATA_CUBE_OUT_HEIGHT.CUBE_OUT_HEIGHT": oh - 1,
        "PDP.D_DATA_CUBE_OUT_CHANNEL.CUBE_OUT_CHANNEL": channels - 1,
        "PDP.D_OPERATION_MODE_CFG.POOLING_METHOD": METHOD_CODES[method],
        "PDP.D_OPERATION_MODE_CFG.FLYING_MODE": 0 if on_the_fly else 1,
        "PDP.D_POOLING_KERNEL_CFG.KERNEL_WIDTH": kw - 1, "PDP.D_POOLING_KERNEL_CFG.KERNEL_HEIGHT": kh - 1,
        "PDP.D_POOLING_KERNEL_CFG.KERNEL_STRIDE_WIDTH": sw - 1, "PDP.D_POOLING_KERNEL_CFG.KERNEL_STRIDE_HEIGHT": sh - 1,
        "PDP.D_POOLING_PADDING_CFG.PAD_LEFT": pl, "PDP.D_POOLING_PADDING_CFG.PAD_TOP": pt,
        "PDP.D_POOLING_PADDING_CFG.PAD_RIGHT": pr, "PDP.D_POOLING_PADDING_CFG.PAD_BOTTOM": pb,
        "PDP.D_RECIP_KERNEL_WIDTH.RECIP_KERNEL_WIDTH": recip[0],
        "PDP.D_RECIP_KERNEL_HEIGHT.RECIP_KERNEL_HEIGHT": recip[1],
        "PDP.D_DATA_FORMAT.INPUT_DATA": FORMAT_CODES[precision],
        "PDP.D_DST_BASE_ADDR_LOW.DST_BASE_ADDR_LOW": DST & 0xFFFFFFFF,
        "PDP.D_DST_LINE_STRIDE.DST_LINE_STRIDE": out_line, "PDP.D_DST_SURFACE_STRIDE.DST_SURFACE_STRIDE": out_surface,
        "PDP.D_DST_RAM_CFG.DST_RAM_TYPE": 1,
        "PDP_RDMA.D_DATA_CUBE_IN_WIDTH.CUBE_IN_WIDTH": width - 1,
        "PDP_RDMA.D_DATA_CUBE_IN_HEIGHT.CUBE_IN_HEIGHT": height - 1,
        "PDP_RDMA.D_DATA_CUBE_IN_CHANNEL.CUBE_IN_CHANNEL": channels - 1,
        "PDP_RDMA.D_FLYING_MODE.FLYING_MODE": 0 if on_the_fly else 1,
        "PDP_RDMA.D_SRC_BASE_ADDR_LOW.SRC_BASE_ADDR_LOW": SRC & 0xFFFFFFFF,
        "PDP_RDMA.D_SRC_LINE_STRIDE.SRC_LINE_STRIDE": in_line,
        "PDP_RDMA.D_SRC_SURFACE_STRIDE.SRC_SURFACE_STRIDE": in_surface,
        "PDP_RDMA.D_SRC_RAM_CFG.SRC_RAM_TYPE": 1, "PDP_RDMA.D_DATA_FORMAT.INPUT_DATA": FORMAT_CODES[precision],
        "PDP_RDMA.D_POOLING_KERNEL_CFG.KERNEL_WIDTH": kw - 1,
        "PDP_RDMA.D_POOLING_KERNEL_CFG.KERNEL_STRIDE_WIDTH": sw - 1,
    }
    bits = {"int8": (8, 9, 10, 10, 11, 11, 11), "int16": (16, 17, 18, 18, 19, 19, 19)}.get(precision, (19,) * 7)
    for n in range(1, 8):
        fields[f"PDP.D_POOLING_PADDING_VALUE_{n}_CFG.PAD_VALUE_{n}X"] = (n * pad_value) & ((1 << bits[n - 1]) - 1)
    if split is not None:
        count, (in_first, in_mid, in_last), (out_first, out_mid, out_last) = split
        for unit in ("PDP", "PDP_RDMA"):
            fields[f"{unit}.D_OPERATION_MODE_CFG.SPLIT_NUM"] = count - 1
            fields[f"{unit}.D_PARTIAL_WIDTH_IN.PARTIAL_WIDTH_IN_FIRST"] = in_first - 1
            fields[f"{unit}.D_PARTIAL_WIDTH_IN.PARTIAL_WIDTH_IN_MID"] = in_mid - 1
            fields[f"{unit}.D_PARTIAL_WIDTH_IN.PARTIAL_WIDTH_IN_LAST"] = in_last - 1
        fields["PDP.D_PARTIAL_WIDTH_OUT.PARTIAL_WIDTH_OUT_FIRST"] = out_first - 1
        fields["PDP.D_PARTIAL_WIDTH_OUT.PARTIAL_WIDTH_OUT_MID"] = out_mid - 1
        fields["PDP.D_PARTIAL_WIDTH_OUT.PARTIAL_WIDTH_OUT_LAST"] = out_last - 1
    return fields


def run_model(cube, precision, method, kernel, stride, pads, out_hw, upstream=None, **options):
    fields = layer_fields(cube.shape, precision, method, kernel, stride, pads, out_hw,
                          on_the_fly=upstream is not None, **options)
    memory = MemorySystem()
    if upstream is None:
        line, surface = packed_strides(cube.shape, precision, ATOM)
        memory.pri.write(SRC, pack_feature(cube, precision, line, surface, ATOM))
    result = pdp.run(LayerContext(FULL, RegisterValues.encode(REGMAP, fields), memory), upstream)
    shape = (cube.shape[0], *out_hw)
    line, surface = packed_strides(shape, precision, ATOM)
    raw = memory.pri.read(DST, feature_span(shape, precision, line, surface, ATOM))
    return unpack_feature(raw, 0, shape, precision, line, surface, ATOM), result


# ---- numpy references --------------------------------------------------------------------------------------

def windows(cube, kernel, stride, pads, fill):
    (kw, kh), (sw, sh), (pl, pt, pr, pb) = kernel, stride, pads
    padded = np.pad(cube, ((0, 0), (pt, pb), (pl, pr)), constant_values=fill)
    return sliding_window_view(padded, (kh, kw), axis=(1, 2))[:, ::sh, ::sw]


def round_half_away(numerator: np.ndarray, denominator: int) -> np.ndarray:
    magnitude = (np.abs(numerator) * 2 + denominator) // (2 * denominator)
    return np.sign(numerator) * magnitude


def reference_int(cube, method, kernel, stride, pads, pad_value=0, recip=(0, 0)):
    cube = cube.astype(np.int64)
    if method == "max":
        return windows(cube, kernel, stride, pads, np.iinfo(np.int64).min).max(axis=(-2, -1))
    if method == "min":
        return windows(cube, kernel, stride, pads, np.iinfo(np.int64).max).min(axis=(-2, -1))
    total = windows(cube, kernel, stride, pads, pad_value).sum(axis=(-2, -1))
    return round_half_away(round_half_away(total * recip[0], 1 << 16) * recip[1], 1 << 16)


@st.composite
def pooling_layers(draw, precision="int8", max_channels=40):
    kw, kh = draw(st.integers(1, 8)), draw(st.integers(1, 8))
    sw, sh = draw(st.integers(1, 9)), draw(st.integers(1, 9))
    ow, oh = draw(st.integers(1, 7)), draw(st.integers(1, 6))
    pl, pr = draw(st.integers(0, kw - 1)), draw(st.integers(0, kw - 1))
    pt, pb = draw(st.integers(0, kh - 1)), draw(st.integers(0, kh - 1))
    width, height = (ow - 1) * sw + kw - pl - pr, (oh - 1) * sh + kh - pt - pb
    if width < 1 or height < 1:
        pl, pr, pt, pb = 0, 0, 0, 0
        width, height = (ow - 1) * sw + kw, (oh - 1) * sh + kh
    channels = draw(st.integers(1, max_channels))
    info = np.iinfo(np.int8 if precision == "int8" else np.int16)
    seed = draw(st.integers(0, 2**32 - 1))
    cube = np.random.default_rng(seed).integers(info.min, info.max + 1, (channels, height, width))
    return cube.astype(info.dtype), (kw, kh), (sw, sh), (pl, pt, pr, pb), (oh, ow)


@settings(max_examples=40, deadline=None)
@given(pooling_layers(), st.sampled_from(["max", "min"]))
def test_max_min_match_numpy(layer, method):
    cube, kernel, stride, pads, out_hw = layer
    out, _ = run_model(cube, "int8", method, kernel, stride, pads, out_hw)
    np.testing.assert_array_equal(out, reference_int(cube, method, kernel, stride, pads))


@settings(max_examples=40, deadline=None)
@given(pooling_layers(), st.integers(-120, 120), st.sampled_from(["int8", "int16"]))
def test_average_matches_numpy(layer, pad_value, precision):
    cube, kernel, stride, pads, out_hw = layer
    if precision == "int16":
        cube = cube.astype(np.int16) * 251
        pad_value *= 200
    recip = (0x10000 // kernel[0], 0x10000 // kernel[1])  # what software programs (NVIDIA traces: 3 -> 0x5555)
    out, _ = run_model(cube, precision, "average", kernel, stride, pads, out_hw, pad_value=pad_value, recip=recip)
    np.testing.assert_array_equal(out, reference_int(cube, "average", kernel, stride, pads, pad_value, recip))


def test_average_rounds_each_reciprocal_product_half_away_from_zero():
    # 3x3 window of 1s and one 0: sum 8; 8 * 0x5555 / 65536 = 2.666 -> 3; 3 * 0x5555 / 65536 = 0.99998 -> 1.
    cube = np.ones((1, 3, 3), np.int8)
    cube[0, 0, 0] = 0
    out, _ = run_model(cube, "int8", "average", (3, 3), (1, 1), (0, 0, 0, 0), (1, 1), recip=(0x5555, 0x5555))
    assert out[0, 0, 0] == 1
    out, _ = run_model(-cube, "int8", "average", (3, 3), (1, 1), (0, 0, 0, 0), (1, 1), recip=(0x5555, 0x5555))
    assert out[0, 0, 0] == -1


def test_padding_value_counts_every_padded_position():
    # 1x1 input, 3x3 kernel, pads 1 on every side: 8 padded positions -> PAD_VALUE_2X * 1 row + 3 * PAD_VALUE_1X * 2:
    # 10 + 80 + 240 = 330; x 0x5555 / 2**16 = 109.998 -> 110; x 0x5555 / 2**16 = 36.67 -> 37 (7 padded positions
    # would give 32, 9 would give 41). RECIP stays at most 1/3 (rule PDP-RECIP-KERNEL).
    cube = np.full((1, 1, 1), 10, np.int8)
    out, _ = run_model(cube, "int8", "average", (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), pad_value=40,
                       recip=(0x5555, 0x5555))
    assert out[0, 0, 0] == 37


# ---- split width ------------------------------------------------------------------------------------------

@st.composite
def split_layers(draw):
    kw, sw = draw(st.integers(1, 8)), draw(st.integers(1, 8))
    kh, sh = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    pl, pr = draw(st.integers(0, kw - 1)), draw(st.integers(0, kw - 1))
    count = draw(st.integers(2, 5))
    out_first, out_mid, out_last = draw(st.integers(1, 4)), draw(st.integers(1, 4)), draw(st.integers(1, 4))
    in_first = (out_first - 1) * sw + kw - pl
    in_mid = out_mid * sw
    in_last = out_last * sw - pr
    overlap = kw - sw
    if in_first < 1 or in_last < 1 or (overlap >= 0 and overlap > min(in_first, in_mid if count > 2 else in_first)) \
            or (overlap < 0 and -overlap >= min(in_last, in_mid if count > 2 else in_last)):
        pl = pr = 0
        kw = sw
        in_first, in_mid, in_last, overlap = out_first * sw, out_mid * sw, out_last * sw, 0
    mids = count - 2
    width = in_first + in_mid * mids + in_last
    ow = out_first + out_mid * mids + out_last
    oh = draw(st.integers(1, 3))
    height = (oh - 1) * sh + kh
    seed = draw(st.integers(0, 2**32 - 1))
    cube = np.random.default_rng(seed).integers(-128, 128, (draw(st.integers(1, 40)), height, width)).astype(np.int8)
    split = (count, (in_first, in_mid, in_last), (out_first, out_mid, out_last))
    return cube, (kw, kh), (sw, sh), (pl, 0, pr, 0), (oh, ow), split


def reference_split(cube, method, kernel, stride, pads, split, pad_value, recip):
    """Each split pass the way the hardware runs it: its own input columns (plus the overlap re-read from the
    previous split), left padding on the first pass only, right padding on the last only."""
    count, (in_first, in_mid, in_last), _ = split
    overlap = kernel[0] - stride[0]
    widths = [in_first] + [in_mid] * (count - 2) + [in_last]
    starts = np.cumsum([0] + widths[:-1])
    parts = []
    for index, (start, width) in enumerate(zip(starts, widths, strict=True)):
        begin = start if index == 0 else start - overlap
        sub = cube[:, :, begin:start + width]
        sub_pads = (pads[0] if index == 0 else 0, pads[1], pads[2] if index == count - 1 else 0, pads[3])
        parts.append(reference_int(sub, method, kernel, stride, sub_pads, pad_value, recip))
    return np.concatenate(parts, axis=2)


@settings(max_examples=40, deadline=None)
@given(split_layers(), st.sampled_from(["max", "min", "average"]), st.integers(-20, 20))
def test_split_width_equals_unsplit(layer, method, pad_value):
    cube, kernel, stride, pads, out_hw, split = layer
    recip = (0x10000 // kernel[0], 0x10000 // kernel[1])
    options = {"pad_value": pad_value, "recip": recip}
    split_out, _ = run_model(cube, "int8", method, kernel, stride, pads, out_hw, split=split, **options)
    whole_out, _ = run_model(cube, "int8", method, kernel, stride, pads, out_hw, **options)
    np.testing.assert_array_equal(split_out, whole_out)
    np.testing.assert_array_equal(split_out, reference_split(cube, method, kernel, stride, pads, split, pad_value,
                                                             recip))


# ---- on the fly, fp16 ----------------------------------------------------------------------------------------

def test_on_the_fly_pools_the_upstream_cube():
    cube = np.random.default_rng(1).integers(-128, 128, (20, 6, 6)).astype(np.int8)
    out, _ = run_model(cube, "int8", "max", (2, 2), (2, 2), (0, 0, 0, 0), (3, 3), upstream=cube)
    np.testing.assert_array_equal(out, reference_int(cube, "max", (2, 2), (2, 2), (0, 0, 0, 0)))


FP16_INF, FP16_NEG_INF, FP16_NAN = 0x7C00, 0xFC00, 0x7E01


def test_fp16_max_min_keep_inf_and_propagate_nan():
    bits = np.full((1, 2, 4), 0x3C00, np.uint16)  # 1.0
    bits[0, 0, 0] = FP16_INF
    bits[0, 0, 2] = FP16_NEG_INF
    bits[0, 1, 3] = FP16_NAN
    cube = bits.view(np.float16)
    out_max, result = run_model(cube, "fp16", "max", (2, 2), (2, 2), (0, 0, 0, 0), (1, 2))
    assert out_max.view(np.uint16).tolist() == [[[FP16_INF, FP16_NAN]]]
    out_min, _ = run_model(cube, "fp16", "min", (2, 2), (2, 2), (0, 0, 0, 0), (1, 2))
    assert out_min.view(np.uint16).tolist() == [[[0x3C00, FP16_NAN]]]
    assert result.status[("PDP", "D_INF_INPUT_NUM")] == 2 and result.status[("PDP", "D_NAN_INPUT_NUM")] == 1
    assert result.status[("PDP", "D_NAN_OUTPUT_NUM")] >= 1


def test_fp16_average_maps_inf_to_fp17_max_and_clips():
    bits = np.full((1, 2, 2), 0x3C00, np.uint16)
    bits[0, 0, 0] = FP16_INF
    half = 30 << 10  # fp17 0.5 (6-bit exponent, bias 31)
    out, result = run_model(bits.view(np.float16), "fp16", "average", (2, 2), (1, 1), (0, 0, 0, 0), (1, 1),
                            recip=(half, half))
    assert out.view(np.uint16)[0, 0, 0] == 0x7BFF  # (4292870144 + 3) / 4 clips to 65504, never INF
    assert result.tolerance is not None


def test_fp16_average_within_documented_threshold():
    rng = np.random.default_rng(3)
    values = rng.uniform(-0.1, 0.1, (16, 4, 4)).astype(np.float16)
    half = 30 << 10  # fp17 0.5
    out, result = run_model(values, "fp16", "average", (2, 2), (2, 2), (0, 0, 0, 0), (2, 2), recip=(half, half))
    reference = windows(values.astype(np.float64), (2, 2), (2, 2), (0, 0, 0, 0), 0.0).mean(axis=(-2, -1))
    max_value = np.abs(windows(values.astype(np.float64), (2, 2), (2, 2), (0, 0, 0, 0), 0.0)).max(axis=(-2, -1))
    error = np.abs(out.astype(np.float64) - reference)
    assert np.all((error <= 1e-4) & (error <= 1e-3 * np.maximum(max_value, 1e-30)))


# ---- limitations -------------------------------------------------------------------------------------------

def _error(**changes):
    cube = np.zeros((8, 4, 4), np.int8)
    fields = layer_fields(cube.shape, "int8", "max", (2, 2), (2, 2), (0, 0, 0, 0), (2, 2))
    fields.update(changes)
    with pytest.raises(ConfigurationError) as info:
        pdp.run(LayerContext(FULL, RegisterValues.encode(REGMAP, fields), MemorySystem()))
    return info.value


def test_stride_remainder_rule_names_fields():
    error = _error(**{"PDP.D_POOLING_PADDING_CFG.PAD_RIGHT": 1})
    assert "Limitation/PDP" in error.rule and "PDP.D_POOLING_PADDING_CFG.PAD_RIGHT" in error.fields


def test_padding_must_be_smaller_than_kernel():
    error = _error(**{"PDP.D_POOLING_PADDING_CFG.PAD_LEFT": 2, "PDP.D_POOLING_PADDING_CFG.PAD_RIGHT": 0})
    assert "kernel_width" in str(error)


def test_output_width_equality():
    error = _error(**{"PDP.D_DATA_CUBE_OUT_WIDTH.CUBE_OUT_WIDTH": 2})
    assert "CUBE_OUT_WIDTH" in str(error)


def test_split_equalities_are_checked():
    error = _error(**{"PDP.D_OPERATION_MODE_CFG.SPLIT_NUM": 1, "PDP_RDMA.D_OPERATION_MODE_CFG.SPLIT_NUM": 1,
                      "PDP.D_PARTIAL_WIDTH_OUT.PARTIAL_WIDTH_OUT_FIRST": 1,
                      "PDP.D_PARTIAL_WIDTH_OUT.PARTIAL_WIDTH_OUT_LAST": 1})
    assert "split_num == 2" in error.rule and "PDP.D_PARTIAL_WIDTH_OUT.PARTIAL_WIDTH_OUT_FIRST" in error.fields


def test_rdma_must_read_the_pooled_cube():
    error = _error(**{"PDP_RDMA.D_DATA_CUBE_IN_WIDTH.CUBE_IN_WIDTH": 7})
    assert "PDP_RDMA.D_DATA_CUBE_IN_WIDTH.CUBE_IN_WIDTH" in error.fields


def test_int16_needs_a_profile_with_int16():
    cube = np.zeros((8, 2, 2), np.int16)
    fields = layer_fields(cube.shape, "int16", "max", (1, 1), (1, 1), (0, 0, 0, 0), (2, 2))
    from golden.errors import ProfileFeatureError
    with pytest.raises(ProfileFeatureError):
        pdp.run(LayerContext(get_profile("nv_large"), RegisterValues.encode(RegisterMap.for_layout("master"),
                                                                            fields), MemorySystem()))


@settings(max_examples=25, deadline=None)
@given(pooling_layers(max_channels=20), st.sampled_from(["max", "min"]))
def test_fp16_max_min_match_numpy(layer, method):
    cube, kernel, stride, pads, out_hw = layer
    with np.errstate(over="ignore"):
        values = (cube.astype(np.float32) * 600).astype(np.float16)  # |x| > 109 overflows to +/-INF
    out, _ = run_model(values, "fp16", method, kernel, stride, pads, out_hw)
    fill = -np.inf if method == "max" else np.inf
    reduce = np.max if method == "max" else np.min
    expected = reduce(windows(values.astype(np.float64), kernel, stride, pads, fill), axis=(-2, -1))
    np.testing.assert_array_equal(out.astype(np.float64), expected)


def test_never_written_input_follows_the_memory_policy_but_gaps_do_not_count():
    from golden.errors import MemoryAccessError
    cube = np.arange(2 * 2 * 2, dtype=np.int8).reshape(8 // 4, 2, 2).repeat(4, axis=0)
    fields = layer_fields(cube.shape, "int8", "max", (1, 1), (1, 1), (0, 0, 0, 0), (2, 2))
    regs = RegisterValues.encode(REGMAP, fields)
    with pytest.raises(MemoryAccessError):
        pdp.run(LayerContext(FULL, regs, MemorySystem()))
    # Lines 0x100 apart with only the atoms written: the 0x40-byte gaps are never read.
    fields["PDP_RDMA.D_SRC_LINE_STRIDE.SRC_LINE_STRIDE"] = 0x100
    fields["PDP_RDMA.D_SRC_SURFACE_STRIDE.SRC_SURFACE_STRIDE"] = 0x200
    memory = MemorySystem()
    memory.pri.write(SRC, pack_feature(cube, "int8", 0x100, 0x200, ATOM)[:0x40])
    memory.pri.write(SRC + 0x100, pack_feature(cube, "int8", 0x100, 0x200, ATOM)[0x100:0x140])
    pdp.run(LayerContext(FULL, RegisterValues.encode(REGMAP, fields), memory))
