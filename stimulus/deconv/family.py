"""The deconv family's declaration (stimulus/families.py lists it)."""

from stimulus.deconv import layers
from stimulus.families import Family

FAMILY = Family("deconv", ("CONV", "SDP", "RUBIK"), layers.random_layer, layers.shared)
