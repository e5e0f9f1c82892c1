"""A trace as the bench plays it: an ordered list of steps, saved as JSON for the simulator process.

`job_from_trace` translates a parsed trace (golden/trace.py) command by command, with
the golden player's semantics (golden/player.py): intr_notify only arms a watch on
a GLB interrupt bit; a check (or check_nothing) waits for its sync to fire; firing
clears the bit (write 1 to S_INTR_STATUS, as an interrupt handler does); at the end
the bench waits for every watch still armed. Memory loads become raw byte files
next to the job; a region check carries the trace's CRC or golden file and, when
the golden model ran, its bytes.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from golden.errors import NvdlaVerifError, TraceError
from golden.memory import read_memory_file
from golden.regs.regmap import RegisterMap
from golden.trace import (
    CheckCrc,
    CheckFile,
    CheckNothing,
    IntrNotify,
    MemInit,
    MemLoad,
    MemRelease,
    MemReserve,
    RegRead,
    RegWrite,
    SyncNotify,
    SyncWait,
    Trace,
    Wait,
)

MEMORIES = {"pri_mem": "pri", "sec_mem": "sec"}
_SOURCE = re.compile(r"([A-Za-z_]+?)_?([01])")


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
    crc: int | None = None
    expect_file: str = ""
    where: str = ""
    layout: dict | None = None


@dataclass
class Job:
    steps: list[Step] = field(default_factory=list)
    timeout_cycles: int = 200_000
    clock_ns: int = 10
    reset_idle_cycles: int = 8192   # NVIDIA's verif/verilator harness idles 8192 cycles after reset
    axi_pause: float = 0.0          # probability of an AXI channel stall per cycle (randomised back-pressure)
    seed: int = 1

    def save(self, path: Path) -> None:
        path.write_text(json.dumps({"steps": [asdict(s) for s in self.steps],
                                    "timeout_cycles": self.timeout_cycles, "clock_ns": self.clock_ns,
                                    "reset_idle_cycles": self.reset_idle_cycles, "axi_pause": self.axi_pause,
                                    "seed": self.seed}))

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


def interrupt_bit(source: str, regmap: RegisterMap, where: str = "") -> int:
    """The GLB S_INTR_STATUS bit of an intr_notify source such as SDP_0 or cdma_dat_1."""
    match = _SOURCE.fullmatch(source or "")
    try:
        field_name = f"{match.group(1).upper()}_DONE_STATUS{match.group(2)}"
        return regmap.get("GLB", "S_INTR_STATUS").field(field_name).lsb
    except (AttributeError, KeyError, NvdlaVerifError):
        raise TraceError(f"unknown interrupt source {source!r}", path=where) from None


def _runs(records) -> list[tuple[int, bytes]]:
    """Merge adjacent (offset, bytes) records into contiguous runs, keeping file order."""
    runs: list[tuple[int, bytearray]] = []
    for offset, data in records:
        data = bytes(bytearray(data))
        if runs and runs[-1][0] + len(runs[-1][1]) == offset:
            runs[-1][1].extend(data)
        else:
            runs.append((offset, bytearray(data)))
    return [(o, bytes(d)) for o, d in runs]


def _image(path: Path) -> bytes:
    """A memory file as one byte image from offset 0 (gaps zero), as golden/player.py reads golden files."""
    runs = _runs(read_memory_file(path))
    image = bytearray(max((o + len(d) for o, d in runs), default=0))
    for offset, data in runs:
        image[offset:offset + len(data)] = data
    return bytes(image)


def job_from_trace(trace: Trace, regmap: RegisterMap, blob_dir: Path) -> Job:
    job = Job()
    add = job.steps.append
    for number, c in enumerate(trace.commands):
        if isinstance(c, RegWrite):
            add(Step("reg_write", regmap.address(c.register), c.value & 0xFFFFFFFF, name=c.register.qualified,
                     where=c.where))
        elif isinstance(c, RegRead):
            add(Step("read_reg", regmap.address(c.register), c.expected, mask=c.mask, name=c.register.qualified,
                     sync="poll" if c.poll or trace.format == "txn" else "", where=c.where))
        elif isinstance(c, MemInit):
            add(Step("mem_fill", c.base, size=c.size, mem=MEMORIES[c.memory], where=c.where))
        elif isinstance(c, MemLoad):
            path = trace.folder / c.file
            runs = _runs(read_memory_file(path)) if c.size is None else [(0, _image(path)[:c.size])]
            for offset, data in runs:
                blob = blob_dir / f"load{number}_{offset:x}.bin"
                blob.write_bytes(data)
                add(Step("mem_write", c.base + offset, size=len(data), mem=MEMORIES[c.memory], file=blob.name,
                         where=c.where))
        elif isinstance(c, IntrNotify):
            add(Step("watch_intr", value=interrupt_bit(c.source, regmap, c.where), sync=c.sync, where=c.where))
        elif isinstance(c, CheckCrc):
            add(Step("check", c.base, size=c.size, mem=MEMORIES[c.memory], sync=c.sync, crc=c.crc,
                     name=c.sync, where=c.where))
        elif isinstance(c, CheckFile):
            blob = blob_dir / f"expect{number}.bin"
            blob.write_bytes(_image(trace.folder / c.file)[:c.size])
            add(Step("check", c.base, size=c.size, mem=MEMORIES[c.memory], sync=c.sync or "", name=c.file,
                     file=blob.name, where=c.where))
        elif isinstance(c, CheckNothing):
            add(Step("await_sync", sync=c.sync, where=c.where))
        elif isinstance(c, Wait):
            add(Step("wait_line", where=c.where))
        elif isinstance(c, SyncNotify | SyncWait | MemReserve | MemRelease):
            continue  # file order already honours the per-unit ordering; reservations do not act
        else:
            raise TraceError(f"{c.op} is not supported by the RTL bench", path=c.path, line=c.line)
    add(Step("await_sync", sync="*", where="end of trace"))
    return job
