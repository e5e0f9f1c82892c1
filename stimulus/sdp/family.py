"""The sdp family's declaration (stimulus/families.py lists it)."""

from stimulus.corner_fp16 import aim_sdp_fp16, with_fp16
from stimulus.families import Family
from stimulus.sdp import corner, covergroup, layers, lut

#: SDP's aimer (sdp and sdp_reg layers): the fixed-point corners, or fp16's where the layer is fp16.
AIM = with_fp16(corner.aim_sdp, aim_sdp_fp16)



def shared(choose, profile) -> dict:
    """The Y stage's LUT every SDP layer of a trace shares."""
    return {"lut": lut.random_lut(choose, profile)}


FAMILY = Family("sdp", ("SDP",), layers.random_layer, shared,
                breakers=("stimulus.sdp.illegal",), covergroup=covergroup.covergroup, outcomes=covergroup.outcomes,
                aim=AIM)
