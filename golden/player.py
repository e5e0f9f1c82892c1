"""Play a trace on an implementation and judge it against what the trace expects.

    play(trace_or_path, profile, implementation=None, data_root=None) -> TraceResult    never raises for a trace
                                                                         or model problem
    prepare(trace_or_path, profile, data_root=None) -> Program           load, check input files, compile
    observe(implementation, program, profile) -> Outcome                 run, problems turned into outcome statuses
    Player(trace, profile).run() -> TraceResult                          the golden model, raising; .regs, .memory,
                                                                         .luts, .hardware to inspect afterwards

The parts: golden/steps.py compiles the trace, golden/hardware.py is the golden NVDLA (registers,
memories, the scheduling of hardware layers and interrupts), golden/interpreter.py runs the steps
on it, golden/verdict.py judges the outcome (judge_alone: the trace's own checks). Running a trace on an
implementation and a reference and judging both through the scoreboards is scoreboards/verdict.py's
verify(); play() is its reference-less part, for the golden model's own users (it cannot see scoreboards/).
"""

from __future__ import annotations

import time
import traceback
import warnings
from pathlib import Path

from golden.config import Profile
from golden.errors import NvdlaVerifError, TraceError
from golden.hardware import Hardware, HardwareLayer, TraceHang, WrittenSurface
from golden.implementation import Golden, Implementation, ended_by
from golden.interpreter import Interpreter
from golden.limits import memory_exhausted
from golden.outcome import Outcome
from golden.status import Status
from golden.steps import Program, compile_trace
from golden.trace import Trace, load_trace
from golden.verdict import STATUSES, Check, TraceResult, judge_alone, result_for

__all__ = ["STATUSES", "Check", "HardwareLayer", "MissingFiles", "Player", "TraceHang", "TraceResult",
           "WrittenSurface", "observe", "play", "prepare", "result_for", "trace_label"]


class MissingFiles(TraceError):
    """Input or golden files the trace names are absent (NVIDIA's snapshot lacks some: MISSING_FILES.tsv)."""

    def __init__(self, names: list[str], path: str):
        self.names = names
        super().__init__(f"missing file: {', '.join(names)}", path=path)


def prepare(trace: Trace | str | Path, profile: Profile, data_root: str | Path | None = None) -> Program:
    """The compiled program of a trace (a TraceError, MissingFiles included, when it cannot be run; a
    DataFileError for a data file outside the trace's folder, or `data_root` when given, or not NVIDIA's)."""
    trace = trace if isinstance(trace, Trace) else load_trace(trace, data_root=data_root)
    missing = trace.missing_files()
    if missing:
        raise MissingFiles(missing, str(trace.path))
    if trace.layout != profile.layout:
        raise TraceError(f"the trace uses the {trace.layout} register layout, profile {profile.name} "
                         f"has the {profile.layout} layout", path=str(trace.path))
    return compile_trace(trace)


def observe(implementation: Implementation, program: Program, profile: Profile) -> Outcome:
    """Run the program; whatever the implementation raises becomes the outcome's status and detail."""
    started = time.perf_counter()
    with warnings.catch_warnings(record=True) as advisories:
        warnings.simplefilter("always", UserWarning)
        outcome = _run(implementation, program, profile)
    for advisory in advisories:
        if issubclass(advisory.category, UserWarning):
            outcome.notes.append(str(advisory.message))
        else:  # not ours to judge: pass it on
            warnings.warn_explicit(advisory.message, advisory.category, advisory.filename, advisory.lineno)
    if not outcome.seconds:
        outcome.seconds = time.perf_counter() - started
    return outcome


def _run(implementation: Implementation, program: Program, profile: Profile) -> Outcome:
    try:
        return implementation.run(program, profile)
    except NvdlaVerifError as exc:
        return ended_by(exc, Outcome(implementation.name))
    except MemoryError as exc:  # the layer's memory is freed with exc: the run goes on, the error says why
        return ended_by(memory_exhausted(exc), Outcome(implementation.name))
    except Exception as exc:  # a bug in an implementation must not stop a regression run
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        return Outcome(implementation.name).stopped(
            Status.ERROR, f"internal error {type(exc).__name__}: {exc} ({frame.filename}:{frame.lineno})")


def play(trace: Trace | str | Path, profile: Profile, implementation: Implementation | None = None,
         data_root: str | Path | None = None) -> TraceResult:
    """Play a trace and judge it against its own checks; never raises for a problem of the trace or a model."""
    implementation = implementation or Golden()
    started = time.perf_counter()
    name = trace.name if isinstance(trace, Trace) else trace_label(Path(trace))
    try:
        program = prepare(trace, profile, data_root)
    except NvdlaVerifError as exc:
        detail = str(exc) if not isinstance(exc, MissingFiles) else exc.message
        return TraceResult(name, profile.name, Status.ERROR, detail, path=str(getattr(exc, "path", trace)),
                           implementation=implementation.name, seconds=time.perf_counter() - started)
    return judge_alone(program, observe(implementation, program, profile), profile)


def trace_label(path: Path) -> str:
    """A trace's name from its path, as Trace.name gives it (never touching a path the OS refuses)."""
    try:
        folder = path.is_dir()
    except OSError:
        folder = False
    if folder:
        return path.name
    return path.parent.name if path.suffix == ".txn" else path.stem


class Player:
    """The golden model on one trace, raising on any problem; its state stays for inspection."""

    def __init__(self, trace: Trace, profile: Profile):
        self.program = compile_trace(trace)
        self.profile = profile
        self.hardware = Hardware(profile, trace.layout)
        self.regs, self.memory, self.luts = self.hardware.regs, self.hardware.memory, self.hardware.luts

    def run(self) -> TraceResult:
        return judge_alone(self.program, Interpreter(self.program, self.hardware).run(), self.profile)
