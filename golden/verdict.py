"""The verdict of a trace: an outcome (golden/outcome.py) judged against what the trace itself expects.

Each checking step gives one Check: a region's CRC (check_crc) or golden file (check_file, dump_mem)
against the bytes the implementation returned, a register read against its expected value under its
mask. A comparison with a reference implementation adds its own checks (scoreboards/verdict.py).

    judge_alone(program, outcome, profile) -> TraceResult    the verdict without a reference implementation
                                                            (scoreboards/verdict.py judge() adds one)

The status of a trace is one of golden/status.py's verdicts (passed, failed, unsupported, invalid,
not applicable, error), where the words are explained.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

import numpy as np

from golden.config import Profile
from golden.outcome import Outcome
from golden.status import STOPPED, VERDICTS, Status
from golden.steps import CheckRegion, Program, ReadRegister

STATUSES = VERDICTS


@dataclass
class Check:
    command: str  # the trace's command, e.g. "check_crc", or the scoreboard's name
    where: str  # file:line
    passed: bool
    message: str


@dataclass
class TraceResult:
    name: str
    profile: str
    status: Status = Status.PASSED
    detail: str = ""
    checks: list[Check] = field(default_factory=list)
    layers: list = field(default_factory=list)  # golden.hardware.HardwareLayer
    unwritten_bytes_read: int = 0
    seconds: float = 0.0
    path: str = ""
    implementation: str = "golden"
    cycles: int | None = None
    warnings: list[str] = field(default_factory=list)
    #: Mismatch reports of the scoreboards (scoreboards.report.SurfaceReport), for reports and pictures.
    reports: list = field(default_factory=list, repr=False)
    #: The memories after the run (golden implementation; dropped when results cross processes).
    memory: object | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.status not in VERDICTS:
            raise ValueError(f"unknown verdict {str(self.status)!r} for {self.name}")
        self.status = Status(self.status)

    def as_dict(self) -> dict:
        return {"name": self.name, "profile": self.profile, "status": self.status, "detail": self.detail,
                "implementation": self.implementation, "seconds": round(self.seconds, 3),
                "cycles": self.cycles, "warnings": self.warnings, "path": self.path}

    @classmethod
    def from_dict(cls, data: dict) -> TraceResult:
        """A result as as_dict() wrote it (checks, layers and memories are not kept)."""
        return cls(data["name"], data["profile"], data["status"], data["detail"], path=data.get("path", ""),
                   implementation=data.get("implementation", "golden"), seconds=data.get("seconds", 0.0),
                   cycles=data.get("cycles"), warnings=list(data.get("warnings", [])))

    def mismatch_summary(self) -> str:
        lines = [f"{c.where}: {c.command}: {c.message}" for c in self.checks if not c.passed]
        return "\n".join(lines) if lines else "no mismatch"

    def decoded_registers(self) -> str:
        """The register groups of every layer run, field by field (for reports)."""
        out = []
        for number, layer in enumerate(self.layers):
            out.append(f"== layer {number}: {layer.describe()}")
            if layer.regs is None:
                continue
            for (unit, name), value in sorted(layer.regs.written().items()):
                if unit not in layer.groups and unit != "GLB":
                    continue
                reg = layer.regs.register(unit, name)
                fields_text = " ".join(f"{f.name}={f.enum_name(f.decode(value)) or hex(f.decode(value))}"
                                       for f in reg.fields)
                out.append(f"{unit}.{name} = {value:#010x}  {fields_text}")
        return "\n".join(out)


def result_for(program: Program, profile: Profile, outcome: Outcome) -> TraceResult:
    """A TraceResult carrying what the outcome shows of the run (checks and status still to be judged)."""
    return TraceResult(program.name, profile.name, path=str(program.path), implementation=outcome.implementation,
                       layers=outcome.layers, unwritten_bytes_read=outcome.unwritten_bytes_read,
                       seconds=outcome.seconds, cycles=outcome.cycles, memory=outcome.memory,
                       warnings=list(outcome.notes))


def judge_alone(program: Program, outcome: Outcome, profile: Profile) -> TraceResult:
    """The verdict of an outcome against the trace's own checks (CRCs, golden files, register reads)."""
    result = result_for(program, profile, outcome)
    result.checks = trace_checks(program, outcome)
    return conclude(result, outcome)


def trace_checks(program: Program, outcome: Outcome) -> list[Check]:
    """One Check per checking step: the outcome against the trace's CRCs, golden files and read values.

    When the run ended early (error, unsupported, invalid) only the steps it observed are judged.
    """
    checks = []
    ended_early = outcome.status in STOPPED
    for index, step in program.checks:
        if ended_early and index not in outcome.regions and index not in outcome.registers:
            continue
        if isinstance(step, ReadRegister):
            checks.append(_register_check(index, step, outcome))
        elif isinstance(step, CheckRegion):
            checks.append(_region_check(index, step, outcome))
        else:  # check_nothing: its sync fired, or the run would not have completed
            fired = outcome.status == Status.COMPLETED
            checks.append(Check("check_nothing", step.where, fired, f"sync {step.sync} "
                                + ("fired" if fired else "never fired")))
    return checks


def _register_check(index: int, s: ReadRegister, outcome: Outcome) -> Check:
    if index not in outcome.registers:
        why = outcome.unavailable.get("registers", "the implementation returned no value")
        return Check(s.verb, s.where, False, f"{s.register.trace_name} not read: {why}")
    value = outcome.registers[index]
    message = f"{s.register.trace_name} read {value:#010x}, expected {s.expected:#010x} under mask {s.mask:#010x}"
    return Check(s.verb, s.where, not (value ^ s.expected) & s.mask, message)


def _region_check(index: int, s: CheckRegion, outcome: Outcome) -> Check:
    got = outcome.regions.get(index)
    if got is None:
        why = outcome.unavailable.get("regions", "the implementation returned no bytes for it")
        return Check(s.verb, s.where, False, f"{s.name}: not returned: {why}")
    got = np.asarray(got, np.uint8).ravel()
    if got.size != s.size:
        return Check(s.verb, s.where, False, f"{s.name}: {got.size:#x} bytes returned, {s.size:#x} asked for")
    if s.crc is not None:
        crc = zlib.crc32(got.data) & 0xFFFFFFFF
        return Check(s.verb, s.where, crc == s.crc, f"{s.name}: CRC {crc:#010x}, expected {s.crc:#010x}")
    assert s.expected is not None, "a check_file or dump_mem step holds the golden file's bytes"
    differ = np.flatnonzero(got != s.expected)
    if not differ.size:
        return Check(s.verb, s.where, True, f"{s.size} bytes match {s.file}")
    first = ", ".join(f"{s.base + int(i):#x} (got {got[i]:#04x}, expected {s.expected[i]:#04x})"
                      for i in differ[:4])
    return Check(s.verb, s.where, False, f"{differ.size} of {s.size} bytes differ; first: {first} ({s.file})")


def conclude(result: TraceResult, outcome: Outcome) -> TraceResult:
    """Status and detail from the checks and how the run ended."""
    failed = [c for c in result.checks if not c.passed]
    if outcome.status in STOPPED:
        result.status, result.detail = outcome.status, outcome.detail
    elif outcome.status == Status.TIMEOUT:
        result.status = Status.FAILED
        result.detail = f"the implementation hung: {outcome.detail}"
        if failed:
            result.detail += f"; {len(failed)} of {len(result.checks)} checks failed"
    elif not result.checks:
        result.status, result.detail = Status.ERROR, "nothing checked: the trace has no check_crc, check_file, " \
                                                "dump_mem or register read check"
    elif failed:
        result.status = Status.FAILED
        result.detail = (f"{len(failed)} of {len(result.checks)} checks failed; first: {failed[0].where}: "
                         f"{failed[0].command}: {failed[0].message}")
    else:
        result.status, result.detail = Status.PASSED, f"{len(result.checks)} checks passed"
    return result


def never_written_checks(program: Program, reference: Outcome) -> list[str]:
    """Warnings for region checks over memory that no hardware layer of the reference run wrote."""
    notes = []
    for _, step in program.regions:
        if not any(_overlaps(step, w.surface) for w in reference.surfaces):
            notes.append(f"{step.where}: {step.verb} {step.name} checks only memory the trace never wrote "
                         "(no hardware layer wrote into it)")
    return notes


def _overlaps(step: CheckRegion, surface) -> bool:
    if surface.memory != step.memory:
        return False
    start, end = surface_span(surface)
    return start < step.base + step.size and step.base < end


def surface_span(surface) -> tuple[int, int]:
    """[first byte, end) of the memory a surface's cube occupies (its atoms, strides and batches)."""
    return surface.base, surface.base + surface.span()
