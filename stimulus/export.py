"""Layers written as an NVIDIA trace whose checks hold the golden model's results.

`write_trace(layers, folder, name, profile)` writes the trace in the form NVIDIA uses for the profile's
register layout, in the folder layout of NVIDIA's tests, so that `nvdla-verif conform` and NVIDIA's trace
players can replay it:

* master layout (nv_small, nv_large, ...): `folder/name.cfg` (trace_tests) with one `.dat` file per memory
  image (record syntax) and `check_crc` lines holding the golden model's CRCs;
* nvdlav1 layout (nv_full): `folder/input.txn` (nvdlav1 traceplayer, ../shared/nvdla/README.md
  "traceplayer/"): `load_mem`, `write_reg` at the CSB word address with the 0xffff flag bits, a `wait`, a
  polled `read_reg` of the awaited done interrupts' GLB.S_INTR_STATUS bits and their clear, and `dump_mem`
  against a golden `.dat` file of the golden model's bytes.

Each unit alternates register groups 0 and 1 (S_POINTER) over the layers that use it, starting at 0 (its
consumer pointer starts there), back to back: every layer is programmed and launched before the first
completion is awaited, so a layer must not read what an earlier one writes (the generators give each layer its
own address slot, `apart` checks it), unless it `waits`: then the trace first waits for the earlier layers'
done interrupts. A layer with register checks (`Layer.reads`, e.g. SDP's EQL D_STATUS) is awaited right after
its launch and its registers read from its own group.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from golden.config import Profile
from golden.errors import NvdlaVerifError
from golden.hardware import INTERRUPTS
from golden.implementation import Golden
from golden.memory import format_records
from golden.memory_files import format_byte_lines
from golden.player import observe, play, prepare
from golden.regs.regmap import RegisterMap
from golden.status import Ending
from golden.steps import ReadRegister
from golden.trace import (
    CheckCrc,
    CheckFile,
    CheckNothing,
    Command,
    IntrNotify,
    MemLoad,
    RegRead,
    RegWrite,
    Trace,
    Wait,
    write_cfg,
)
from golden.units.lut import is_parameter
from stimulus.layer import Layer

TXN = "input.txn"
#: Done-interrupt source -> the unit whose register group it reports (RUBIK -> RBK; the unit declarations).
INTERRUPT_UNITS = {source: group for group, sources in INTERRUPTS.items() for source in sources}
#: Units whose done interrupt a layer may end on.
WATCHED = ("SDP", "PDP", "CDP")


class GenerationError(NvdlaVerifError):
    """A generated layer that cannot be written or that the golden model does not run."""


class _Writer:
    """The commands of a trace of layers in one form ("cfg" or "txn"), checks still without results."""

    def __init__(self, layers: list[Layer], folder: Path, name: str, regmap: RegisterMap, form: str):
        self.layers, self.folder, self.name, self.regmap, self.form = layers, folder, name, regmap, form
        self.where = {"path": str(folder / (f"{name}.cfg" if form == "cfg" else TXN)), "line": 0}
        self.commands: list[Command] = []

    def write(self, unit: str, register: str, value: int) -> None:
        self.commands.append(RegWrite(**self.where, register=self.regmap.get(unit, register),
                                      value=value & 0xFFFFFFFF))

    def _pointer(self, unit: str, group: int) -> None:
        if any(r.name == "S_POINTER" for r in self.regmap.registers(unit)):
            self.write(unit, "S_POINTER", self.regmap.get(unit, "S_POINTER").encode(PRODUCER=group))

    def _image(self, index: int, image) -> None:
        dat = f"{self.name}_{index}_{image.label}.dat"
        data = np.frombuffer(image.data, np.uint8)
        if self.form == "txn":
            # the traceplayer tells the memories apart by address: CV-SRAM at 0x5xxxxxxx
            if (image.base >> 28 == 0x5) != (image.memory == "sec_mem"):
                raise GenerationError(f"image {image.label} at {image.base:#x} in {image.memory}: an input.txn "
                                      "addresses CV-SRAM at 0x5xxxxxxx and DRAM elsewhere")
            (self.folder / dat).write_text(format_byte_lines(data))
            self.commands.append(MemLoad(**self.where, memory=image.memory, base=image.base, file=dat,
                                         size=data.size))
        else:
            (self.folder / dat).write_text(format_records([(0, data)]))
            self.commands.append(MemLoad(**self.where, memory=image.memory, base=image.base, file=dat))

    def _await(self, bits: int) -> None:
        """txn: wait for the done interrupts `bits` (GLB.S_INTR_STATUS), then clear them. A `wait` per interrupt
        is not a count: NVIDIA's harnesses wait for the line's level, which stays high for some cycles after a
        clear (rtl/bench/sequences.py), so a layer that never finishes would pass its waits and be dumped
        half-done. The `wait` lets NVIDIA's players see the first interrupt; the polled read then holds until
        every bit is set (the bench and the golden model poll a read_reg until the trace's timeout; NVIDIA's
        verilator harness retries it 10 times)."""
        if bits:
            status = self.regmap.get("GLB", "S_INTR_STATUS")
            self.commands.append(Wait(**self.where))
            self.commands.append(RegRead(**self.where, register=status, mask=bits, expected=bits, poll=True))
            self.write("GLB", "S_INTR_STATUS", bits)

    def _interrupt_bits(self, layer: Layer, launches: dict[str, int]) -> int:
        """The GLB.S_INTR_STATUS bits of the done interrupts the layer raises (golden.hardware.INTERRUPTS), in
        the register group each unit runs it in."""
        status = self.regmap.get("GLB", "S_INTR_STATUS")
        units = {*layer.enable, INTERRUPT_UNITS.get(layer.interrupt, layer.interrupt)}
        return sum(1 << status.field(f"{source}_DONE_STATUS{launches.get(unit, 0) % 2}").lsb
                   for unit in units for source in INTERRUPTS.get(unit, ()))

    def build(self) -> list[Command]:
        """Programming, launches, waits and placeholder checks (CRC 0, read value 0)."""
        apart(self.layers)
        self.write("GLB", "S_INTR_MASK", 0)
        regions: list[Command] = []
        later: list[CheckNothing] = []
        syncs: list[str] = []  # cfg: the done interrupts not yet waited for
        pending = 0  # txn: the same, as GLB.S_INTR_STATUS bits
        tables: set[tuple] = set()
        launches: dict[str, int] = {}  # unit -> layers that used it so far: its next register group is this % 2
        unawaited: dict[str, int] = {}  # unit -> its layers launched since the last wait
        shared: dict[tuple[str, str], int] = {}  # the single S_LUT_* parameters as the trace last wrote them
        for index, layer in enumerate(self.layers):
            # A register group is written again only once the layer that last used it is done: nvdlav1's
            # register files drop writes to a group whose OP_EN is set (vmod NV_NVDLA_RUBIK_regfile.v:
            # d0_reg_wr_en = reg_wr_en & select_d0 & ~reg2dp_d0_op_en, asserting "Write group 0 registers
            # when OP_EN is set"; every unit's *_regfile.v alike), however fast the golden model ran it.
            # (BDMA's layers program through `writes` alone: its done unit stands for it.) BDMA has no OP_EN but
            # the same two groups: an operation enabled while both are busy is refused (programming-guide,
            # Limitation/BDMA; golden/regs/regfile.py).
            done_unit = INTERRUPT_UNITS.get(layer.interrupt, layer.interrupt)
            reuses = any(unawaited.get(unit, 0) >= 2 for unit in {*layer.units(), done_unit})
            programming = layer.register_writes(self.regmap)
            # The S_LUT_* parameters are single registers the datapath reads live (golden.hardware
            # SharedRegisterRace): new values wait until the unit's earlier layers are done.
            changes_shared = any(unawaited.get(unit) and shared.get((unit, register), value) != value
                                 for unit, register, value in programming if is_parameter(register))
            shared.update({(unit, register): value for unit, register, value in programming
                           if is_parameter(register)})
            if layer.waits or reuses or changes_shared:
                unawaited.clear()
                self.commands += [CheckNothing(**self.where, sync=sync) for sync in syncs]
                syncs.clear()
                self._await(pending)
                pending = 0
            for image in layer.images:
                self._image(index, image)
            for unit in layer.units():
                self._pointer(unit, launches.get(unit, 0) % 2)
            writes = tuple(layer.writes)
            if writes in tables and all(register.startswith("S_LUT_ACCESS") for _, register, _ in writes):
                writes = ()  # the trace's LUT contents are written once, not again while a layer may read them
            tables.add(writes)
            for unit, register, value in writes:
                self.write(unit, register, value)
            for unit, register, value in programming:
                self.write(unit, register, value)
            for unit in layer.enable_order():
                self.write(unit, "D_OP_ENABLE", 1)
            sync = f"layer{index}_done"
            if self.form == "cfg":
                group = launches.get(done_unit, 0) % 2
                self.commands.append(IntrNotify(**self.where, source=f"{layer.interrupt}_{group}", sync=sync))
                syncs.append(sync)
                # the other done interrupts a later layer watches (SDP's, when PDP ends the layer): consumed here,
                # as NVIDIA's sdp_pdp traces do, or a later layer's watch would fire on this one's bit
                for unit in (u for u in WATCHED if u in layer.enable and u != done_unit):
                    extra = f"layer{index}_{unit.lower()}"
                    self.commands.append(IntrNotify(**self.where, source=f"{unit}_{launches.get(unit, 0) % 2}",
                                                    sync=extra))
                    later.append(CheckNothing(**self.where, sync=extra))
            else:
                pending |= self._interrupt_bits(layer, launches)
            if layer.reads:
                if self.form == "cfg":
                    self.commands.append(CheckNothing(**self.where, sync=sync))
                    syncs.remove(sync)
                self._await(pending)
                pending = 0
                unawaited.clear()
                for unit, register, mask in layer.reads:
                    self._pointer(unit, launches.get(unit, 0) % 2)
                    self.commands.append(RegRead(**self.where, register=self.regmap.get(unit, register), mask=mask,
                                                 expected=0, poll=False))
            for unit in {*layer.enable, done_unit}:
                launches[unit] = launches.get(unit, 0) + 1
                unawaited[unit] = unawaited.get(unit, 0) + 1
            regions += [CheckCrc(**self.where, sync=sync if self.form == "cfg" else None, memory=region.memory,
                                 base=region.base, size=region.size, crc=0) for region in layer.checks]
        self._await(pending)
        return self.commands + regions + later


def apart(layers: list[Layer]) -> None:
    """GenerationError unless the layers' memory areas (input images, checked outputs) keep apart: the layers run
    back to back, so a layer's image loaded over another layer's area would run or check something other than what
    was drawn. One exception: a layer that `waits` starts after the earlier layers are done, so it may reuse the
    memory of their input images (a deconvolution's phases load their weights at one address)."""
    areas = [(area.memory, area.base, area.base + size, index, area.label, kind)
             for index, layer in enumerate(layers)
             for area, size, kind in [*((i, len(i.data), "image") for i in layer.images),
                                      *((r, r.size, "check") for r in layer.checks)]]
    for first in areas:
        for second in areas:
            memory, base, end, index, label, kind = first
            other_memory, other_base, other_end, other, other_label, _ = second
            if (index < other and memory == other_memory and base < other_end and other_base < end
                    and not (layers[other].waits and kind == "image")):
                raise GenerationError(f"layer {index}'s {label} and layer {other}'s {other_label} overlap at "
                                      f"{memory} {max(base, other_base):#x}: layers of one trace need their own "
                                      f"address slots")


def _form(profile: Profile) -> str:
    return "cfg" if profile.layout == "master" else "txn"


def write_unchecked(layers: list[Layer], folder: str | Path, name: str, profile: Profile) -> Path:
    """The trace with CRC 0 in its checks and no golden run: for layers the golden model must reject."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    commands = _Writer(layers, folder, name, RegisterMap.for_profile(profile), _form(profile)).build()
    header = "illegal layers: the CRCs are not computed"
    if _form(profile) == "txn":
        return _write_txn([c for c in commands if not isinstance(c, CheckCrc)], folder / TXN, header)
    return write_cfg(commands, folder / f"{name}.cfg", header=header)


def play_layers(layers: list[Layer], folder: str | Path, name: str, profile: Profile):
    """Play the layers on the golden model from an in-memory trace in the profile's own register layout;
    the .dat files are written to `folder`. Returns the TraceResult."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    commands = _Writer(layers, folder, name, RegisterMap.for_profile(profile), _form(profile)).build()
    return play(Trace(folder / f"{name}.cfg", "cfg", profile.layout, commands), profile)


def write_trace(layers: list[Layer], folder: str | Path, name: str, profile: Profile,
                header: str | None = None) -> Path:
    """Write the trace and its .dat files; the checks hold the golden model's results (GenerationError if the
    golden model does not run it). Returns the .cfg or input.txn path."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    form = _form(profile)
    commands = _Writer(layers, folder, name, RegisterMap.for_profile(profile), form).build()
    program = prepare(Trace(folder / f"{name}.cfg", "cfg", profile.layout, commands), profile)
    outcome = observe(Golden(), program, profile)
    if outcome.status != Ending.COMPLETED or outcome.memory is None:
        raise GenerationError(f"the golden model did not run the generated trace: {outcome.status} {outcome.detail}",
                              where=str(folder))
    reads = iter(outcome.registers[index] for index, step in enumerate(program.steps)
                 if isinstance(step, ReadRegister))
    final, golden = [], 0
    for c in commands:
        if isinstance(c, RegRead):
            c = RegRead(**_at(c), register=c.register, mask=c.mask, expected=next(reads) & c.mask, poll=form == "txn")
        elif isinstance(c, CheckCrc):
            memory = outcome.memory.by_name(c.memory)
            if form == "cfg":
                c = CheckCrc(**_at(c), sync=c.sync, memory=c.memory, base=c.base, size=c.size,
                             crc=memory.crc32(c.base, c.size))
            else:
                file = f"{name}_golden_{golden}.dat"
                golden += 1
                (folder / file).write_text(format_byte_lines(memory.read(c.base, c.size, unwritten="allow")))
                c = CheckFile(**_at(c), sync=None, memory=c.memory, base=c.base, size=c.size, file=file)
        final.append(c)
    lines = header or f"{len(layers)} generated layer(s) ({', '.join(sorted({x.family for x in layers}))})"
    lines += "\nexpected results from the nvdla-verif golden model."
    if form == "txn":
        return _write_txn(final, folder / TXN, lines)
    return write_cfg(final, folder / f"{name}.cfg", header=lines)


def _at(command: Command) -> dict:
    return {"path": command.path, "line": command.line}


def _write_txn(commands: list[Command], path: Path, header: str) -> Path:
    """nvdlav1's input.txn: `# comment`, write_reg/read_reg ADDRESS (CSB word address | 0xffff0000), load_mem /
    dump_mem BASE SIZE FILE, wait."""
    regmap = RegisterMap.for_layout("nvdlav1")
    lines = [f"# {line}" for line in header.splitlines()]
    for c in commands:
        if isinstance(c, RegWrite | RegRead):
            word = 0xFFFF0000 | (regmap.address(c.register) >> 2)
            if isinstance(c, RegWrite):
                lines.append(f"write_reg {word:#010x} {c.value:#x} #{c.register.trace_name}")
            else:
                lines.append(f"read_reg {word:#010x} {c.mask:#010x} {c.expected:#010x} #{c.register.trace_name}")
        elif isinstance(c, MemLoad):
            lines.append(f"load_mem {c.base:#x} {c.size:#x} {c.file}")
        elif isinstance(c, CheckFile):
            lines.append(f"dump_mem {c.base:#x} {c.size:#x} {c.file}")
        elif isinstance(c, Wait):
            lines.append("wait")
        else:
            raise GenerationError(f"{c.op} has no input.txn form")
    path.write_text("\n".join(lines) + "\n")
    return path
