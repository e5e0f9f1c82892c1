"""CDP register decoding and the CDP limitations of the programming guide.

CDP always works offline: CDP_RDMA reads the cube (size, address, strides, RAM type), CDP writes the
result (D_DST_*). Sizes count from zero.
"""

from __future__ import annotations

from dataclasses import dataclass

from golden import rules
from golden.errors import NotModelledError
from golden.regs.values import RegisterValues, decoded_once
from golden.units.lut import LutParams

LOCAL_SIZES = {"LEN3": 3, "LEN5": 5, "LEN7": 7, "LEN9": 9}


@dataclass(frozen=True)
class CdpConfig:
    precision: str
    shape: tuple[int, int, int]  # (C, H, W)
    local_size: int
    sqsum_bypass: bool
    mul_bypass: bool
    nan_to_zero: bool
    datin: tuple[int, int, int]  # (offset, scale, shifter)
    datout: tuple[int, int, int]
    lut: LutParams
    src: tuple[int, int, int, bool]  # (address, line stride, surface stride, in CV-SRAM)
    dst: tuple[int, int, int, bool]


@decoded_once
def decode(regs: RegisterValues, profile=None) -> CdpConfig:
    def rdma(reg, name):
        return regs.field("CDP_RDMA", reg, name)

    return CdpConfig(
        precision=regs.enum("CDP", "D_DATA_FORMAT", "INPUT_DATA_TYPE").lower(),
        shape=(rdma("D_DATA_CUBE_CHANNEL", "CHANNEL") + 1, rdma("D_DATA_CUBE_HEIGHT", "HEIGHT") + 1,
               rdma("D_DATA_CUBE_WIDTH", "WIDTH") + 1),
        local_size=LOCAL_SIZES[regs.enum("CDP", "D_LRN_CFG", "NORMALZ_LEN")],
        sqsum_bypass=regs.enum("CDP", "D_FUNC_BYPASS", "SQSUM_BYPASS") == "ENABLE",
        mul_bypass=regs.enum("CDP", "D_FUNC_BYPASS", "MUL_BYPASS") == "ENABLE",
        nan_to_zero=regs.enum("CDP", "D_NAN_FLUSH_TO_ZERO", "NAN_TO_ZERO") == "ENABLE",
        datin=(regs.signed("CDP", "D_DATIN_OFFSET", "DATIN_OFFSET"), regs.signed("CDP", "D_DATIN_SCALE", "DATIN_SCALE"),
               regs.field("CDP", "D_DATIN_SHIFTER", "DATIN_SHIFTER")),
        datout=(regs.signed("CDP", "D_DATOUT_OFFSET", "DATOUT_OFFSET"),
                regs.signed("CDP", "D_DATOUT_SCALE", "DATOUT_SCALE"),
                regs.field("CDP", "D_DATOUT_SHIFTER", "DATOUT_SHIFTER")),
        lut=LutParams.from_regs(regs, "CDP"),
        src=(regs.address("CDP_RDMA", "D_SRC_BASE_ADDR_HIGH", "D_SRC_BASE_ADDR_LOW"),
             rdma("D_SRC_LINE_STRIDE", "SRC_LINE_STRIDE"), rdma("D_SRC_SURFACE_STRIDE", "SRC_SURFACE_STRIDE"),
             regs.enum("CDP_RDMA", "D_SRC_DMA_CFG", "SRC_RAM_TYPE") == "CV"),
        dst=(regs.address("CDP", "D_DST_BASE_ADDR_HIGH", "D_DST_BASE_ADDR_LOW"),
             regs.field("CDP", "D_DST_LINE_STRIDE", "DST_LINE_STRIDE"),
             regs.field("CDP", "D_DST_SURFACE_STRIDE", "DST_SURFACE_STRIDE"),
             regs.enum("CDP", "D_DST_DMA_CFG", "DST_RAM_TYPE") == "CV"),
    )


def validate(cfg: CdpConfig, facts: rules.Facts, strict: bool = False) -> None:
    """The CDP limitations: the registry's CDP rules (golden/units/cdp/rules.py: Table 31, Limitation/LUT) and
    the CDP_RDMA / CDP DMAs' (golden/units/dma_rules.py)."""
    rules.enforce("CDP", cfg, facts, strict)
    regs = facts.regs
    assert regs is not None, "CDP's compression fields are read from the layer's registers"
    for unit, reg, name in (("CDP_RDMA", "D_SRC_COMPRESSION_EN", "SRC_COMPRESSION_EN"),
                            ("CDP", "D_DST_COMPRESSION_EN", "DST_COMPRESSION_EN")):
        if regs.enum(unit, reg, name) == "ENABLE":
            raise NotModelledError(f"{unit}.{reg}.{name}: compressed CDP surfaces are not modelled", unit="CDP")
