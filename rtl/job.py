"""A program as the bench plays it: its steps, with the bench's parameters, for the simulator process.

`job_from_program` turns the compiled steps of a trace (golden/steps.py) into the bench's, one job step per
program step with the program step's `index` and op (the ops of golden/formats/program_file.py), so that what the
bench observes maps back onto the program: a memory load becomes one step per contiguous run of bytes, an
interrupt watch carries its GLB.S_INTR_STATUS bit (-1: any bit), a region check its memory range.
The semantics are the program's (golden/steps.py); rtl/bench/sequences.py executes them.

On disk a job is the program in its one file form (golden/formats/program_file.py: program.json and memory/) and
job.json next to it with the bench's parameters; the simulator is started with +nvdla_job=PATH/job.json and
reads both (Job.load).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from pathlib import Path

from golden.errors import NvdlaVerifError
from golden.formats.program_file import FILE as PROGRAM_FILE
from golden.formats.program_file import OPS, read_program, write_program
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
JOB_FILE = "job.json"
JOB_FORMAT = "nvdla-verif bench job"
JOB_VERSION = 1
#: How the simulator is told where its job is (a plusarg: cocotb.plusargs).
JOB_PLUSARG = "+nvdla_job="
WRITE, READ, FILL, LOAD, WATCH, AWAIT, WAIT, CHECK = (OPS[kind] for kind in (
    WriteRegister, ReadRegister, FillMemory, LoadMemory, WatchInterrupt, AwaitSync, WaitInterrupt, CheckRegion))


class JobFileError(NvdlaVerifError):
    """A bench job file that cannot be read."""


@dataclass
class Step:
    op: str   # an op of golden/formats/program_file.py: write_register, read_register, fill_memory, ...
    addr: int = 0
    value: int = 0
    mask: int = 0xFFFFFFFF
    size: int = 0
    mem: str = "pri"
    sync: str = ""
    where: str = ""
    index: int = -1  # the program step it plays
    data: bytes = b""  # load_memory: the bytes of one contiguous run


@dataclass
class Job:
    steps: list[Step] = field(default_factory=list)
    timeout_cycles: int = 200_000
    clock_ns: int = 10
    reset_idle_cycles: int = 8192   # NVIDIA's verif/verilator harness idles 8192 cycles after reset
    axi_pause: float = 0.0          # probability of an AXI channel stall per cycle (randomised back-pressure)
    seed: int = 1
    clock: str = "gpi"              # gpi: cocotb's C++ clock; py: a Python coroutine (golden/settings.py)
    # GLB.S_INTR_STATUS and S_INTR_MASK of the program's register layout (master's unless set)
    intr_status_addr: int = 0x100C
    intr_mask_addr: int = 0x1004

    def save(self, program: Program, folder: Path) -> Path:
        """The program (its one file form) and the bench's parameters into `folder`; the job file's path."""
        write_program(program, folder)
        parameters = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "steps"}
        path = Path(folder) / JOB_FILE
        path.write_text(json.dumps({"format": JOB_FORMAT, "version": JOB_VERSION, "program": PROGRAM_FILE,
                                    **parameters}) + "\n")
        return path

    @classmethod
    def load(cls, path: Path) -> Job:
        path = Path(path)
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise JobFileError(f"cannot read the bench job: {exc}", where=str(path)) from None
        if not isinstance(data, dict) or (data.get("format"), data.get("version")) != (JOB_FORMAT, JOB_VERSION):
            raise JobFileError(f"not an {JOB_FORMAT!r} version {JOB_VERSION} file (a job written by an older bench "
                               "holds steps of its own: play the trace again)", where=str(path))
        job = job_from_program(read_program(path.parent / data["program"]))
        known = {f.name for f in fields(cls)} - {"steps"}
        for name, value in data.items():
            if name in known:
                setattr(job, name, value)
        return job

    def reg_writes(self, regmap: RegisterMap) -> dict[tuple[str, str], int]:
        """The last value written to every register (the traces program group 0)."""
        out = {}
        for step in self.steps:
            if step.op == WRITE:
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
            if step.op != WRITE:
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


def job_from_trace(trace: Trace) -> Job:
    return job_from_program(compile_trace(trace))


def job_from_program(program: Program) -> Job:
    regmap = RegisterMap.for_layout(program.layout)
    job = Job(intr_status_addr=regmap.address(regmap.get("GLB", "S_INTR_STATUS")),
              intr_mask_addr=regmap.address(regmap.get("GLB", "S_INTR_MASK")))
    add = job.steps.append
    for index, s in enumerate(program.steps):
        if isinstance(s, WriteRegister):
            add(Step(WRITE, s.address, s.value, where=s.where, index=index))
        elif isinstance(s, ReadRegister):
            add(Step(READ, s.address, s.expected, mask=s.mask, sync="poll" if s.poll else "", where=s.where,
                     index=index))
        elif isinstance(s, FillMemory):
            add(Step(FILL, s.base, size=s.size, mem=MEMORIES[s.memory], where=s.where, index=index))
        elif isinstance(s, LoadMemory):
            for offset, data in _runs(s.records):
                add(Step(LOAD, s.base + offset, size=len(data), mem=MEMORIES[s.memory], where=s.where, index=index,
                         data=data))
        elif isinstance(s, WatchInterrupt):
            add(Step(WATCH, value=-1 if s.bit is None else s.bit, sync=s.sync, where=s.where, index=index))
        elif isinstance(s, CheckRegion):  # the bench reads the region back; the verdict is outside the simulator
            add(Step(CHECK, s.base, size=s.size, mem=MEMORIES[s.memory], sync=s.sync or "", where=s.where,
                     index=index))
        elif isinstance(s, AwaitSync):
            add(Step(AWAIT, sync=s.sync, where=s.where, index=index))
        elif isinstance(s, WaitInterrupt):
            add(Step(WAIT, where=s.where, index=index))
    add(Step(AWAIT, sync="*", where="end of trace"))
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
