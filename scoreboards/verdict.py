"""The verdict of an implementation's outcome: the trace's own checks, plus the scoreboards against a reference.

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

from collections import Counter

from golden.config import Profile
from golden.outcome import Outcome
from golden.player import result_for
from golden.status import STOPPED, Status
from golden.steps import CheckRegion, Program
from golden.verdict import Check, TraceResult, conclude, never_written_checks, trace_checks
from scoreboards.region import compare_region
from scoreboards.writes import write_check


def judge(program: Program, outcome: Outcome, reference: Outcome | None, profile: Profile) -> TraceResult:
    result = result_for(program, profile, outcome)
    if outcome.status in STOPPED:
        return conclude(result, outcome)
    checks = trace_checks(program, outcome)
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
