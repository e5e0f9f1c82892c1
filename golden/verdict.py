"""The one verdict path: a trace played on an implementation and judged, here and nowhere else.

    verify(trace_or_path, profile, implementation, reference=None, data_root=None, compare=None) -> TraceResult
        never raises for a problem of the trace or a model; without a reference it is golden.player.play
    judge(program, outcome, profile, reference=None, compare=None) -> TraceResult   the verdict of outcomes taken

A trace made for a profile the implementation's declared one lacks something of is `not applicable`, not run
(not_applicable). A trace that cannot be loaded or compiled, or lacks an input file, is an `error`. The reference,
when there is one, runs first: when the trace is `invalid` for the profile there (or the reference cannot run it),
that is the verdict and the implementation does not run; its outcome gives `compare` (the scoreboards,
scoreboards/verdict.py, which golden/ cannot import) the bytes and tolerances to judge against.

Each checking step gives one Check: a region's CRC (check_crc) or golden file (check_file, dump_mem)
against the bytes the implementation returned, a register read against its expected value under its
mask. `compare` adds or replaces checks against the reference. conclude() turns the checks and the way the
run ended (golden/outcome.py) into the status, one of golden/status.py's verdicts, where the words are explained.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from golden.config import Profile
from golden.errors import NvdlaVerifError
from golden.implementation import Implementation, observe
from golden.outcome import Outcome
from golden.status import STOPPED, Ending, Verdict
from golden.steps import CheckRegion, MissingFiles, Program, ReadRegister, prepare
from golden.trace import Trace, trace_label


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
    status: Verdict = Verdict.PASSED
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
        try:
            self.status = Verdict(self.status)
        except ValueError:
            raise ValueError(f"unknown verdict {str(self.status)!r} for {self.name}") from None

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


#: A comparison with the reference's outcome (scoreboards/verdict.py's compare): given the program, the outcome,
#: the reference's completed outcome and the result with the trace's own checks, it replaces result.checks and
#: adds its reports and warnings.
Compare = Callable[[Program, Outcome, Outcome, "TraceResult"], None]


def verify(trace: Trace | str | Path, profile: Profile, implementation: Implementation,
           reference: Implementation | None = None, data_root: str | Path | None = None,
           compare: Compare | None = None) -> TraceResult:
    """Run the trace on the reference (if any) and the implementation, then judge; never raises for a problem of
    the trace or a model."""
    started = time.perf_counter()
    name = trace.name if isinstance(trace, Trace) else trace_label(Path(trace))
    path = str(trace.path if isinstance(trace, Trace) else trace)
    lacking = not_applicable(implementation, profile)
    if lacking:
        return TraceResult(name, profile.name, Verdict.NOT_APPLICABLE, lacking, path=path,
                           implementation=implementation.name)
    try:
        program = prepare(trace, profile, data_root)
    except NvdlaVerifError as exc:
        detail = exc.message if isinstance(exc, MissingFiles) else str(exc)
        return TraceResult(name, profile.name, Verdict.ERROR, detail, path=path,
                           implementation=implementation.name, seconds=time.perf_counter() - started)
    expected = observe(reference, program, profile) if reference is not None else None
    if expected is not None and expected.status in (Ending.INVALID, Ending.ERROR):
        result = result_for(program, profile, expected)
        result.implementation = implementation.name
        expected.detail = f"on the reference {expected.implementation}: {expected.detail}"
        return conclude(result, expected)
    result = judge(program, observe(implementation, program, profile), profile, expected, compare)
    result.seconds = time.perf_counter() - started
    return result


def not_applicable(implementation: Implementation, profile: Profile) -> str:
    """Why a layer made for `profile` does not apply to the implementation (its declared profile lacks
    something; golden/implementation.py), or ''."""
    own: Profile | None = getattr(implementation, "profile", None)
    if own is None:
        return ""
    lacking = own.lacks(profile)
    return f"made for {profile.name}; {implementation.name} is {own.name}, without {', '.join(lacking)}" \
        if lacking else ""


def judge(program: Program, outcome: Outcome, profile: Profile, reference: Outcome | None = None,
          compare: Compare | None = None) -> TraceResult:
    """The outcome against the trace's own checks (CRCs, golden files, register reads) and, when the run did not
    stop early and the reference completed, through `compare`."""
    result = result_for(program, profile, outcome)
    result.checks = trace_checks(program, outcome)
    if reference is None or outcome.status in STOPPED:
        return conclude(result, outcome)
    if reference.status == Ending.COMPLETED:
        if compare is not None:
            compare(program, outcome, reference, result)
    else:
        result.warnings.append(f"reference {reference.implementation}: {reference.status} ({reference.detail}); "
                               "judged against the trace's checks only")
    return conclude(result, outcome)


def result_for(program: Program, profile: Profile, outcome: Outcome) -> TraceResult:
    """A TraceResult carrying what the outcome shows of the run (checks and status still to be judged)."""
    return TraceResult(program.name, profile.name, path=str(program.path), implementation=outcome.implementation,
                       layers=outcome.layers, unwritten_bytes_read=outcome.unwritten_bytes_read,
                       seconds=outcome.seconds, cycles=outcome.cycles, memory=outcome.memory,
                       warnings=list(outcome.notes))


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
            fired = outcome.status == Ending.COMPLETED
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
        result.status, result.detail = Verdict(outcome.status), outcome.detail
    elif outcome.status == Ending.TIMEOUT:
        result.status = Verdict.FAILED
        result.detail = f"the implementation hung: {outcome.detail}"
        if failed:
            result.detail += f"; {len(failed)} of {len(result.checks)} checks failed"
    elif not result.checks:
        result.status, result.detail = Verdict.ERROR, "nothing checked: the trace has no check_crc, check_file, " \
                                                "dump_mem or register read check"
    elif failed:
        result.status = Verdict.FAILED
        result.detail = (f"{len(failed)} of {len(result.checks)} checks failed; first: {failed[0].where}: "
                         f"{failed[0].command}: {failed[0].message}")
    else:
        result.status, result.detail = Verdict.PASSED, f"{len(result.checks)} checks passed"
    return result


def surface_span(surface) -> tuple[int, int]:
    """[first byte, end) of the memory a surface's cube occupies (its atoms, strides and batches)."""
    return surface.base, surface.base + surface.span()
