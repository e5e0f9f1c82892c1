"""`nvdla-verif generate` writes traces that `nvdla-verif conform` passes on the golden model; PDP layers."""

from __future__ import annotations

import dataclasses
import importlib
import tempfile
from pathlib import Path

import pytest

from ci.cli import main
from golden.config import get_profile
from golden.errors import ProfileFeatureError
from golden.regs.regmap import RegisterMap
from golden.rules import Facts
from golden.units.pdp.config import decode, pooled_size
from stimulus import families
from stimulus.choose import Seeded
from stimulus.conv import layers as conv
from stimulus.pdp import layers as pdp

pdp_config = importlib.import_module("golden.units.pdp.config")


@pytest.mark.parametrize("profile", ["nv_small", "nv_large"])
def test_generated_traces_pass_conform(profile, tmp_path, capsys):
    units = families.available(get_profile(profile))
    assert "bdma" not in units and {"sdp", "pdp", "cdp", "conv", "sdp_pdp"} <= set(units)
    for unit in units:
        assert main(["generate", "--unit", unit, "--profile", profile, "--seed", "11", "-n", "4", "--layers", "2",
                     "--out", str(tmp_path)]) == 0
    assert len(list((tmp_path / profile).glob("*/*.cfg"))) == 4 * len(units)
    capsys.readouterr()
    assert main(["conform", str(tmp_path), "--json", str(tmp_path / "out.json")]) == 0
    out = capsys.readouterr().out
    assert out.count(" PASSED ") == 4 * len(units) and " FAILED " not in out


def test_generate_names_what_the_profile_lacks():
    no_pdp = dataclasses.replace(get_profile("nv_small"), pdp=False)
    with pytest.raises(ProfileFeatureError, match="PDP_ENABLE"):
        families.layers("pdp", no_pdp, 1, 0)


@pytest.mark.parametrize("profile_name", ["nv_small", "nv_large"])
def test_random_pdp_layers_are_legal_and_reach_the_corners(profile_name):
    profile = get_profile(profile_name)
    regmap = RegisterMap.for_profile(profile)
    kernels, strides, methods, precisions = set(), set(), set(), set()
    for seed in range(150):
        spec = pdp.random_spec(Seeded(seed), profile)
        regs = pdp.build(spec, profile, Seeded(seed).data()).values(regmap)
        cfg = decode(regs)
        pdp_config.validate(cfg, Facts(regs, profile), strict=True)
        # the output size is the guide's pooled size, computed here from the spec alone
        (kw, kh), (sw, sh), (pl, pt, pr, pb) = spec.kernel, spec.stride, spec.pads
        assert spec.out_hw == (pooled_size(spec.shape[1], pt, pb, kh, sh), pooled_size(spec.shape[2], pl, pr, kw, sw))
        kernels.update(spec.kernel)
        strides.update(spec.stride)
        methods.add(spec.method)
        precisions.add(spec.precision)
    assert {1, 8} <= kernels and {1, 8} <= strides
    assert methods == {"average", "max", "min"} and precisions == set(profile.feature_types)


@pytest.mark.parametrize("profile_name", ["nv_small", "nv_large"])
def test_random_convolutions_keep_padding_below_the_dilated_kernel(profile_name):
    """The output size comes first; the padding the builder derives stays below the dilated kernel."""
    profile = get_profile(profile_name)
    strides, dilations, kernels = set(), set(), set()
    for seed in range(60):
        layer = conv.random_layer(Seeded([5, seed]), profile, mode="direct")
        f = layer.fields
        rows = f["CSC.D_WEIGHT_SIZE_EXT_0.WEIGHT_HEIGHT_EXT"] + 1
        dilation = f["CSC.D_DILATION_EXT.Y_DILATION_EXT"] + 1
        span = (rows - 1) * dilation + 1
        assert max(f["CDMA.D_ZERO_PADDING.PAD_TOP"], f["CDMA.D_ZERO_PADDING.PAD_BOTTOM"]) < span
        height = f["CDMA.D_DATAIN_SIZE_0.DATAIN_HEIGHT"] + 1
        stride = f["CDMA.D_CONV_STRIDE.CONV_Y_STRIDE"] + 1
        out = f["CACC.D_DATAOUT_SIZE_0.DATAOUT_HEIGHT"] + 1
        pads = f["CDMA.D_ZERO_PADDING.PAD_TOP"] + f["CDMA.D_ZERO_PADDING.PAD_BOTTOM"]
        assert (out - 1) * stride + span == height + pads
        strides.add(stride)
        dilations.add(dilation)
        kernels.add(rows)
    # CONV_Y_STRIDE's 3 bits: 1..8; dilation 1..3, now and then 4..8 (stimulus/conv/modes.py, WIDE_DILATION)
    assert {1, 2, 3, 4, 5} <= strides <= set(range(1, 9)) and {1, 2, 3} <= dilations <= set(range(1, 9))
    assert kernels == {1, 2, 3, 4, 5}


def test_bdma_groups_copy_what_they_say_on_nv_full():
    """BDMA exists only on nv_full (nvdlav1 layout): played in memory; the copies checked against the
    operations' own register values, decoded here by hand (32-byte units)."""
    import numpy as np

    from stimulus.export import play_layers
    profile = get_profile("nv_full")
    operations, groups = 0, set()
    for index in range(6):
        pair = families.layers("bdma", profile, 8, index, count=2)
        result = play_layers(pair, Path(tempfile.mkdtemp()), f"b{index}", profile)
        assert result.memory is not None, result.detail
        for layer in pair:
            groups.add(layer.choices["group"])
            raw, ops = {}, []
            for _, name, value in layer.writes:
                if name == "CFG_OP" and value & 1:  # EN=0 queues nothing
                    ops.append(dict(raw))
                raw[name] = value
            for op in ops:
                size = (op["CFG_LINE"] + 1) * 32
                lines, surfaces = op["CFG_LINE_REPEAT"] + 1, op["CFG_SURF_REPEAT"] + 1
                memory = {1: result.memory.pri, 0: result.memory.sec}
                src, dst = memory[op["CFG_CMD"] & 1], memory[op["CFG_CMD"] >> 1 & 1]
                for s in range(surfaces):
                    for line in range(lines):
                        a = op["CFG_SRC_ADDR_LOW"] + s * op["CFG_SRC_SURF"] + line * op["CFG_SRC_LINE"]
                        b = op["CFG_DST_ADDR_LOW"] + s * op["CFG_DST_SURF"] + line * op["CFG_DST_LINE"]
                        np.testing.assert_array_equal(src.read(a, size), dst.read(b, size))
                operations += 1
    assert groups == {0, 1} and operations >= 12
    with pytest.raises(ProfileFeatureError, match="BDMA"):
        families.layers("bdma", get_profile("nv_large"), 1, 0)
