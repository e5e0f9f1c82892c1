"""The corners covergroup and corner-aimed data: aimed SDP layers close the output convertor's rounding bins on
nv_small within a small budget where plain draws of the same family leave its ties open; the default draws
stay byte for byte what they were."""

from __future__ import annotations

import numpy as np
import pytest

from golden.config import get_profile
from stimulus.corner_data import aimed_layers
from stimulus.corners import EXCLUDED, CornerCoverage, bins, stages
from stimulus.directed import directed
from stimulus.families import layers

SMALL = get_profile("nv_small")


def _holes(coverage, stage):
    return {hole for name, hole in coverage.holes() if name == stage}


def test_aimed_sdp_closes_the_output_convertor_ties_plain_draws_miss():
    found = directed("sdp_reg", SMALL, 0, 20, 30, corners=True)
    assert _holes(found.coverage, "sdp.cvt_out.round") == set()
    plain = CornerCoverage(SMALL)
    for index in range(found.draws):
        plain.sample_layers(layers("sdp_reg", SMALL, 0, index))
    assert {"tie+", "tie-"} & _holes(plain, "sdp.cvt_out.round")


def test_aiming_leaves_the_default_draw_alone():
    before = layers("sdp_reg", SMALL, 3, 1)[0]
    aimed = aimed_layers("sdp_reg", SMALL, 3, 1)[0]
    again = layers("sdp_reg", SMALL, 3, 1)[0]
    assert before.images == again.images and before.fields == again.fields
    assert aimed.choices.get("corners") == "aimed" and aimed.images != before.images


def test_exclusions_follow_the_profile():
    assert "cacc.truncate.saturate" in stages(SMALL) and bins(SMALL, "cacc.truncate.saturate") == []
    full = get_profile("nv_full")
    assert bins(full, "cacc.truncate.saturate") == ["sat_min", "at_min", "at_max", "sat_max"]
    assert "sdp.y.truncate.round" in stages(full) and "sdp.y.truncate.round" not in stages(SMALL)
    assert all(reason for reason, _ in EXCLUDED.values())


def _closed(family, stages, profile=SMALL, n=20, patience=30):
    found = directed(family, profile, 0, n, patience, corners=True)
    return {(stage, hole) for stage, hole in found.coverage.holes() if stage.startswith(stages)}, found.draws


def test_aimed_pdp_closes_the_divisor_and_narrowing_bins():
    open_, draws = _closed("pdp", "pdp.")
    assert open_ == set() and draws <= 60


def test_aimed_convolutions_close_the_accumulator_truncation():
    open_, draws = _closed("conv", "cacc.")
    assert open_ == set() and draws <= 60


def test_aimed_sdp_closes_the_output_convertor_rounding():
    open_, _ = _closed("sdp_reg", "sdp.cvt_out.round")
    assert open_ == set()


def test_aimed_sdp_closes_every_sdp_bin_with_the_bounds():
    # the 17-bit result's bounds (65535, -65536: CVT_OFFSET solved beyond 16 bits) and the X stages' int32 bounds
    # (the ALU operand -32768 << 16 is -2**31 exactly) are met, not only passed
    open_, draws = _closed("sdp_reg", "sdp.", patience=40)
    assert open_ == set() and draws <= 120
    bounds = [layer for index in range(8) for layer in aimed_layers("sdp_reg", SMALL, 0, index, 2)
              if layer.fields.get("SDP.D_CVT_SCALE.CVT_SCALE") in (1, 0xFFFF)]
    offsets = [layer.fields["SDP.D_CVT_OFFSET.CVT_OFFSET"] for layer in bounds]
    assert any(not (o < 1 << 15 or o >= (1 << 32) - (1 << 15)) for o in offsets)


def test_pdp_window_elements_add_up_to_the_chosen_sums():
    # a 2x3 kernel, stride = kernel, one padded column on the left and one padded row at the bottom: windows of
    # 2x2, 2x3, 1x2, 1x3 real elements; each window's elements, added by hand, give its chosen sum less padding
    from stimulus.pdp.corner import _elements
    from stimulus.pdp.layers import PdpSpec

    spec = PdpSpec("int8", "average", (1, 3, 5), (2, 2), (3, 2), (3, 2), (1, 0, 0, 1))
    sums = np.array([[[400, -300], [-200, 381]]])
    pad = np.array([[7, 0], [-5, 3]])
    cube = _elements(spec, sums, pad)
    assert cube.min() >= -128 and cube.max() <= 127
    by_hand = [[cube[0, 0:2, 0:2].sum(), cube[0, 0:2, 2:5].sum()], [cube[0, 2:3, 0:2].sum(), cube[0, 2:3, 2:5].sum()]]
    assert (np.array(by_hand) + pad == sums[0]).all()


def test_fill_within_keeps_each_slot_in_its_range():
    from stimulus.corner_fill import fill_within

    candidates = np.arange(-10, 11)
    hits = [np.array([0, 20]), np.array([10])]  # values -10 and 10; value 0
    got = fill_within(np.random.default_rng(1), np.array([-10, 5, -3, 11]), np.array([-9, 10, 3, 12]),
                      candidates, hits)
    # slot 0 only reaches -10, slot 1 only 10, slot 2 only 0; slot 3 reaches none and keeps its low end
    assert got.tolist() == [-10, 10, 0, 11]


FULL = get_profile("nv_full")


def test_aimed_cdp_closes_every_cdp_corner_bin_on_nv_small():
    open_, draws = _closed("cdp", "cdp.")
    assert open_ == set() and draws <= 120


@pytest.mark.slow
def test_aimed_fp16_pdp_and_cdp_close_their_fp16_bins_on_nv_full():
    for family, stage in (("pdp", "pdp.fp"), ("cdp", "cdp.fp")):
        open_, draws = _closed(family, stage, FULL, patience=20)
        assert open_ == set(), (family, open_)


@pytest.mark.slow
def test_aimed_fp16_sdp_meets_fp16_patterns_and_ties_on_nv_full():
    open_, _ = _closed("sdp", ("sdp.fp.", "sdp.out.fp16"), FULL, n=30, patience=20)
    # left open on seed 0: sdp.fp.out.round above_tie and sdp.fp.out.int16.saturate at_min (see the report)
    assert open_ <= {("sdp.fp.out.round", "above_tie"), ("sdp.fp.out.int16.saturate", "at_min")}
    assert not {c for s, c in open_ if s in ("sdp.fp.in", "sdp.out.fp16")}


@pytest.mark.parametrize("profile_name", ["nv_small", "nv_full"])
def test_aimed_layers_of_one_trace_keep_their_own_address_slots(tmp_path, profile_name):
    """An aimer that draws a layer anew places it in the layer's slot: three aimed PDP layers were all drawn into
    slot 0 and refused as overlapping ("layers of one trace need their own address slots"); an aimed
    deconvolution keeps its phases as drawn."""
    from stimulus.corner_data import write_aimed

    profile = get_profile(profile_name)
    for seed in range(4):
        write_aimed("pdp", profile, seed, seed, tmp_path, count=3)  # raises on overlapping layers
    if profile.has("RUBIK"):
        assert aimed_layers("deconv", profile, 0, 0) == layers("deconv", profile, 0, 0)
