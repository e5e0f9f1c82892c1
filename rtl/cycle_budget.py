"""How many cycles the bench waits for a layer before it reports a timeout, from the layer's work.

Any DUT, any unit: a lost interrupt must fail in bounded time, while a slow but correct layer
(e.g. a 3x3x128x32 int8 convolution on nv_small, about 81k cycles) must not. The work of a
trace is the data it loads into memory (the bytes of its input files, in memory atoms: a
checked region can be mostly gaps of its line and surface strides, so it does not count)
and, for convolutions, its multiply-accumulates over the MAC array's atomic_c x atomic_k
multipliers per cycle (nvdla hw architecture: CMAC). The allowance per unit of work is
generous (AXI back-pressure, DMA latency, per-line overheads) since it only
bounds a hang.
"""

from __future__ import annotations

from golden.regs.regmap import RegisterMap
from golden.regs.values import RegisterValues
from rtl.job import LOAD, WRITE

BASE_CYCLES = 20_000
CYCLES_PER_ATOM = 64
CYCLES_PER_MAC_STEP = 4


def launches(job, regmap: RegisterMap, unit: str) -> int:
    """How many times the job sets UNIT's D_OP_ENABLE (one per hardware layer it runs)."""
    count = 0
    for step in job.steps:
        if step.op == WRITE and step.value & 1:
            reg = regmap.at(step.addr)
            count += reg.unit == unit and reg.name == "D_OP_ENABLE"
    return count


def convolution_macs(values: RegisterValues) -> int:
    """Multiply-accumulates of the convolution programmed in CSC (output cube x kernel size)."""
    f = values.field
    out_w = f("CSC", "D_DATAOUT_SIZE_0", "DATAOUT_WIDTH") + 1
    out_h = f("CSC", "D_DATAOUT_SIZE_0", "DATAOUT_HEIGHT") + 1
    kernels = f("CSC", "D_WEIGHT_SIZE_EXT_1", "WEIGHT_KERNEL") + 1
    k_w = f("CSC", "D_WEIGHT_SIZE_EXT_0", "WEIGHT_WIDTH_EXT") + 1
    k_h = f("CSC", "D_WEIGHT_SIZE_EXT_0", "WEIGHT_HEIGHT_EXT") + 1
    channels = f("CSC", "D_WEIGHT_SIZE_EXT_1", "WEIGHT_CHANNEL_EXT") + 1
    return out_w * out_h * kernels * k_w * k_h * channels


def layer_cycle_budget(job, regmap: RegisterMap, profile) -> int:
    """Cycles to allow each wait of the job (interrupt, poll, wait line)."""
    atom = profile.memory_atomic_size
    moved = sum(step.size for step in job.steps if step.op == LOAD)
    budget = BASE_CYCLES + CYCLES_PER_ATOM * -(-moved // atom)
    convolutions = launches(job, regmap, "CSC")
    if convolutions:
        values = RegisterValues(regmap, job.reg_writes(regmap))
        macs_per_cycle = profile.mac_atomic_c * profile.mac_atomic_k
        budget += CYCLES_PER_MAC_STEP * convolutions * -(-convolution_macs(values) // macs_per_cycle)
    return budget
