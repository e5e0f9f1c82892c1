"""The rubik family's declaration (stimulus/families.py lists it)."""

from stimulus.families import Family
from stimulus.rubik import covergroup, layers

FAMILY = Family("rubik", ("RUBIK",), layers.random_layer, breakers=("stimulus.rubik.illegal",),
                covergroup=covergroup.covergroup)
