"""The contract between the trace player (or any driver) and the unit models.

Every unit model module exposes

    run(ctx: LayerContext, upstream: numpy.ndarray | None = None) -> UnitResult

`ctx.regs` holds the register group the hardware layer executes (all units),
`ctx.memory` the primary and secondary memories the unit's DMAs read and
write. `upstream` is the on-the-fly cube from the previous unit of a chain
(CACC -> SDP, SDP -> PDP). The model validates the programming first
(ConfigurationError naming the rule and register fields, ProfileFeatureError
for a feature the profile lacks, NotModelledError for what is not modelled
yet), then computes over whole cubes, writes its output surfaces to memory and
returns a UnitResult.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from golden.config import Profile
from golden.memory import MemorySystem
from golden.regs.values import RegisterValues


@dataclass
class LayerContext:
    profile: Profile
    regs: RegisterValues
    memory: MemorySystem


@dataclass(frozen=True)
class Surface:
    """Where a unit wrote a cube, so a scoreboard can map a byte back to W/H/C (and N)."""

    memory: str
    base: int
    shape: tuple[int, ...]
    precision: str
    line_stride: int
    surface_stride: int
    atom_bytes: int
    batch_stride: int = 0
    name: str = ""


@dataclass
class UnitResult:
    #: Read-only status and counter registers the unit updates, e.g. {("SDP", "D_PERF_OUT_SATURATION"): 3}.
    status: dict[tuple[str, str], int] = field(default_factory=dict)
    #: Data handed on the fly to the next unit of a chain (None when the unit writes to memory only).
    output: np.ndarray | None = None
    #: The surfaces the unit wrote.
    surfaces: list[Surface] = field(default_factory=list)
    #: Per-element absolute tolerance for fp16 outputs (CC DC / Winograd thresholds), when defined.
    tolerance: np.ndarray | None = None
