"""The pdp family's declaration (stimulus/families.py lists it)."""

from stimulus.corner_fp16 import aim_pdp_fp16, with_fp16
from stimulus.families import Family
from stimulus.pdp import corner, covergroup, layers

FAMILY = Family("pdp", ("PDP",), layers.random_layer, breakers=("stimulus.pdp.illegal",),
                covergroup=covergroup.covergroup, aim=with_fp16(corner.aim_pdp, aim_pdp_fp16))
