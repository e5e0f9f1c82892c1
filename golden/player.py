"""Play a trace (golden/trace.py) on the golden model and judge it.

API:
    play(trace_or_path, profile, impl="golden") -> TraceResult   never raises for a trace/model problem
    Player(trace, profile).run() -> TraceResult                   raises; .regs, .memory, .luts to inspect
    TraceResult: name, profile, status, detail, checks [Check], layers [HardwareLayer],
        unwritten_bytes_read, seconds, memory; .as_dict(), .mismatch_summary(), .decoded_registers()
    impl="rtl" calls rtl.runner.play(trace, profile) -> TraceResult (imported lazily).

Commands run in file order (memory commands too: ../shared/nvdla/README.md, "mem_load").
Register writes go to the RegisterFile (golden/regs/regfile.py); S_LUT_ACCESS_CFG/DATA writes
also fill the SDP/CDP LUT RAMs handed to the models as `ctx.luts` (golden/units/lut.py).
`D_OP_ENABLE = 1` only arms a group: a hardware layer runs when time passes, i.e. when
the trace waits (wait, a check on an intr_notify sync, a read_reg/poll that does not match
yet, dump_mem, the end of the trace), as on the real bench, where a read-back of
D_OP_ENABLE right after the write still sees 1. A layer runs once every unit of its
pipeline is armed in its consumer group (programming guide: "Convolution pipeline
programming", "SDP programming", "PDP programming"):

    CONV      CDMA + CSC + CMAC_A + CMAC_B + CACC + SDP (FLYING_MODE=ON), then as SDP
    SDP       SDP (+ SDP_RDMA when SDP reads memory: flying mode off or an operand DMA
              enabled) (+ PDP when OUTPUT_DST=PDP: PDP on the fly)
    PDP       PDP_RDMA + PDP (offline);  CDP: CDP_RDMA + CDP;  RUBIK: RBK
    BDMA      each CFG_LAUNCH0/1 runs the operations queued by CFG_OP writes

Stages run in hardware order through golden.units.load(stage).run(ctx, upstream), each
stage's `output` the next one's `upstream`. Status registers then take UnitResult.status,
the groups complete (op-enable cleared, consumer flipped, S_STATUS updated) and the done
interrupts of the layer's units are queued in pipeline order (CDMA_DAT, CDMA_WT, CACC, SDP,
PDP): each step of time raises the next one in GLB.S_INTR_STATUS, and `wait` returns at the
next unmasked one (the traceplayer's conv_8x8_fc_int16 reads them one per wait).
intr_notify(SRC, sync) fires `sync` when its bit is set and clears the bit, as a handler does.
Reads of never-written memory are allowed (read as 0) and counted in unwritten_bytes_read.

Status of a trace: "passed" (every check passed), "failed" (a CRC, dump or read-back
mismatch), "unsupported" (a model raised NotModelledError), "invalid" (the trace needs a
feature its profile lacks: ProfileFeatureError, or enables a unit the profile lacks),
"error" (a missing input file, a trace that would hang, any other error).
"""

from __future__ import annotations

import re
import time
import traceback
import warnings
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

import golden.units
from golden.config import Profile
from golden.errors import (
    NotModelledError,
    NvdlaVerifError,
    ProfileFeatureError,
    TraceError,
)
from golden.memory import Memory, MemoryAccessWarning, MemorySystem, read_memory_file
from golden.regs.regfile import RegisterFile
from golden.regs.regmap import RegisterMap
from golden.regs.values import RegisterValues
from golden.trace import (
    CheckCrc,
    CheckFile,
    CheckNothing,
    Command,
    IntrNotify,
    MemInit,
    MemLoad,
    MemRelease,
    MemReserve,
    RegRead,
    RegWrite,
    SyncNotify,
    SyncWait,
    Trace,
    Wait,
    load_trace,
)
from golden.units.lut import LutRam

STATUSES = ("passed", "failed", "unsupported", "invalid", "error")
CONV_UNITS = ("CDMA", "CSC", "CMAC_A", "CMAC_B", "CACC")
#: GLB interrupt sources raised when a unit's group completes (RDL: GLB.S_INTR_STATUS).
INTERRUPTS = {"CDMA": ("CDMA_DAT", "CDMA_WT"), "CACC": ("CACC",), "SDP": ("SDP",), "PDP": ("PDP",),
              "CDP": ("CDP",), "RBK": ("RUBIK",), "BDMA": ("BDMA",)}
LUT_UNITS = ("SDP", "CDP")
#: Units a profile may lack entirely, with the .spec switch.
UNIT_SWITCHES = {"BDMA": "BDMA", "RBK": "RUBIK", "PDP": "PDP", "PDP_RDMA": "PDP", "CDP": "CDP",
                 "CDP_RDMA": "CDP"}


@dataclass
class Check:
    command: str  # e.g. "check_crc"
    where: str  # file:line
    passed: bool
    message: str


@dataclass
class HardwareLayer:
    """One launch: the units of the pipeline, their register groups, the stage models run."""

    stages: tuple[str, ...]
    groups: dict[str, int]
    regs: RegisterValues | None = None
    surfaces: list = field(default_factory=list)
    outputs: dict[str, object] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return "+".join(self.stages)

    def describe(self) -> str:
        units = ", ".join(f"{u}[{g}]" for u, g in self.groups.items())
        return f"{self.name} ({units})"


@dataclass
class TraceResult:
    name: str
    profile: str
    status: str = "passed"
    detail: str = ""
    checks: list[Check] = field(default_factory=list)
    layers: list[HardwareLayer] = field(default_factory=list)
    unwritten_bytes_read: int = 0
    seconds: float = 0.0
    path: str = ""
    #: The memories after the run (golden implementation; dropped when results cross processes).
    memory: MemorySystem | None = field(default=None, repr=False)

    def as_dict(self) -> dict:
        return {"name": self.name, "profile": self.profile, "status": self.status, "detail": self.detail}

    def mismatch_summary(self) -> str:
        failed = [c for c in self.checks if not c.passed]
        lines = [f"{c.where}: {c.command}: {c.message}" for c in failed]
        return "\n".join(lines) if lines else "no mismatch"

    def decoded_registers(self) -> str:
        """The register groups of every layer run, field by field (for reports)."""
        out = []
        for number, layer in enumerate(self.layers):
            out.append(f"== layer {number}: {layer.describe()}")
            if layer.regs is None:
                continue
            written = layer.regs.written()
            for (unit, name), value in sorted(written.items()):
                if unit not in layer.groups and unit != "GLB":
                    continue
                reg = layer.regs.register(unit, name)
                fields_text = " ".join(f"{f.name}={f.enum_name(f.decode(value)) or hex(f.decode(value))}"
                                       for f in reg.fields)
                out.append(f"{unit}.{name} = {value:#010x}  {fields_text}")
        return "\n".join(out)


class TraceHang(TraceError):
    """The trace waits for something the hardware would never do."""


@lru_cache(maxsize=64)
def _memory_file(path: str) -> tuple[tuple[int, np.ndarray], ...]:
    return tuple(read_memory_file(path))


def _file_bytes(path: Path) -> np.ndarray:
    """A memory file as one contiguous byte image from offset 0 (gaps as zero)."""
    records = _memory_file(str(path))
    end = max((off + data.size for off, data in records), default=0)
    image = np.zeros(end, np.uint8)
    for offset, data in records:
        image[offset:offset + data.size] = data
    return image


_UNWRITTEN = re.compile(r"read of (\d+) never-written")


class Player:
    """Executes one trace on the golden model; `run()` returns the TraceResult."""

    def __init__(self, trace: Trace, profile: Profile):
        self.trace = trace
        self.profile = profile
        self.regmap = RegisterMap.for_layout(trace.layout)
        self.regs = RegisterFile(self.regmap)
        self.memory = MemorySystem(Memory("pri_mem", unwritten="warn", outside="allow"),
                                   Memory("sec_mem", unwritten="warn", outside="allow"))
        self.result = TraceResult(trace.name, profile.name, path=str(trace.path), memory=self.memory)
        self.watches: list[IntrNotify] = []
        self.fired: set[str] = set()
        self.sync_events: set[str] = set()
        #: Done interrupts of finished layers not yet seen by software, one bit each, in hardware order.
        self.irq_queue: list[int] = []
        #: LUT RAMs written through S_LUT_ACCESS_CFG/DATA (single registers shared by both groups).
        self.luts = {unit: LutRam(unit) for unit in LUT_UNITS}

    # -- driving ----------------------------------------------------------------------------------------
    def run(self) -> TraceResult:
        for command in self.trace.commands:
            self.execute(command)
        self.flush(final=True)
        return self.result

    def execute(self, command: Command) -> None:
        handler = getattr(self, f"_do_{type(command).__name__}")
        handler(command)

    # -- memory ----------------------------------------------------------------------------------------
    def _mem(self, name: str, command: Command) -> Memory:
        if name == "sec_mem":
            self.profile.require("SECONDARY_MEMIF", f"{command.where}: {command.op} uses sec_mem (CV-SRAM)")
        return self.memory.by_name(name)

    def _do_MemInit(self, c: MemInit) -> None:
        self._mem(c.memory, c).fill(c.base, c.size, 0)

    def _do_MemLoad(self, c: MemLoad) -> None:
        memory = self._mem(c.memory, c)
        path = self.trace.folder / c.file
        if c.size is None:
            memory.load_records(c.base, _memory_file(str(path)))
            return
        data = _file_bytes(path)
        if data.size < c.size:
            raise TraceError(f"load_mem wants {c.size:#x} bytes but {c.file} has {data.size:#x}",
                             path=c.path, line=c.line)
        memory.write(c.base, data[:c.size])

    def _do_MemReserve(self, c: MemReserve) -> None:
        pass

    def _do_MemRelease(self, c: MemRelease) -> None:
        pass

    # -- registers -------------------------------------------------------------------------------------
    def _do_RegWrite(self, c: RegWrite) -> None:
        reg = c.register
        switch = UNIT_SWITCHES.get(reg.unit)
        if switch and c.value & 1 and reg.name in ("D_OP_ENABLE", "CFG_LAUNCH0", "CFG_LAUNCH1"):
            self.profile.require(switch, f"{c.where}: the trace enables {reg.unit}",
                                 fields=(f"{reg.qualified}",))
        if reg.is_double_buffered and reg.unit in self.regs.pingpong:
            group = self.regs.producer(reg.unit)
            if self.regs.enabled(reg.unit, group) and reg.name != "D_OP_ENABLE":
                self.flush()  # the armed group runs before software may reprogram it
        if reg.unit in self.luts and reg.name.startswith("S_LUT_ACCESS"):
            if reg.unit in self.regs.armed():
                self.flush()  # an armed layer uses the LUT as programmed so far
            self.luts[reg.unit].write(reg.name, c.value)
        self.regs.write(reg, c.value)

    def _do_RegRead(self, c: RegRead) -> None:
        value = self.regs.read(c.register)
        while (value ^ c.expected) & c.mask and self._time_passes():  # a poll: the hardware moves on
            value = self.regs.read(c.register)
        if c.mask:
            name = ("read_reg" if self.trace.format == "txn"
                    else "poll_reg_equal" if c.poll else "reg_read_check")
            message = (f"{c.register.trace_name} read {value:#010x}, expected {c.expected:#010x} "
                       f"under mask {c.mask:#010x}")
            self.result.checks.append(Check(name, c.where, not (value ^ c.expected) & c.mask, message))

    # -- interrupts and synchronisation ------------------------------------------------------------------
    def _source_bit(self, c: IntrNotify) -> int:
        match = re.fullmatch(r"([A-Za-z_]+?)_?([01])", c.source or "")
        if not match:
            raise TraceError(f"unknown interrupt source {c.source!r}", path=c.path, line=c.line)
        try:
            return self.regs.interrupt_bit(match.group(1).upper(), int(match.group(2)))
        except NvdlaVerifError:
            raise TraceError(f"unknown interrupt source {c.source!r}", path=c.path, line=c.line) from None

    def _do_IntrNotify(self, c: IntrNotify) -> None:
        if c.source is not None:
            self._source_bit(c)  # validate now
        self.watches.append(c)
        self._notify()

    def _time_passes(self) -> bool:
        """Let the hardware make one step: deliver the next interrupt, or run what is armed.

        Returns False when nothing can happen any more (the trace would wait forever).
        """
        if not self.regs.cbuf_flushed:
            self.regs.cbuf_flushed = True
            return True
        if self.irq_queue:
            self._deliver_next()
            return True
        return self.flush() > 0

    def _deliver_next(self) -> bool:
        """Raise the next done interrupt in GLB.S_INTR_STATUS; True when it is unmasked (raises the line)."""
        bit = self.irq_queue.pop(0)
        self.regs.raise_interrupts(bit)
        self._notify()
        return bool(self.regs.unmasked(bit))

    def _notify(self) -> None:
        """Fire the sync of every watch whose interrupt bit is set (clearing the bit, as a handler does)."""
        for watch in list(self.watches):
            status = self.regs.raw("GLB", "S_INTR_STATUS")
            bit = self._source_bit(watch) if watch.source is not None else status
            if status & bit:
                self.fired.add(watch.sync)
                self.watches.remove(watch)
                if watch.source is not None:
                    self.regs.write(self.regmap.get("GLB", "S_INTR_STATUS"), bit)

    def _await(self, sync: str, c: Command) -> None:
        while sync not in self.fired and self._time_passes():
            pass
        if sync not in self.fired:
            waiting = [w for w in self.watches if w.sync == sync]
            cause = (f"interrupt {waiting[0].source} never raised" if waiting
                     else "no intr_notify fires it")
            raise TraceHang(f"sync {sync} never fires: {cause}{self._armed_note()}", path=c.path, line=c.line)

    def _do_Wait(self, c: Wait) -> None:
        while True:  # the DLA interrupt line: the next unmasked done interrupt
            while self.irq_queue:
                if self._deliver_next():
                    return
            if not self.flush():
                raise TraceHang(f"wait: no interrupt is pending{self._armed_note()}", path=c.path, line=c.line)

    def _do_SyncNotify(self, c: SyncNotify) -> None:
        self.sync_events.add(c.event)

    def _do_SyncWait(self, c: SyncWait) -> None:
        if c.event not in self.sync_events:
            raise TraceHang(f"sync_wait({c.unit}, {c.event}) before any sync_notify of it (a sequential "
                            "player plays commands in file order)", path=c.path, line=c.line)

    # -- checks ----------------------------------------------------------------------------------------
    def _do_CheckCrc(self, c: CheckCrc) -> None:
        self._await(c.sync, c)
        actual = self._mem(c.memory, c).crc32(c.base, c.size)
        message = f"{c.memory} [{c.base:#x}, +{c.size:#x}): CRC {actual:#010x}, expected {c.crc:#010x}"
        self.result.checks.append(Check("check_crc", c.where, actual == c.crc, message))

    def _do_CheckNothing(self, c: CheckNothing) -> None:
        self._await(c.sync, c)

    def _do_CheckFile(self, c: CheckFile) -> None:
        if c.sync is None:
            while self.flush():  # dump_mem: when the hardware is done
                pass
        else:
            self._await(c.sync, c)
        path = self.trace.folder / c.file
        expected = _file_bytes(path)
        if expected.size < c.size:
            raise TraceError(f"golden file {c.file} has {expected.size:#x} bytes, the check compares "
                             f"{c.size:#x}", path=c.path, line=c.line)
        expected = expected[:c.size]
        actual = self._mem(c.memory, c).read(c.base, c.size, unwritten="allow")
        differ = np.flatnonzero(actual != expected)
        if differ.size:
            first = ", ".join(f"{c.base + int(i):#x} (got {actual[i]:#04x}, expected {expected[i]:#04x})"
                              for i in differ[:4])
            message = f"{differ.size} of {c.size} bytes differ; first: {first}"
        else:
            message = f"{c.size} bytes match {c.file}"
        self.result.checks.append(Check("dump_mem" if c.sync is None else "check_file", c.where,
                                        not differ.size, message))

    # -- launching layers ---------------------------------------------------------------------------------
    def _armed_note(self) -> str:
        armed = self.regs.armed()
        if not armed:
            return ""
        return "; armed but never launched: " + ", ".join(f"{u}[{g}]" for u, g in armed.items()) + \
            f" ({self._missing_note(armed)})"

    def _missing_note(self, armed: dict[str, int]) -> str:
        notes = []
        for units in self._wanted(armed):
            missing = [u for u in units if u not in armed]
            if missing:
                notes.append(f"{'+'.join(units)} waits for {', '.join(missing)} D_OP_ENABLE")
        return "; ".join(notes) or "incomplete pipeline"

    def _field(self, unit: str, reg: str, name: str, group: int) -> int:
        return self.regmap.get(unit, reg).field(name).decode(self.regs.raw(unit, reg, group))

    def _consumer_field(self, unit: str, reg: str, name: str) -> int:
        return self._field(unit, reg, name, self.regs.consumer[unit])

    def _sdp_pipeline(self) -> tuple[list[str], list[str]]:
        """(units, stages) of the SDP part of a layer: SDP, its RDMA if it reads memory, PDP on the fly."""
        units, stages = ["SDP"], ["SDP"]
        flying = self._consumer_field("SDP", "D_FEATURE_MODE_CFG", "FLYING_MODE")
        reads_operands = any(
            not self._consumer_field("SDP_RDMA", f"D_{dma}_CFG", f"{dma}_DISABLE")
            for dma in ("BRDMA", "NRDMA", "ERDMA"))
        if not flying or reads_operands:
            units.append("SDP_RDMA")
        if self._consumer_field("SDP", "D_FEATURE_MODE_CFG", "OUTPUT_DST"):
            units.append("PDP")
            stages.append("PDP")
        return units, stages

    def _wanted(self, armed: dict[str, int]) -> list[tuple[str, ...]]:
        """The pipelines the armed units belong to, as unit tuples."""
        return [tuple(units) for units, _ in self._pipelines(armed)]

    def _pipelines(self, armed: dict[str, int]) -> list[tuple[list[str], list[str]]]:
        pipelines = []
        if any(u in armed for u in CONV_UNITS) or ("SDP" in armed and self._consumer_field(
                "SDP", "D_FEATURE_MODE_CFG", "FLYING_MODE")):
            units, stages = self._sdp_pipeline()
            pipelines.append(([*CONV_UNITS, *units], ["CONV", *stages]))
        elif "SDP" in armed or "SDP_RDMA" in armed:
            pipelines.append(self._sdp_pipeline())
        pdp_on_the_fly = any("PDP" in units for units, _ in pipelines)
        if ("PDP" in armed or "PDP_RDMA" in armed) and not pdp_on_the_fly:
            if self._consumer_field("PDP", "D_OPERATION_MODE_CFG", "FLYING_MODE"):  # OFF_FLYING
                pipelines.append((["PDP_RDMA", "PDP"], ["PDP"]))
            else:  # on the fly: waits for an SDP layer with OUTPUT_DST=PDP
                pipelines.append((["PDP", "SDP with OUTPUT_DST=PDP"], []))
        if "CDP" in armed or "CDP_RDMA" in armed:
            pipelines.append((["CDP_RDMA", "CDP"], ["CDP"]))
        if "RBK" in armed:
            pipelines.append((["RBK"], ["RUBIK"]))
        return pipelines

    def flush(self, final: bool = False) -> int:
        """Run every hardware layer whose units are all armed, until none is left; returns how many ran."""
        ran = 0
        while True:
            if self.regs.bdma_launched:
                group, ops = self.regs.bdma_launched.pop(0)
                self._run_bdma(group, ops)
                ran += 1
                continue
            armed = self.regs.armed()
            ready = [(units, stages) for units, stages in self._pipelines(armed)
                     if stages and all(unit in armed for unit in units)]
            if not ready:
                break
            units, stages = ready[0]
            self._run_layer(units, stages, armed)
            ran += 1
        if final and self.regs.armed():
            raise TraceHang(f"the trace ends with units armed{self._armed_note()}", path=str(self.trace.path))
        return ran

    def _run_layer(self, units: list[str], stages: list[str], armed: dict[str, int]) -> None:
        groups = {unit: armed[unit] for unit in units}
        layer = HardwareLayer(tuple(stages), groups, self.regs.values(groups))
        self.result.layers.append(layer)
        upstream = None
        for stage in stages:
            result = self._run_stage(stage, layer.regs, upstream)
            upstream = result.output
            layer.surfaces.extend(result.surfaces)
            if result.output is not None:
                layer.outputs[stage] = result.output
            for (unit, reg), value in result.status.items():
                self.regs.set_hardware(unit, reg, value, groups.get(unit))
        for unit in units:
            group = self.regs.complete(unit)
            # Done interrupts in pipeline order: CDMA_DAT, CDMA_WT, CACC, SDP, PDP (the order the
            # traceplayer's conv_8x8_fc_int16 reads them after successive waits).
            self.irq_queue.extend(self.regs.interrupt_bit(source, group) for source in INTERRUPTS.get(unit, ()))

    def _run_stage(self, stage: str, regs: RegisterValues, upstream):
        from golden.units.base import LayerContext

        model = golden.units.load(stage)
        ctx = LayerContext(self.profile, regs, self.memory)
        ctx.luts = self.luts  # golden/units/lut.py: ctx_tables(ctx, unit)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", MemoryAccessWarning)
            result = model.run(ctx, upstream)
        for warning in caught:
            if issubclass(warning.category, MemoryAccessWarning):
                match = _UNWRITTEN.search(str(warning.message))
                self.result.unwritten_bytes_read += int(match.group(1)) if match else 0
            else:
                warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
        return result

    def _run_bdma(self, group: int, ops: list) -> None:
        operations = [self.regs.bdma_values(op) for op in ops]
        layer = HardwareLayer(("BDMA",), {"BDMA": group}, operations[0] if operations else None)
        self.result.layers.append(layer)
        model = golden.units.load("BDMA")
        if hasattr(model, "validate_group"):  # group rules: not empty, <= 20 operations, one DST_RAM_TYPE
            model.validate_group(self.profile, operations, group)
        for regs in operations:
            result = self._run_stage("BDMA", regs, None)
            layer.surfaces.extend(result.surfaces)
            for (unit, reg), value in result.status.items():
                self.regs.set_hardware(unit, reg, value)
        self.irq_queue.append(self.regs.interrupt_bit("BDMA", group))


# -- the reusable verdict ---------------------------------------------------------------------------------
def _judge(result: TraceResult) -> None:
    failed = [c for c in result.checks if not c.passed]
    if failed:
        result.status = "failed"
        result.detail = f"{len(failed)} of {len(result.checks)} checks failed; first: {failed[0].where}: " \
                        f"{failed[0].command}: {failed[0].message}"
    else:
        result.status = "passed"
        result.detail = f"{len(result.checks)} checks passed"


def play(trace: Trace | str | Path, profile: Profile, impl: str = "golden") -> TraceResult:
    """Play a trace and return its verdict; never raises for a problem of the trace or a model."""
    started = time.perf_counter()
    name = Path(trace).stem if not isinstance(trace, Trace) else trace.name
    result = TraceResult(name, profile.name)
    try:
        if not isinstance(trace, Trace):
            trace = load_trace(trace)
            result.name = trace.name
        result.path = str(trace.path)
        missing = trace.missing_files()
        if missing:
            result.status, result.detail = "error", f"missing file: {', '.join(missing)}"
            return result
        if trace.layout != profile.layout:
            raise TraceError(f"the trace uses the {trace.layout} register layout, profile {profile.name} "
                             f"has the {profile.layout} layout", path=str(trace.path))
        if impl == "golden":
            player = Player(trace, profile)
            result = player.result
            player.run()
        elif impl == "rtl":
            result = _rtl_runner().play(trace, profile)
        else:
            raise TraceError(f"unknown implementation {impl!r} (golden or rtl)", path=str(trace.path))
        _judge(result)
    except NotModelledError as exc:
        result.status, result.detail = "unsupported", f"{exc.unit} not modelled: {exc.message}"
    except ProfileFeatureError as exc:
        result.status, result.detail = "invalid", f"{exc.switch}: {exc.message}"
    except NvdlaVerifError as exc:
        result.status, result.detail = "error", str(exc)
    except Exception as exc:  # a bug in a model must not stop a regression run
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        result.status = "error"
        result.detail = f"internal error {type(exc).__name__}: {exc} ({frame.filename}:{frame.lineno})"
    finally:
        result.seconds = time.perf_counter() - started
    return result


def _rtl_runner():
    try:
        import rtl.runner as runner
    except ModuleNotFoundError as exc:
        if exc.name not in ("rtl", "rtl.runner"):
            raise
        raise NotModelledError("the RTL implementation (rtl/runner.py) is not available",
                               unit="rtl") from None
    return runner
