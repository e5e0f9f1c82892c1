"""PDP register decoding and the programming guide's PDP limitations.

Registers count from zero (a field value v means v + 1) for sizes, kernels and strides. The input
surface comes from PDP_RDMA (address, strides, RAM type) in offline mode; the PDP's own
D_SRC_* registers are not used by the datapath (NVIDIA's traces leave them 0).
"""

from __future__ import annotations

from dataclasses import dataclass

from golden import rules
from golden.regs.values import RegisterValues, decoded_once

# pooled_size and the PAD_VALUE widths are imported from here.
from golden.units.pdp.rules import PAD_VALUE_BITS, PAD_VALUE_FIELD_BITS, pooled_size  # noqa: F401

METHODS = {"POOLING_METHOD_AVERAGE": "average", "POOLING_METHOD_MAX": "max", "POOLING_METHOD_MIN": "min"}


@dataclass(frozen=True)
class Split:
    """One split-width pass: the input columns it consumes and the output columns it produces."""
    in_first: int
    in_mid: int
    in_last: int
    out_first: int
    out_mid: int
    out_last: int
    count: int


@dataclass(frozen=True)
class PdpConfig:
    precision: str
    method: str
    on_the_fly: bool
    channels: int
    in_height: int
    in_width: int
    out_height: int
    out_width: int
    kernel: tuple[int, int]  # (width, height)
    stride: tuple[int, int]  # (width, height)
    pads: tuple[int, int, int, int]  # (left, top, right, bottom)
    pad_values: tuple[int, ...]  # PAD_VALUE_1X..7X raw field values
    recip: tuple[int, int]  # (RECIP_KERNEL_WIDTH, RECIP_KERNEL_HEIGHT) raw field values
    nan_to_zero: bool
    split: Split | None
    src: tuple[int, int, int, bool]  # (address, line stride, surface stride, in CV-SRAM)
    dst: tuple[int, int, int, bool]


def _field(regs: RegisterValues, unit: str, reg: str, name: str) -> int:
    return regs.field(unit, reg, name)


def _split(regs: RegisterValues, count: int) -> Split | None:
    if count == 0:
        return None
    def part(reg, name):
        return _field(regs, "PDP", reg, name) + 1
    return Split(part("D_PARTIAL_WIDTH_IN", "PARTIAL_WIDTH_IN_FIRST"),
                 part("D_PARTIAL_WIDTH_IN", "PARTIAL_WIDTH_IN_MID"),
                 part("D_PARTIAL_WIDTH_IN", "PARTIAL_WIDTH_IN_LAST"),
                 part("D_PARTIAL_WIDTH_OUT", "PARTIAL_WIDTH_OUT_FIRST"),
                 part("D_PARTIAL_WIDTH_OUT", "PARTIAL_WIDTH_OUT_MID"),
                 part("D_PARTIAL_WIDTH_OUT", "PARTIAL_WIDTH_OUT_LAST"),
                 count + 1)


@decoded_once
def decode(regs: RegisterValues, profile=None) -> PdpConfig:
    """The PDP layer the registers describe (no checks; see validate)."""
    def pdp(reg, name):
        return _field(regs, "PDP", reg, name)
    on_the_fly = regs.enum("PDP", "D_OPERATION_MODE_CFG", "FLYING_MODE") == "ON_FLYING"
    src_unit = "PDP_RDMA"
    src = (regs.address(src_unit, "D_SRC_BASE_ADDR_HIGH", "D_SRC_BASE_ADDR_LOW"),
           _field(regs, src_unit, "D_SRC_LINE_STRIDE", "SRC_LINE_STRIDE"),
           _field(regs, src_unit, "D_SRC_SURFACE_STRIDE", "SRC_SURFACE_STRIDE"),
           regs.enum(src_unit, "D_SRC_RAM_CFG", "SRC_RAM_TYPE") == "CV")
    dst = (regs.address("PDP", "D_DST_BASE_ADDR_HIGH", "D_DST_BASE_ADDR_LOW"),
           pdp("D_DST_LINE_STRIDE", "DST_LINE_STRIDE"), pdp("D_DST_SURFACE_STRIDE", "DST_SURFACE_STRIDE"),
           regs.enum("PDP", "D_DST_RAM_CFG", "DST_RAM_TYPE") == "CV")
    return PdpConfig(
        precision=regs.enum("PDP", "D_DATA_FORMAT", "INPUT_DATA").lower(),
        method=METHODS[regs.enum("PDP", "D_OPERATION_MODE_CFG", "POOLING_METHOD")],
        on_the_fly=on_the_fly,
        channels=pdp("D_DATA_CUBE_IN_CHANNEL", "CUBE_IN_CHANNEL") + 1,
        in_height=pdp("D_DATA_CUBE_IN_HEIGHT", "CUBE_IN_HEIGHT") + 1,
        in_width=pdp("D_DATA_CUBE_IN_WIDTH", "CUBE_IN_WIDTH") + 1,
        out_height=pdp("D_DATA_CUBE_OUT_HEIGHT", "CUBE_OUT_HEIGHT") + 1,
        out_width=pdp("D_DATA_CUBE_OUT_WIDTH", "CUBE_OUT_WIDTH") + 1,
        kernel=(pdp("D_POOLING_KERNEL_CFG", "KERNEL_WIDTH") + 1, pdp("D_POOLING_KERNEL_CFG", "KERNEL_HEIGHT") + 1),
        stride=(pdp("D_POOLING_KERNEL_CFG", "KERNEL_STRIDE_WIDTH") + 1,
                pdp("D_POOLING_KERNEL_CFG", "KERNEL_STRIDE_HEIGHT") + 1),
        pads=tuple(pdp("D_POOLING_PADDING_CFG", f"PAD_{side}") for side in ("LEFT", "TOP", "RIGHT", "BOTTOM")),
        pad_values=tuple(pdp(f"D_POOLING_PADDING_VALUE_{n}_CFG", f"PAD_VALUE_{n}X") for n in range(1, 8)),
        recip=(pdp("D_RECIP_KERNEL_WIDTH", "RECIP_KERNEL_WIDTH"), pdp("D_RECIP_KERNEL_HEIGHT", "RECIP_KERNEL_HEIGHT")),
        nan_to_zero=regs.enum("PDP", "D_NAN_FLUSH_TO_ZERO", "NAN_TO_ZERO") == "ENABLE",
        split=_split(regs, pdp("D_OPERATION_MODE_CFG", "SPLIT_NUM")),
        src=src,
        dst=dst,
    )


def validate(cfg: PdpConfig, facts: rules.Facts, strict: bool = False) -> None:
    """Every PDP limitation of the programming guide, plus the register consistency the model needs.

    The rules are golden/units/pdp/rules.py's and the PDP_RDMA / PDP DMAs' (golden/units/dma_rules.py), in
    the registry (golden/rules.py) that stimulus uses too. Advisory rules (LimitationWarning) raise too when
    `strict` (what a stimulus generator should use).
    """
    rules.enforce("PDP", cfg, facts, strict)
