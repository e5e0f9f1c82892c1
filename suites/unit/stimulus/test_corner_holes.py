"""The nightly's corner-aimed draws close the SDP and convolution stages of the arithmetic corner covergroup on
nv_small within the testplan's budget (corners_sdp_reg, corners_conv), and the image convertor's aimer meets
the bounds it solves for."""

from __future__ import annotations

import numpy as np
import pytest

from ci.regression.plan import load_plan
from ci.regression.planning import count_for, derived_seed
from golden.config import get_profile
from golden.regs.regmap import RegisterMap
from golden.units.conv.config import decode
from stimulus.conv.corner_image import _all_solutions
from stimulus.corner_data import aimed_layers
from stimulus.corners import CornerCoverage
from stimulus.directed import directed

SMALL = get_profile("nv_small")
OWN_STAGES = {"corners_sdp_reg": ("sdp.",), "corners_conv": ("cacc.", "cdma.", "conv.")}


@pytest.mark.parametrize("seed", [31, 5])
@pytest.mark.parametrize("test", sorted(OWN_STAGES))
@pytest.mark.slow
def test_the_nightly_draw_closes_its_stages_within_the_budget(test, seed):
    entry = load_plan().tests[test]
    budget, patience = count_for(entry, "nightly"), entry["patience"]
    found = directed(entry["family"], SMALL, derived_seed(seed, f"{test}:directed", 0), budget, patience,
                     entry.get("layers", 1), corners=True)
    open_ = [(stage, c) for stage, c in found.coverage.holes() if stage.startswith(OWN_STAGES[test])]
    assert open_ == [] and len(found.indices) <= budget


def _rounded(product: int, truncate: int) -> int:
    """Half away from zero, by hand: the magnitude plus one half, floored."""
    if truncate == 0:
        return product
    magnitude = (abs(product) + (1 << (truncate - 1))) >> truncate
    return magnitude if product >= 0 else -magnitude


def test_the_bound_solutions_round_to_the_bound():
    # 65535 = 255 * 257 and -65536 = -256 * 256: met without truncation
    assert {(255, 257), (257, 255)} <= set(map(tuple, _all_solutions(65535, 0).tolist()))
    assert (-256, 256) in set(map(tuple, _all_solutions(-65536, 0).tolist()))
    for bound, truncate in ((65535, 3), (-65536, 5), (127, 2), (-128, 6)):
        found = _all_solutions(bound, truncate)
        assert found.size
        sample = found[np.linspace(0, len(found) - 1, 50).astype(int)]
        assert all(_rounded(int(d) * int(k), truncate) == bound and -32768 <= k <= 32767 for d, k in sample)


def test_aimed_image_layers_meet_the_convertor_bounds_they_aim_at():
    regmap = RegisterMap.for_profile(SMALL)
    coverage, goals = CornerCoverage(SMALL), set()
    for index in range(40):
        layer = aimed_layers("conv", SMALL, 7, index)[0]
        goal = layer.choices.get("cvt_goal")
        if goal is None:
            continue
        cfg = decode(layer.values(regmap))
        assert cfg.image and cfg.cvt_en and not cfg.mean_format
        seen = coverage.sample_layers([layer])
        stage, wanted = {"cvt17": ("saturate", {"at_max", "at_min"}), "narrow": ("narrow", {"at_max", "at_min"}),
                         "round": ("round", {"tie+", "tie-"})}[goal]
        assert seen.hit(f"cdma.cvt.{stage}") & wanted, (index, goal)
        goals.add(goal)
    assert goals == {"round", "cvt17", "narrow"}
    assert [h for h in coverage.holes() if h[0].startswith("cdma.")] == []
