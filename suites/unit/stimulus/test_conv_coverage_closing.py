"""Coverage-directed convolution generation closes every conv bin the profile has (issue 31): NVIDIA's conv_cg
meanings (stimulus/coverage_parity.json) are all reachable by legal generated layers, on nv_small and nv_full.

Each profile takes about 35 s on one core (about 950 / 760 draws of two-layer traces for seed 0): marked slow.
"""

from __future__ import annotations

import pytest

pytest.importorskip("cocotb_coverage")

from golden.config import get_profile  # noqa: E402
from stimulus.directed import directed  # noqa: E402

#: Draws allowed: the measured closing draw (seed 0: 951 on nv_small, 761 on nv_full) with some room.
BUDGET = 1300


@pytest.mark.slow
@pytest.mark.parametrize("profile_name", ["nv_small", "nv_full"])
def test_coverage_directed_conv_generation_closes_every_conv_bin(profile_name):
    profile = get_profile(profile_name)
    # two layers a trace: a layer that skips its release is followed by one that reuses the CBUF (reuse bins)
    found = directed("conv", profile, seed=0, n=BUDGET, patience=BUDGET, count=2)
    report = found.coverage.report(["conv"])
    assert found.holes == 0, f"{profile_name}: conv holes left after {found.draws} draws\n{report}"
    assert found.draws <= BUDGET


def test_bins_a_profile_lacks_are_not_in_its_conv_group():
    """nv_small has no CV-SRAM port, no Winograd, no weight compression and 32-bit addresses (its hardware
    switches): no bin may ask for them, or its conv coverage could never close."""
    from stimulus.coverage import Coverage

    coverage = Coverage(get_profile("nv_small"), prefix="conv_exclusions_nv_small")
    db = coverage.lib.coverage_db
    names = {name.split(".", 2)[2]: name for name in coverage.groups["conv"]}
    for absent in ("pra_truncate", "wgs_align", "wmb_align", "data_addr_high", "pitch_gap_10bit"):
        assert absent not in names
    bins = {str(b) for name in names.values() for b in db[name].detailed_coverage}
    assert not any(word in b for b in bins for word in ("sec_mem", "winograd", "compressed'", "fp16", "int16"))
    assert "'compressed'" not in bins and "compressed" not in bins
