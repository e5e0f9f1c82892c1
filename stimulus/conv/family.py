"""The conv family's declaration (stimulus/families.py lists it)."""

from stimulus.conv import corner, covergroup, layers
from stimulus.families import Family

FAMILY = Family("conv", ("CONV", "SDP"), layers.random_layer, layers.shared,
                breakers=("stimulus.conv.illegal", "stimulus.conv.illegal_sequence"),
                covergroup=covergroup.covergroup, aim=corner.aim_conv, lengths=(1, 2))
