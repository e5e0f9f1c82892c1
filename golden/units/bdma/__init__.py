"""BDMA: the bridge DMA that copies lines and surfaces between DRAM (MC) and CV-SRAM (CV).

One *operation* copies SURF_REPEAT+1 surfaces of LINE_REPEAT+1 lines of (LINE.SIZE+1)*32 bytes;
source and destination have their own line and surface strides and memory (CFG_CMD: 1 = MC,
the primary memory; 0 = CV-SRAM, the secondary one). Unlike the other units BDMA has no ping-pong
D_ registers: software writes an operation's CFG_* registers, then CFG_OP.EN = 1 caches them in one
of 20 slots; CFG_LAUNCH0/1.GRP<g>_LAUNCH = 1 closes a *group* of the cached operations, which the
hardware then executes and signals with GLB.S_INTR_STATUS.BDMA_DONE_STATUS<g>
(programming-guide: BDMA programming).

The slots and groups are one state machine in golden/regs/regfile.py (CFG_OP.EN caches an
operation, CFG_LAUNCH<g> closes a group, STATUS.FREE_SLOT/IDLE/GRP<g>_BUSY); golden/player.py
runs a launched group when time passes: `validate_group(profile, [RegisterValues per operation],
group)` (not empty, one DST_RAM_TYPE, every operation valid), then `run(ctx)` once per operation.
`run(ctx)` is the standard unit entry point: one operation from ctx.regs (the CFG_* registers),
validated and executed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from golden import rules as registry
from golden.config import Profile
from golden.errors import ConfigurationError, MemoryAccessError
from golden.memory import Memory, MemorySystem
from golden.regs.regmap import RegisterMap
from golden.regs.values import RegisterValues
from golden.units.base import LayerContext, Surface, UnitResult
from golden.units.declaration import Unit

GROUP = "BDMA"
ATOM = 32
GUIDE = "programming-guide: BDMA programming"
LIMIT = "programming-guide: Limitation/BDMA"
RDL = "register map (NVIDIA SystemRDL) NVDLA_BDMA"
#: Registers of one operation (cached in a slot by CFG_OP.EN).
OPERATION_REGISTERS = (
    "CFG_SRC_ADDR_LOW", "CFG_SRC_ADDR_HIGH", "CFG_DST_ADDR_LOW", "CFG_DST_ADDR_HIGH", "CFG_LINE",
    "CFG_CMD", "CFG_LINE_REPEAT", "CFG_SRC_LINE", "CFG_DST_LINE", "CFG_SURF_REPEAT", "CFG_SRC_SURF",
    "CFG_DST_SURF",
)
#: Registers holding 32-byte units in bits [31:5]; software writing bits [4:0] asked for something else.
ALIGNED_REGISTERS = ("CFG_SRC_ADDR_LOW", "CFG_DST_ADDR_LOW", "CFG_SRC_LINE", "CFG_DST_LINE",
                     "CFG_SRC_SURF", "CFG_DST_SURF")
STALL_COUNTERS = ("STATUS_GRP0_READ_STALL", "STATUS_GRP0_WRITE_STALL", "STATUS_GRP1_READ_STALL",
                  "STATUS_GRP1_WRITE_STALL")


# -- strided row copies (shared with golden.units.rubik) -------------------------------------------
def read_rows(memory: Memory, offsets, length: int) -> np.ndarray:
    """The `length` bytes at each address of `offsets`, as an (n, length) np.uint8 array."""
    return memory.read_lines(offsets, length, who="BDMA")


def write_rows(memory: Memory, offsets, rows: np.ndarray) -> None:
    """Write row i of `rows` at address offsets[i], in order (a later row wins on overlap)."""
    memory.write_lines(offsets, rows)


def grid_offsets(base: int, strides, counts) -> np.ndarray:
    """base + sum(i_k * stride_k) over the index grid, outermost index first, flattened."""
    last = base + sum((count - 1) * stride for stride, count in zip(strides, counts, strict=True))
    if last >= 1 << 62:
        raise MemoryAccessError("the golden model keeps addresses below 2**62", address=last,
                                rule="golden model: address range")
    offsets = np.full(1, base, np.int64)
    for stride, count in zip(strides, counts, strict=True):
        offsets = (offsets[:, None] + np.arange(count, dtype=np.int64) * stride).reshape(-1)
    return offsets


def rows_overlap(first: np.ndarray, second: np.ndarray, length_first: int, length_second: int) -> bool:
    """Whether a row [a, a+length_first) of `first` overlaps a row of `second`.

    The rows of `first` must not overlap each other (validated strides guarantee it); any order.
    """
    order = np.sort(first)
    starts = np.sort(second)
    index = np.searchsorted(order, starts + length_second, side="left") - 1
    valid = index >= 0
    return bool(np.any(order[index[valid]] + length_first > starts[valid]))


# -- one operation -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class BdmaOperation:
    src_addr: int
    dst_addr: int
    line_bytes: int
    lines: int
    surfaces: int
    src_line_stride: int
    dst_line_stride: int
    src_surf_stride: int
    dst_surf_stride: int
    src_cvsram: bool
    dst_cvsram: bool

    @classmethod
    def from_registers(cls, regmap: RegisterMap, raw: dict[str, int]) -> BdmaOperation:
        """Decode the operation from raw CFG_* register values (name without unit -> 32-bit value)."""
        _check_raw(regmap, raw)

        def field(name: str, fld: str) -> int:
            reg = regmap.get(GROUP, name)
            return reg.field(fld).decode(raw.get(name, reg.reset))

        cmd = regmap.get(GROUP, "CFG_CMD")
        return cls(
            src_addr=(field("CFG_SRC_ADDR_HIGH", "V8") << 32) | field("CFG_SRC_ADDR_LOW", "V32") << 5,
            dst_addr=(field("CFG_DST_ADDR_HIGH", "V8") << 32) | field("CFG_DST_ADDR_LOW", "V32") << 5,
            line_bytes=(field("CFG_LINE", "SIZE") + 1) * ATOM,
            lines=field("CFG_LINE_REPEAT", "NUMBER") + 1,
            surfaces=field("CFG_SURF_REPEAT", "NUMBER") + 1,
            src_line_stride=field("CFG_SRC_LINE", "STRIDE") << 5,
            dst_line_stride=field("CFG_DST_LINE", "STRIDE") << 5,
            src_surf_stride=field("CFG_SRC_SURF", "STRIDE") << 5,
            dst_surf_stride=field("CFG_DST_SURF", "STRIDE") << 5,
            src_cvsram=cmd.field("SRC_RAM_TYPE").decode(raw.get("CFG_CMD", cmd.reset)) == 0,
            dst_cvsram=cmd.field("DST_RAM_TYPE").decode(raw.get("CFG_CMD", cmd.reset)) == 0,
        )

    @property
    def size(self) -> int:
        """Bytes moved: (LINE.SIZE+1)*32 * (LINE_REPEAT+1) * (SURF_REPEAT+1) (the guide's
        "actual_size" formula writes CFG_LINE-1; the RDL and cmod/bdma count SIZE+1 atoms)."""
        return self.line_bytes * self.lines * self.surfaces

    def source_offsets(self) -> np.ndarray:
        return grid_offsets(self.src_addr, (self.src_surf_stride, self.src_line_stride),
                            (self.surfaces, self.lines))

    def destination_offsets(self) -> np.ndarray:
        return grid_offsets(self.dst_addr, (self.dst_surf_stride, self.dst_line_stride),
                            (self.surfaces, self.lines))

    def check(self, profile: Profile) -> None:
        """The profile's features, the operation's own rules (a group of one), disjoint buffers."""
        profile.require("BDMA", "a BDMA copy", fields=("BDMA.CFG_OP.EN",))
        for cvsram, side in ((self.src_cvsram, "SRC"), (self.dst_cvsram, "DST")):
            if cvsram:
                profile.require("SECONDARY_MEMIF", f"a BDMA copy with {side}_RAM_TYPE=CVSRAM",
                                fields=(f"BDMA.CFG_CMD.{side}_RAM_TYPE",))
        registry.enforce("BDMA", BdmaGroup((self,)), registry.Facts(profile=profile))
        if self.src_cvsram == self.dst_cvsram and rows_overlap(
                self.source_offsets(), self.destination_offsets(), self.line_bytes, self.line_bytes):
            raise ConfigurationError(
                "source and destination bytes overlap; the hardware streams reads ahead of writes, "
                "so the result is not defined",
                fields=("BDMA.CFG_SRC_ADDR_LOW", "BDMA.CFG_DST_ADDR_LOW"),
                rule="golden model: BDMA copies between disjoint buffers")

    def execute(self, memory: MemorySystem) -> Surface:
        """Copy the lines; returns the destination as a surface of 32-byte atoms."""
        rows = read_rows(memory.select(self.src_cvsram), self.source_offsets(), self.line_bytes)
        destination = memory.select(self.dst_cvsram)
        write_rows(destination, self.destination_offsets(), rows)
        return Surface(destination.name, self.dst_addr, (self.surfaces * ATOM, self.lines,
                                                         self.line_bytes // ATOM),
                       "int8", self.dst_line_stride, self.dst_surf_stride, ATOM, name="BDMA destination")


def _check_raw(regmap: RegisterMap, raw: dict[str, int]) -> None:
    """Bits the registers drop: 32-byte units in [31:5], reserved repeat bits, a 40-bit address."""
    for name in ALIGNED_REGISTERS:
        value = raw.get(name, 0)
        if value & (ATOM - 1):
            field = regmap.get(GROUP, name).fields[0].name
            raise ConfigurationError(
                f"{name} = {value:#x} is not a multiple of 32; the register keeps bits [31:5] only",
                fields=(f"BDMA.{name}.{field}",), rule=f"{RDL} ({name}: 32-byte units)")
    for name in ("CFG_LINE_REPEAT", "CFG_SURF_REPEAT"):
        if raw.get(name, 0) >> 13 & 0x7FF:
            raise ConfigurationError(
                f"{name} = {raw[name]:#x}: NUMBER is 0..0x1fff, bits [23:13] are reserved and must be 0",
                fields=(f"BDMA.{name}.NUMBER",), rule=f"{RDL} ({name})")
    for name in ("CFG_SRC_ADDR_HIGH", "CFG_DST_ADDR_HIGH"):
        if raw.get(name, 0) >> 8:
            raise ConfigurationError(
                f"{name} = {raw[name]:#x}: BDMA addresses are 40 bits (HIGH holds bits [39:32])",
                fields=(f"BDMA.{name}.V8",), rule=f"{RDL} ({name})")


def operation_from(regs: RegisterValues) -> BdmaOperation:
    """The operation whose CFG_* registers `regs` holds."""
    return BdmaOperation.from_registers(regs.regmap, {name: regs.value(GROUP, name) for name in OPERATION_REGISTERS})


@dataclass(frozen=True)
class BdmaGroup:
    """What the BDMA rules (golden/units/bdma/rules.py, golden/units/dma_rules.py) judge: the operations of one
    launched group, or one operation run on its own (`group` None: the group rules do not apply)."""
    operations: tuple[BdmaOperation, ...]
    group: int | None = None


def validate(cfg: BdmaGroup, facts: registry.Facts, strict: bool = False) -> None:
    """Each operation's checks, then (for a launched group) the group rules of the registry."""
    assert facts.profile is not None, "a layer's rules are judged with its profile"
    for op in cfg.operations:
        op.check(facts.profile)
    if cfg.group is not None:
        registry.enforce("BDMA", cfg, facts, strict)


def validate_group(profile: Profile, operations: list[RegisterValues], group: int) -> None:
    """The group-level rules for a player that queues operations itself (golden/regs/regfile.py):
    call before running the operations of a launched group, one RegisterValues per operation."""
    validate(BdmaGroup(tuple(operation_from(regs) for regs in operations), group), registry.Facts(profile=profile))


def run(ctx: LayerContext, upstream: np.ndarray | None = None) -> UnitResult:
    """One BDMA operation programmed in ctx.regs (CFG_*), executed at once."""
    ctx.profile.require("BDMA", "a BDMA copy", fields=("BDMA.CFG_OP.EN",))
    if upstream is not None:
        raise ConfigurationError("BDMA reads memory only; it takes no on-the-fly input",
                                 fields=("BDMA.CFG_OP.EN",), rule=GUIDE)
    operation = operation_from(ctx.regs)
    operation.check(ctx.profile)
    surface = operation.execute(ctx.memory)
    return UnitResult(status={(GROUP, name): 0 for name in STALL_COUNTERS}, surfaces=[surface])


def decode(regs: RegisterValues, profile=None) -> BdmaGroup:
    """One operation on its own, as its rules judge it (a launched group: validate_group)."""
    return BdmaGroup((operation_from(regs),))


UNIT = Unit("bdma", "BDMA", ("BDMA",), run, decode, validate,
            rules=("golden.units.bdma.rules", "golden.units.dma_rules"), interrupts={"BDMA": ("BDMA",)},
            switch="BDMA", pipelines=None, prefixes=("bdma",), hdl=("bdma",), validate_group=validate_group)
