"""What the commands show of a verdict (scoreboards/verdict.py's verify judges a trace):

    draw_pictures(result, folder) -> [Path]   each mismatching surface as a picture
    label(path) -> str                        a trace's name
"""

from __future__ import annotations

from pathlib import Path

from golden.trace import trace_label as label
from golden.verdict import TraceResult, not_applicable

__all__ = ["draw_pictures", "label", "not_applicable"]


def draw_pictures(result: TraceResult, folder: str | Path) -> list[Path]:
    """Each mismatching surface's picture (PNG) into the folder, named after the trace, unit and address."""
    bad = [report for report in result.reports if not report.ok]
    if bad:
        Path(folder).mkdir(parents=True, exist_ok=True)
    return [report.picture(Path(folder) / f"{result.name}_{report.unit}_{report.base:x}.png") for report in bad]
