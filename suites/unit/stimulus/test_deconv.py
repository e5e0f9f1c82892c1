"""Deconvolution as a layer sequence: the result is the transposed convolution, the trace waits between its
layers, and register groups alternate per unit (a unit's first layer in group 0)."""

from __future__ import annotations

import numpy as np
import pytest

from golden.config import get_profile
from golden.errors import ProfileFeatureError
from golden.formats.feature import unpack_feature
from golden.player import play
from stimulus import families
from stimulus.choose import Seeded
from stimulus.conv import layers as conv
from stimulus.deconv import layers as deconv
from stimulus.export import play_layers, write_trace

NV_FULL = get_profile("nv_full")


def transposed(cube, weights, stride):
    """out[k, i*sy + r, j*sx + s] += cube[c, i, j] * w[k, c, r, s], written out loop by loop over taps."""
    (sy, sx), (k, _, rows, cols), (_, h, w) = stride, weights.shape, cube.shape
    out = np.zeros((k, (h - 1) * sy + rows, (w - 1) * sx + cols), dtype=np.int64)
    for r in range(rows):
        for s in range(cols):
            out[:, r:r + (h - 1) * sy + 1:sy, s:s + (w - 1) * sx + 1:sx] += np.einsum(
                "kc,chw->khw", weights[:, :, r, s].astype(np.int64), cube.astype(np.int64))
    return out


@pytest.mark.parametrize(("stride", "kernel"), [((1, 1), (3, 3)), ((2, 2), (3, 4)), ((2, 3), (5, 2)), ((3, 1), (1, 3))])
def test_sequence_computes_the_transposed_convolution(stride, kernel, tmp_path):
    rng = np.random.default_rng(sum(stride) * 10 + kernel[0])
    cube = rng.integers(-6, 7, (5, 4, 3)).astype(np.int8)
    weights = rng.integers(-6, 7, (3, 5, *kernel)).astype(np.int8)
    layers = deconv.build(Seeded(1), NV_FULL, cube, weights, stride, "int8", slot=2)
    assert len(layers) == stride[0] * stride[1] + 1 and layers[-1].enable == ("RBK",)
    for layer in layers[:-1]:
        layer.fields["SDP.D_CVT_SHIFT.CVT_SHIFT"] = 0  # the output convertor 1:1
    result = play_layers(layers, tmp_path, "t", NV_FULL)
    assert result.memory is not None, result.detail
    rubik = layers[-1].fields
    shape = (3, (rubik["RBK.D_DATAIN_SIZE_0.DATAIN_HEIGHT"] + 1) * stride[0],
             (rubik["RBK.D_DATAIN_SIZE_0.DATAIN_WIDTH"] + 1) * stride[1])
    region = layers[-1].checks[0]
    window = result.memory.by_name("pri_mem").read(region.base, region.size)
    got = unpack_feature(window, 0, shape, "int8", rubik["RBK.D_DAOUT_LINE_STRIDE.DAOUT_LINE_STRIDE"] << 5,
                         rubik["RBK.D_DAOUT_SURF_STRIDE.DAOUT_SURF_STRIDE"] << 5, 32)
    expected = np.clip(transposed(cube, weights, stride), -128, 127)
    np.testing.assert_array_equal(got[:, :expected.shape[1], :expected.shape[2]], expected)
    assert not got[:, expected.shape[1]:].any() and not got[:, :, expected.shape[2]:].any()


def test_generated_traces_wait_between_layers_and_run(tmp_path):
    layers = families.layers("deconv", NV_FULL, 3, 1, 6)
    assert not layers[0].waits and all(layer.waits for layer in layers[1:])
    assert "RUBIK" in {layer.interrupt for layer in layers}
    result = play_layers(layers, tmp_path, "t", NV_FULL)
    assert result.memory is not None, result.detail
    with pytest.raises(ProfileFeatureError, match="RUBIK_ENABLE"):
        deconv.sequence(Seeded(1), get_profile("nv_small"))
    assert "deconv" not in families.available(get_profile("nv_small"))


def test_groups_alternate_per_unit_and_waits_are_check_nothing(tmp_path):
    """PDP and SDP_RDMA first used by a trace's second layer start in group 0 (nv_small, written as .cfg);
    a layer that ends on PDP also consumes SDP's done interrupt."""
    profile = get_profile("nv_small")
    chain = conv.Chain()  # the second layer follows what the first leaves in the CBUF (CONV-WEIGHT-RING)
    plain = conv.random_layer(Seeded(1), profile, 0, to_pdp=False, operands=False, chain=chain)
    pooled = conv.random_layer(Seeded(2), profile, 1, to_pdp=True, operands=True, chain=chain)
    pooled.waits = True
    cfg = write_trace([plain, pooled], tmp_path / profile.name / "mixed", "mixed", profile)
    text = cfg.read_text()
    assert "reg_write(NVDLA_PDP.S_POINTER_0, 0x0);" in text and "intr_notify(PDP_0, layer1_done);" in text
    assert "reg_write(NVDLA_SDP.S_POINTER_0, 0x1);" in text
    assert text.index("check_nothing(layer0_done)") < text.index("PDP.S_POINTER")
    assert play(cfg, profile).status == "passed"
    # SDP's done interrupt of a pooled layer is consumed there, not by the next layer's SDP watch
    again = [conv.random_layer(Seeded(seed), profile, seed, to_pdp=False, operands=True, chain=chain)
             for seed in (2, 3)]
    cfg = write_trace([pooled, *again], tmp_path / profile.name / "pooled_first", "pooled_first", profile)
    assert play(cfg, profile).status == "passed"
    assert "intr_notify(SDP_0, layer0_sdp);" in cfg.read_text() and "check_nothing(layer0_sdp)" in cfg.read_text()
