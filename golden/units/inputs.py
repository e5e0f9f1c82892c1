"""The feature surfaces a hardware layer reads from memory through its read DMA (SDP_RDMA for offline SDP,
PDP_RDMA for offline PDP, CDP_RDMA), as golden.units.base.Surface, for layout adapters and reports: the first
stage's unit declares them (golden/units/declaration.py: Unit.inputs).

Convolution's CDMA input (feature, image, weights), SDP's operand DMAs, BDMA and Rubik are not
described: `feature_inputs` raises NotModelledError for them.
"""

from __future__ import annotations

import golden.units
from golden.config import Profile
from golden.errors import NotModelledError
from golden.regs.values import RegisterValues
from golden.units.base import Surface


def feature_inputs(stages: tuple[str, ...], regs: RegisterValues, profile: Profile) -> list[Surface]:
    unit = golden.units.unit(stages[0])
    if unit.inputs is None:
        described = ", ".join(u.stage for u in golden.units.declared() if u.inputs is not None)
        raise NotModelledError(f"the input surfaces of a {'+'.join(stages)} layer are not described "
                               f"(only the read DMAs of {described}: Unit.inputs)", unit="+".join(stages))
    return unit.inputs(regs, profile)
