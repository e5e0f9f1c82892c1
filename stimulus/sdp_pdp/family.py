"""The sdp_pdp family's declaration (stimulus/families.py lists it)."""

from stimulus.families import Family
from stimulus.sdp_pdp import layers

FAMILY = Family("sdp_pdp", ("SDP", "PDP"), layers.sdp_pdp_layer, covers="pdp")
