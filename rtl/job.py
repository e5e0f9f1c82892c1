"""A program as the bench plays it: an ordered list of steps, saved as JSON for the simulator process.

`job_from_program` writes the compiled steps of a trace (golden/steps.py) in the bench's terms, one
job step per program step with the program step's `index`, so that what the bench observes maps
back onto the program: memory loads become raw byte files next to the job, interrupt watches carry
their GLB.S_INTR_STATUS bit (-1: any bit), a region check carries the trace's CRC or golden file.
The semantics are the program's (golden/steps.py); rtl/bench/sequences.py executes them.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from golden.regs.regmap import RegisterMap
from golden.steps import (
    AwaitSync,
    CheckRegion,
    FillMemory,
    LoadMemory,
    Program,
    ReadRegister,
    WaitInterrupt,
    WatchInterrupt,
    WriteRegister,
    compile_trace,
)
from golden.steps import interrupt_bit as program_interrupt_bit
from golden.trace import Trace, Wait

#: Memory names: the trace's (pri_mem, sec_mem) -> the bench's (pri, sec), and back.
MEMORIES = {"pri_mem": "pri", "sec_mem": "sec"}
TRACE_MEMORIES = {kind: name for name, kind in MEMORIES.items()}
#: The DUT's AXI port of each memory (NV_nvdla's nvdla_core2dbb_* and, where the configuration has it,
#: nvdla_core2cvsram_*).
PORTS = {"pri": "nvdla_core2dbb", "sec": "nvdla_core2cvsram"}


@dataclass
class Step:
    op: str   # reg_write, read_reg, mem_fill, mem_write, watch_intr, await_sync, wait_line, check
    addr: int = 0
    value: int = 0
    mask: int = 0xFFFFFFFF
    size: int = 0
    mem: str = "pri"
    name: str = ""
    sync: str = ""
    file: str = ""
    where: str = ""
    index: int = -1  # the program step it plays


@dataclass
class Job:
    steps: list[Step] = field(default_factory=list)
    timeout_cycles: int = 200_000
    clock_ns: int = 10
    reset_idle_cycles: int = 8192   # NVIDIA's verif/verilator harness idles 8192 cycles after reset
    axi_pause: float = 0.0          # probability of an AXI channel stall per cycle (randomised back-pressure)
    seed: int = 1
    # GLB.S_INTR_STATUS and S_INTR_MASK of the program's register layout (master's unless set)
    intr_status_addr: int = 0x100C
    intr_mask_addr: int = 0x1004

    def save(self, path: Path) -> None:
        path.write_text(json.dumps({"steps": [asdict(s) for s in self.steps],
                                    "timeout_cycles": self.timeout_cycles, "clock_ns": self.clock_ns,
                                    "reset_idle_cycles": self.reset_idle_cycles, "axi_pause": self.axi_pause,
                                    "seed": self.seed, "intr_status_addr": self.intr_status_addr,
                                    "intr_mask_addr": self.intr_mask_addr}))

    @classmethod
    def load(cls, path: Path) -> Job:
        data = json.loads(Path(path).read_text())
        steps = [Step(**s) for s in data.pop("steps")]
        return cls(steps, **data)

    def reg_writes(self, regmap: RegisterMap) -> dict[tuple[str, str], int]:
        """The last value written to every register (the traces program group 0)."""
        out = {}
        for step in self.steps:
            if step.op == "reg_write":
                reg = regmap.at(step.addr)
                out[reg.unit, reg.name] = step.value
        return out


    def group_writes(self, regmap: RegisterMap) -> list[dict[tuple[str, str], int]]:
        """The last value written to every register as each register group (0, 1) sees it: a unit's double-
        buffered D_ registers go to the group its S_POINTER.PRODUCER selects (two back-to-back layers program
        both), its other registers to both. Only the groups a D_OP_ENABLE was written to."""
        groups: tuple[dict, dict] = ({}, {})
        producer: dict[str, int] = {}
        launched = set()
        for step in self.steps:
            if step.op != "reg_write":
                continue
            reg = regmap.at(step.addr)
            if reg.name == "S_POINTER":
                producer[reg.unit] = reg.field("PRODUCER").decode(step.value)
            if reg.is_double_buffered and any(r.name == "S_POINTER" for r in regmap.registers(reg.unit)):
                group = producer.get(reg.unit, 0)
                groups[group][reg.unit, reg.name] = step.value
                launched.update({group} if reg.name == "D_OP_ENABLE" else ())
            else:
                for values in groups:
                    values[reg.unit, reg.name] = step.value
        return [groups[g] for g in sorted(launched)] or [groups[0]]


def interrupt_bit(source: str, regmap: RegisterMap, where: str = "") -> int:
    """The GLB S_INTR_STATUS bit of an intr_notify source such as SDP_0 or cdma_dat_1."""
    return program_interrupt_bit(source, regmap, Wait(path=where or "<trace>", line=None))


def job_from_trace(trace: Trace, regmap: RegisterMap, blob_dir: Path) -> Job:
    return job_from_program(compile_trace(trace), blob_dir)


def job_from_program(program: Program, blob_dir: Path) -> Job:
    regmap = RegisterMap.for_layout(program.layout)
    job = Job(intr_status_addr=regmap.address(regmap.get("GLB", "S_INTR_STATUS")),
              intr_mask_addr=regmap.address(regmap.get("GLB", "S_INTR_MASK")))
    add = job.steps.append
    for index, s in enumerate(program.steps):
        if isinstance(s, WriteRegister):
            add(Step("reg_write", s.address, s.value, name=s.register.qualified, where=s.where, index=index))
        elif isinstance(s, ReadRegister):
            add(Step("read_reg", s.address, s.expected, mask=s.mask, name=s.register.qualified,
                     sync="poll" if s.poll else "", where=s.where, index=index))
        elif isinstance(s, FillMemory):
            add(Step("mem_fill", s.base, size=s.size, mem=MEMORIES[s.memory], where=s.where, index=index))
        elif isinstance(s, LoadMemory):
            for offset, data in _runs(s.records):
                blob = blob_dir / f"load{index}_{offset:x}.bin"
                blob.write_bytes(data)
                add(Step("mem_write", s.base + offset, size=len(data), mem=MEMORIES[s.memory], file=blob.name,
                         where=s.where, index=index))
        elif isinstance(s, WatchInterrupt):
            add(Step("watch_intr", value=-1 if s.bit is None else s.bit, sync=s.sync, where=s.where, index=index))
        elif isinstance(s, CheckRegion):  # the bench reads the region back; the verdict is outside the simulator
            add(Step("check", s.base, size=s.size, mem=MEMORIES[s.memory], sync=s.sync or "",
                     name=s.file or s.sync or "", where=s.where, index=index))
        elif isinstance(s, AwaitSync):
            add(Step("await_sync", sync=s.sync, where=s.where, index=index))
        elif isinstance(s, WaitInterrupt):
            add(Step("wait_line", where=s.where, index=index))
    add(Step("await_sync", sync="*", where="end of trace"))
    return job


def _runs(records) -> list[tuple[int, bytes]]:
    """Merge adjacent (offset, bytes) records into contiguous runs, keeping file order."""
    runs: list[tuple[int, bytearray]] = []
    for offset, data in records:
        data = data.tobytes()
        if runs and runs[-1][0] + len(runs[-1][1]) == offset:
            runs[-1][1].extend(data)
        else:
            runs.append((offset, bytearray(data)))
    return [(o, bytes(d)) for o, d in runs]
