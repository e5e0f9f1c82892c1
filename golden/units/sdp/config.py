"""SDP and SDP_RDMA register fields decoded into one layer configuration."""

from __future__ import annotations

from dataclasses import dataclass

from golden.regs.values import decoded_once
from golden.units.lut import LutParams

PRECISIONS = {"INT8": "int8", "INT16": "int16", "FP16": "fp16"}


@dataclass(frozen=True)
class Convertor:
    offset: int
    scale: int
    shift: int


class _SubUnits:
    """ALU and MUL of an X or Y stage work unless the stage or the sub-unit itself is bypassed."""

    bypass: bool
    alu_bypass: bool
    mul_bypass: bool

    @property
    def alu_active(self) -> bool:
        return not self.bypass and not self.alu_bypass

    @property
    def mul_active(self) -> bool:
        return not self.bypass and not self.mul_bypass


@dataclass(frozen=True)
class XStage(_SubUnits):
    """X1 (BS) or X2 (BN): ALU -> MUL -> truncate -> ReLU."""

    name: str
    bypass: bool
    alu_bypass: bool
    alu_algo: str
    alu_src: str
    alu_shift: int
    alu_operand: int
    mul_bypass: bool
    mul_prelu: bool
    mul_src: str
    mul_shift: int
    mul_operand: int
    relu_bypass: bool


@dataclass(frozen=True)
class YStage(_SubUnits):
    """Y (EW): operand convertors, MUL -> ALU, LUT."""

    bypass: bool
    alu_bypass: bool
    alu_algo: str
    alu_src: str
    alu_cvt_bypass: bool
    alu_cvt: Convertor
    alu_operand: int
    mul_bypass: bool
    mul_prelu: bool
    mul_src: str
    mul_cvt_bypass: bool
    mul_cvt: Convertor
    mul_operand: int
    truncate: int
    lut_bypass: bool

    name = "EW"

    @property
    def lut_active(self) -> bool:
        return not self.bypass and not self.lut_bypass

    @property
    def eql(self) -> bool:
        return self.alu_active and self.alu_algo == "EQL"


@dataclass(frozen=True)
class OperandDma:
    """One of the B (X1), N (X2), E (Y) operand read DMAs."""

    name: str
    disable: bool
    use: str
    size: str
    mode: str
    cvsram: bool
    base: int
    line_stride: int
    surface_stride: int
    batch_stride: int


@dataclass(frozen=True)
class Surface:
    base: int
    line_stride: int
    surface_stride: int
    batch_stride: int
    cvsram: bool


@dataclass(frozen=True)
class SdpConfig:
    width: int
    height: int
    channel: int
    batch: int
    flying: bool
    output_pdp: bool
    winograd: bool
    nan_to_zero: bool
    in_precision: str
    proc_precision: str
    out_precision: str
    rdma: dict
    src: Surface
    dst: Surface
    cvt: Convertor
    x1: XStage
    x2: XStage
    y: YStage
    dmas: dict
    perf_lut: bool
    perf_sat: bool
    perf_nan_out: bool
    perf_nan_in: bool
    lut: LutParams


def _x_stage(regs, name: str) -> XStage:
    cfg = f"D_DP_{name}_CFG"

    def yes(field):
        return regs.field("SDP", cfg, f"{name}_{field}") == 1

    return XStage(
        name=name, bypass=yes("BYPASS"), alu_bypass=yes("ALU_BYPASS"),
        alu_algo=_enum(regs, cfg, f"{name}_ALU_ALGO", ("MAX", "MIN", "SUM", "EQL")),
        alu_src=regs.enum("SDP", f"D_DP_{name}_ALU_CFG", f"{name}_ALU_SRC"),
        alu_shift=regs.field("SDP", f"D_DP_{name}_ALU_CFG", f"{name}_ALU_SHIFT_VALUE"),
        alu_operand=regs.signed("SDP", f"D_DP_{name}_ALU_SRC_VALUE", f"{name}_ALU_OPERAND"),
        mul_bypass=yes("MUL_BYPASS"), mul_prelu=yes("MUL_PRELU"),
        mul_src=regs.enum("SDP", f"D_DP_{name}_MUL_CFG", f"{name}_MUL_SRC"),
        mul_shift=regs.field("SDP", f"D_DP_{name}_MUL_CFG", f"{name}_MUL_SHIFT_VALUE"),
        mul_operand=regs.signed("SDP", f"D_DP_{name}_MUL_SRC_VALUE", f"{name}_MUL_OPERAND"),
        relu_bypass=yes("RELU_BYPASS"),
    )


def _enum(regs, reg, field, names):
    # BS/BN ALU_ALGO has no EQL enum value, but the 2-bit field can hold 3; keep it for validation.
    return names[regs.field("SDP", reg, field)]


def _cvt(regs, which: str) -> Convertor:
    prefix = f"D_DP_EW_{which}_CVT"
    return Convertor(
        offset=regs.signed("SDP", f"{prefix}_OFFSET_VALUE", f"EW_{which}_CVT_OFFSET"),
        scale=regs.signed("SDP", f"{prefix}_SCALE_VALUE", f"EW_{which}_CVT_SCALE"),
        shift=regs.field("SDP", f"{prefix}_TRUNCATE_VALUE", f"EW_{which}_CVT_TRUNCATE"),
    )


def _y_stage(regs) -> YStage:
    def yes(field):
        return regs.field("SDP", "D_DP_EW_CFG", f"EW_{field}") == 1

    return YStage(
        bypass=yes("BYPASS"), alu_bypass=yes("ALU_BYPASS"),
        alu_algo=regs.enum("SDP", "D_DP_EW_CFG", "EW_ALU_ALGO"),
        alu_src=regs.enum("SDP", "D_DP_EW_ALU_CFG", "EW_ALU_SRC"),
        alu_cvt_bypass=regs.field("SDP", "D_DP_EW_ALU_CFG", "EW_ALU_CVT_BYPASS") == 1,
        alu_cvt=_cvt(regs, "ALU"),
        alu_operand=regs.signed("SDP", "D_DP_EW_ALU_SRC_VALUE", "EW_ALU_OPERAND"),
        mul_bypass=yes("MUL_BYPASS"), mul_prelu=yes("MUL_PRELU"),
        mul_src=regs.enum("SDP", "D_DP_EW_MUL_CFG", "EW_MUL_SRC"),
        mul_cvt_bypass=regs.field("SDP", "D_DP_EW_MUL_CFG", "EW_MUL_CVT_BYPASS") == 1,
        mul_cvt=_cvt(regs, "MUL"),
        mul_operand=regs.signed("SDP", "D_DP_EW_MUL_SRC_VALUE", "EW_MUL_OPERAND"),
        truncate=regs.field("SDP", "D_DP_EW_TRUNCATE_VALUE", "EW_TRUNCATE"),
        lut_bypass=yes("LUT_BYPASS"),
    )


def _dma(regs, letter: str, name: str) -> OperandDma:
    cfg = f"D_{letter}RDMA_CFG"

    def f(field):
        return f"{letter}RDMA_{field}"

    return OperandDma(
        name=letter, disable=regs.field("SDP_RDMA", cfg, f("DISABLE")) == 1,
        use=regs.enum("SDP_RDMA", cfg, f("DATA_USE")), size=regs.enum("SDP_RDMA", cfg, f("DATA_SIZE")),
        mode=regs.enum("SDP_RDMA", cfg, f("DATA_MODE")),
        cvsram=regs.enum("SDP_RDMA", cfg, f("RAM_TYPE")) == "CV",
        base=regs.address("SDP_RDMA", f"D_{name}_BASE_ADDR_HIGH", f"D_{name}_BASE_ADDR_LOW"),
        line_stride=regs.value("SDP_RDMA", f"D_{name}_LINE_STRIDE"),
        surface_stride=regs.value("SDP_RDMA", f"D_{name}_SURFACE_STRIDE"),
        batch_stride=regs.value("SDP_RDMA", f"D_{name}_BATCH_STRIDE"),
    )


@decoded_once
def decode(regs, profile=None) -> SdpConfig:
    """Read every SDP/SDP_RDMA field the model uses (unwritten registers read as reset values)."""
    def sdp(reg, field):
        return regs.field("SDP", reg, field)

    def rdma(reg, field):
        return regs.field("SDP_RDMA", reg, field)

    fmt = "D_FEATURE_MODE_CFG"
    return SdpConfig(
        width=sdp("D_DATA_CUBE_WIDTH", "WIDTH") + 1,
        height=sdp("D_DATA_CUBE_HEIGHT", "HEIGHT") + 1,
        channel=sdp("D_DATA_CUBE_CHANNEL", "CHANNEL") + 1,
        batch=sdp(fmt, "BATCH_NUMBER") + 1,
        flying=sdp(fmt, "FLYING_MODE") == 1,
        output_pdp=sdp(fmt, "OUTPUT_DST") == 1,
        winograd=sdp(fmt, "WINOGRAD") == 1,
        nan_to_zero=sdp(fmt, "NAN_TO_ZERO") == 1,
        in_precision=PRECISIONS[regs.enum("SDP_RDMA", fmt, "IN_PRECISION")],
        proc_precision=PRECISIONS[regs.enum("SDP", "D_DATA_FORMAT", "PROC_PRECISION")],
        out_precision=PRECISIONS[regs.enum("SDP", "D_DATA_FORMAT", "OUT_PRECISION")],
        rdma={
            "width": rdma("D_DATA_CUBE_WIDTH", "WIDTH") + 1,
            "height": rdma("D_DATA_CUBE_HEIGHT", "HEIGHT") + 1,
            "channel": rdma("D_DATA_CUBE_CHANNEL", "CHANNEL") + 1,
            "flying": rdma(fmt, "FLYING_MODE") == 1,
            "proc_precision": PRECISIONS[regs.enum("SDP_RDMA", fmt, "PROC_PRECISION")],
            "out_precision": PRECISIONS[regs.enum("SDP_RDMA", fmt, "OUT_PRECISION")],
        },
        src=Surface(
            base=regs.address("SDP_RDMA", "D_SRC_BASE_ADDR_HIGH", "D_SRC_BASE_ADDR_LOW"),
            line_stride=regs.value("SDP_RDMA", "D_SRC_LINE_STRIDE"),
            surface_stride=regs.value("SDP_RDMA", "D_SRC_SURFACE_STRIDE"), batch_stride=0,
            cvsram=regs.enum("SDP_RDMA", "D_SRC_DMA_CFG", "SRC_RAM_TYPE") == "CV"),
        dst=Surface(
            base=regs.address("SDP", "D_DST_BASE_ADDR_HIGH", "D_DST_BASE_ADDR_LOW"),
            line_stride=regs.value("SDP", "D_DST_LINE_STRIDE"),
            surface_stride=regs.value("SDP", "D_DST_SURFACE_STRIDE"),
            batch_stride=regs.value("SDP", "D_DST_BATCH_STRIDE"),
            cvsram=regs.enum("SDP", "D_DST_DMA_CFG", "DST_RAM_TYPE") == "CV"),
        cvt=Convertor(offset=regs.signed("SDP", "D_CVT_OFFSET", "CVT_OFFSET"),
                      scale=regs.signed("SDP", "D_CVT_SCALE", "CVT_SCALE"),
                      shift=sdp("D_CVT_SHIFT", "CVT_SHIFT")),
        x1=_x_stage(regs, "BS"), x2=_x_stage(regs, "BN"), y=_y_stage(regs),
        dmas={"B": _dma(regs, "B", "BS"), "N": _dma(regs, "N", "BN"), "E": _dma(regs, "E", "EW")},
        perf_lut=sdp("D_PERF_ENABLE", "PERF_LUT_EN") == 1,
        perf_sat=sdp("D_PERF_ENABLE", "PERF_SAT_EN") == 1,
        perf_nan_out=sdp("D_PERF_ENABLE", "PERF_NAN_INF_COUNT_EN") == 1,
        perf_nan_in=rdma("D_PERF_ENABLE", "PERF_NAN_INF_COUNT_EN") == 1,
        lut=LutParams.from_regs(regs, "SDP"),
    )
