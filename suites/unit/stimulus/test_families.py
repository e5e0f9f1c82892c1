"""Every generated trace checks something: a family's trace of any length ends with the layers that write results.

Found by the weekly regression on nv_full: a two-layer deconv trace held only the first two convolution phases of a
longer sequence, no Rubik contract and so no check ("nothing checked").
"""

import pytest

from golden.config import get_profile
from stimulus.families import available, layers


@pytest.mark.parametrize("profile_name", ["nv_small", "nv_full"])
@pytest.mark.parametrize("count", [1, 2])
def test_every_family_trace_checks_a_result(profile_name, count):
    profile = get_profile(profile_name)
    for family in available(profile):
        for index in range(3):
            drawn = layers(family, profile, 11, index, count)
            assert len(drawn) >= count
            assert any(layer.checks or layer.reads for layer in drawn), (family, index)


def test_a_deconvolution_trace_ends_with_its_rubik_contract():
    drawn = layers("deconv", get_profile("nv_full"), 11, 0, 1)
    assert len(drawn) > 1 and drawn[-1].interrupt == "RUBIK" and drawn[-1].checks
