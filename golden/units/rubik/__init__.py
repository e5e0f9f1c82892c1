"""Rubik (RBK): reorders feature data in memory; no arithmetic, bytes move whole.

Modes (programming-guide: Rubik programming; addressing as in nvdla/hw nvdlav1 cmod/rubik and
vmod/nvdla/rubik/NV_NVDLA_RUBIK_seq_gen.v, which take CONTRACT_STRIDE_0/1 as cube/line-block strides):

* CONTRACT, the last phase of a deconvolution: the input holds stride_x*stride_y feature cubes of
  W x H x C_out (one per kernel phase, cube k = py*stride_x + px at DAIN_ADDR + k*CONTRACT_STRIDE_0).
  Output pixel (x*stride_x + px, y*stride_y + py) is input pixel (x, y) of cube k, written as
  a feature cube of (W*stride_x) x (H*stride_y) x C_out at DAOUT_ADDR with line y*stride_y + py at
  y*CONTRACT_STRIDE_1 + py*DAOUT_LINE_STRIDE. 32-byte atoms (channel padding included) move whole.
* SPLIT: a W x H x C feature cube -> DATAOUT_CHANNEL+1 planes; element (c, y, x) of bytes-per-element
  b goes to DAOUT_ADDR + c*DAOUT_PLANAR_STRIDE + y*DAOUT_LINE_STRIDE + x*b. Each plane line is
  written as whole 32-byte atoms; the bytes after the W*b data up to the atom end are written as 0
  (cmod/rubik clears its reorder buffer; the DMA writes whole atoms).
* MERGE: DATAIN_CHANNEL+1 planes (DAIN_PLANAR_STRIDE apart) -> a feature cube at DAOUT_ADDR with
  DAOUT_LINE/SURF_STRIDE; padding channels of the last surface are written as 0.

The atom is always 32 bytes (RUBIK_ATOM_CUBE_SIZE in cmod/rubik): Rubik exists only in nv_full.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from golden import rules as registry
from golden.errors import ConfigurationError
from golden.formats.feature import element_bytes
from golden.memory import MemorySystem
from golden.units.base import LayerContext, Surface, UnitResult
from golden.units.bdma import grid_offsets, read_rows, write_rows
from golden.units.declaration import Unit
from golden.units.rubik.rules import ALIGNED, ATOM, GUIDE, LIMIT, qualified, surface_count

GROUP = "RBK"
#: Which of them each mode uses (the guide lists the registers split/merge need not program).
USED = {
    "CONTRACT": ("DAIN_ADDR", "DAIN_LINE", "DAIN_SURF", "DAOUT_ADDR", "DAOUT_LINE", "DAOUT_SURF",
                 "CONTRACT_0", "CONTRACT_1"),
    "SPLIT": ("DAIN_ADDR", "DAIN_LINE", "DAIN_SURF", "DAOUT_ADDR", "DAOUT_LINE", "DAOUT_PLANAR"),
    "MERGE": ("DAIN_ADDR", "DAIN_LINE", "DAIN_PLANAR", "DAOUT_ADDR", "DAOUT_LINE", "DAOUT_SURF"),
}


@dataclass(frozen=True)
class RubikLayer:
    mode: str
    precision: str
    width: int
    height: int
    in_channels: int
    out_channels: int
    in_cvsram: bool
    out_cvsram: bool
    stride_x: int
    stride_y: int
    #: Byte addresses and strides keyed as ALIGNED (DAIN_ADDR, DAOUT_LINE, CONTRACT_0, ...).
    addressing: dict

    @property
    def element_bytes(self) -> int:
        return element_bytes(self.precision)

    @property
    def per_atom(self) -> int:
        return ATOM // self.element_bytes

    @classmethod
    def decode(cls, regs, profile) -> RubikLayer:
        profile.require("RUBIK", "a Rubik layer", fields=("RBK.D_OP_ENABLE.OP_EN",))
        mode = regs.enum(GROUP, "D_MISC_CFG", "RUBIK_MODE")
        if mode == "CONTRACT":
            profile.require("RUBIK_CONTRACT", "Rubik contract mode", fields=("RBK.D_MISC_CFG.RUBIK_MODE",))
        else:
            profile.require("RUBIK_RESHAPE", f"Rubik {mode.lower()} mode", fields=("RBK.D_MISC_CFG.RUBIK_MODE",))
        precision = regs.enum(GROUP, "D_MISC_CFG", "IN_PRECISION").lower()
        profile.require_precision(precision, "the Rubik layer", fields=("RBK.D_MISC_CFG.IN_PRECISION",))
        in_cvsram = regs.enum(GROUP, "D_DAIN_RAM_TYPE", "DATAIN_RAM_TYPE") == "CVIF"
        out_cvsram = regs.enum(GROUP, "D_DAOUT_RAM_TYPE", "DATAOUT_RAM_TYPE") == "CVIF"
        for cvsram, register in ((in_cvsram, "D_DAIN_RAM_TYPE.DATAIN"), (out_cvsram, "D_DAOUT_RAM_TYPE.DATAOUT")):
            if cvsram:
                profile.require("SECONDARY_MEMIF", "a Rubik layer in CV-SRAM",
                                    fields=(f"RBK.{register}_RAM_TYPE",))
        for key in USED[mode]:
            register, _ = ALIGNED[key]
            if regs.value(GROUP, register) & (ATOM - 1):
                raise ConfigurationError(
                    f"{register} = {regs.value(GROUP, register):#x} is not 32-byte aligned (the register "
                    "keeps bits [31:5] only)", fields=(qualified(key),),
                    rule=f"{LIMIT} (address/line_stride 32-byte aligned)" if mode == "CONTRACT"
                    else "in-memory-data-formats: Alignment of Start Address and Stride")
        byte_values = {key: regs.field(GROUP, register, field) << 5 for key, (register, field) in ALIGNED.items()}
        byte_values["DAIN_ADDR"] |= regs.value(GROUP, "D_DAIN_ADDR_HIGH") << 32
        byte_values["DAOUT_ADDR"] |= regs.value(GROUP, "D_DAOUT_ADDR_HIGH") << 32
        return cls(
            mode=mode, precision=precision,
            width=regs.field(GROUP, "D_DATAIN_SIZE_0", "DATAIN_WIDTH") + 1,
            height=regs.field(GROUP, "D_DATAIN_SIZE_0", "DATAIN_HEIGHT") + 1,
            in_channels=regs.field(GROUP, "D_DATAIN_SIZE_1", "DATAIN_CHANNEL") + 1,
            out_channels=regs.field(GROUP, "D_DATAOUT_SIZE_1", "DATAOUT_CHANNEL") + 1,
            in_cvsram=in_cvsram, out_cvsram=out_cvsram,
            stride_x=regs.field(GROUP, "D_DECONV_STRIDE", "DECONV_X_STRIDE") + 1,
            stride_y=regs.field(GROUP, "D_DECONV_STRIDE", "DECONV_Y_STRIDE") + 1,
            addressing=byte_values,
        )

    @property
    def plane_row_bytes(self) -> int:
        """Bytes of one plane line as the hardware writes it: W elements rounded up to whole atoms."""
        return -(-self.width * self.element_bytes // ATOM) * ATOM

    # -- data movement --
    def contract(self, memory: MemorySystem) -> Surface:
        sx, sy, width, height = self.stride_x, self.stride_y, self.width, self.height
        surfaces = surface_count(self.out_channels, self.per_atom)
        b = self.addressing
        rows = read_rows(memory.select(self.in_cvsram),
                         grid_offsets(b["DAIN_ADDR"], (b["CONTRACT_0"], b["DAIN_SURF"], b["DAIN_LINE"]),
                                      (sx * sy, surfaces, height)), width * ATOM)
        atoms = rows.reshape(sy, sx, surfaces, height, width, ATOM).transpose(2, 3, 0, 4, 1, 5)
        target = memory.select(self.out_cvsram)
        write_rows(target, grid_offsets(b["DAOUT_ADDR"], (b["DAOUT_SURF"], b["CONTRACT_1"], b["DAOUT_LINE"]),
                                        (surfaces, height, sy)), atoms.reshape(-1, width * sx * ATOM))
        return Surface(target.name, b["DAOUT_ADDR"], (self.out_channels, height * sy, width * sx), self.precision,
                       b["DAOUT_LINE"], b["DAOUT_SURF"], ATOM, name="RUBIK contract output")

    def split(self, memory: MemorySystem) -> Surface:
        size, per_atom, b = self.element_bytes, self.per_atom, self.addressing
        surfaces = surface_count(self.in_channels, per_atom)
        rows = read_rows(memory.select(self.in_cvsram),
                         grid_offsets(b["DAIN_ADDR"], (b["DAIN_SURF"], b["DAIN_LINE"]), (surfaces, self.height)),
                         self.width * ATOM)
        planes = rows.reshape(surfaces, self.height, self.width, per_atom, size).transpose(0, 3, 1, 2, 4)
        planes = planes.reshape(surfaces * per_atom, self.height, self.width * size)[:self.out_channels]
        lines = np.zeros((self.out_channels, self.height, self.plane_row_bytes), np.uint8)
        lines[..., :self.width * size] = planes
        target = memory.select(self.out_cvsram)
        write_rows(target, grid_offsets(b["DAOUT_ADDR"], (b["DAOUT_PLANAR"], b["DAOUT_LINE"]),
                                        (self.out_channels, self.height)), lines.reshape(-1, self.plane_row_bytes))
        # A plane is a cube whose "atom" is one element: byte = c*PLANAR + y*LINE + x*BPE. Its lines are whole
        # 32-byte atoms, written with their zero tail (nvdlav1 NV_NVDLA_RUBIK_seq_gen.v: split_wr_size counts
        # atoms), so the surface covers them.
        return Surface(target.name, b["DAOUT_ADDR"], (self.out_channels, self.height, self.plane_row_bytes // size),
                       self.precision, b["DAOUT_LINE"], b["DAOUT_PLANAR"], size, name="RUBIK split planes")

    def merge(self, memory: MemorySystem) -> Surface:
        size, per_atom, b = self.element_bytes, self.per_atom, self.addressing
        surfaces = surface_count(self.in_channels, per_atom)
        rows = read_rows(memory.select(self.in_cvsram),
                         grid_offsets(b["DAIN_ADDR"], (b["DAIN_PLANAR"], b["DAIN_LINE"]),
                                      (self.in_channels, self.height)), self.width * size)
        channels = np.zeros((surfaces * per_atom, self.height, self.width, size), np.uint8)
        channels[:self.in_channels] = rows.reshape(self.in_channels, self.height, self.width, size)
        atoms = channels.reshape(surfaces, per_atom, self.height, self.width, size).transpose(0, 2, 3, 1, 4)
        target = memory.select(self.out_cvsram)
        write_rows(target, grid_offsets(b["DAOUT_ADDR"], (b["DAOUT_SURF"], b["DAOUT_LINE"]), (surfaces, self.height)),
                   atoms.reshape(-1, self.width * ATOM))
        return Surface(target.name, b["DAOUT_ADDR"], (self.in_channels, self.height, self.width), self.precision,
                       b["DAOUT_LINE"], b["DAOUT_SURF"], ATOM, name="RUBIK merge output")

    def input_span(self) -> tuple[int, int]:
        """(first byte, byte count) of the input the layer reads."""
        b = self.addressing
        if self.mode == "MERGE":
            return b["DAIN_ADDR"], ((self.in_channels - 1) * b["DAIN_PLANAR"] + (self.height - 1) * b["DAIN_LINE"]
                                    + self.width * self.element_bytes)
        if self.mode == "CONTRACT":
            cubes, surfaces = self.stride_x * self.stride_y, surface_count(self.out_channels, self.per_atom)
        else:
            cubes, surfaces = 1, surface_count(self.in_channels, self.per_atom)
        return b["DAIN_ADDR"], ((cubes - 1) * b["CONTRACT_0"] + (surfaces - 1) * b["DAIN_SURF"]
                                + (self.height - 1) * b["DAIN_LINE"] + self.width * ATOM)


def _check_disjoint(layer: RubikLayer, surface: Surface) -> None:
    """Input and output must not share bytes: Rubik streams reads ahead of writes."""
    if layer.in_cvsram != layer.out_cvsram:
        return
    start, size = layer.input_span()
    end = surface.base + surface.span()
    if surface.base < start + size and start < end:
        raise ConfigurationError(
            f"input bytes [{start:#x}, {start + size:#x}) and output bytes [{surface.base:#x}, {end:#x}) overlap",
            fields=("RBK.D_DAIN_ADDR_LOW.DAIN_ADDR_LOW", "RBK.D_DAOUT_ADDR_LOW.DAOUT_ADDR_LOW"),
            rule="golden model: Rubik input and output buffers are disjoint")


def _planned_surface(layer: RubikLayer) -> Surface:
    b = layer.addressing
    if layer.mode == "CONTRACT":
        return Surface("", b["DAOUT_ADDR"], (layer.out_channels, layer.height * layer.stride_y,
                                             layer.width * layer.stride_x), layer.precision,
                       b["DAOUT_LINE"], b["DAOUT_SURF"], ATOM)
    if layer.mode == "SPLIT":
        return Surface("", b["DAOUT_ADDR"], (layer.out_channels, layer.height, layer.plane_row_bytes
                                             // layer.element_bytes), layer.precision,
                       b["DAOUT_LINE"], b["DAOUT_PLANAR"], layer.element_bytes)
    return Surface("", b["DAOUT_ADDR"], (layer.in_channels, layer.height, layer.width), layer.precision,
                   b["DAOUT_LINE"], b["DAOUT_SURF"], ATOM)


def validate(cfg: RubikLayer, facts: registry.Facts, strict: bool = False) -> None:
    """The Rubik rules of the registry (golden/units/rubik/rules.py)."""
    registry.enforce("RUBIK", cfg, facts, strict)


def run(ctx: LayerContext, upstream: np.ndarray | None = None) -> UnitResult:
    """One Rubik hardware layer programmed in ctx.regs."""
    if upstream is not None:
        raise ConfigurationError("Rubik reads memory only; it takes no on-the-fly input",
                                 fields=("RBK.D_OP_ENABLE.OP_EN",), rule=GUIDE)
    layer = RubikLayer.decode(ctx.regs, ctx.profile)
    validate(layer, registry.Facts(ctx.regs, ctx.profile))
    _check_disjoint(layer, _planned_surface(layer))
    surface = getattr(layer, layer.mode.lower())(ctx.memory)
    # Stall counters are timing quantities; the golden model has no clock and reports 0.
    return UnitResult(status={(GROUP, "D_PERF_READ_STALL"): 0, (GROUP, "D_PERF_WRITE_STALL"): 0},
                      surfaces=[surface])


UNIT = Unit("rubik", "RUBIK", ("RBK",), run, RubikLayer.decode, validate, rules=("golden.units.rubik.rules",),
            interrupts={"RBK": ("RUBIK",)}, output="RBK", switch="RUBIK", prefixes=("rubik",), hdl=("rubik", "rbk"),
            moves_bytes=True)
