"""A 1x1xC SDP layer's per-element operands are packed (rule SDP-{B,N,E}RDMA-1X1XC-PACKED): NVIDIA's nv_small RTL
reads a 1x1 operand cube straight from its base address, whatever its strides say."""

from __future__ import annotations

from golden.config import get_profile
from golden.formats import auxiliary
from golden.regs.regmap import RegisterMap
from golden.rules import Facts
from golden.units.sdp import checks as sdp_checks
from golden.units.sdp.config import decode
from stimulus.choose import Seeded
from stimulus.sdp import layers as sdp

REGS = {"B": "BS", "N": "BN", "E": "EW"}


def _per_element_operands(fields):
    return [x for x in "BNE" if fields.get(f"SDP_RDMA.D_{x}RDMA_CFG.{x}RDMA_DATA_MODE") == "PER_ELEMENT"
            and fields.get(f"SDP_RDMA.D_{x}RDMA_CFG.{x}RDMA_DISABLE") == 0]


def test_one_by_one_per_element_operands_are_packed_and_strictly_legal():
    profile = get_profile("nv_small")
    atom, found = profile.memory_atomic_size, 0
    for seed in range(400):
        layer = sdp.random_layer(Seeded(seed), profile)
        f = layer.fields
        if f["SDP.D_DATA_CUBE_WIDTH.WIDTH"] or f["SDP.D_DATA_CUBE_HEIGHT.HEIGHT"] \
                or f["SDP.D_DATA_CUBE_CHANNEL.CHANNEL"] < atom or not _per_element_operands(f):
            continue
        found += 1
        for x in _per_element_operands(f):
            reg, cfg = REGS[x], f"SDP_RDMA.D_{x}RDMA_CFG.{x}RDMA_"
            # int8 pipeline: `atom` elements per operand atom, each of 1 (ALU or MUL) or 2 (BOTH) components
            size = 1 if f[cfg + "DATA_SIZE"] == "ONE_BYTE" else 2
            packed = atom * auxiliary.COMPONENTS_PER_ELEMENT[f[cfg + "DATA_USE"]] * size
            assert f[f"SDP_RDMA.D_{reg}_LINE_STRIDE.{reg}_LINE_STRIDE"] == packed
            assert f[f"SDP_RDMA.D_{reg}_SURFACE_STRIDE.{reg}_SURFACE_STRIDE"] == packed
        sdp_checks.validate(decode(layer.values(RegisterMap.for_profile(profile))), Facts(profile=profile), strict=True)
    assert found >= 2
