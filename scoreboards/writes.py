"""The whole-memory write check: an implementation that reports what it wrote (the RTL bench's AXI memories)
must write nothing outside the surfaces the reference's hardware layers write, even where no check of the
trace looks (issue: a DUT that corrupts a neighbouring buffer fails although the trace's CRC region is right).
"""

from __future__ import annotations

import numpy as np

from golden.outcome import Outcome
from golden.verdict import Check, surface_span

FIRST_SHOWN = 4


def stray_writes(outcome: Outcome, reference: Outcome) -> list[tuple[str, int, int]]:
    """(memory, address, size) of every run of written bytes outside all of the reference's surfaces."""
    strays = []
    for memory, runs in (outcome.written or {}).items():
        spans = sorted(surface_span(w.surface) for w in reference.surfaces if w.surface.memory == memory)
        for address, data in runs:
            inside = np.zeros(np.asarray(data).size, bool)
            for start, end in spans:
                low, high = max(start, address), min(end, address + inside.size)
                if low < high:
                    inside[low - address:high - address] = True
            strays += [(memory, address + int(a), int(b - a)) for a, b in _runs(~inside)]
    return strays


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """[start, end) of every run of True in mask."""
    edges = np.flatnonzero(np.diff(np.concatenate(([0], mask.astype(np.int8), [0]))))
    return list(zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True))


def write_check(outcome: Outcome, reference: Outcome, where: str) -> Check | None:
    """One Check over everything the implementation wrote (None when it cannot tell what it wrote)."""
    if outcome.written is None:
        return None
    strays = stray_writes(outcome, reference)
    total = sum(len(runs) for runs in outcome.written.values())
    if not strays:
        return Check("memory writes", where, True, f"{total} written ranges, all inside the surfaces "
                                                   f"{reference.implementation}'s layers write")
    shown = ", ".join(f"{memory} {address:#x} (+{size:#x})" for memory, address, size in strays[:FIRST_SHOWN])
    more = f" and {len(strays) - FIRST_SHOWN} more" if len(strays) > FIRST_SHOWN else ""
    size = sum(s for *_, s in strays)
    return Check("memory writes", where, False, f"wrote {size} bytes outside every surface "
                                                f"{reference.implementation}'s layers write: {shown}{more}")
