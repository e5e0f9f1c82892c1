"""NVIDIA's trace languages: parse the `.cfg` command language and nvdlav1's `input.txn`, write `.cfg`.

A parsed trace is a `Trace`: the list of `Command`s of one file, each with the
file and line it came from, in file order. Both languages map onto the same
command classes, so a player (golden/player.py, the RTL bench) handles them alike:

    RegWrite(register, value)                    reg_write / write_reg (a CSB write)
    RegRead(register, mask, expected, poll)      poll_reg_equal / reg_read_check / read_reg
    MemInit(memory, base, size, pattern)         mem_init(mem, base, size, ALL_ZERO)
    MemLoad(memory, base, file, size)            mem_load / load_mem (size: first SIZE bytes, txn only)
    IntrNotify(source, sync)                     intr_notify(SDP_0, sync): wait for the GLB status bit
    CheckCrc(sync, memory, base, size, crc)      check_crc
    CheckFile(sync, memory, base, size, file)    check_file / dump_mem (txn: sync is None)
    CheckNothing(sync)                           check_nothing
    SyncNotify(unit, event) / SyncWait(...)      ordering between per-unit streams
    Wait()                                       txn `wait`: the DLA interrupt line
    MemReserve / MemRelease                      accepted, no effect on a model

API:
    load_trace(path, data_root=None) -> Trace   a .cfg file, an input.txn file, or a test folder holding one
    parse_cfg(text, path, regmap) / parse_txn(text, path, regmap) -> Trace
    find_traces(*paths) -> [Path]      every trace under the folders (both layouts), sorted
    Trace.files() / .missing_files()   memory files the trace reads ([(command, Path)]), each inside the trace's
                                       folder or its data_root (golden.memory_files.inside; else DataFileError)
    Trace.segments() -> [Segment]      the commands cut after each launch's synchronisation
    format_cfg(trace or commands) -> str, write_cfg(trace, path)

Every command carries .path, .line (.where = "file:line") and .comment (txn trailing
comment). Every syntax error, unknown register or out-of-range value raises one TraceError
naming file:line. A register value must fit 32 bits; with strict=True a value may not set
bits outside the register's fields either (NVIDIA's own traces do, e.g. random filler in
SDP.D_DP_BN_ALU_SRC_VALUE[31:16], so strict is off for them; stimulus should use it).
Memory names: `pri_mem`, `sec_mem`, and `1`, which NVIDIA's benches read as the primary
memory (../shared/nvdla/README.md, "check_crc").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import NotRequired, TypedDict

from golden.errors import RegisterError, TraceError
from golden.memory_files import inside, split_lines
from golden.regs.regmap import Register, RegisterMap

MEMORIES = {"pri_mem": "pri_mem", "sec_mem": "sec_mem", "1": "pri_mem"}
README_RULE = "../shared/nvdla/README.md: trace_tests"


# -- commands ----------------------------------------------------------------------------------------
class Where(TypedDict):
    """Where a command came from: the keyword arguments every command class takes first."""

    path: str
    line: int
    comment: NotRequired[str]


@dataclass(frozen=True)
class Command:
    path: str = field(compare=False, repr=False)
    line: int = field(compare=False, repr=False)
    comment: str = field(default="", compare=False, repr=False)

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    @property
    def op(self) -> str:
        return type(self).__name__


@dataclass(frozen=True)
class RegWrite(Command):
    register: Register = field(kw_only=True)
    value: int = 0


@dataclass(frozen=True)
class RegRead(Command):
    register: Register = field(kw_only=True)
    mask: int = 0xFFFFFFFF
    expected: int = 0
    poll: bool = False


@dataclass(frozen=True)
class MemInit(Command):
    memory: str = "pri_mem"
    base: int = 0
    size: int = 0
    pattern: str = "ALL_ZERO"


@dataclass(frozen=True)
class MemLoad(Command):
    memory: str = "pri_mem"
    base: int = 0
    file: str = ""
    size: int | None = None


@dataclass(frozen=True)
class MemReserve(Command):
    memory: str = "pri_mem"
    base: int = 0
    size: int = 0


@dataclass(frozen=True)
class MemRelease(Command):
    memory: str = "pri_mem"
    base: int = 0
    sync: str = ""


@dataclass(frozen=True)
class IntrNotify(Command):
    source: str | None = None
    sync: str = ""


@dataclass(frozen=True)
class CheckCrc(Command):
    sync: str = ""
    memory: str = "pri_mem"
    base: int = 0
    size: int = 0
    crc: int = 0


@dataclass(frozen=True)
class CheckFile(Command):
    sync: str | None = None
    memory: str = "pri_mem"
    base: int = 0
    size: int = 0
    file: str = ""


@dataclass(frozen=True)
class CheckNothing(Command):
    sync: str = ""


@dataclass(frozen=True)
class SyncNotify(Command):
    unit: str = ""
    event: str = ""


@dataclass(frozen=True)
class SyncWait(Command):
    unit: str = ""
    event: str = ""


@dataclass(frozen=True)
class Wait(Command):
    pass


# -- traces --------------------------------------------------------------------------------------------
@dataclass
class Segment:
    """A run of commands that ends after the checks/waits following a launch (of one hardware layer)."""

    commands: list[Command]

    @property
    def enabled(self) -> list[str]:
        """Units whose D_OP_ENABLE (or BDMA launch) the segment writes with 1."""
        return [c.register.unit for c in self.commands if isinstance(c, RegWrite) and c.value & 1
                and c.register.name in ("D_OP_ENABLE", "CFG_LAUNCH0", "CFG_LAUNCH1")]


@dataclass
class Trace:
    path: Path
    format: str  # "cfg" or "txn"
    layout: str  # register map layout the addresses/names were resolved in
    commands: list[Command]
    #: A folder the user names whose files the trace may read too (names stay relative to the trace's folder).
    data_root: Path | None = None
    #: file name -> the path data_file found for it (checking for missing files and loading them ask alike)
    _found: dict[str, Path] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def name(self) -> str:
        return self.path.parent.name if self.format == "txn" else self.path.stem

    @property
    def folder(self) -> Path:
        return self.path.parent

    def data_file(self, command: MemLoad | CheckFile) -> Path:
        """The file a command reads; a DataFileError at its line when it lies outside the trace's box."""
        found = self._found.get(command.file)
        if found is None:
            found = self._found[command.file] = inside(self.folder, command.file, path=command.path,
                                                       line=command.line, data_root=self.data_root)
        return found

    def files(self) -> list[tuple[MemLoad | CheckFile, Path]]:
        return [(c, self.data_file(c)) for c in self.commands if isinstance(c, MemLoad | CheckFile)]

    def missing_files(self) -> list[str]:
        return sorted({c.file for c, p in self.files() if not path_is_file(p)})

    def registers_written(self) -> list[tuple[str, int]]:
        return [(c.register.qualified, c.value) for c in self.commands if isinstance(c, RegWrite)]

    def segments(self) -> list[Segment]:
        segments: list[Segment] = []
        current: list[Command] = []
        launched = False
        for command in self.commands:
            if launched and not isinstance(command, _SYNC_COMMANDS):
                segments.append(Segment(current))
                current, launched = [], False
            current.append(command)
            if isinstance(command, RegWrite) and Segment([command]).enabled:
                launched = True
        if current:
            segments.append(Segment(current))
        return segments


_SYNC_COMMANDS = (RegWrite, RegRead, IntrNotify, CheckCrc, CheckFile, CheckNothing, SyncNotify, SyncWait,
                  Wait)


# -- .cfg parsing ----------------------------------------------------------------------------------
_CALL = re.compile(r"^\s*(\w+)\s*\((.*)\)\s*;\s*(?://.*)?$")
_NUMBER = re.compile(r"^(0x[0-9a-fA-F]+|\d+)$")
_WORD = re.compile(r"^\w+$")
_QUOTED = re.compile(r'^"([^"]+)"$')
_REG_NAME = re.compile(r"^[\w]+\.[\w]+$")
#: Longest number text accepted: 0x + 16 hex digits, or 20 decimal digits (64 bits), with room to spare.
_MAX_NUMBER_CHARS = 24
#: NAME_MAX of common file systems (ext4, xfs, tmpfs): longer names cannot exist.
_NAME_MAX = 255


class _Line:
    """Argument conversion for one line, raising TraceError with its file:line."""

    def __init__(self, path: str, line: int, regmap: RegisterMap, strict: bool = False):
        self.path, self.line, self.regmap, self.strict = path, line, regmap, strict

    def error(self, message: str) -> TraceError:
        return TraceError(message, path=self.path, line=self.line, rule=README_RULE)

    def number(self, text: str, what: str, bits: int = 64) -> int:
        if not _NUMBER.match(text):
            raise self.error(f"{what}: expected a number, got {text[:40]!r}")
        if len(text) > _MAX_NUMBER_CHARS:  # before int(): a 5,000-digit number is not worth converting
            raise self.error(f"{what}: {text[:20]}... ({len(text)} characters) does not fit in {bits} bits")
        try:
            value = int(text, 0)
        except ValueError:  # e.g. 0615: a leading zero (C would read octal)
            raise self.error(f"{what}: {text!r} is not a number (a decimal number has no leading zero)") from None
        if value >= 1 << bits:
            raise self.error(f"{what}: {text} does not fit in {bits} bits")
        return value

    def word(self, text: str, what: str) -> str:
        if not _WORD.match(text):
            raise self.error(f"{what}: expected a name, got {text!r}")
        return text

    def memory(self, text: str) -> str:
        if text not in MEMORIES:
            raise self.error(f"unknown memory {text!r}; expected pri_mem, sec_mem or 1")
        return MEMORIES[text]

    def file(self, text: str) -> str:
        match = _QUOTED.match(text)
        if not match:
            raise self.error(f"expected a quoted file name, got {text[:80]!r}")
        return self.file_name(match.group(1))

    def file_name(self, name: str) -> str:
        """A memory file next to the trace: a name the file system can hold (NAME_MAX bytes, no NUL)."""
        if len(name.encode("utf-8", "surrogateescape")) > _NAME_MAX or "\0" in name:
            raise self.error(f"file name {name[:40]!r}... is not a name a file system can hold "
                             f"(at most {_NAME_MAX} bytes, no NUL)")
        return name

    def register(self, text: str) -> Register:
        if not _REG_NAME.match(text):
            raise self.error(f"expected a register name UNIT.REG_0, got {text!r}")
        try:
            return self.regmap.lookup(text)
        except RegisterError as exc:
            raise self.error(f"unknown register {text}: {exc.message}") from None

    def register_value(self, reg: Register, text: str) -> int:
        value = self.number(text, f"value of {reg.trace_name}", bits=32)
        return check_value(reg, value, self) if self.strict else value


def check_value(reg: Register, value: int, line: _Line) -> int:
    """Strict mode: reject a value with bits set outside every field of the register.

    NVIDIA's own traces set such bits (random filler in e.g. SDP.D_DP_BN_ALU_SRC_VALUE[31:16]),
    which the hardware ignores, so this is off by default; stimulus-generated traces use it.
    """
    defined = sum(f.mask for f in reg.fields)
    if value & ~defined & 0xFFFFFFFF:
        fields_text = ", ".join(f"{f.name}[{f.msb}:{f.lsb}]" for f in reg.fields)
        raise line.error(f"value {value:#x} sets bits {value & ~defined:#x} outside the fields of "
                         f"{reg.trace_name} ({fields_text})")
    return value


def _split_args(text: str) -> list[str]:
    return [part.strip() for part in text.split(",")] if text.strip() else []


def _cfg_command(name: str, args: list[str], ln: _Line) -> Command:
    where: Where = {"path": ln.path, "line": ln.line}

    def arity(*counts: int) -> None:
        if len(args) not in counts:
            expected = " or ".join(str(c) for c in counts)
            raise ln.error(f"{name} takes {expected} arguments, got {len(args)}")

    if name in ("reg_write", "reg_read_check", "poll_reg_equal"):
        arity(2)
        reg = ln.register(args[0])
        if name == "reg_write":
            return RegWrite(**where, register=reg, value=ln.register_value(reg, args[1]))
        return RegRead(**where, register=reg, expected=ln.number(args[1], "expected value", 32),
                       poll=name == "poll_reg_equal")
    if name in ("poll_field_equal",):
        arity(2)
        unit_reg, _, fld_name = args[0].rpartition(".")
        reg = ln.register(unit_reg)
        try:
            fld = reg.field(fld_name)
        except RegisterError as exc:
            raise ln.error(exc.message) from None
        value = ln.number(args[1], "expected field value", fld.width)
        return RegRead(**where, register=reg, mask=fld.mask, expected=value << fld.lsb, poll=True)
    if name == "reg_read":
        arity(2)
        return RegRead(**where, register=ln.register(args[0]), mask=0, expected=0)
    if name == "mem_init":
        arity(4, 5)
        if _QUOTED.match(args[2]):
            raise ln.error("mem_init from a file is not supported; use mem_load")
        pattern = ln.word(args[3], "pattern")
        if pattern != "ALL_ZERO":
            raise ln.error(f"unsupported mem_init pattern {pattern}; only ALL_ZERO is defined")
        return MemInit(**where, memory=ln.memory(args[0]), base=ln.number(args[1], "base"),
                       size=ln.number(args[2], "size"), pattern=pattern)
    if name == "mem_load":
        arity(3, 4)
        return MemLoad(**where, memory=ln.memory(args[0]), base=ln.number(args[1], "base"),
                       file=ln.file(args[2]))
    if name == "mem_reserve":
        arity(3, 4)
        return MemReserve(**where, memory=ln.memory(args[0]), base=ln.number(args[1], "base"),
                          size=ln.number(args[2], "size"))
    if name == "mem_release":
        arity(3)
        return MemRelease(**where, memory=ln.memory(args[0]), base=ln.number(args[1], "base"),
                          sync=ln.word(args[2], "sync id"))
    if name == "intr_notify":
        arity(1, 2)
        if len(args) == 1:
            return IntrNotify(**where, source=None, sync=ln.word(args[0], "sync id"))
        return IntrNotify(**where, source=ln.word(args[0], "interrupt source"),
                          sync=ln.word(args[1], "sync id"))
    if name == "check_crc":
        arity(5)
        return CheckCrc(**where, sync=ln.word(args[0], "sync id"), memory=ln.memory(args[1]),
                        base=ln.number(args[2], "base"), size=ln.number(args[3], "size"),
                        crc=ln.number(args[4], "crc", 32))
    if name == "check_file":
        arity(5)
        return CheckFile(**where, sync=ln.word(args[0], "sync id"), memory=ln.memory(args[1]),
                         base=ln.number(args[2], "base"), size=ln.number(args[3], "size"),
                         file=ln.file(args[4]))
    if name == "check_nothing":
        arity(1)
        return CheckNothing(**where, sync=ln.word(args[0], "sync id"))
    if name in ("sync_notify", "sync_wait"):
        arity(2)
        cls = SyncNotify if name == "sync_notify" else SyncWait
        return cls(**where, unit=ln.word(args[0], "unit"), event=ln.word(args[1], "event"))
    raise ln.error(f"unknown command {name!r}")


def parse_cfg(text: str, path: str | Path = "<cfg>", regmap: RegisterMap | None = None,
              strict: bool = False) -> Trace:
    """Parse the master `.cfg` trace language (../shared/nvdla/README.md, "trace_tests/")."""
    regmap = regmap or RegisterMap.for_layout("master")
    commands = []
    for number, raw in enumerate(split_lines(text), 1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("//"):
            continue
        ln = _Line(str(path), number, regmap, strict)
        match = _CALL.match(stripped)
        if not match:
            raise ln.error(f"malformed line {stripped[:80]!r}: expected `command(args);`")
        commands.append(_cfg_command(match.group(1), _split_args(match.group(2)), ln))
    return Trace(Path(path), "cfg", regmap.layout, commands)


# -- input.txn parsing -----------------------------------------------------------------------------
def _txn_register(address: str, ln: _Line) -> Register:
    word = ln.number(address, "register address", 32)
    if word >> 16 != 0xFFFF:
        raise ln.error(f"register address {address} lacks the 0xffff flag bits (31..16)")
    try:
        return ln.regmap.at((word & 0xFFFF) << 2)
    except RegisterError as exc:
        raise ln.error(f"unknown register: {exc.message}") from None


def _txn_memory(base: int) -> str:
    # CV-SRAM lives at 0x5xxxxxxx, DRAM at 0x8xxxxxxx (../shared/nvdla/README.md, "traceplayer/").
    return "sec_mem" if base >> 28 == 0x5 else "pri_mem"


def parse_txn(text: str, path: str | Path = "<txn>", regmap: RegisterMap | None = None,
              strict: bool = False) -> Trace:
    """Parse nvdlav1's traceplayer `input.txn` (../shared/nvdla/README.md, "traceplayer/")."""
    regmap = regmap or RegisterMap.for_layout("nvdlav1")
    commands: list[Command] = []
    for number, raw in enumerate(split_lines(text), 1):
        body, _, comment = raw.partition("#")
        words = body.split()
        if not words:
            continue
        ln = _Line(str(path), number, regmap, strict)
        where: Where = {"path": ln.path, "line": number}
        name, args = words[0], words[1:]
        expected = {"write_reg": 2, "read_reg": 3, "load_mem": 3, "dump_mem": 3, "wait": 0}
        if name not in expected:
            raise ln.error(f"unknown command {name!r}")
        if len(args) != expected[name]:
            raise ln.error(f"{name} takes {expected[name]} arguments, got {len(args)}")
        if name in ("write_reg", "read_reg"):
            reg = _txn_register(args[0], ln)
            where["comment"] = comment.strip()
            if name == "write_reg":
                commands.append(RegWrite(**where, register=reg, value=ln.register_value(reg, args[1])))
            else:
                commands.append(RegRead(**where, register=reg, mask=ln.number(args[1], "mask", 32),
                                        expected=ln.number(args[2], "expected value", 32), poll=True))
        elif name == "wait":
            commands.append(Wait(**where))
        else:
            base, size = ln.number(args[0], "base"), ln.number(args[1], "size")
            memory = _txn_memory(base)
            file = ln.file_name(args[2])
            if name == "load_mem":
                commands.append(MemLoad(**where, memory=memory, base=base, file=file, size=size))
            else:
                commands.append(CheckFile(**where, sync=None, memory=memory, base=base, size=size, file=file))
    return Trace(Path(path), "txn", regmap.layout, commands)


# -- files ----------------------------------------------------------------------------------------------
def load_trace(path: str | Path, regmap: RegisterMap | None = None, strict: bool = False,
               data_root: str | Path | None = None) -> Trace:
    """Parse a `.cfg`, an `input.txn`/`.txn`, or the folder of a test holding exactly one of them. Its data
    files are read from inside its folder, or inside `data_root` when given (Trace.data_file)."""
    path = Path(path)
    if path_is_dir(path):
        found = [p for p in sorted(path.iterdir()) if _is_trace_file(p)]
        if len(found) != 1:
            raise TraceError(f"expected one .cfg or input.txn in the folder, found {len(found)}",
                             path=str(path))
        path = found[0]
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise TraceError(f"cannot read trace: {reason}", path=str(path)[:300]) from None
    if path.suffix not in (".txn", ".cfg"):
        raise TraceError("not a trace file (expected .cfg or .txn)", path=str(path))
    trace = (parse_txn if path.suffix == ".txn" else parse_cfg)(text, path, regmap, strict)
    trace.data_root = Path(data_root) if data_root is not None else None
    return trace


def trace_label(path: Path) -> str:
    """A trace's name from its path, as Trace.name gives it (never touching a path the OS refuses)."""
    try:
        folder = path.is_dir()
    except OSError:
        folder = False
    if folder:
        return path.name
    return path.parent.name if path.suffix == ".txn" else path.stem


def path_is_file(path: Path) -> bool:
    """Path.is_file() that is False, not OSError, for a name the OS refuses (too long, NUL)."""
    try:
        return path.is_file()
    except (OSError, ValueError):  # a name the OS refuses (too long, NUL) names no file
        return False


def path_is_dir(path: Path) -> bool:
    """Path.is_dir() that is False, not OSError, for a name the OS refuses (too long, NUL)."""
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


def _is_trace_file(path: Path) -> bool:
    return path_is_file(path) and path.suffix in (".cfg", ".txn")


def find_traces(*paths: str | Path) -> list[Path]:
    """Every `.cfg` and `.txn` trace under the given files/folders, sorted, without duplicates."""
    found: set[Path] = set()
    for root in map(Path, paths):
        if path_is_file(root):
            if not _is_trace_file(root):
                raise TraceError("not a trace file (expected .cfg or .txn)", path=str(root))
            found.add(root)
        elif path_is_dir(root):
            found.update(p for p in root.rglob("*") if _is_trace_file(p))
        else:
            raise TraceError("no such file or folder", path=str(root)[:300])
    return sorted(found)


# -- .cfg writer ------------------------------------------------------------------------------------
def _hex(value: int) -> str:
    return f"{value:#x}"


def format_command(command: Command) -> str:
    """One `.cfg` line for a command (a `//` comment for what the language cannot express)."""
    c = command
    if isinstance(c, RegWrite):
        return f"reg_write({c.register.trace_name}, {_hex(c.value)});"
    if isinstance(c, RegRead):
        if c.mask == 0xFFFFFFFF:
            verb = "poll_reg_equal" if c.poll else "reg_read_check"
            return f"{verb}({c.register.trace_name}, {_hex(c.expected)});"
        for fld in c.register.fields:
            if c.mask == fld.mask:
                value = _hex(fld.decode(c.expected))
                return f"poll_field_equal({c.register.trace_name}.{fld.name}, {value});"
        return (f"// read_reg {c.register.trace_name} mask {_hex(c.mask)} expected {_hex(c.expected)}"
                " (masked read: no .cfg form)")
    if isinstance(c, MemInit):
        return f"mem_init({c.memory}, {_hex(c.base)}, {_hex(c.size)}, {c.pattern});"
    if isinstance(c, MemLoad):
        size = f" // first {_hex(c.size)} bytes" if c.size is not None else ""
        return f'mem_load({c.memory}, {_hex(c.base)}, "{c.file}");{size}'
    if isinstance(c, MemReserve):
        return f"mem_reserve({c.memory}, {_hex(c.base)}, {_hex(c.size)});"
    if isinstance(c, MemRelease):
        return f"mem_release({c.memory}, {_hex(c.base)}, {c.sync});"
    if isinstance(c, IntrNotify):
        return f"intr_notify({c.source}, {c.sync});" if c.source else f"intr_notify({c.sync});"
    if isinstance(c, CheckCrc):
        return f"check_crc({c.sync}, {c.memory}, {_hex(c.base)}, {_hex(c.size)}, {c.crc:#010x});"
    if isinstance(c, CheckFile):
        return f'check_file({c.sync or "sync_all"}, {c.memory}, {_hex(c.base)}, {_hex(c.size)}, "{c.file}");'
    if isinstance(c, CheckNothing):
        return f"check_nothing({c.sync});"
    if isinstance(c, SyncNotify):
        return f"sync_notify({c.unit}, {c.event});"
    if isinstance(c, SyncWait):
        return f"sync_wait({c.unit}, {c.event});"
    if isinstance(c, Wait):
        return "// wait (interrupt line; no .cfg form, use intr_notify)"
    raise TypeError(f"cannot format {c!r}")


def format_cfg(trace: Trace | Iterable[Command], header: str | None = None) -> str:
    commands = trace.commands if isinstance(trace, Trace) else list(trace)
    lines = [f"// {line}" for line in (header or "").splitlines()]
    lines += [format_command(c) for c in commands]
    return "\n".join(lines) + "\n"


def write_cfg(trace: Trace | Iterable[Command], path: str | Path, header: str | None = None) -> Path:
    path = Path(path)
    path.write_text(format_cfg(trace, header))
    return path


def command_fields(command: Command) -> dict:
    """The command's own fields (without path/line), e.g. for reports."""
    return {f.name: getattr(command, f.name) for f in fields(command) if f.name not in ("path", "line")}
