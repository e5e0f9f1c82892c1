"""A trace compiled into steps: the one form every implementation executes.

`compile_trace(trace)` reads the trace's memory files and resolves its register and
interrupt names once; the golden model (golden/interpreter.py), the RTL bench and an
external program then all run the same `Program`. `prepare(trace, profile)` loads a trace (a path or a Trace),
refuses one whose input files are missing (MissingFiles) or whose register layout is not the profile's, and
compiles it:

    WriteRegister(register, value)           a CSB write
    ReadRegister(register, mask, expected)   a CSB read; `poll` repeats it until it matches, time
                                             passing in between; mask 0 reads without checking
    FillMemory(memory, base, size)           zero bytes (mem_init ALL_ZERO)
    LoadMemory(memory, base, records)        bytes of a memory file, ((offset, uint8 array), ...)
    WatchInterrupt(bit, sync)                arm a watch on GLB.S_INTR_STATUS bit `bit` (None: any
                                             bit); when it is set, `sync` fires and the bit is
                                             cleared (write 1), as an interrupt handler does
    AwaitSync(sync)                          let time pass until `sync` has fired (check_nothing)
    WaitInterrupt()                          let time pass until the interrupt line rises (txn `wait`)
    CheckRegion(memory, base, size, ...)     await `sync` (None: until the hardware is idle), then
                                             the region's bytes are the outcome of this step; the
                                             trace's CRC or golden bytes are what the verdict expects

Semantics shared by every implementation (../shared/nvdla/README.md, "trace_tests/"): steps run in
file order; sync_notify/sync_wait only order per-unit streams, which file order already does
(a sync_wait before its sync_notify is a TraceError here); mem_reserve/mem_release do nothing.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from golden import memory_files
from golden.config import Profile
from golden.errors import DataFileError, NvdlaVerifError, TraceError
from golden.limits import memory_limit
from golden.memory import read_memory_file
from golden.regs.regmap import Register, RegisterMap
from golden.trace import (
    CheckCrc,
    CheckFile,
    CheckNothing,
    Command,
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
    load_trace,
)


@dataclass(frozen=True)
class Step:
    where: str  # file:line of the trace command


@dataclass(frozen=True)
class WriteRegister(Step):
    register: Register
    address: int
    value: int


@dataclass(frozen=True)
class ReadRegister(Step):
    register: Register
    address: int
    mask: int
    expected: int
    poll: bool
    verb: str  # the trace's command, for reports: read_reg, poll_reg_equal, reg_read_check, reg_read

    @property
    def checks(self) -> bool:
        return self.mask != 0


@dataclass(frozen=True)
class FillMemory(Step):
    memory: str
    base: int
    size: int


@dataclass(frozen=True)
class LoadMemory(Step):
    memory: str
    base: int
    records: tuple[tuple[int, np.ndarray], ...] = field(repr=False)
    file: str = ""

    @property
    def size(self) -> int:
        return sum(data.size for _, data in self.records)


@dataclass(frozen=True)
class WatchInterrupt(Step):
    bit: int | None  # GLB.S_INTR_STATUS bit; None watches any bit
    source: str | None
    sync: str


@dataclass(frozen=True)
class AwaitSync(Step):
    sync: str


@dataclass(frozen=True)
class WaitInterrupt(Step):
    pass


@dataclass(frozen=True)
class CheckRegion(Step):
    verb: str  # check_crc, check_file or dump_mem
    sync: str | None  # None: when the hardware is idle (dump_mem)
    memory: str
    base: int
    size: int
    crc: int | None = None
    expected: np.ndarray | None = field(default=None, repr=False, compare=False)
    file: str = ""

    @property
    def name(self) -> str:
        return f"{self.memory}[{self.base:#x}, +{self.size:#x})"


@dataclass
class Program:
    """A compiled trace: its steps and where it came from. `trace` is None for a program that is no trace's
    own compile (read from a program file, or rewritten by an adapter): its steps are all there is."""

    name: str
    path: Path
    layout: str  # register map layout (master or nvdlav1)
    steps: list[Step]
    trace: Trace | None = field(repr=False)

    @property
    def checks(self) -> list[tuple[int, CheckRegion | AwaitSync | ReadRegister]]:
        """(index, step) of every step the verdict judges: region checks, checking register reads and
        check_nothing (its sync must fire)."""
        return [(i, s) for i, s in enumerate(self.steps)
                if isinstance(s, CheckRegion | AwaitSync) or (isinstance(s, ReadRegister) and s.checks)]

    @property
    def regions(self) -> list[tuple[int, CheckRegion]]:
        return [(i, s) for i, s in enumerate(self.steps) if isinstance(s, CheckRegion)]


class MissingFiles(TraceError):
    """Input or golden files the trace names are absent (NVIDIA's snapshot lacks some: MISSING_FILES.tsv)."""

    def __init__(self, names: list[str], path: str):
        self.names = names
        super().__init__(f"missing file: {', '.join(names)}", path=path)


def prepare(trace: Trace | str | Path, profile: Profile, data_root: str | Path | None = None) -> Program:
    """The compiled program of a trace (a TraceError, MissingFiles included, when it cannot be run; a
    DataFileError for a data file outside the trace's folder, or `data_root` when given, or not NVIDIA's)."""
    trace = trace if isinstance(trace, Trace) else load_trace(trace, data_root=data_root)
    missing = trace.missing_files()
    if missing:
        raise MissingFiles(missing, str(trace.path))
    if trace.layout != profile.layout:
        raise TraceError(f"the trace uses the {trace.layout} register layout, profile {profile.name} "
                         f"has the {profile.layout} layout", path=str(trace.path))
    return compile_trace(trace)


def compile_trace(trace: Trace) -> Program:
    """The steps of a trace; a TraceError (naming file:line) for anything no implementation could run."""
    regmap = RegisterMap.for_layout(trace.layout)
    notified: set[str] = set()
    steps: list[Step] = []
    for command in trace.commands:
        if isinstance(command, SyncNotify):
            notified.add(command.event)
        elif isinstance(command, SyncWait) and command.event not in notified:
            raise TraceError(f"sync_wait({command.unit}, {command.event}) before any sync_notify of it (steps "
                             "run in file order)", path=command.path, line=command.line)
        step = _step(command, trace, regmap)
        if step is not None:
            steps.append(step)
    return Program(trace.name, trace.path, trace.layout, steps, trace)


def _step(c: Command, trace: Trace, regmap: RegisterMap) -> Step | None:
    where = c.where
    if isinstance(c, RegWrite):
        return WriteRegister(where, c.register, regmap.address(c.register), c.value)
    if isinstance(c, RegRead):
        verb = ("reg_read" if not c.mask else "read_reg" if trace.format == "txn"
                else "poll_reg_equal" if c.poll else "reg_read_check")
        return ReadRegister(where, c.register, regmap.address(c.register), c.mask, c.expected,
                            c.poll or trace.format == "txn", verb)
    if isinstance(c, MemInit):
        return FillMemory(where, c.memory, c.base, c.size)
    if isinstance(c, MemLoad):
        return LoadMemory(where, c.memory, c.base, _load_records(trace, c), c.file)
    if isinstance(c, IntrNotify):
        bit = None if c.source is None else interrupt_bit(c.source, regmap, c)
        return WatchInterrupt(where, bit, c.source, c.sync)
    if isinstance(c, CheckNothing):
        return AwaitSync(where, c.sync)
    if isinstance(c, Wait):
        return WaitInterrupt(where)
    if isinstance(c, CheckCrc | CheckFile) and c.size == 0:
        raise TraceError(f"{c.op} of 0 bytes checks nothing", path=c.path, line=c.line)
    if isinstance(c, CheckCrc):
        return CheckRegion(where, "check_crc", c.sync, c.memory, c.base, c.size, crc=c.crc)
    if isinstance(c, CheckFile):
        expected = file_image(trace, c, SHORT_GOLDEN_FILE)
        verb = "dump_mem" if c.sync is None else "check_file"
        return CheckRegion(where, verb, c.sync, c.memory, c.base, c.size, expected=expected, file=c.file)
    if isinstance(c, SyncNotify | SyncWait | MemReserve | MemRelease):
        return None
    raise TraceError(f"{c.op} has no step", path=c.path, line=c.line)


SHORT_GOLDEN_FILE = "golden file {file} has {end:#x} bytes, the check compares {size:#x}"
SHORT_LOAD = "load_mem wants {size:#x} bytes but {file} has {end:#x}"
_SOURCE = re.compile(r"([A-Za-z_]+?)_?([01])")


def interrupt_bit(source: str, regmap: RegisterMap, command: Command) -> int:
    """The GLB.S_INTR_STATUS bit of an intr_notify source such as SDP_0 or cdma_dat_1."""
    match = _SOURCE.fullmatch(source)
    try:
        if not match:
            raise KeyError(source)
        name = f"{match.group(1).upper()}_DONE_STATUS{match.group(2)}"
        return regmap.get("GLB", "S_INTR_STATUS").field(name).lsb
    except (KeyError, NvdlaVerifError):
        raise TraceError(f"unknown interrupt source {source!r}", path=command.path, line=command.line) from None


def _load_records(trace: Trace, c: MemLoad) -> tuple[tuple[int, np.ndarray], ...]:
    if c.size is None:
        return memory_records(trace.data_file(c), c)
    return ((0, file_image(trace, c, SHORT_LOAD)),)


def memory_records(path: Path, command: Command | None = None) -> tuple[tuple[int, np.ndarray], ...]:
    """The (offset, bytes) records of a memory file; parsed once while the file is unchanged. A file that cannot
    be read, is not in NVIDIA's syntaxes or holds no bytes is a DataFileError naming it and the command's line."""
    read_by = command.where if command is not None else None
    try:
        stat = os.stat(path)
    except OSError as exc:
        raise DataFileError(f"cannot read memory file: {exc.strerror}", path=str(path), read_by=read_by) from None
    try:
        return _records(str(path), stat.st_mtime_ns, stat.st_size)
    except DataFileError as exc:
        if read_by is None or exc.read_by is not None:
            raise
        raise DataFileError(exc.message, path=exc.path, line=exc.line, read_by=read_by) from None


@lru_cache(maxsize=64)
def _records(path: str, mtime_ns: int, size: int) -> tuple[tuple[int, np.ndarray], ...]:
    records = tuple(read_memory_file(path))
    if not any(data.size for _, data in records):
        raise DataFileError("holds no data bytes (NVIDIA's files hold {offset:..., size:..., payload:...} records "
                            "or lines of 0xNN bytes)", path=path)
    for _, data in records:
        data.flags.writeable = False  # shared by every program compiled from the file
    return records


def file_image(trace: Trace, c: MemLoad | CheckFile, short: str) -> np.ndarray:
    """The first `c.size` bytes of the command's memory file (gaps as zero); a file that holds fewer is a
    DataFileError at the command, its message `short` formatted with file, end and size."""
    path = trace.data_file(c)
    assert c.size is not None, "a load_mem without a size reads the whole file (_load_records)"
    records = memory_records(path, c)
    end = max((offset + data.size for offset, data in records), default=0)
    if end < c.size:
        raise DataFileError(short.format(file=c.file, end=end, size=c.size), path=c.path, line=c.line)
    return memory_files.file_image(records, c.size, str(path), memory_limit())
