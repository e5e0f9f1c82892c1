"""One profile_for: a trace's profile is the options' fixed one, else the one a test names, else its folder's."""

from pathlib import Path

import pytest

from ci.options import ProfileNotInferredError, profile_for
from golden.config import get_profile
from golden.errors import ProfileError

IN_SMALL = Path("/data/trace_tests/nv_small/sdp_x/sdp_x.cfg")
NOWHERE = Path("/data/mine/x.cfg")


def test_the_fixed_profile_wins_then_the_named_one_then_the_folder():
    full = get_profile("nv_full")
    assert profile_for(IN_SMALL, full, "nv_large") is full
    assert profile_for(IN_SMALL, None, "nv_large").name == "nv_large"
    assert profile_for(IN_SMALL, None).name == "nv_small"


def test_a_trace_of_no_known_profile_is_one_error_naming_the_option():
    with pytest.raises(ProfileNotInferredError, match="use --profile") as raised:
        profile_for(NOWHERE, None)
    assert isinstance(raised.value, ProfileError)
    with pytest.raises(ProfileError, match="unknown hardware profile"):
        profile_for(NOWHERE, None, "nv_tiny")
