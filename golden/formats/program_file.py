"""A compiled program (golden/steps.py) as files: what crosses a process boundary to an implementation.

    write_program(program, folder) -> folder/program.json   memory images as folder/memory/<step>_<record>.bin
    read_program(path) -> Program                           path: program.json or its folder

program.json (schema: golden/formats/program.schema.json) holds {"format": "nvdla-verif program",
"version": 1, "name", "layout", "steps": [...]}, one object per step in order, with the fields of its step
class and an "op" (write_register, read_register, fill_memory, load_memory, watch_interrupt, await_sync,
wait_interrupt, check_region). A register is named UNIT.REGISTER and has its CSB byte address; memories are
"pri_mem" and "sec_mem"; a load_memory's records are {"offset", "size", "file"} with the bytes in the file
(its own "file" names where they came from: the trace's memory file, or "dlhdl" for the DL HDL adapter's).
What a verdict expects is not in it: a check_region gives no CRC or golden bytes, a read_register gives its
mask and expected value only when it polls (the program must wait for that value).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from golden.errors import NvdlaVerifError
from golden.regs.regmap import Register, RegisterMap
from golden.steps import (
    AwaitSync,
    CheckRegion,
    FillMemory,
    LoadMemory,
    Program,
    ReadRegister,
    Step,
    WaitInterrupt,
    WatchInterrupt,
    WriteRegister,
)

FORMAT = "nvdla-verif program"
VERSION = 1
FILE = "program.json"
SCHEMA = Path(__file__).with_name("program.schema.json")
OPS = {WriteRegister: "write_register", ReadRegister: "read_register", FillMemory: "fill_memory",
       LoadMemory: "load_memory", WatchInterrupt: "watch_interrupt", AwaitSync: "await_sync",
       WaitInterrupt: "wait_interrupt", CheckRegion: "check_region"}


class ProgramFileError(NvdlaVerifError):
    """A program file that cannot be read: not JSON, another format or version, a field missing."""


def write_program(program: Program, folder: str | Path) -> Path:
    folder = Path(folder)
    (folder / "memory").mkdir(parents=True, exist_ok=True)
    steps = [_entry(index, step, folder) for index, step in enumerate(program.steps)]
    path = folder / FILE
    path.write_text(json.dumps({"format": FORMAT, "version": VERSION, "name": program.name,
                                "layout": program.layout, "steps": steps}, indent=1) + "\n")
    return path


def _entry(index: int, step: Step, folder: Path) -> dict[str, object]:
    entry: dict[str, object] = {"op": OPS[type(step)], "where": step.where}
    if isinstance(step, WriteRegister):
        entry.update(register=_name(step.register), address=step.address, value=step.value)
    elif isinstance(step, ReadRegister):
        entry.update(register=_name(step.register), address=step.address, poll=step.poll)
        if step.poll:
            entry.update(mask=step.mask, expected=step.expected)
    elif isinstance(step, FillMemory):
        entry.update(memory=step.memory, base=step.base, size=step.size)
    elif isinstance(step, LoadMemory):
        records = []
        for number, (offset, data) in enumerate(step.records):
            name = f"memory/{index}_{number}.bin"
            (folder / name).write_bytes(np.ascontiguousarray(data, np.uint8).tobytes())
            records.append({"offset": offset, "size": int(data.size), "file": name})
        entry.update(memory=step.memory, base=step.base, records=records, file=step.file)
    elif isinstance(step, WatchInterrupt):
        entry.update(bit=step.bit, source=step.source, sync=step.sync)
    elif isinstance(step, AwaitSync):
        entry.update(sync=step.sync)
    elif isinstance(step, CheckRegion):
        entry.update(verb=step.verb, sync=step.sync, memory=step.memory, base=step.base, size=step.size)
    return entry


def _name(register: Register) -> str:
    return register.qualified


def read_program(path: str | Path) -> Program:
    path = Path(path)
    path = path / FILE if path.is_dir() else path
    try:
        data = json.loads(path.read_text())
    except OSError as exc:
        raise ProgramFileError(f"cannot read the program: {exc.strerror}", where=str(path)) from None
    except json.JSONDecodeError as exc:
        raise ProgramFileError(f"not JSON: {exc.msg} (line {exc.lineno})", where=str(path)) from None
    if data.get("format") != FORMAT or data.get("version") != VERSION:
        raise ProgramFileError(f"not an {FORMAT!r} version {VERSION} file (format {data.get('format')!r}, "
                               f"version {data.get('version')!r})", where=str(path))
    regmap = RegisterMap.for_layout(data["layout"])
    steps = []
    for number, entry in enumerate(data["steps"]):
        try:
            steps.append(_step(entry, regmap, path.parent))
        except (KeyError, TypeError, ValueError) as exc:
            raise ProgramFileError(f"step {number} ({entry.get('op', '?')}): missing or bad field {exc}",
                                   where=str(path)) from None
    return Program(data["name"], path, data["layout"], steps, None)


def _step(entry: dict, regmap: RegisterMap, folder: Path) -> Step:
    op, where = entry["op"], entry.get("where", "")
    if op in ("write_register", "read_register"):
        unit, _, name = entry["register"].partition(".")
        register = regmap.get(unit, name)
        if op == "write_register":
            return WriteRegister(where, register, entry["address"], entry["value"])
        return ReadRegister(where, register, entry["address"], entry.get("mask", 0), entry.get("expected", 0),
                            entry["poll"], "poll_reg_equal" if entry["poll"] else "reg_read")
    if op == "fill_memory":
        return FillMemory(where, entry["memory"], entry["base"], entry["size"])
    if op == "load_memory":
        records = tuple((r["offset"], _bytes(folder / r["file"], r["size"])) for r in entry["records"])
        return LoadMemory(where, entry["memory"], entry["base"], records, entry.get("file", ""))
    if op == "watch_interrupt":
        return WatchInterrupt(where, entry["bit"], entry.get("source"), entry["sync"])
    if op == "await_sync":
        return AwaitSync(where, entry["sync"])
    if op == "wait_interrupt":
        return WaitInterrupt(where)
    if op == "check_region":
        return CheckRegion(where, entry["verb"], entry["sync"], entry["memory"], entry["base"], entry["size"])
    raise ValueError(f"op {op!r}")


def _bytes(path: Path, size: int) -> np.ndarray:
    data = np.fromfile(path, np.uint8)
    if data.size != size:
        raise ValueError(f"{path.name} holds {data.size} bytes, the record says {size}")
    data.flags.writeable = False
    return data
