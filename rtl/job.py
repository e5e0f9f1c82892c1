"""A hardware layer as the bench plays it: an ordered list of steps, saved as JSON for the simulator.

Steps: register writes (byte address), memory fills and loads (raw byte files),
interrupt waits (GLB S_INTR_STATUS bit), register polls, and region checks
(expected CRC and, when the golden model ran, the expected bytes). `steps_from_cfg`
reads NVIDIA's `.cfg` trace language (nvdla/README.md, "trace_tests").
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from golden.errors import TraceError
from golden.memory import read_memory_file
from golden.regs.regmap import RegisterMap

# GLB S_INTR_STATUS bit of each interrupt source (NVDLA_GLB.rdl, master layout)
INTR_BITS = {"SDP": 0, "CDP": 2, "PDP": 4, "BDMA": 6, "RUBIK": 8, "CDMA_DAT": 16, "CDMA_WT": 18, "CACC": 20}
MEMORIES = {"pri_mem": "pri", "1": "pri", "0": "pri", "sec_mem": "sec", "2": "sec"}
_COMMAND = re.compile(r"^\s*(\w+)\s*\((.*)\)\s*;\s*(//.*)?$")


@dataclass
class Step:
    op: str                      # reg_write, mem_fill, mem_write, wait_intr, poll_reg, check
    addr: int = 0
    value: int = 0
    size: int = 0
    mem: str = "pri"
    name: str = ""
    file: str = ""
    crc: int | None = None
    expect_file: str = ""
    layout: dict | None = None


@dataclass
class Job:
    steps: list[Step] = field(default_factory=list)
    timeout_cycles: int = 200_000
    clock_ns: int = 10

    def save(self, path: Path) -> None:
        path.write_text(json.dumps({"steps": [asdict(s) for s in self.steps],
                                    "timeout_cycles": self.timeout_cycles, "clock_ns": self.clock_ns}))

    @classmethod
    def load(cls, path: Path) -> Job:
        data = json.loads(Path(path).read_text())
        return cls([Step(**s) for s in data["steps"]], data["timeout_cycles"], data["clock_ns"])

    def reg_writes(self, regmap: RegisterMap) -> dict[tuple[str, str], int]:
        """The last value written to every register (group 0 view; the traces use group 0)."""
        out = {}
        for step in self.steps:
            if step.op == "reg_write":
                reg = regmap.at(step.addr)
                out[reg.unit, reg.name] = step.value
        return out


def _args(text: str) -> list[str]:
    return [a.strip().strip('"') for a in text.split(",")]


def _int(text: str, path: Path, line: int) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise TraceError(f"not a number: {text!r}", path=str(path), line=line) from None


def steps_from_cfg(path: Path, regmap: RegisterMap, blob_dir: Path) -> Job:
    """Translate a `.cfg` trace; memory loads become raw files in blob_dir."""
    path = Path(path)
    job = Job()
    syncs: dict[str, int] = {}
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.split("//", 1)[0].strip() if not raw.strip().startswith("//") else ""
        if not line:
            continue
        match = _COMMAND.match(line + ";" if not line.endswith(";") else line)
        if not match:
            raise TraceError(f"cannot parse {raw!r}", path=str(path), line=number)
        op, args = match.group(1), _args(match.group(2))
        if op == "reg_write":
            reg = regmap.lookup(args[0])
            job.steps.append(Step("reg_write", regmap.address(reg), _int(args[1], path, number) & 0xFFFFFFFF,
                                  name=reg.qualified))
        elif op == "mem_init":
            job.steps.append(Step("mem_fill", _int(args[1], path, number), size=_int(args[2], path, number),
                                  mem=_memory(args[0], path, number)))
        elif op == "mem_load":
            base, mem = _int(args[1], path, number), _memory(args[0], path, number)
            for offset, data in _runs(read_memory_file(path.parent / args[2])):
                blob = blob_dir / f"load{len(job.steps)}_{offset:x}.bin"
                blob.write_bytes(data)
                job.steps.append(Step("mem_write", base + offset, size=len(data), mem=mem, file=blob.name))
        elif op == "intr_notify":
            source = re.sub(r"_\d+$", "", args[0]).upper()
            index = int(args[0].rsplit("_", 1)[1]) if args[0][-1].isdigit() else 0
            if source not in INTR_BITS:
                raise TraceError(f"unknown interrupt source {args[0]!r}", path=str(path), line=number)
            syncs[args[1]] = INTR_BITS[source] + index
            job.steps.append(Step("wait_intr", value=INTR_BITS[source] + index, name=args[1]))
        elif op == "poll_reg_equal":
            reg = regmap.lookup(args[0])
            job.steps.append(Step("poll_reg", regmap.address(reg), _int(args[1], path, number), name=reg.qualified))
        elif op == "check_crc":
            job.steps.append(Step("check", _int(args[2], path, number), size=_int(args[3], path, number),
                                  mem=_memory(args[1], path, number), name=args[0],
                                  crc=_int(args[4], path, number)))
        elif op in ("check_nothing", "sync_notify", "sync_wait"):
            continue
        else:
            raise TraceError(f"trace command {op} is not supported by the RTL bench", path=str(path), line=number)
    return job


def _memory(text: str, path: Path, line: int) -> str:
    if text not in MEMORIES:
        raise TraceError(f"unknown memory {text!r}", path=str(path), line=line)
    return MEMORIES[text]


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
