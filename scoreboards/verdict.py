"""The scoreboards' part of the verdict: an implementation's outcome against a reference implementation's.

    verify(trace_or_path, profile, implementation, reference=None) -> TraceResult   golden/verdict.py's verify
                                                    with the scoreboards as its comparison
    compare(program, outcome, reference_outcome, result)   the checks against a reference run that completed

conform, regress, certify, the mutation run and the RTL suites call verify (play too: without a reference it
judges by the trace's own checks, as golden.player.play does). The implementations only observe
(golden/outcome.py); the RTL bench included, nothing judges inside an implementation. golden/verdict.py owns the
path (not applicable, errors, the reference first, the status); this module adds the checks against the reference.

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
from pathlib import Path

from golden import verdict
from golden.config import Profile
from golden.implementation import Implementation
from golden.outcome import Outcome
from golden.steps import CheckRegion, Program
from golden.trace import Trace
from golden.verdict import Check, TraceResult, surface_span
from scoreboards.region import compare_region
from scoreboards.writes import write_check


def verify(trace: Trace | str | Path, profile: Profile, implementation: Implementation,
           reference: Implementation | None = None, data_root: str | Path | None = None) -> TraceResult:
    return verdict.verify(trace, profile, implementation, reference, data_root, compare=compare)


def compare(program: Program, outcome: Outcome, reference: Outcome, result: TraceResult) -> None:
    """The scoreboards' checks beside (or, within an FP16 threshold, instead of) the trace's own, then the writes
    and interrupts against the reference's; warnings for checks over memory the reference never wrote."""
    checks = _with_scoreboards(program, outcome, reference, result.checks, result)
    if checks:
        extra = (write_check(outcome, reference, str(program.path)),
                 interrupt_check(outcome, reference, str(program.path)))
        checks += [check for check in extra if check is not None]
    result.checks = checks
    result.warnings += never_written_checks(program, reference)


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
