"""The golden NVDLA as a device: registers, memories, LUT RAMs, and the hardware layers they launch.

`Hardware(profile, layout)` takes CSB writes and reads (`write`, `read`) and lets time pass one
step at a time (`step`). `D_OP_ENABLE = 1` only arms a group; a hardware layer runs when time
passes, as on the real bench, where a read-back of D_OP_ENABLE right after the write still sees 1.
A layer runs once every unit of its pipeline is armed in its consumer group (programming guide: each
unit's programming section). Which groups launch a pipeline and which stages it runs, the done
interrupts, the LUTs and their read port, the profile switch, what a unit keeps between layers and how
FP16 thresholds pass through it are the units' declarations (golden/units/<unit>/__init__.py's UNIT,
golden/units/declaration.py); this module names no unit. A unit without pipelines queues operations
instead (golden/regs/regfile.py), which run as a group when their launch register is written.

Stages run in hardware order through golden.units.model(stage)(ctx, upstream), each stage's
`output` the next one's `upstream`. Status registers then take UnitResult.status, the groups
complete (op-enable cleared, consumer flipped, S_STATUS updated) and the done interrupts of the
layer's units are queued in pipeline order: each step of time raises the next one in
GLB.S_INTR_STATUS (the traceplayer's conv_8x8_fc_int16 reads them one per wait).
S_LUT_ACCESS_CFG/DATA writes also fill the LUT RAMs (golden/units/lut.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import golden.units
from golden import provenance
from golden.config import Profile
from golden.errors import TraceError
from golden.memory import MemorySystem
from golden.regs.regfile import RegisterFile
from golden.regs.regmap import Register, RegisterMap
from golden.regs.values import RegisterValues
from golden.units.base import LayerContext, Surface, Tolerance
from golden.units.lut import LutRam, is_parameter

#: GLB interrupt sources raised when a unit's group completes (RDL: GLB.S_INTR_STATUS), from the unit declarations.
INTERRUPTS = golden.units.interrupts()
LUT_UNITS = golden.units.lut_groups()
#: LUT groups whose S_LUT_ACCESS_DATA reads answer with the RAM's words.
LUT_PORTS = golden.units.lut_ports()
#: Units a profile may lack entirely, with the .spec switch.
UNIT_SWITCHES = golden.units.switches()
LAUNCHES = ("D_OP_ENABLE", "CFG_LAUNCH0", "CFG_LAUNCH1")
#: The unit a stage's output surfaces are named after in reports and scoreboards.
STAGE_UNITS = golden.units.output_groups()


class TraceHang(TraceError):
    """The trace waits for something the hardware would never do."""


class SharedRegisterRace(TraceError):
    """The trace changes a register both groups share while a layer that reads it may be running."""


@dataclass
class WrittenSurface:
    """A surface a hardware layer wrote, with what a scoreboard needs to judge it."""

    unit: str  # the group whose DMA wrote it (Unit.output)
    surface: Surface
    layer: int  # index of the hardware layer
    tolerance: Tolerance | None = None  # precision-preservation FP16 threshold; None: bit-exact


@dataclass
class HardwareLayer:
    """One launch: the units of the pipeline, their register groups, the stage models run."""

    stages: tuple[str, ...]
    groups: dict[str, int]
    regs: RegisterValues | None = None
    surfaces: list[Surface] = field(default_factory=list)
    outputs: dict[str, object] = field(default_factory=dict)
    #: The FP16 threshold each stage handed on (golden/provenance.py); None: bit-exact.
    tolerances: dict[str, Tolerance | None] = field(default_factory=dict)
    #: What the stage models reported in status registers: {(unit, register): value} (LUT and saturation counters).
    status: dict[tuple[str, str], int] = field(default_factory=dict)
    #: A launch of queued operations: the registers of every operation of its group, in queue order (regs is the
    #: first's).
    operations: list[RegisterValues] = field(default_factory=list)
    #: The S_LUT_ACCESS_CFG writes (unit, register, value) of its units since their previous layer: the LUT
    #: port accesses that programmed (or read) the tables this layer runs with (functional coverage).
    lut_accesses: list[tuple[str, str, int]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return "+".join(self.stages)

    def describe(self) -> str:
        units = ", ".join(f"{u}[{g}]" for u, g in self.groups.items())
        return f"{self.name} ({units})"


class Hardware:
    def __init__(self, profile: Profile, layout: str | None = None):
        self.profile = profile
        self.regmap = RegisterMap.for_layout(layout or profile.layout)
        self.regs = RegisterFile(self.regmap)
        # Reads of never-written memory are allowed (read as 0) and counted (golden/memory.py).
        self.memory = MemorySystem.for_profile(profile, unwritten="count", outside="allow")
        #: Done interrupts of finished layers not yet raised, one bit each, in hardware order.
        self.irq_queue: list[int] = []
        #: LUT RAMs written through S_LUT_ACCESS_CFG/DATA (single registers shared by both groups).
        self.luts = {unit: LutRam(unit) for unit in LUT_UNITS}
        self._lut_accesses: dict[str, list[tuple[str, str, int]]] = {unit: [] for unit in LUT_UNITS}
        #: stage -> what its unit keeps between layers (Unit.keeps: the convolution buffer's data/weight reuse).
        self.kept = {u.stage: u.keeps() for u in golden.units.declared() if u.keeps is not None}
        self.layers: list[HardwareLayer] = []
        self.written: list[WrittenSurface] = []

    @property
    def unwritten_bytes_read(self) -> int:
        return self.memory.unwritten_bytes_read

    # -- the CSB ---------------------------------------------------------------------------------------
    def write(self, reg: Register, value: int, where: str = "") -> None:
        switch = UNIT_SWITCHES.get(reg.unit)
        if switch and value & 1 and reg.name in LAUNCHES:
            self.profile.require(switch, f"{where}: the trace enables {reg.unit}", fields=(reg.qualified,))
        if reg.is_double_buffered and reg.name != "D_OP_ENABLE" and reg.unit in self.regs.pingpong:
            if self.regs.enabled(reg.unit, self.regs.producer(reg.unit)):
                self.run_armed()  # the armed group runs before software may reprogram it
        if reg.unit in self.luts and is_parameter(reg.name):
            self._check_unchanged_while_armed(reg, value, where)
        elif reg.unit in self.luts and reg.name.startswith("S_LUT_ACCESS"):
            if self.regs.armed_group(reg.unit) is not None:
                self.run_armed()  # an armed layer uses the LUT as programmed so far
            self.luts[reg.unit].write(reg.name, value)
            if reg.name == "S_LUT_ACCESS_CFG":
                self._lut_accesses[reg.unit].append((reg.unit, reg.name, value))
        self.regs.write(reg, value)

    def _check_unchanged_while_armed(self, reg: Register, value: int, where: str) -> None:
        """A new value of a LUT parameter (golden.units.lut.is_parameter) written while a layer of the unit is
        armed reaches the layer part-way on the hardware, a race no model can answer."""
        group = self.regs.armed_group(reg.unit)
        if group is None:
            return
        old = self.regs.raw(reg.unit, reg.name) & reg.writable_mask
        if (value & reg.writable_mask) != old:
            path, _, line = where.rpartition(":")
            raise SharedRegisterRace(
                f"{reg.qualified} changes from {old:#x} to {value & reg.writable_mask:#x} while "
                f"{reg.unit}[{group}] is enabled; the S_LUT_* registers are shared by both register groups, so "
                f"the running layer would see the new value part-way: wait for its done interrupt first",
                path=path, line=int(line) if line.isdigit() else None)

    def read(self, reg: Register) -> int:
        if reg.name == "S_LUT_ACCESS_DATA" and reg.unit in LUT_PORTS:
            return self.luts[reg.unit].read()  # the LUT port (Unit.lut_port; the others' is not modelled)
        return self.regs.read(reg)

    @property
    def interrupt_status(self) -> int:
        return self.regs.raw("GLB", "S_INTR_STATUS")

    def clear_interrupts(self, bits: int) -> None:
        self.regs.write(self.regmap.get("GLB", "S_INTR_STATUS"), bits)

    # -- time ------------------------------------------------------------------------------------------
    def step(self) -> bool | None:
        """One step of time: the CBUF flush finishes, the next done interrupt rises, or what is armed runs.

        Returns None when nothing can happen any more, else whether the interrupt line rose
        (an unmasked done interrupt).
        """
        if not self.regs.cbuf_flushed:
            self.regs.cbuf_flushed = True
            return False
        if self.irq_queue:
            bit = self.irq_queue.pop(0)
            self.regs.raise_interrupts(bit)
            return bool(self.regs.unmasked(bit))
        return False if self.run_armed() else None

    def run_armed(self) -> int:
        """Run every hardware layer whose units are all armed, until none is left; returns how many ran."""
        ran = 0
        while True:
            queued = self.regs.launched_operations()
            if queued is not None:
                self._run_operations(*queued)
                ran += 1
                continue
            armed = self.regs.armed()
            ready = [(units, stages) for units, stages in self._pipelines(armed)
                     if stages and all(unit in armed for unit in units)]
            if not ready:
                return ran
            units, stages = ready[0]
            self._run_layer(units, stages, armed)
            ran += 1

    def armed_note(self) -> str:
        """Why the armed units do not launch, for a hang's message ("" when nothing is armed)."""
        armed = self.regs.armed()
        if not armed:
            return ""
        notes = []
        for units, _ in self._pipelines(armed):
            missing = [u for u in units if u not in armed]
            if missing:
                notes.append(f"{'+'.join(units)} waits for {', '.join(missing)} D_OP_ENABLE")
        return ("; armed but never launched: " + ", ".join(f"{u}[{g}]" for u, g in armed.items())
                + f" ({'; '.join(notes) or 'incomplete pipeline'})")

    # -- pipelines -------------------------------------------------------------------------------------
    def consumer_field(self, unit: str, reg: str, name: str) -> int:
        """A field of the register group the unit's consumer points at (what a launch would run with)."""
        value = self.regs.raw(unit, reg, self.regs.consumer[unit])
        return self.regmap.get(unit, reg).field(name).decode(value)

    def _pipelines(self, armed: dict[str, int]) -> list[tuple[list[str], list[str]]]:
        """The pipelines the armed units belong to: (units, stages); no stages while one waits for another. Each
        unit's declaration says which it forms (golden/units/declaration.py: Unit.pipelines), in registry order."""
        pipelines: list[tuple[list[str], list[str]]] = []
        for unit in golden.units.declared():
            pipelines += unit.launched(self, armed, pipelines)
        return pipelines

    def _run_layer(self, units: list[str], stages: list[str], armed: dict[str, int]) -> None:
        groups = {unit: armed[unit] for unit in units}
        regs = self.regs.values(groups)
        layer = HardwareLayer(tuple(stages), groups, regs)
        for unit in units:
            if unit in self._lut_accesses:
                layer.lut_accesses += self._lut_accesses[unit]
                self._lut_accesses[unit] = []
        self.layers.append(layer)
        upstream, tolerance = None, None
        for stage in stages:
            result = self._run_stage(stage, regs, upstream)
            upstream = result.output
            tolerances = self._thresholds(stage, regs, result)
            tolerance = tolerances[0] if tolerances else self._passed_on(stage, regs, tolerance, result)
            layer.tolerances[stage] = tolerance
            self._record(stage, result.surfaces, tolerances or [tolerance] * len(result.surfaces))
            layer.surfaces.extend(result.surfaces)
            if result.output is not None:
                layer.outputs[stage] = result.output
            layer.status.update(result.status)
            for (unit, reg), value in result.status.items():
                self.regs.set_hardware(unit, reg, value, groups.get(unit))
        for unit in units:
            group = self.regs.complete(unit)
            # Done interrupts in pipeline order (the order the traceplayer's conv_8x8_fc_int16 reads them after
            # successive waits).
            self.irq_queue.extend(self.regs.interrupt_bit(source, group) for source in INTERRUPTS.get(unit, ()))

    # -- which FP16 threshold judges what a stage wrote (golden/provenance.py) ------------------------------
    def _passed_on(self, stage: str, regs: RegisterValues, tolerance: Tolerance | None, result) -> Tolerance | None:
        """The threshold of what the stage hands on: its own, or its input's where it moves values unchanged
        (Unit.passed_on: an fp16 convolution's travels with its result through a stage that adds no error of its
        own; max/min pooling passes on the largest of each window's, average pooling its own plus that)."""
        declaration = golden.units.unit(stage)
        if declaration.passed_on is None:  # its own threshold, or else its input's passes on
            return result.tolerance if result.tolerance is not None else tolerance
        ctx = LayerContext(self.profile, regs, self.memory)
        read = None if declaration.input_patterns is None else declaration.input_patterns(ctx)
        if read is not None:  # an input read from memory: its elements' thresholds
            tolerance = provenance.followed(self.memory, self.written, lambda shadow: None, read)
        return declaration.passed_on(ctx, tolerance, result.tolerance)

    def _thresholds(self, stage: str, regs: RegisterValues, result) -> list[Tolerance | None]:
        """Per surface, for a stage that moves bytes from memory to memory (Unit.moves_bytes): the thresholds its
        elements came with; [] for any other stage."""
        if not golden.units.unit(stage).moves_bytes or not result.surfaces:
            return []
        run = golden.units.model(stage)
        out = []
        for surface in result.surfaces:
            out.append(provenance.followed(
                self.memory, self.written, lambda shadow: run(LayerContext(self.profile, regs, shadow)),
                provenance.read_surface(surface)) if surface.precision == "fp16" else None)
        return out

    def _record(self, stage: str, surfaces: list[Surface], tolerances: list[Tolerance | None]) -> None:
        for surface, tolerance in zip(surfaces, tolerances, strict=True):
            fits = tolerance is not None and tolerance.fits(surface)
            self.written.append(WrittenSurface(STAGE_UNITS.get(stage, stage), surface, len(self.layers) - 1,
                                               tolerance if fits else None))

    def _run_stage(self, stage: str, regs: RegisterValues, upstream=None):
        ctx = LayerContext(self.profile, regs, self.memory, luts=self.luts, cbuf=self.kept.get(stage))
        return golden.units.model(stage)(ctx, upstream)

    def _run_operations(self, unit: str, group: int, operations: list[RegisterValues]) -> None:
        """A launched group of queued operations (golden/regs/regfile.py): the group rules (Unit.validate_group),
        then each operation as a layer of its own stage, then the group's done interrupt."""
        declaration = golden.units.owner(unit)
        stage = declaration.stage
        layer = HardwareLayer((stage,), {unit: group}, operations[0] if operations else None, operations=operations)
        self.layers.append(layer)
        if declaration.validate_group is not None:
            declaration.validate_group(self.profile, operations, group)
        for regs in operations:
            result = self._run_stage(stage, regs)
            self._record(stage, result.surfaces, [None] * len(result.surfaces))  # bytes of no element type
            layer.surfaces.extend(result.surfaces)
            for (name, reg), value in result.status.items():
                self.regs.set_hardware(name, reg, value)
        self.irq_queue.extend(self.regs.interrupt_bit(source, group) for source in INTERRUPTS.get(unit, ()))
