"""The FP16 scoreboards on fp16 layers of the golden model: every output moved to just inside the documented
threshold passes, to just outside fails. The bounds are computed here from the formulas of
../shared/spec/nvdla-precision-preservation.md (FP16 threshold table), not from the comparators' code; for CC DC
and PDP/CDP max_exp and max_value are also recomputed here from the layer's inputs.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from golden.config import get_profile
from golden.formats.feature import feature_span, pack_feature, packed_strides
from golden.hardware import WrittenSurface
from golden.steps import CheckRegion
from golden.units import conv
from golden.units.base import Surface
from golden.units.conv.program import DirectLayer, WinogradLayer, direct_layer, winograd_layer
from scoreboards import compare_region

NV_FULL = get_profile("nv_full")
BASE, ATOM = 0x8000_0000, 32


def exp_field(bits: np.ndarray) -> np.ndarray:
    return ((bits.astype(np.int64) >> 10) & 0x1F) - 15  # exp(a) = ((a >> 10) & 0x1f) - 15


def cc_bound(a_bits, max_exp, taps, scale=1.0):
    """fabs(a-b) <= 2^(max_exp-20) * taps * 2 * scale + 2^(exp(a)-10), taps = R*S*C (DC) or 18*C (Winograd)."""
    return 2.0 ** (max_exp - 20) * taps * 2 * scale + 2.0 ** (exp_field(a_bits) - 10)


def window_bound(max_value):
    """(fabs(a-b) <= 0.0001) && (fabs(a-b)/max_value <= 0.001)."""
    return np.minimum(1e-4, 1e-3 * max_value)


def moved(a_bits: np.ndarray, bound: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """fp16 patterns of the largest value within a + bound, and of the next value above it."""
    a = a_bits.view(np.float16).astype(np.float64)
    x = (a + bound).astype(np.float16)
    x = np.where(x.astype(np.float64) - a > bound, np.nextafter(x, np.float16(-np.inf)), x).astype(np.float16)
    return x.view(np.uint16), np.nextafter(x, np.float16(np.inf)).astype(np.float16).view(np.uint16)


def judge(unit: str, a_bits: np.ndarray, got_bits: np.ndarray, tolerance):
    shape = a_bits.shape
    line, surface = packed_strides(shape, "fp16", ATOM)
    size = feature_span(shape, "fp16", line, surface, ATOM)
    written = WrittenSurface(unit, Surface("pri_mem", BASE, shape, "fp16", line, surface, ATOM), 0, tolerance)
    step = CheckRegion("t.cfg:1", "check_crc", "s", "pri_mem", BASE, size, crc=0)
    pack = lambda bits: pack_feature(bits.view(np.float16), "fp16", line, surface, ATOM)  # noqa: E731
    return compare_region(step, pack(got_bits), pack(a_bits), [written])


def assert_threshold(unit: str, a_bits: np.ndarray, bound: np.ndarray, tolerance) -> None:
    inside, outside = moved(a_bits, bound)
    assert (inside != a_bits).all(), "the threshold allows at least one fp16 step"
    passed = judge(unit, a_bits, inside, tolerance)
    assert passed.ok, passed.summary()
    failed = judge(unit, a_bits, outside, tolerance)
    report = failed.reports[0]
    assert not failed.ok and report.mismatches == a_bits.size == report.compared
    assert report.first[0]["allowed"] == pytest.approx(float(bound.reshape(-1)[0]))


def _normal_outputs(bits: np.ndarray) -> None:
    assert ((bits & 0x7C00) != 0).all() and ((bits & 0x7C00) != 0x7C00).all(), "pick data with normal outputs"


def test_cc_dc():
    rng = np.random.default_rng(5)
    cube = rng.uniform(0.5, 4.0, (4, 5, 6)).astype(np.float16)
    weights = rng.uniform(0.25, 2.0, (2, 4, 3, 3)).astype(np.float16)
    result = conv.run(direct_layer(NV_FULL, cube, weights, DirectLayer(precision="fp16")))
    a_bits = result.output.astype(np.float16).view(np.uint16)
    _normal_outputs(a_bits)
    # max_exp: over each window, the largest (exp(data) & ~3) + (exp(wt) & ~3)
    data_e, wt_e = exp_field(cube.view(np.uint16)) & ~3, exp_field(weights.view(np.uint16)) & ~3
    max_exp = np.array([[[max(data_e[c, y + r, x + s] + wt_e[k, c, r, s] for c in range(4) for r in range(3)
                              for s in range(3)) for x in range(4)] for y in range(3)] for k in range(2)])
    np.testing.assert_array_equal(result.tolerance.max_exp, max_exp)
    assert_threshold("CACC", a_bits, cc_bound(a_bits, max_exp, 3 * 3 * 4), result.tolerance)


def test_cc_winograd():
    from golden.formats import winograd as wformat

    rng = np.random.default_rng(6)
    channels, kernels = 4, 2
    cube = rng.uniform(0.5, 2.0, (channels, 8, 8)).astype(np.float16)
    weights = rng.uniform(0.25, 1.0, (kernels, channels, 3, 3)).astype(np.float16)
    transformed = wformat.phase1(weights.astype(np.float64), "fp16").astype(np.float16)
    layer = WinogradLayer(precision="fp16", pad=(1, 1), out_hw=(8, 8))
    result = conv.run(winograd_layer(NV_FULL, cube, transformed, layer))
    a_bits = result.output.astype(np.float16).view(np.uint16)
    _normal_outputs(a_bits)
    assert result.tolerance.rule == "CC Winograd"
    accumulated = transformed.shape[1]  # C as CMAC sums it: the channels padded to the atom (16 for fp16)
    assert accumulated == 16
    assert_threshold("CACC", a_bits, cc_bound(a_bits, result.tolerance.max_exp, 18 * accumulated), result.tolerance)


def _test_module(name: str):
    path = Path(__file__).parents[1] / "golden" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"layers_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_pdp_average():
    pdp = _test_module("test_pdp")
    rng = np.random.default_rng(7)
    # The window threshold is below one fp16 step for results above ~0.06: keep them smaller.
    cube = rng.uniform(0.04, 0.06, (16, 6, 6)).astype(np.float16)
    half = 30 << 10  # fp17 0.5: a 2x2 kernel's 1/2 per direction
    out, result = pdp.run_model(cube, "fp16", "average", (2, 2), (2, 2), (0, 0, 0, 0), (3, 3), recip=(half, half))
    a_bits = out.view(np.uint16)
    _normal_outputs(a_bits)
    windows = np.abs(cube.astype(np.float64)).reshape(16, 3, 2, 3, 2)
    max_value = windows.max(axis=(2, 4))  # the largest value inside each pooling window
    np.testing.assert_array_equal(result.tolerance.max_value, max_value)
    assert_threshold("PDP", a_bits, window_bound(max_value), result.tolerance)


def test_cdp_lrn():
    cdp = _test_module("test_cdp")
    rng = np.random.default_rng(8)
    x = rng.uniform(0.08, 0.12, (8, 2, 3)).astype(np.float16)  # results of ~0.05: one fp16 step is 3e-5
    le = np.full(65, 0x3800, np.uint16)  # every LUT entry 0.5: out = x * 0.5 wherever the LUT is hit
    lo = np.full(257, 0x3800, np.uint16)
    fields = cdp.layer_fields(x.shape, "fp16", 3)
    fp32 = {v: int(np.float32(v).view(np.uint32)) for v in (0.0, 0.5)}
    fields.update(cdp.lut_fields(fp32[0.0], fp32[0.5], fp32[0.0], fp32[0.5], 0, -9, linear=False, offset=-20))
    out, result = cdp.run_model(x, "fp16", fields, le, lo)
    a_bits = out.view(np.uint16)
    _normal_outputs(a_bits)
    padded = np.pad(np.abs(x.astype(np.float64)), ((1, 1), (0, 0), (0, 0)))
    max_value = np.maximum(np.maximum(padded[:-2], padded[1:-1]), padded[2:])  # the square-sum window
    np.testing.assert_array_equal(result.tolerance.max_value[:8], max_value)
    assert_threshold("CDP", a_bits, window_bound(max_value), result.tolerance)


def test_pooling_a_computed_input_adds_its_threshold():
    """A PDP average over what an fp16 convolution computed: its own bound min(1e-4, 1e-3 * max_value) plus the
    CC bound of the window's inputs, 2^(max_exp-20) * taps * 2 * scale + 2^(exp(max_value)-10). For max_value
    2.0, max_exp 0, taps 1: 1e-4 + (2^-19 + 2^-9) = 0.0020550..."""
    from golden.units.base import Tolerance
    from scoreboards.window_fp16 import WindowThreshold

    expected = np.array([2.0], np.float16).reshape(1, 1, 1)
    carried = Tolerance("CC DC", max_exp=np.zeros((1, 1, 1), np.int64), taps=1)
    alone = Tolerance("PDP", max_value=np.array([2.0]).reshape(1, 1, 1))
    bound = 1e-4 + 2.0**-19 + 2.0**-9
    step = 2.0**-9  # one fp16 step above 2.0
    for steps, with_carried, passes in ((1, True, True), (1, False, False), (2, True, False)):
        got = (expected.astype(np.float64) + steps * step).astype(np.float16)
        assert (steps * step <= bound) == passes or not with_carried
        tolerance = Tolerance("PDP", max_value=alone.max_value, carried=carried if with_carried else None)
        judgement = WindowThreshold(tolerance).judge(got.view(np.uint16), expected.view(np.uint16), "fp16")
        assert bool(judgement.ok.all()) == passes, (steps, with_carried, judgement.allowed)


def test_a_denormal_result_is_allowed_one_ulp():
    """exp(a) of a denormal is -15 by the literal formula, half of its ulp 2^-24: one ulp passes, two fail."""
    from golden.units.base import Tolerance
    from scoreboards.conv_fp16 import ConvThreshold

    expected = np.array([0x8017], np.uint16).reshape(1, 1, 1)  # -23 * 2^-24, a denormal
    tolerance = Tolerance("CC DC", max_exp=np.full((1, 1, 1), -60, np.int64), taps=1)  # first term ~2^-79
    for steps, passes in ((1, True), (2, False)):
        got = (expected + steps).astype(np.uint16)  # -(23 + steps) * 2^-24
        judgement = ConvThreshold(tolerance).judge(got, expected, "fp16")
        assert bool(judgement.ok.all()) == passes, (steps, judgement.allowed)
        assert judgement.allowed[0, 0, 0] == pytest.approx(2.0**-24, rel=1e-6)
