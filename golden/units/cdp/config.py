"""CDP register decoding and the CDP limitations of the programming guide.

CDP always works offline: CDP_RDMA reads the cube (size, address, strides, RAM type), CDP writes the
result (D_DST_*). Sizes count from zero.
"""

from __future__ import annotations

from dataclasses import dataclass

from golden import rules
from golden.errors import ConfigurationError, NotModelledError
from golden.regs.values import RegisterValues
from golden.units import dma_rules  # noqa: F401  (registers the CDP DMAs' rules)
from golden.units.lut import LutParams, check_index_ranges

RULE = "programming-guide: Limitation/CDP"
LUT_RULE = "programming-guide: Limitation/LUT"
FORMAT_RULE = "in-memory-data-formats: Table 31 (precision conversion for LRN layer)"
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


def decode(regs: RegisterValues) -> CdpConfig:
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


def _require(ok: bool, message: str, fields: tuple[str, ...], rule: str) -> None:
    if not ok:
        raise ConfigurationError(message, fields=fields, rule=rule)


def validate(cfg: CdpConfig, regs: RegisterValues, profile) -> None:
    """The CDP limitations; the CDP_RDMA / CDP DMAs' rules are the registry's (golden/units/dma_rules.py)."""
    _require(cfg.local_size <= 9, f"local_size {cfg.local_size} exceeds 9 (maximum supported local_size is 9)",
             ("CDP.D_LRN_CFG.NORMALZ_LEN",), RULE)
    rdma_precision = regs.enum("CDP_RDMA", "D_DATA_FORMAT", "INPUT_DATA").lower()
    _require(rdma_precision == cfg.precision,
             f"CDP_RDMA reads {rdma_precision} but CDP processes {cfg.precision}: LRN has no precision conversion",
             ("CDP_RDMA.D_DATA_FORMAT.INPUT_DATA", "CDP.D_DATA_FORMAT.INPUT_DATA_TYPE"), FORMAT_RULE)
    for unit, reg, name in (("CDP_RDMA", "D_SRC_COMPRESSION_EN", "SRC_COMPRESSION_EN"),
                            ("CDP", "D_DST_COMPRESSION_EN", "DST_COMPRESSION_EN")):
        if regs.enum(unit, reg, name) == "ENABLE":
            raise NotModelledError(f"{unit}.{reg}.{name}: compressed CDP surfaces are not modelled", unit="CDP")
    _validate_lut(cfg.lut, cfg.precision)
    rules.enforce("CDP", cfg, rules.Facts(regs, profile))


def _validate_lut(lut: LutParams, precision: str) -> None:
    check_index_ranges(lut, precision, "CDP")
    info = "CDP.S_LUT_INFO."
    if precision == "fp16":
        return  # fp16 START/END are fp32 patterns; CDP leaves their spans unchecked (SDP: lut.check_limits)
    spans = [("LO", lut.lo_start, lut.lo_end, lut.lo_index_select + 8)]
    if lut.le_function == "LINEAR":
        spans.append(("LE", lut.le_start, lut.le_end, lut.le_index_select + 6))
    # The exponent rule "LE_END-LE_START == 1<<(LE_INDEX_OFFSET+64)" is not checked: NVIDIA's own CDP
    # traces program LE_END-LE_START = 18 with LE_INDEX_OFFSET = 0, and the CDP datapath never reads
    # LE_END in exponent mode except for the overflow extrapolation.
    for name, start, end, bits in spans:
        _require(end - start == 1 << bits,
                 f"linear {name}_END - {name}_START = {end - start} must equal 1<<({name}_INDEX_SELECT+"
                 f"{bits - (lut.lo_index_select if name == 'LO' else lut.le_index_select)}) = {1 << bits}",
                 (f"CDP.S_LUT_{name}_START_LOW", f"CDP.S_LUT_{name}_START_HIGH", f"CDP.S_LUT_{name}_END_LOW",
                  f"CDP.S_LUT_{name}_END_HIGH", info + f"LUT_{name}_INDEX_SELECT"), LUT_RULE)
