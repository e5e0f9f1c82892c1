"""Scoreboard provenance (golden/provenance.py): values Rubik moves and PDP max/min pooling selects keep the FP16
threshold of the convolution that computed them, element by element, and the scoreboard judges them so.

Expected values are re-derived here: the Rubik contract's mapping from the programming guide (output pixel
(x*sx + px, y*sy + py) is pixel (x, y) of phase py*sx + px), the pooling windows by a plain loop."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from golden import verdict
from golden.config import get_profile
from golden.implementation import Golden
from golden.player import observe, prepare
from golden.provenance import NO_EXPONENT
from golden.regs.regmap import RegisterMap
from golden.trace import Trace
from scoreboards import compare
from stimulus.choose import Seeded
from stimulus.conv import layers as conv
from stimulus.deconv import layers as deconv
from stimulus.export import _form, _Writer

NV_FULL = get_profile("nv_full")


def judge(program, outcome, reference, profile):
    """The verdict with the scoreboards as its comparison (as conform reaches it)."""
    return verdict.judge(program, outcome, profile, reference, compare)


def golden_outcome(layers, folder: Path):
    commands = _Writer(layers, folder, "t", RegisterMap.for_profile(NV_FULL), _form(NV_FULL)).build()
    program = prepare(Trace(folder / "t.cfg", "cfg", NV_FULL.layout, commands), NV_FULL)
    outcome = observe(Golden(), program, NV_FULL)
    assert outcome.status == "completed", outcome.detail
    return program, outcome


def by_unit(outcome, unit: str):
    return [w for w in outcome.surfaces if w.unit == unit]


@pytest.mark.parametrize("stride", [(1, 2), (2, 2)])
def test_the_rubik_contract_keeps_each_phase_elements_threshold(stride, tmp_path):
    rng = np.random.default_rng(stride[1])
    cube = rng.standard_normal((5, 4, 3)).astype(np.float16)
    weights = rng.standard_normal((3, 5, 3, 3)).astype(np.float16)
    layers = deconv.build(Seeded(1), NV_FULL, cube, weights, stride, "fp16", slot=2)
    _, outcome = golden_outcome(layers, tmp_path)
    phases, (contract,) = by_unit(outcome, "SDP"), by_unit(outcome, "RBK")
    assert len(phases) == stride[0] * stride[1] and all(p.tolerance is not None for p in phases)
    assert contract.tolerance is not None and contract.tolerance.rule == "CC DC"
    moved = contract.tolerance.max_exp
    sy, sx = stride
    for py in range(sy):
        for px in range(sx):
            phase = phases[py * sx + px].tolerance.max_exp  # (K, H, W) of the phase's convolution
            k, h, w = phase.shape
            np.testing.assert_array_equal(moved[:k, py:h * sy:sy, px:w * sx:sx], phase)
    assert (moved[3:] == NO_EXPONENT).all()  # padding channels of the atom: nothing computed them


def pooled_layer(seed: int, average: bool = False):
    """A direct fp16 convolution whose SDP output PDP pools on the fly (max or min, or average)."""
    for attempt in range(200):
        layer = conv.random_layer(Seeded([seed, attempt]), NV_FULL, mode="direct", to_pdp=True, operands=False)
        method = layer.choices["pdp"]["method"]
        if layer.fields["CDMA.D_MISC_CFG.PROC_PRECISION"] == 2 and (method == "average") == average:
            return layer
    raise AssertionError("no such fp16 layer drawn")


def pooling(fields: dict):
    kernel = (fields["PDP.D_POOLING_KERNEL_CFG.KERNEL_WIDTH"] + 1, fields["PDP.D_POOLING_KERNEL_CFG.KERNEL_HEIGHT"] + 1)
    stride = (fields["PDP.D_POOLING_KERNEL_CFG.KERNEL_STRIDE_WIDTH"] + 1,
              fields["PDP.D_POOLING_KERNEL_CFG.KERNEL_STRIDE_HEIGHT"] + 1)
    pads = (fields["PDP.D_POOLING_PADDING_CFG.PAD_LEFT"], fields["PDP.D_POOLING_PADDING_CFG.PAD_TOP"],
            fields["PDP.D_POOLING_PADDING_CFG.PAD_RIGHT"], fields["PDP.D_POOLING_PADDING_CFG.PAD_BOTTOM"])
    return kernel, stride, pads


def window_max(values: np.ndarray, kernel, stride, pads) -> np.ndarray:
    (kw, kh), (sw, sh), (pl, pt, pr, pb) = kernel, stride, pads
    c, h, w = values.shape
    oh, ow = (h + pt + pb - kh) // sh + 1, (w + pl + pr - kw) // sw + 1
    out = np.full((c, oh, ow), NO_EXPONENT, np.int64)
    for y in range(oh):
        for x in range(ow):
            rows = slice(max(0, y * sh - pt), min(h, y * sh - pt + kh))
            cols = slice(max(0, x * sw - pl), min(w, x * sw - pl + kw))
            if rows.start < rows.stop and cols.start < cols.stop:
                out[:, y, x] = values[:, rows, cols].max(axis=(1, 2))
    return out


def test_max_min_pooling_passes_on_the_largest_threshold_of_each_window(tmp_path):
    layer = pooled_layer(3)
    _, outcome = golden_outcome([layer], tmp_path)
    (pooled,) = by_unit(outcome, "PDP")
    (hardware_layer,) = outcome.layers
    computed = hardware_layer.tolerances["CONV"]  # the convolution's own threshold, (K, H, W)
    assert pooled.tolerance is not None and pooled.tolerance.rule == "CC DC"
    expected = window_max(computed.max_exp, *pooling(layer.fields))
    got = pooled.tolerance.max_exp
    np.testing.assert_array_equal(got[:expected.shape[0]], expected)
    assert (got[expected.shape[0]:] == NO_EXPONENT).all()


def test_average_pooling_adds_the_largest_threshold_of_each_window_to_its_own(tmp_path):
    """nvdlav1's C model against this model: 5 of 400 generated layers pooling an fp16 convolution on average
    broke the PDP threshold alone (generate --unit conv --profile nv_full --seed 2501: traces 63, 77, 110, 175)."""
    layer = pooled_layer(4, average=True)
    _, outcome = golden_outcome([layer], tmp_path)
    (pooled,) = by_unit(outcome, "PDP")
    (hardware_layer,) = outcome.layers
    assert pooled.tolerance.rule == "PDP" and pooled.tolerance.max_value is not None
    expected = window_max(hardware_layer.tolerances["CONV"].max_exp, *pooling(layer.fields))
    got = pooled.tolerance.carried.max_exp
    np.testing.assert_array_equal(got[:expected.shape[0]], expected)


def test_sdp_multipliers_scale_the_convolution_threshold(tmp_path):
    """precision-preservation's CC thresholds carry `scale`, the factor applied to the convolution result before
    it is compared: an fp16 BS multiplier of 0x4800 (= 2^(18-15) = 8) makes it 8 (nvdlav1's C model against this
    model: generate --unit conv --profile nv_full --seed 2601, trace 447, broke the threshold with scale 1)."""
    for attempt in range(200):
        layer = conv.random_layer(Seeded([6, attempt]), NV_FULL, mode="direct", to_pdp=False, operands=False)
        if layer.fields["CDMA.D_MISC_CFG.PROC_PRECISION"] == 2:
            break
    layer.fields.update({"SDP.D_DP_BS_CFG.BS_BYPASS": 0, "SDP.D_DP_BS_CFG.BS_ALU_BYPASS": 1,
                         "SDP.D_DP_BS_CFG.BS_MUL_BYPASS": 0, "SDP.D_DP_BS_CFG.BS_RELU_BYPASS": 1,
                         "SDP.D_DP_BS_MUL_CFG.BS_MUL_SRC": "REG", "SDP.D_DP_BS_MUL_SRC_VALUE.BS_MUL_OPERAND": 0x4800})
    _, outcome = golden_outcome([layer], tmp_path)
    (hardware_layer,) = outcome.layers
    assert np.all(np.asarray(hardware_layer.tolerances["CONV"].scale) == 1)
    assert np.all(np.asarray(hardware_layer.tolerances["SDP"].scale) == 8)
    (written,) = by_unit(outcome, "SDP")
    assert np.all(np.asarray(written.tolerance.scale) == 8)


def _with_region(outcome, region: int, got: np.ndarray):
    """Another implementation's outcome: the golden model's, one region replaced."""
    return type(outcome)("other", regions={**outcome.regions, region: got}, registers=outcome.registers)


def test_an_error_within_the_pooled_threshold_passes_and_ten_times_it_fails(tmp_path):
    layer = pooled_layer(5)
    program, outcome = golden_outcome([layer], tmp_path)
    (pooled,) = by_unit(outcome, "PDP")
    region = next(i for i, step in program.regions if step.base <= pooled.surface.base < step.base + step.size)
    step = dict(program.regions)[region]
    offset = pooled.surface.base - step.base
    expected = outcome.regions[region]
    value = expected[offset:offset + 2].view(np.float16)[0]
    nudged = np.nextafter(value, np.float16(np.inf))  # one fp16 step: within 2^(exp(a)-10) alone
    got = expected.copy()
    got[offset:offset + 2] = np.array([nudged], np.float16).view(np.uint8)
    result = judge(program, _with_region(outcome, region, got), outcome, NV_FULL)
    assert result.status == "passed", result.detail
    far = np.float16(float(value) * 1.5 + 8)
    got[offset:offset + 2] = np.array([far], np.float16).view(np.uint8)
    result = judge(program, _with_region(outcome, region, got), outcome, NV_FULL)
    assert result.status == "failed", result.detail
