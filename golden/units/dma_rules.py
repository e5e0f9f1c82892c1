"""Every DMA's start-address and stride rules, registered in golden/rules.py under the unit that validates it.

A DMA is described once (`Dma`): its rule id prefix, the unit whose validation runs it, the Table 35 row, the
register field of each Table 35 column it programs, and where its surface is in the unit's decoded
configuration (None when the layer does not use that DMA). From that come its rules:

* <DMA>-ALIGN: in-memory-data-formats Table 35 (Alignment of Start Address and Stride) for the row's columns
  (golden/formats/alignment.py holds the table and scales the feature rows to the profile's memory atom);
* <DMA>-LINE-STRIDE: programming-guide Limitation/Data Format: a line stride holds one line (more than one line);
* <DMA>-SURFACE-STRIDE: in-memory-data-formats Feature Data Format: a surface starts after the previous
  surface's last line (more than one surface).

BDMA operations have their own line/surface rules (programming-guide: BDMA programming/Buffer allocation); their
addresses and strides are 32-byte units in the registers (golden/units/bdma.py rejects low bits before decoding).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from golden.formats import alignment
from golden.formats import auxiliary as aux
from golden.formats.feature import element_bytes
from golden.rules import rule
from golden.units.sdp.rules import layout_surfaces  # the SDP's own choice of the surfaces it uses

TABLE35 = "in-memory-data-formats: Table 35 (Alignment of Start Address and Stride)"
DATA_FORMAT = "programming-guide: Limitation/Data Format (LINE_STRIDE)"
FEATURE_FORMAT = "in-memory-data-formats: Feature Data Format (surface stride)"


@dataclass(frozen=True)
class DmaSurface:
    """What a DMA reads or writes, in bytes: the Table 35 values and the size of a line and of the cube."""
    start_address: int
    line_stride: int | None = None
    surface_stride: int | None = None
    planar_stride: int | None = None
    line_bytes: int = 0
    lines: int = 1
    surfaces: int = 1
    #: An SDP operand's atom (BytesPerAtom), when it is not the memory atom: its strides align to it.
    operand_atom: int | None = None


@dataclass(frozen=True)
class Dma:
    id: str  # rule id prefix: PDP-RDMA-SRC, CONV-CDMA-FEATURE, ...
    unit: str  # the registry unit that validates it
    row: str  # Table 35 row (golden/formats/alignment.ROWS)
    fields: dict  # Table 35 column -> "UNIT.REGISTER.FIELD"
    surface: Callable  # (cfg, facts) -> DmaSurface | None
    strides: bool = True  # also register the line / surface stride rules
    line_rule: bool = True  # False where the unit registers its own line stride rule (SDP)
    align: int | None = None  # a fixed alignment instead of the table's (see the DMA's note)
    note: str = ""

    def required(self, column: str, atom: int, surface: DmaSurface | None = None) -> int | None:
        """The alignment of one column for this layer (None: Table 35 says NA)."""
        table = alignment.required_alignment(self.row, column, atom)
        if table is None:
            return None
        if surface is not None and surface.operand_atom and column != "start_address":
            return min(table, surface.operand_atom)
        return self.align or table


DMAS: dict[str, Dma] = {}


def _surfaces(channels: int, precision: str, atom: int) -> int:
    return -(-channels * element_bytes(precision) // atom)


def register(dma: Dma) -> Dma:
    """Register the DMA's rules (only the Table 35 columns its row has are its alignment fields)."""
    fields = {column: name for column, name in dma.fields.items()
              if alignment.required_alignment(dma.row, column) is not None}
    dma = Dma(dma.id, dma.unit, dma.row, fields, dma.surface, dma.strides, dma.line_rule, dma.align, dma.note)
    DMAS[dma.id] = dma
    source = TABLE35 + f", row '{alignment.ROWS[dma.row]}'" + (f" ({dma.note})" if dma.note else "")

    @rule(f"{dma.id}-ALIGN", dma.unit, source, tuple(dma.fields.values()),
          f"{dma.id.lower()}: start address and strides are aligned as Table 35 asks")
    def aligned(cfg, facts):
        surface = dma.surface(cfg, facts)
        if surface is None:
            return None
        for column, name in dma.fields.items():
            value, align = getattr(surface, column), dma.required(column, facts.atom, surface)
            if value is not None and align and value % align:
                return f"{name} = {value:#x}: " + alignment.describe(dma.row, column, value, align)

    if not dma.strides:
        return dma
    line_field, surface_field = dma.fields["line_stride"], dma.fields.get("surface_stride")
    if dma.line_rule:
        @rule(f"{dma.id}-LINE-STRIDE", dma.unit, DATA_FORMAT, (line_field,),
              f"{dma.id.lower()}: the line stride holds one line")
        def line_stride(cfg, facts):
            surface = dma.surface(cfg, facts)
            if surface is not None and surface.lines > 1 and surface.line_stride < surface.line_bytes:
                return (f"{line_field} = {surface.line_stride:#x} is smaller than a line "
                        f"({surface.line_bytes:#x} bytes)")

    if surface_field is not None:
        @rule(f"{dma.id}-SURFACE-STRIDE", dma.unit, FEATURE_FORMAT, (surface_field, line_field),
              f"{dma.id.lower()}: a surface starts after the previous surface's last line")
        def surface_stride(cfg, facts):
            surface = dma.surface(cfg, facts)
            if surface is None or surface.surfaces < 2:
                return None
            needed = surface.line_stride * (surface.lines - 1) + surface.line_bytes
            if surface.surface_stride < needed:
                return (f"{surface_field} = {surface.surface_stride:#x} overlaps the previous surface "
                        f"(LINE_STRIDE * (height - 1) + one line = {needed:#x} bytes)")
    return dma


def _feature(unit: str, prefix: str, names: tuple[str, ...]) -> dict:
    register_names = ("BASE_ADDR_LOW", "LINE_STRIDE", "SURFACE_STRIDE")
    return {column: f"{unit}.{prefix}{reg}.{name}" for column, reg, name in
            zip(("start_address", "line_stride", "surface_stride"), register_names, names, strict=True)}


def _cube(address: tuple, shape: tuple, precision: str, atom: int) -> DmaSurface:
    """A feature cube's DmaSurface from (address, line stride, surface stride, ...) and (C, H, W)."""
    channels, height, width = shape
    return DmaSurface(address[0], address[1], address[2], line_bytes=width * atom, lines=height,
                      surfaces=_surfaces(channels, precision, atom))


# -- PDP: PDP_RDMA reads offline, PDP writes -----------------------------------------------------------------
register(Dma("PDP-RDMA-SRC", "PDP", "feature",
             _feature("PDP_RDMA", "D_SRC_", ("SRC_BASE_ADDR_LOW", "SRC_LINE_STRIDE", "SRC_SURFACE_STRIDE")),
             lambda cfg, facts: None if cfg.on_the_fly else _cube(
                 cfg.src, (cfg.channels, cfg.in_height, cfg.in_width), cfg.precision, facts.atom)))
register(Dma("PDP-DST", "PDP", "feature",
             _feature("PDP", "D_DST_", ("DST_BASE_ADDR_LOW", "DST_LINE_STRIDE", "DST_SURFACE_STRIDE")),
             lambda cfg, facts: _cube(cfg.dst, (cfg.channels, cfg.out_height, cfg.out_width), cfg.precision,
                                      facts.atom)))

# -- CDP: CDP_RDMA reads, CDP writes the same shape ----------------------------------------------------------
register(Dma("CDP-RDMA-SRC", "CDP", "feature",
             _feature("CDP_RDMA", "D_SRC_", ("SRC_BASE_ADDR_LOW", "SRC_LINE_STRIDE", "SRC_SURFACE_STRIDE")),
             lambda cfg, facts: _cube(cfg.src, cfg.shape, cfg.precision, facts.atom)))
register(Dma("CDP-DST", "CDP", "feature",
             _feature("CDP", "D_DST_", ("DST_BASE_ADDR_LOW", "DST_LINE_STRIDE", "DST_SURFACE_STRIDE")),
             lambda cfg, facts: _cube(cfg.dst, cfg.shape, cfg.precision, facts.atom)))


# -- SDP: SDP_RDMA's main input (offline), the destination, and the B / N / E operand reads -------------------
def _sdp_surface(prefix: str):
    def surface(cfg, facts):
        for name, surf, precision in layout_surfaces(cfg):
            if name == prefix:
                return DmaSurface(surf.base, surf.line_stride, surf.surface_stride, line_bytes=cfg.width * facts.atom,
                                  lines=cfg.height, surfaces=_surfaces(cfg.channel, precision, facts.atom))
        return None
    return surface


register(Dma("SDP-SRC", "SDP", "feature",
             _feature("SDP_RDMA", "D_SRC_", ("SRC_BASE_ADDR_LOW", "SRC_LINE_STRIDE", "SRC_SURFACE_STRIDE")),
             _sdp_surface("SDP_RDMA.D_SRC"), line_rule=False))
register(Dma("SDP-DST", "SDP", "feature",
             _feature("SDP", "D_DST_", ("DST_BASE_ADDR_LOW", "DST_LINE_STRIDE", "DST_SURFACE_STRIDE")),
             _sdp_surface("SDP.D_DST"), line_rule=False))

#: operand DMA letter -> (register name, SdpConfig stage attribute, Table 35 row)
OPERANDS = {"B": ("BS", "x1", "bias"), "N": ("BN", "x2", "bn"), "E": ("EW", "y", "ew")}


def _operand_surface(letter: str):
    def surface(cfg, facts):
        dma = cfg.dmas[letter]
        if dma.disable:
            return None
        per_element = dma.mode == "PER_ELEMENT"  # a per-channel operand is one vector: no lines or surfaces
        operand_atom = aux.bytes_per_atom(cfg.proc_precision, dma.use, dma.size, facts.atom)
        return DmaSurface(dma.base, dma.line_stride if per_element else None,
                          dma.surface_stride if per_element else None, operand_atom=operand_atom)
    return surface


for _letter, (_reg, _stage, _row) in OPERANDS.items():
    # The row is the operand's DMA (BRDMA: Bias; NRDMA: Batch Normalization, start address only; ERDMA:
    # Element-wise); a PReLU or batch-normalization operand read by BRDMA is not told apart (same start rule).
    # Table 35's 32 bytes is one atom, and an operand atom is BytesPerAtom (in-memory-data-formats: Element-Wise
    # Data Format: "one atom contains 1x1x32Bytes data, but it's no longer true for" these formats), 16 bytes
    # for INT16 processing with one-byte operands: the line and surface strides align to the smaller.
    register(Dma(f"SDP-{_letter}RDMA", "SDP", _row,
                 _feature("SDP_RDMA", f"D_{_reg}_", tuple(f"{_reg}_{n}" for n in
                                                          ("BASE_ADDR_LOW", "LINE_STRIDE", "SURFACE_STRIDE"))),
                 _operand_surface(_letter), strides=False))


# -- convolution: CDMA's feature or pixel input, weights, WMB and WGS -----------------------------------------
def _conv_feature(cfg, facts):
    if cfg.image:
        return None
    surface = _cube((cfg.data_addr, cfg.line_stride, cfg.surf_stride), (cfg.channels, cfg.height, cfg.width),
                    cfg.in_precision, facts.atom)
    return DmaSurface(surface.start_address, surface.line_stride, surface.surface_stride,
                      cfg.batch_stride if cfg.batches > 1 else None, surface.line_bytes, surface.lines,
                      surface.surfaces)


CDMA_FEATURE = {"start_address": "CDMA.D_DAIN_ADDR_LOW_0.DATAIN_ADDR_LOW_0",
                "line_stride": "CDMA.D_LINE_STRIDE.LINE_STRIDE", "surface_stride": "CDMA.D_SURF_STRIDE.SURF_STRIDE",
                "planar_stride": "CDMA.D_BATCH_STRIDE.BATCH_STRIDE"}
register(Dma("CONV-CDMA-FEATURE", "CONV", "feature", CDMA_FEATURE, _conv_feature))
register(Dma("CONV-CDMA-PIXEL", "CONV", "pixel",
             {"start_address": CDMA_FEATURE["start_address"], "line_stride": CDMA_FEATURE["line_stride"]},
             lambda cfg, facts: DmaSurface(cfg.data_addr, cfg.line_stride) if cfg.image else None,
             strides=False, align=32, note="32 bytes on every profile"))
# Table 35 asks 256 bytes for weights, WMB and WGS, but NVIDIA's googlenet_conv2_3x3_int16 trace passes with
# weights at 0x5002dfe0: the rule asks 32 bytes, what the hardware evidently accepts.
_WEIGHT_NOTE = "32 bytes: NVIDIA's googlenet_conv2_3x3_int16 trace programs weights at 0x5002dfe0"
register(Dma("CONV-CDMA-WEIGHT", "CONV", "weight", {"start_address": "CDMA.D_WEIGHT_ADDR_LOW.WEIGHT_ADDR_LOW"},
             lambda cfg, facts: DmaSurface(cfg.weight_addr), strides=False, align=32, note=_WEIGHT_NOTE))


def _compressed_only(attr: str):
    def surface(cfg, facts):
        return DmaSurface(getattr(cfg, attr)) if cfg.weight_format == "compressed" else None
    return surface


for _name in ("WMB", "WGS"):
    register(Dma(f"CONV-CDMA-{_name}", "CONV", _name.lower(),
                 {"start_address": f"CDMA.D_{_name}_ADDR_LOW.{_name}_ADDR_LOW"},
                 _compressed_only(f"{_name.lower()}_addr"), strides=False, align=32, note=_WEIGHT_NOTE))


# -- BDMA: each operation's source and destination (cfg: golden.units.bdma.BdmaGroup) -------------------------
BDMA_SOURCE = "programming-guide: BDMA programming/Buffer allocation"


def _each_operation(check):
    """A group rule from a rule of one operation: the first operation that breaks it, named by its index."""
    def group_check(group, facts):
        for index, op in enumerate(group.operations):
            if (message := check(op)) is not None:
                return message if len(group.operations) == 1 else f"operation {index}: {message}"
    return group_check


def _bdma_rules(side: str) -> None:
    low = side.lower()
    line_field, surface_field = f"BDMA.CFG_{side}_LINE.STRIDE", f"BDMA.CFG_{side}_SURF.STRIDE"

    @rule(f"BDMA-{side}-LINE-STRIDE", "BDMA", BDMA_SOURCE, (line_field, "BDMA.CFG_LINE.SIZE"),
          f"the {low} line stride holds one line (CFG_{side}_LINE is the bytes per line, padding included)",
          )
    @_each_operation
    def line_stride(op):
        line = getattr(op, f"{low}_line_stride")
        if op.lines > 1 and line < op.line_bytes:
            return (f"{side} line stride {line:#x} is smaller than the {op.line_bytes}-byte line "
                    "(CFG_<SRC|DST>_LINE is the total bytes per line, padding included)")

    @rule(f"BDMA-{side}-SURFACE-STRIDE", "BDMA", BDMA_SOURCE, (surface_field, line_field),
          f"the {low} surface stride holds one surface of lines")
    @_each_operation
    def surface_stride(op):
        line, surf = getattr(op, f"{low}_line_stride"), getattr(op, f"{low}_surf_stride")
        surface_bytes = (op.lines - 1) * line + op.line_bytes
        if op.surfaces > 1 and surf < surface_bytes:
            return f"{side} surface stride {surf:#x} is smaller than one surface ({surface_bytes:#x} bytes)"


for _side in ("SRC", "DST"):
    _bdma_rules(_side)
