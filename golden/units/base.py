"""The contract between the trace player (or any driver) and the unit models.

Every unit declares (golden/units/declaration.py: Unit.run)

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
from golden.formats.feature import element_bytes, feature_span
from golden.memory import MemorySystem
from golden.regs.values import RegisterValues

#: The memory a DMA's RAM-type bit selects: 0 the primary (DRAM, MCIF), 1 the secondary (CV-SRAM, CVIF).
MEMORIES = {False: "pri_mem", True: "sec_mem"}


@dataclass
class LayerContext:
    profile: Profile
    regs: RegisterValues
    memory: MemorySystem
    #: The SDP and CDP LUT RAMs as software wrote them (golden/units/lut.py: LutRam or LutTables per unit).
    luts: dict = field(default_factory=dict)
    #: The convolution buffer's state across layers (golden/units/conv/cbuf.py); None: no reuse.
    cbuf: object | None = None


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

    def element_offsets(self) -> np.ndarray:
        """The byte offset from `base` of every element, shaped like `shape` (in-memory-data-formats, Feature Data
        Format: byte(n, c, h, w) = n*batch_stride + (c // per_atom)*surface_stride + h*line_stride + w*atom +
        (c % per_atom)*element_bytes; Rubik's planes are atoms of one element, BDMA's copies int8 lines)."""
        size = element_bytes(self.precision)
        per_atom = max(1, self.atom_bytes // size)
        shape = tuple(self.shape)
        batches = shape[0] if len(shape) == 4 else 1
        channels, height, width = shape[-3:]
        n = np.arange(batches, dtype=np.int64).reshape(-1, 1, 1, 1) * self.batch_stride
        c = np.arange(channels, dtype=np.int64).reshape(1, -1, 1, 1)
        c = (c // per_atom) * self.surface_stride + (c % per_atom) * size
        h = np.arange(height, dtype=np.int64).reshape(1, 1, -1, 1) * self.line_stride
        w = np.arange(width, dtype=np.int64).reshape(1, 1, 1, -1) * self.atom_bytes
        offsets = n + c + h + w
        return offsets if len(shape) == 4 else offsets[0]

    def span(self) -> int:
        """Bytes from `base` to the end of the cube's last atom (batches included); a flat shape is its bytes."""
        if len(self.shape) < 3:
            return int(np.prod(self.shape))
        return feature_span(self.shape, self.precision, self.line_stride, self.surface_stride, self.atom_bytes,
                            self.batch_stride)


@dataclass
class Tolerance:
    """What a scoreboard needs to apply one FP16 threshold of precision-preservation to an output cube.

    CC DC and CC Winograd give `max_exp` per element and `taps` (R*S*C for DC, 18*C for Winograd), the
    factor of the threshold 2**(max_exp-20) * taps * 2 * scale + 2**(exp(a)-10); PDP and CDP give
    `max_value` per element, the largest value of its pooling or square-sum window. The formulas
    themselves live in scoreboards/. Arrays are shaped like the unit's output cube.
    """

    rule: str  # "CC DC", "CC Winograd", "PDP" or "CDP": declared with its comparator in Unit.thresholds
    max_exp: np.ndarray | None = None
    #: A number, or per element where provenance moved values (golden/provenance.py)
    taps: int | np.ndarray = 0
    scale: float | np.ndarray = 1.0
    max_value: np.ndarray | None = None
    #: PDP/CDP over computed inputs: their own threshold (a CC one, pooled over each window), added to this one's
    carried: Tolerance | None = None

    @property
    def shape(self) -> tuple[int, ...]:
        array = self.max_exp if self.max_exp is not None else self.max_value
        assert array is not None, "a tolerance has max_exp or max_value"
        return array.shape

    def fits(self, surface: Surface) -> bool:
        """Whether the tolerance describes this surface's cube (fp16, same H and W, no more channels)."""
        shape = self.shape
        return (surface.precision == "fp16" and len(shape) == len(surface.shape)
                and shape[-2:] == surface.shape[-2:] and shape[-3] <= surface.shape[-3])

    def first(self) -> Tolerance:
        """The tolerance of the first batch element (for a single-batch cube)."""
        pick = lambda a: None if a is None else a[0]  # noqa: E731
        return Tolerance(self.rule, pick(self.max_exp), self.taps, self.scale, pick(self.max_value),
                         None if self.carried is None else self.carried.first())


@dataclass
class UnitResult:
    #: Read-only status and counter registers the unit updates, e.g. {("SDP", "D_PERF_OUT_SATURATION"): 3}.
    status: dict[tuple[str, str], int] = field(default_factory=dict)
    #: Data handed on the fly to the next unit of a chain (None when the unit writes to memory only).
    output: np.ndarray | None = None
    #: The surfaces the unit wrote.
    surfaces: list[Surface] = field(default_factory=list)
    #: The FP16 threshold that applies to the output (CC DC, CC Winograd, PDP, CDP); None: bit-exact.
    tolerance: Tolerance | None = None
