"""The feature surfaces a hardware layer reads from memory through its read DMA: SDP_RDMA (offline SDP),
PDP_RDMA (offline PDP) and CDP_RDMA, as golden.units.base.Surface, for layout adapters and reports.

Convolution's CDMA input (feature, image, weights), SDP's operand DMAs, BDMA and Rubik are not
described: `feature_inputs` raises NotModelledError for them.
"""

from __future__ import annotations

from golden.config import Profile
from golden.errors import NotModelledError
from golden.regs.values import RegisterValues
from golden.units.base import Surface
from golden.units.cdp.config import decode as cdp_decode
from golden.units.pdp.config import decode as pdp_decode
from golden.units.sdp.config import decode as sdp_decode

MEMORIES = {False: "pri_mem", True: "sec_mem"}


def feature_inputs(stages: tuple[str, ...], regs: RegisterValues, profile: Profile) -> list[Surface]:
    atom = profile.memory_atomic_size
    if stages[0] == "SDP":
        cfg = sdp_decode(regs)
        if cfg.flying:
            return []
        shape = (cfg.rdma["channel"], cfg.rdma["height"], cfg.rdma["width"])
        return [Surface(MEMORIES[cfg.src.cvsram], cfg.src.base, shape, cfg.in_precision, cfg.src.line_stride,
                        cfg.src.surface_stride, atom, name="SDP_RDMA source")]
    if stages == ("PDP",):
        cfg = pdp_decode(regs)
        base, line, surface, cvsram = cfg.src
        return [Surface(MEMORIES[cvsram], base, (cfg.channels, cfg.in_height, cfg.in_width), cfg.precision,
                        line, surface, atom, name="PDP_RDMA source")]
    if stages == ("CDP",):
        cfg = cdp_decode(regs)
        base, line, surface, cvsram = cfg.src
        return [Surface(MEMORIES[cvsram], base, cfg.shape, cfg.precision, line, surface, atom,
                        name="CDP_RDMA source")]
    raise NotModelledError(f"the input surfaces of a {'+'.join(stages)} layer are not described "
                           "(golden/units/inputs.py: SDP, PDP and CDP read DMAs only)", unit="+".join(stages))
