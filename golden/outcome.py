"""What an implementation returns after running a program (golden/steps.py).

An implementation observes; it does not judge. The verdict (golden/verdict.py, and scoreboards/ when a
reference implementation is compared) reads the outcome:

    regions     CheckRegion step index -> the region's bytes when the step ran (uint8 array)
    registers   ReadRegister step index -> the last value read (a poll's matching value, or its last try)
    interrupts  the interrupt watches (WatchInterrupt) that fired, in the order they fired, each as
                fired_watch(source, sync): "SDP_0 -> sync0" ("any -> sync0" for a watch of any bit); an
                implementation that cannot tell which watch fired says so in `unavailable` instead
    seconds, cycles
    unavailable what the implementation cannot produce, stated as such: {"registers": "why", ...};
                the verdict reports such checks as not judged instead of failing or passing them
    status      "completed", or why there is no full outcome: "timeout" (the DUT hung: a failure),
                "error" (the implementation could not run: crash, no output), "unsupported" (a feature
                it lacks), "invalid" (the program needs a feature the profile lacks); detail says more

The golden model (the reference) also fills what scoreboards need beyond bytes: the surfaces each
hardware layer wrote with the FP16 tolerance that applies to them, the layers, and its memories.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from golden.status import Ending

#: One entry of Outcome.interrupts; golden/formats/command_result.schema.json repeats it for external programs.
FIRED_WATCH = re.compile(r"\S+ -> \S+")


def fired_watch(source: str | None, sync: str) -> str:
    """The entry of Outcome.interrupts for a watch on `source` (None: any bit) that fired `sync`."""
    return f"{source or 'any'} -> {sync}"


@dataclass
class Outcome:
    implementation: str
    regions: dict[int, np.ndarray] = field(default_factory=dict)
    registers: dict[int, int] = field(default_factory=dict)
    interrupts: list[str] = field(default_factory=list)
    seconds: float = 0.0
    cycles: int | None = None
    unavailable: dict[str, str] = field(default_factory=dict)
    status: Ending = Ending.COMPLETED
    detail: str = ""
    #: Reference extras (the golden model): golden.hardware.WrittenSurface and HardwareLayer lists.
    surfaces: list = field(default_factory=list)
    layers: list = field(default_factory=list)
    #: Every range the implementation wrote, when it can tell (the RTL bench's AXI memories):
    #: {memory name: [(address, uint8 array)]}; the scoreboards check none lies outside the reference's surfaces.
    written: dict[str, list] | None = None
    #: The implementation's memories after the run, when it can hand them over (golden.memory.MemorySystem).
    memory: object | None = field(default=None, repr=False)
    unwritten_bytes_read: int = 0
    #: Advisories raised while it ran (e.g. golden.rules.LimitationWarning), for the result's warnings.
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.status = _ending(self.status)

    def stopped(self, status: str, detail: str) -> Outcome:
        """Mark the outcome as ended early (keeping what was observed until then)."""
        self.status, self.detail = _ending(status), detail
        return self


def _ending(status: str) -> Ending:
    try:
        return Ending(status)
    except ValueError:
        raise ValueError(f"unknown outcome status {str(status)!r}") from None
