"""The bdma family's declaration (stimulus/families.py lists it)."""

from stimulus.bdma import covergroup, layers
from stimulus.families import Family

FAMILY = Family("bdma", ("BDMA",), layers.random_layer, breakers=("stimulus.illegal_dma",),
                covergroup=covergroup.covergroup, lengths=(1, 2))
