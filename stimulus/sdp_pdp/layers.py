"""Pipelines of units in one hardware layer: SDP on the fly into PDP.

The PDP layer is drawn first (its input cube is legal for its kernel, stride and padding by construction),
then an offline SDP layer over that cube sends its output on the fly to the PDP (OUTPUT_DST=PDP, no
precision conversion: programming-guide Limitation/SDP/DC; the PDP has no split width on the fly:
"PDP programming", On-the-fly processing). Only PDP writes memory; its done interrupt ends the layer.
"""

from __future__ import annotations

from dataclasses import replace

from golden.config import Profile
from stimulus.layer import Layer
from stimulus.pdp import layers as pdp
from stimulus.sdp import layers as sdp

#: The PDP destination inside the layer's slot, clear of the SDP's source and operand surfaces.
PDP_DST_OFFSET = 0xE00000


def sdp_pdp_layer(choose, profile: Profile, slot: int = 0, memory_operands: bool = True) -> Layer:
    spec = pdp.random_spec(choose, profile, slot)
    atom = profile.memory_atomic_size
    spec = replace(spec, split=None, dst=(sdp.BASE + slot * sdp.SLOT + PDP_DST_OFFSET + atom * choose.size(0, 63),
                                          *spec.dst[1:]))
    first = sdp.random_layer(choose, profile, slot, memory_operands=memory_operands, shape=spec.shape,
                             to_pdp=spec.precision)
    second = pdp.build(spec, profile, choose.data())
    fields = dict(first.fields)
    fields.update({key: value for key, value in second.fields.items() if not key.startswith("PDP_RDMA.")})
    fields["PDP.D_OPERATION_MODE_CFG.FLYING_MODE"] = "ON_FLYING"
    images = first.images + [image for image in second.images if image.label == "dst"]
    choices = {"sdp": first.choices, "pdp": second.choices}
    return Layer("sdp_pdp", fields, images, second.checks, "PDP", ("PDP", "SDP", "SDP_RDMA"), choices)
