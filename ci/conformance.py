"""Run one trace on an implementation and judge it: scoreboards/verdict.py's verify, under the name the
commands and the regression engine know.

    run_trace(trace_or_path, profile, implementation, reference=None) -> TraceResult   never raises for a
                                                                                      trace or model problem
    draw_pictures(result, folder) -> [Path]
"""

from __future__ import annotations

from pathlib import Path

from golden.player import trace_label as label
from golden.verdict import TraceResult
from scoreboards.verdict import not_applicable, verify

run_trace = verify
__all__ = ["draw_pictures", "label", "not_applicable", "run_trace"]


def draw_pictures(result: TraceResult, folder: str | Path) -> list[Path]:
    """Each mismatching surface's picture (PNG) into the folder, named after the trace, unit and address."""
    bad = [report for report in result.reports if not report.ok]
    if bad:
        Path(folder).mkdir(parents=True, exist_ok=True)
    return [report.picture(Path(folder) / f"{result.name}_{report.unit}_{report.base:x}.png") for report in bad]
