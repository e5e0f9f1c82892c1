"""The sdp_reg family's declaration (stimulus/families.py lists it)."""

from golden.config import Profile
from stimulus.families import Family
from stimulus.sdp import layers
from stimulus.sdp.family import AIM


def random_layer(choose, profile: Profile, slot: int = 0):
    return layers.random_layer(choose, profile, slot, memory_operands=False)


FAMILY = Family("sdp_reg", ("SDP",), random_layer, covers="sdp", aim=AIM)
