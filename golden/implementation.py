"""The implementation interface, and the golden model as one implementation among others.

An implementation runs a compiled trace (golden/steps.py) on a hardware profile and returns what
it observed (golden/outcome.py); it never judges. Anything with a `name` and this `run` method is
one:

    class MyImplementation:
        name = "mine"
        def run(self, program: Program, profile: Profile) -> Outcome: ...

An implementation that can find out before any trace that it cannot run at all (a program that does not
start, an RTL that does not build) does so in an optional `prepare()` that raises a project error; the
commands call it once, so the person gets one error instead of one per trace.

An implementation built as one hardware configuration (an RTL build, a fixed C model) says so with a
`profile` attribute (a Profile; absent or None: it takes each trace's profile): a trace made for a profile
that one lacks something of (Profile.lacks) is `not applicable` to it and is not run.

Implementations are registered through the entry-point group `nvdla_verif.implementations`
(ci/implementations.py reads it): the entry point names a class or factory called with the text
after `NAME:` in `--impl NAME:ARGUMENT` (None without it). `run` reports problems of its own in
the outcome (status "error", "timeout", ...) instead of raising; a project error it raises
(golden.errors.NvdlaVerifError) is reported the same way by the caller: observe(implementation, program,
profile) runs one and turns whatever it raises into the outcome's status and detail.
"""

from __future__ import annotations

import time
import traceback
import warnings
from typing import Protocol, runtime_checkable

from golden.config import Profile
from golden.errors import NotModelledError, NvdlaVerifError, ProfileFeatureError
from golden.hardware import Hardware
from golden.interpreter import Interpreter
from golden.limits import memory_exhausted
from golden.outcome import Outcome
from golden.status import Ending
from golden.steps import Program


@runtime_checkable
class Implementation(Protocol):
    name: str

    def run(self, program: Program, profile: Profile) -> Outcome: ...


class Golden:
    """The golden model: bytes, register values and interrupts, plus the surfaces each layer wrote with
    the FP16 tolerances that apply to them (what scoreboards need beyond bytes)."""

    name = "golden"

    def __init__(self, argument: str | None = None):
        if argument:
            raise NotModelledError(f"the golden implementation takes no argument (got {argument!r})",
                                   unit="golden")

    def run(self, program: Program, profile: Profile) -> Outcome:
        hardware = Hardware(profile, program.layout)
        interpreter = Interpreter(program, hardware)
        try:
            return interpreter.run()
        except NvdlaVerifError as exc:  # keep what was observed until then
            return ended_by(exc, interpreter.outcome)


def ended_by(exc: NvdlaVerifError, outcome: Outcome) -> Outcome:
    """The outcome of a run a project error stopped: a feature not modelled is `unsupported`, one the profile
    lacks `invalid`, anything else (a trace that would hang, a limitation broken) `error`."""
    if isinstance(exc, NotModelledError):
        return outcome.stopped(Ending.UNSUPPORTED, f"{exc.unit} not modelled: {exc.message}")
    if isinstance(exc, ProfileFeatureError):
        return outcome.stopped(Ending.INVALID, f"{exc.switch}: {exc.message}")
    return outcome.stopped(Ending.ERROR, str(exc))


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
            Ending.ERROR, f"internal error {type(exc).__name__}: {exc} ({frame.filename}:{frame.lineno})")
