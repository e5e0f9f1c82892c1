"""Run one trace on an implementation and judge it, against its own checks and a reference implementation.

    run_trace(trace_or_path, profile, implementation, reference=None) -> TraceResult   never raises for a
                                                                                      trace or model problem

A trace made for a profile the implementation's declared one lacks something of is `not applicable`, not run.
The reference (default: none for the golden model itself, the golden model for anything else) runs
first: when the trace is `invalid` for the profile there, it is invalid everywhere and the
implementation does not run; its outcome gives the scoreboards the bytes and tolerances to compare.
"""

from __future__ import annotations

import time
from pathlib import Path

from golden.config import Profile
from golden.errors import NvdlaVerifError
from golden.implementation import Implementation
from golden.player import MissingFiles, observe, prepare, result_for
from golden.player import trace_label as label
from golden.status import Status
from golden.trace import Trace
from golden.verdict import TraceResult, conclude
from scoreboards.verdict import judge


def run_trace(trace: Trace | str | Path, profile: Profile, implementation: Implementation,
              reference: Implementation | None = None) -> TraceResult:
    started = time.perf_counter()
    name = trace.name if isinstance(trace, Trace) else label(Path(trace))
    path = str(trace.path if isinstance(trace, Trace) else trace)
    lacking = not_applicable(implementation, profile)
    if lacking:
        return TraceResult(name, profile.name, Status.NOT_APPLICABLE, lacking, path=path,
                           implementation=implementation.name)
    try:
        program = prepare(trace, profile)
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
    own = getattr(implementation, "profile", None)
    lacking = own.lacks(profile) if own is not None else []
    return f"made for {profile.name}; {implementation.name} is {own.name}, without {', '.join(lacking)}" \
        if lacking else ""


def draw_pictures(result: TraceResult, folder: str | Path) -> list[Path]:
    """Each mismatching surface's picture (PNG) into the folder, named after the trace, unit and address."""
    bad = [report for report in result.reports if not report.ok]
    if bad:
        Path(folder).mkdir(parents=True, exist_ok=True)
    return [report.picture(Path(folder) / f"{result.name}_{report.unit}_{report.base:x}.png") for report in bad]
