"""The corners covergroup and corner-aimed data: aimed SDP layers close the output convertor's rounding bins on
nv_small within a small budget where plain draws of the same family leave its ties open; the default draws
stay byte for byte what they were."""

from __future__ import annotations

import numpy as np

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


def test_pdp_window_elements_add_up_to_the_chosen_sums():
    # a 2x3 kernel, stride = kernel, one padded column on the left and one padded row at the bottom: windows of
    # 2x2, 2x3, 1x2, 1x3 real elements; each window's elements, added by hand, give its chosen sum less padding
    from stimulus.corner_pdp import _elements
    from stimulus.pdp import PdpSpec

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
