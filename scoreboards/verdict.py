"""The one path from a trace and two implementations to a verdict.

    verify(trace_or_path, profile, implementation, reference=None) -> TraceResult   run both, then judge;
                                                    never raises for a problem of the trace or a model
    judge(program, outcome, reference_outcome, profile) -> TraceResult   the verdict of outcomes already taken

play, conform, regress, certify, the mutation run and the RTL suites all call verify. The implementations
only observe (golden/outcome.py); the RTL bench included, nothing judges inside an implementation.

A trace made for a profile the implementation's declared one lacks something of is `not applicable`, not run.
The reference (default: none for the golden model itself, the golden model for anything else) runs
first: when the trace is `invalid` for the profile there, it is invalid everywhere and the
implementation does not run; its outcome gives the scoreboards the bytes and tolerances to compare.

The verdict: the trace's own checks (golden/verdict.py), plus the scoreboards against a reference.

For every checked region the scoreboards compare the implementation's bytes with the reference's
(scoreboards/region.py). Where a threshold judged part of the region (an fp16 convolution, PDP or
CDP surface), the scoreboard's verdict replaces the trace's CRC, which a result within the
documented threshold need not meet (nvdla-precision-preservation.md: "we should allow some certain
threshold of error"); everywhere else the CRC and the scoreboard must both pass. An implementation that
reports everything it wrote gets one more check: nothing outside the reference's surfaces
(scoreboards/writes.py). When both outcomes report interrupts (golden/outcome.py: the watches that fired),
the same watches must have fired, in any order (units that finish together may raise theirs either way).
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

from golden.config import Profile
from golden.errors import NvdlaVerifError
from golden.implementation import Implementation
from golden.outcome import Outcome
from golden.player import MissingFiles, observe, prepare, trace_label
from golden.status import STOPPED, Status
from golden.steps import CheckRegion, Program
from golden.trace import Trace
from golden.verdict import Check, TraceResult, conclude, judge_alone, never_written_checks, result_for
from scoreboards.region import compare_region
from scoreboards.writes import write_check


def verify(trace: Trace | str | Path, profile: Profile, implementation: Implementation,
           reference: Implementation | None = None, data_root: str | Path | None = None) -> TraceResult:
    started = time.perf_counter()
    name = trace.name if isinstance(trace, Trace) else trace_label(Path(trace))
    path = str(trace.path if isinstance(trace, Trace) else trace)
    lacking = not_applicable(implementation, profile)
    if lacking:
        return TraceResult(name, profile.name, Status.NOT_APPLICABLE, lacking, path=path,
                           implementation=implementation.name)
    try:
        program = prepare(trace, profile, data_root)
    except NvdlaVerifError as exc:
        detail = exc.message if isinstance(exc, MissingFiles) else str(exc)
        return TraceResult(name, profile.name, Status.ERROR, detail, path=path,
                           implementation=implementation.name, seconds=time.perf_counter() - started)
    expected = observe(reference, program, profile) if reference is not None else None
    if expected is not None and expected.status in (Status.INVALID, Status.ERROR):
        result = result_for(program, profile, expected)
        result.implementation = implementation.name
        expected.detail = f"on the reference {expected.implementation}: {expected.detail}"
        return conclude(result, expected)
    outcome = observe(implementation, program, profile)
    result = judge(program, outcome, expected, profile)
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


def judge(program: Program, outcome: Outcome, reference: Outcome | None, profile: Profile) -> TraceResult:
    """The outcome against the trace's checks and, when the reference completed, through the scoreboards."""
    result = judge_alone(program, outcome, profile)
    if outcome.status in STOPPED:
        return result
    checks = result.checks
    if reference is not None and reference.status == Status.COMPLETED:
        checks = _with_scoreboards(program, outcome, reference, checks, result)
        if checks:
            extra = (write_check(outcome, reference, str(program.path)),
                     interrupt_check(outcome, reference, str(program.path)))
            checks += [check for check in extra if check is not None]
        result.warnings += never_written_checks(program, reference)
    elif reference is not None:
        result.warnings.append(f"reference {reference.implementation}: {reference.status} ({reference.detail}); "
                               "judged against the trace's checks only")
    result.checks = checks
    return conclude(result, outcome)


def _with_scoreboards(program, outcome, reference, checks: list[Check], result: TraceResult) -> list[Check]:
    judged = []
    for (index, step), own in zip(program.checks, checks, strict=True):
        if not isinstance(step, CheckRegion) or index not in outcome.regions or index not in reference.regions:
            judged.append(own)
            continue
        comparison = compare_region(step, outcome.regions[index], reference.regions[index], reference.surfaces)
        result.reports.extend(comparison.reports)
        board = Check(f"scoreboard vs {reference.implementation}", step.where, comparison.ok, comparison.summary())
        if comparison.tolerant and not own.passed and comparison.ok:
            own = Check(own.command, own.where, True, f"{own.message} (within the FP16 threshold: "
                                                      f"{comparison.summary()})")
        judged += [board, own]  # the scoreboard first: its report says where the bytes differ
    return judged


def interrupt_check(outcome: Outcome, reference: Outcome, where: str) -> Check | None:
    """The watches that fired, against the reference's (None unless both report them and one saw any)."""
    if "interrupts" in outcome.unavailable or "interrupts" in reference.unavailable:
        return None
    if not outcome.interrupts and not reference.interrupts:
        return None
    same = Counter(outcome.interrupts) == Counter(reference.interrupts)
    message = f"fired {outcome.interrupts}" + ("" if same else f", expected {reference.interrupts}")
    return Check(f"interrupts vs {reference.implementation}", where, same, message)
