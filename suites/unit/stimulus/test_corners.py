"""The corners covergroup and corner-aimed data: aimed SDP layers close the output convertor's rounding bins on
nv_small within a small budget where plain draws of the same family leave its ties open; the default draws
stay byte for byte what they were."""

from __future__ import annotations

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
