"""Mutations of real traces for the trace mutator's harness (issue 17), as hypothesis strategies.

A `Case` is one seed trace with one mutation applied. Seeds are NVIDIA's traces (found under --nvdla-data)
and traces of generated layers (seeds.py):

    register   one reg_write / write_reg value set to a boundary or random 32-bit value
    field      one field of one written register (width from the register map) set to a boundary of its
               width (0, 1, max, max-1, the top bit and the value below it) or a random value of it
    fields     2 to 4 such field mutations at once (sizes, strides and modes that only break together)
    argument   one number of a memory or check command (base, size, crc) set to a boundary (up to 2**64-1)
    text       a line deleted, duplicated, swapped, cut short, or garbage / separators / a huge number inserted
    datfile    one memory file the trace loads damaged: cut short, a huge offset or size, a bad byte,
               records (or lines of bytes) dropped or repeated, a huge number as a byte, not UTF-8, empty

The mutated files are plain bytes; `Case.write(folder)` lays the case out next to hard links to (or copies of)
the seed's other files, so a reproducer is the folder (a trace may not read a symbolic link leading out of it).
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import strategies as st

KINDS = ("register", "field", "fields", "argument", "text", "datfile")
BOUNDARY_32 = (0, 1, 2, 0x1F, 0x20, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 0x7FFF_FFFF,
               0x8000_0000, 0xFFFF_FFE0, 0xFFFF_FFF8, 0xFFFF_FFFE, 0xFFFF_FFFF)
BOUNDARY_64 = (*BOUNDARY_32, 1 << 32, (1 << 32) + 0x20, 1 << 34, 1 << 40, (1 << 62) - 1, 1 << 63, (1 << 64) - 1)
GARBAGE = ("\x0b", "\x0c", "\u2028", "\u2029", "\x85", "\x00", "\t", ";", "(", ")", ",", "//", "#", '"', "0x",
           "\ufffd", "reg_write(", "check_crc(sync_id_0, 1, 0x0, 0x0, 0x0);", "9" * 5000, "a" * 300,
           "mem_init(pri_mem, 0x0, 0x100000000, ALL_ZERO);", "wait", "intr_notify(SDP_0, x);")
_REG_VALUE = re.compile(rb"(reg_write\([\w.]+,\s*|write_reg\s+\S+\s+)(0x[0-9a-fA-F]+|\d+)")
_ARGUMENT = re.compile(rb"\b(mem_init|mem_load|check_crc|check_file|load_mem|dump_mem)\b[^\n]*")
_NUMBER = re.compile(rb"0x[0-9a-fA-F]+|\b\d+\b")
_MEMORY_FILE = re.compile(rb'"([^"\n]+\.(?:dat|mem))"|\s(\S+\.dat)\s*(?:#|$)', re.MULTILINE)


@dataclass(frozen=True)
class Seed:
    trace: Path  # the .cfg or .txn
    profile: str
    text: bytes
    files: tuple[str, ...]  # memory files the trace names that exist next to it
    #: (line number, register) of every register write, from the golden parser and the register map
    registers: tuple = field(default=(), compare=False)
    origin: str = "nvidia"  # or "generated"


@dataclass
class Case:
    seed: Seed
    kind: str
    description: str
    trace_text: bytes
    files: dict[str, bytes] = field(default_factory=dict)  # mutated memory files by name

    def write(self, folder: Path) -> Path:
        """Lay the case out in `folder` (the seed's unchanged files hard-linked or copied); returns the trace path."""
        folder.mkdir(parents=True, exist_ok=True)
        for name in self.seed.files:
            target = folder / name
            if name in self.files:
                target.unlink(missing_ok=True)  # never write through a link into the seed
                target.write_bytes(self.files[name])
            elif not target.exists():
                _share(self.seed.trace.parent / name, target)
        trace = folder / self.seed.trace.name
        trace.write_bytes(self.trace_text)
        return trace


def _share(source: Path, target: Path) -> None:
    """The seed's file as a plain file of the case: a hard link where the file system allows, else a copy."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def make_seed(trace: Path, profile: str, origin: str = "nvidia") -> Seed | None:
    """The seed of one trace, None when some memory file it names is absent (it only ever says "missing file")."""
    from golden.trace import RegWrite, load_trace

    text = trace.read_bytes()
    names = sorted({(m.group(1) or m.group(2)).decode() for m in _MEMORY_FILE.finditer(text)})
    files = tuple(n for n in names if (trace.parent / n).is_file())
    if len(files) != len(names):
        return None
    registers = tuple((c.line, c.register) for c in load_trace(trace).commands if isinstance(c, RegWrite))
    return Seed(trace, profile, text, files, registers, origin)


def load_seeds(root: Path) -> list[Seed]:
    """Every NVIDIA trace under root whose profile the folder names give and whose memory files exist."""
    from golden.config import infer_profile_name
    from golden.trace import find_traces

    seeds = []
    for trace in find_traces(root):
        profile = infer_profile_name(trace)
        if profile is not None and (seed := make_seed(trace, profile)) is not None:
            seeds.append(seed)
    return seeds


def _lines(text: bytes) -> list[bytes]:
    return text.split(b"\n")


def _replace(text: bytes, start: int, end: int, new: bytes) -> bytes:
    return text[:start] + new + text[end:]


@st.composite
def register_mutation(draw, seed: Seed) -> Case:
    matches = list(_REG_VALUE.finditer(seed.text))
    if not matches:
        return draw(text_mutation(seed))
    match = draw(st.sampled_from(matches))
    value = draw(st.one_of(st.sampled_from(BOUNDARY_32), st.integers(0, 0xFFFF_FFFF),
                           st.integers(0, 0xFFFF_FFFF).map(lambda v: v & ~0x1F)))
    text = _replace(seed.text, match.start(2), match.end(2), f"{value:#x}".encode())
    line = seed.text.count(b"\n", 0, match.start()) + 1
    return Case(seed, "register", f"line {line}: value {value:#x}", text)


def field_boundaries(width: int) -> tuple[int, ...]:
    top = (1 << width) - 1
    return tuple(sorted({0, 1, top, max(0, top - 1), 1 << (width - 1), (1 << (width - 1)) - 1}))


@st.composite
def field_mutation(draw, seed: Seed, most: int = 1) -> Case:
    """One field (most=1) or 2..most fields of the written registers, each set to a value of its width."""
    writes = [(line, reg) for line, reg in seed.registers if reg.fields]
    if not writes:
        return draw(register_mutation(seed))
    lines, changes = _lines(seed.text), []
    for _ in range(draw(st.integers(min(2, most), most))):
        line, register = draw(st.sampled_from(writes))
        match = _REG_VALUE.search(lines[line - 1])
        if match is None:  # a value the pattern does not see (a decimal spelling)
            continue
        target = draw(st.sampled_from(register.fields))
        value = draw(st.one_of(st.sampled_from(field_boundaries(target.width)),
                               st.integers(0, (1 << target.width) - 1)))
        new = (int(match.group(2), 0) & ~target.mask & 0xFFFF_FFFF) | (value << target.lsb)
        lines[line - 1] = _replace(lines[line - 1], match.start(2), match.end(2), f"{new:#x}".encode())
        changes.append(f"line {line}: {register.qualified}.{target.name} = {value:#x} ({target.width} bits)")
    if not changes:
        return draw(register_mutation(seed))
    return Case(seed, "field" if most == 1 else "fields", "; ".join(changes), b"\n".join(lines))


def fields_mutation(seed: Seed) -> st.SearchStrategy[Case]:
    return field_mutation(seed, most=4)


@st.composite
def argument_mutation(draw, seed: Seed) -> Case:
    commands = list(_ARGUMENT.finditer(seed.text))
    if not commands:
        return draw(register_mutation(seed))
    command = draw(st.sampled_from(commands))
    numbers = list(_NUMBER.finditer(command.group(0)))
    if not numbers:
        return draw(register_mutation(seed))
    number = draw(st.sampled_from(numbers))
    value = draw(st.one_of(st.sampled_from(BOUNDARY_64), st.integers(0, (1 << 64) - 1)))
    start = command.start() + number.start()
    text = _replace(seed.text, start, command.start() + number.end(), f"{value:#x}".encode())
    line = seed.text.count(b"\n", 0, start) + 1
    return Case(seed, "argument", f"line {line}: {command.group(1).decode()} argument {value:#x}", text)


@st.composite
def text_mutation(draw, seed: Seed) -> Case:
    lines = _lines(seed.text)
    at = draw(st.integers(0, len(lines) - 1))
    action = draw(st.sampled_from(("delete", "duplicate", "swap", "cut", "insert", "truncate", "flip")))
    if action == "delete":
        lines.pop(at)
    elif action == "duplicate":
        lines.insert(at, lines[at])
    elif action == "swap":
        other = draw(st.integers(0, len(lines) - 1))
        lines[at], lines[other] = lines[other], lines[at]
    elif action == "cut":
        lines[at] = lines[at][:draw(st.integers(0, max(0, len(lines[at]) - 1)))]
    elif action == "insert":
        garbage = draw(st.one_of(st.sampled_from(GARBAGE), st.text(max_size=12)))
        column = draw(st.integers(0, len(lines[at])))
        lines[at] = lines[at][:column] + garbage.encode("utf-8", "surrogatepass") + lines[at][column:]
    elif action == "truncate":
        lines = lines[:at]
    else:
        column = draw(st.integers(0, max(0, len(lines[at]) - 1)))
        byte = draw(st.integers(0, 255))
        lines[at] = lines[at][:column] + bytes([byte]) + lines[at][column + 1:]
    return Case(seed, "text", f"{action} at line {at + 1}", b"\n".join(lines))


@st.composite
def datfile_mutation(draw, seed: Seed) -> Case:
    if not seed.files:
        return draw(text_mutation(seed))
    name = draw(st.sampled_from(seed.files))
    data = (seed.trace.parent / name).read_bytes()
    action = draw(st.sampled_from(("truncate", "offset", "size", "byte", "drop", "repeat", "binary", "empty")))
    records = list(re.finditer(rb"offset:(0x[0-9a-fA-F]+), size:(\d+)", data))
    if action == "truncate":
        data = data[:draw(st.integers(0, max(0, len(data) - 1)))]
    elif action in ("offset", "size") and records:
        record = draw(st.sampled_from(records))
        group = 1 if action == "offset" else 2
        value = draw(st.one_of(st.sampled_from(BOUNDARY_64), st.integers(0, 1 << 80)))
        text = f"{value:#x}" if group == 1 else str(value)
        data = _replace(data, record.start(group), record.end(group), text.encode())
    elif action == "byte":
        at = draw(st.integers(0, max(0, len(data) - 1)))
        data = _replace(data, at, at + 1, draw(st.sampled_from((b"G", b"x", b" ", b"\n", b"}", b"{", b"\x0c"))))
    elif action in ("drop", "repeat") and records:
        record = draw(st.sampled_from(records))
        end = data.find(b"\n", record.start())
        end = len(data) if end < 0 else end + 1
        begin = data.rfind(b"\n", 0, record.start()) + 1
        data = _replace(data, begin, end, b"" if action == "drop" else data[begin:end] * 2)
    elif action in ("offset", "size", "drop", "repeat"):  # the traceplayer's lines of bytes: no records
        lines = _lines(data)
        at = draw(st.integers(0, len(lines) - 1))
        if action == "drop":
            lines.pop(at)
        elif action == "repeat":
            lines.insert(at, lines[at])
        else:
            value = draw(st.one_of(st.sampled_from(BOUNDARY_64), st.integers(0, 1 << 80)))
            lines[at] = f"{value:#x}".encode()
        data = b"\n".join(lines)
    elif action == "binary":
        data = data[:64] + b"\xff\xfe\x00\x80" + data[64:]
    else:
        data = b""
    return Case(seed, "datfile", f"{name}: {action}", seed.text, {name: data})


MUTATIONS = {"register": register_mutation, "field": field_mutation, "fields": fields_mutation,
             "argument": argument_mutation, "text": text_mutation, "datfile": datfile_mutation}
#: The mix of kinds (weights): register values are the fuzzing use case, hence the largest share. Hypothesis
#: plays a repeated example once, so kinds with fewer distinct cases (register values) end up below their weight.
MIX = {"register": 2, "field": 2, "fields": 2, "argument": 1, "text": 2, "datfile": 1}


def cases(seeds: list[Seed]) -> st.SearchStrategy[Case]:
    kinds = [kind for kind, weight in MIX.items() for _ in range(weight)]
    return st.tuples(st.sampled_from(seeds), st.sampled_from(kinds)).flatmap(
        lambda pair: MUTATIONS[pair[1]](pair[0]))
