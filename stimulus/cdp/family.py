"""The cdp family's declaration (stimulus/families.py lists it)."""

from stimulus.cdp import corner, covergroup, layers
from stimulus.corner_fp16 import aim_cdp_fp16, with_fp16
from stimulus.families import Family


def shared(choose, profile) -> dict:
    """The LUT every CDP layer of a trace shares."""
    return {"lut": layers.random_lut(choose, profile)}


FAMILY = Family("cdp", ("CDP",), layers.random_layer, shared,
                breakers=("stimulus.cdp.illegal",), covergroup=covergroup.covergroup, outcomes=covergroup.outcomes,
                aim=with_fp16(corner.aim_cdp, aim_cdp_fp16))
