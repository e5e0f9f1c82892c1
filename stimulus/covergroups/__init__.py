"""What the project's covergroups share: the Samplers a builder may return, and (common.py) the bins of several. The
covergroups themselves are stimulus/<family>/covergroup.py, one per family that declares one (stimulus/families.py:
Family.covergroup and Family.outcomes): sdp, pdp, conv, cdp, rubik, bdma. A builder
`covergroup(coverage, group)` makes its cover points through `coverage.point` / `coverage.cross` (stimulus/coverage.py)
and returns what samples them: a function sample(stages, regs, status) of every layer, or a Samplers.

Cover points per unit: SDP precision pair, each stage's ALU algorithm / MUL mode / operand sources / ReLU,
operand DMA mode and size, convertor class, size classes (width, height, channels against the atom);
PDP precision, method, kernel and stride per axis, padding, split count, size classes; convolution precision,
mode, kernel, stride, dilation, padding, channels and kernels against the MAC atoms, weight compression,
CBUF data banks (one, several, all but the weights' bank), data/weight reuse (traces of 2+ layers), batch
class (up to MAX_BATCH_SIZE), and for image input the pixel format (Table 33, fp16 ones only where the
profile has fp16), channel post-extension and CDMA convertor (off / offset / per-channel mean), and for
feature input of a direct convolution whether it passes the convertor too.
Crosses: precision x stage modes, X1 x X2, PDP method x precision, kernel x stride, method x split,
convolution kernel x stride, precision x mode and precision x batch class; CDP precision, local size,
LE function, bypasses, LUT priorities, channels, width, and local size x LE function / precision; BDMA
operations per group, launch register, source and destination memories, line size, lines, surfaces and packed
or gapped strides per operation, launch x memories and operations x launch.

NVIDIA's own covergroups (nvdla/hw verif/coverage) are mapped to these in stimulus/coverage_parity.json; for
PDP, CDP and Rubik every one of their meanings has a point here: PDP input/output height, each pad side, the
split parts' widths, overlapping lines, packed or gapped line strides (with and without split), stride_w x
stride_h and input mode x size; CDP height, packed or gapped line/surface strides, where the first line ends,
the data convertors' offset / scale / shifter classes (integer layers) and precision x each, fp16 NaN flushing,
the LUT's priorities, index offset/selects (x LE function), START/END sign and size, slope scales and shifts,
and its port accesses (table, read/write: S_LUT_ACCESS_CFG writes); Rubik input and output channels, contract's
input channels against 32, packed or gapped line / surface / planar strides on each side; BDMA positions in
32-byte atoms modulo 8 of the addresses, line ends, line length and strides, and each side's RAM (the run-time
STATUS read-backs are not sampled); for PDP, CDP and Rubik, the source's and destination's RAM type and base
address alignment (and, above 32 address bits, the high word), crossed. For SDP (sdp group, offline layers): the
input -> processing precision, output and Y-operand convertor signs (integer pipelines), each stage's bypass fields
while it runs, the LUT's index offset/selects (x LE function) and port accesses, source / destination / operand-DMA
RAM, alignment, high word and packed or gapped strides, operand data use and size; sdp_flying: every SDP layer's
flying mode, Winograd, batch and size classes crossed with it (the on-the-fly half comes from the conv family). BDMA:
CFG_OP.EN and STATUS (free slots, idle, groups busy) after each CFG_OP / launch write, replayed by the golden
model's register file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Samplers:
    """What one covergroup samples (each None: nothing): `layer(stages, regs, status)` every layer's register
    values (status: what a run reported, or None); `writes(stages, writes)` the (unit, register, value) writes
    that programmed a layer (a generated layer's; a run layer's LUT port accesses, HardwareLayer.lut_accesses);
    `launch(operations, groups)` a launch of queued operations (HardwareLayer.operations: a BDMA group's CFG_*
    values; groups: unit -> register group)."""

    layer: Callable | None = None
    writes: Callable | None = None
    launch: Callable | None = None


def samplers(built) -> Samplers:
    """A builder's result as Samplers: a function samples layers; None samples nothing."""
    if built is None or isinstance(built, Samplers):
        return built or Samplers()
    return Samplers(layer=built)
