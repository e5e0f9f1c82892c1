"""Sparse byte-addressed memory images, NVIDIA's memory-file syntaxes and check_crc's CRC.

A `Memory` holds 64 KiB pages of bytes with a parallel "written" mask, so a
read of bytes nobody wrote, or an access outside the regions a test
declared, can be reported (policy "error", "warn" or "allow"). A
`MemorySystem` pairs the primary memory (DBB/DRAM, `pri_mem`) with the
secondary one (CV-SRAM, `sec_mem`): the two are separate address spaces.
"""

from __future__ import annotations

import re
import warnings
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from golden.errors import DataFileError, MemoryAccessError

PAGE_BITS = 16
PAGE_SIZE = 1 << PAGE_BITS
POLICIES = ("error", "warn", "allow")


class MemoryAccessWarning(UserWarning):
    """Issued instead of MemoryAccessError under the "warn" policy."""


@dataclass(frozen=True)
class Region:
    base: int
    size: int
    name: str = ""

    def contains(self, address: int, size: int) -> bool:
        return self.base <= address and address + size <= self.base + self.size


@dataclass
class Memory:
    """One sparse memory image with 64-bit (or narrower) byte addresses."""

    name: str = "pri_mem"
    address_bits: int = 64
    unwritten: str = "error"
    outside: str = "error"
    regions: list[Region] = field(default_factory=list)
    _pages: dict[int, np.ndarray] = field(default_factory=dict, repr=False)
    _written: dict[int, np.ndarray] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for policy in (self.unwritten, self.outside):
            if policy not in POLICIES:
                raise ValueError(f"policy must be one of {POLICIES}, not {policy!r}")

    # -- regions and policies -------------------------------------------------
    def declare(self, base: int, size: int, name: str = "") -> None:
        """Declare [base, base+size) as a region tests may touch."""
        self._check_bounds(base, size)
        self.regions.append(Region(base, size, name))

    def _check_bounds(self, address: int, size: int) -> None:
        if address < 0 or size < 0 or address + size > 1 << self.address_bits:
            raise MemoryAccessError(
                f"{self.name}: access outside the {self.address_bits}-bit address space",
                address=address, size=size)

    def _check_region(self, address: int, size: int, verb: str) -> None:
        if not self.regions or self.outside == "allow" or size == 0:
            return
        if any(region.contains(address, size) for region in self.regions):
            return
        self._report(self.outside, f"{self.name}: {verb} outside every declared region", address, size)

    @staticmethod
    def _report(policy: str, message: str, address: int, size: int) -> None:
        if policy == "error":
            raise MemoryAccessError(message, address=address, size=size)
        if policy == "warn":
            warnings.warn(f"address 0x{address:x}+0x{size:x}: {message}", MemoryAccessWarning, stacklevel=3)

    # -- raw access -------------------------------------------------------------
    def _spans(self, address: int, size: int) -> Iterable[tuple[int, int, int, int]]:
        """(page number, offset in page, offset in buffer, length) covering [address, address+size)."""
        done = 0
        while done < size:
            page, offset = divmod(address + done, PAGE_SIZE)
            length = min(PAGE_SIZE - offset, size - done)
            yield page, offset, done, length
            done += length

    def write(self, address: int, data, *, check_region: bool = True) -> None:
        """Write bytes (bytes, bytearray or any numpy array, taken as its raw bytes)."""
        buffer = _as_bytes(data)
        self._check_bounds(address, buffer.size)
        if check_region:
            self._check_region(address, buffer.size, "write")
        for page, offset, start, length in self._spans(address, buffer.size):
            if page not in self._pages:
                self._pages[page] = np.zeros(PAGE_SIZE, np.uint8)
                self._written[page] = np.zeros(PAGE_SIZE, bool)
            self._pages[page][offset:offset + length] = buffer[start:start + length]
            self._written[page][offset:offset + length] = True

    def fill(self, address: int, size: int, value: int = 0) -> None:
        self.write(address, np.full(size, value, np.uint8))

    def read(self, address: int, size: int, *, unwritten: str | None = None) -> np.ndarray:
        """Read `size` bytes as a new np.uint8 array. Never-written bytes read as 0."""
        self._check_bounds(address, size)
        self._check_region(address, size, "read")
        policy = unwritten or self.unwritten
        out = np.zeros(size, np.uint8)
        missing = 0
        for page, offset, start, length in self._spans(address, size):
            if page in self._pages:
                out[start:start + length] = self._pages[page][offset:offset + length]
                if policy != "allow":
                    missing += length - int(np.count_nonzero(self._written[page][offset:offset + length]))
            else:
                missing += length
        if missing and policy != "allow":
            self._report(policy, f"{self.name}: read of {missing} never-written byte(s)", address, size)
        return out

    def is_written(self, address: int, size: int) -> np.ndarray:
        """Boolean mask of which bytes in [address, address+size) were written."""
        out = np.zeros(size, bool)
        for page, offset, start, length in self._spans(address, size):
            if page in self._written:
                out[start:start + length] = self._written[page][offset:offset + length]
        return out

    def written_runs(self) -> list[tuple[int, np.ndarray]]:
        """Maximal runs of written bytes as (address, bytes), in address order."""
        runs: list[tuple[int, np.ndarray]] = []
        for page in sorted(self._pages):
            mask = self._written[page].astype(np.int8)
            edges = np.flatnonzero(np.diff(np.concatenate(([0], mask, [0]))))
            for begin, end in zip(edges[::2], edges[1::2], strict=True):
                address = page * PAGE_SIZE + int(begin)
                chunk = self._pages[page][begin:end].copy()
                if runs and runs[-1][0] + runs[-1][1].size == address:
                    runs[-1] = (runs[-1][0], np.concatenate((runs[-1][1], chunk)))
                else:
                    runs.append((address, chunk))
        return runs

    def crc32(self, address: int, size: int) -> int:
        """check_crc's CRC: zlib CRC-32 over [address, address+size), unwritten bytes as 0.

        ../shared/nvdla/README.md, "The CRC used by check_crc".
        """
        return zlib.crc32(self.read(address, size, unwritten="allow").tobytes()) & 0xFFFFFFFF

    def copy(self) -> Memory:
        clone = Memory(self.name, self.address_bits, self.unwritten, self.outside, list(self.regions))
        clone._pages = {page: data.copy() for page, data in self._pages.items()}
        clone._written = {page: mask.copy() for page, mask in self._written.items()}
        return clone

    def load_records(self, base: int, records: Iterable[tuple[int, np.ndarray]]) -> None:
        for offset, payload in records:
            self.write(base + offset, payload)


@dataclass
class MemorySystem:
    """The primary (DBB/DRAM) and secondary (CV-SRAM) memories of one NVDLA instance."""

    pri: Memory = field(default_factory=lambda: Memory("pri_mem"))
    sec: Memory = field(default_factory=lambda: Memory("sec_mem"))

    def select(self, cvsram: bool) -> Memory:
        return self.sec if cvsram else self.pri

    def by_name(self, name: str) -> Memory:
        """"pri_mem"/"sec_mem" as trace files name them."""
        if name == "pri_mem":
            return self.pri
        if name == "sec_mem":
            return self.sec
        raise KeyError(name)


def _as_bytes(data) -> np.ndarray:
    if isinstance(data, np.ndarray):
        return np.ascontiguousarray(data).reshape(-1).view(np.uint8)
    return np.frombuffer(bytes(data), np.uint8)


# -- memory files --------------------------------------------------------------------------------
# ../shared/nvdla/README.md, ".dat / .mem memory-image syntax": records
# {offset:0x.., size:N, payload:0x.. ..} in three spellings (wrapped, flat, warehouse).
_RECORD = re.compile(
    r"\{\s*'?offset'?\s*:\s*(0x[0-9a-fA-F]+)\s*,\s*'?size'?\s*:\s*(\d+)\s*,\s*'?(?:payload|value)'?\s*:"
    r"\s*([0-9a-fA-Fx ]*?)\s*\}\s*,?\s*$")
_BYTE = re.compile(r"0x([0-9a-fA-F]{1,2})$")


_RECORDS = re.compile(
    r"\{\s*'?offset'?\s*:\s*(0x[0-9a-fA-F]+)\s*,\s*'?size'?\s*:\s*(\d+)\s*,\s*'?(?:payload|value)'?\s*:"
    r"\s*([0-9a-fA-Fx ]*?)\s*\}")
_SHORT_BYTE = re.compile(r"0x([0-9a-fA-F])(?![0-9a-fA-F])")
_FRAME_LINES = re.compile(r"^\s*(?:[{}],?)?\s*$\n?", re.MULTILINE)


def parse_records(text: str, path: str = "<dat>") -> list[tuple[int, np.ndarray]]:
    """Parse the trace_tests record syntax into (offset, payload) pairs.

    Contiguous records are merged into one run. The whole file is parsed with
    C-level regex and bytes.fromhex; only a file that does not parse cleanly is
    walked line by line, to name the offending line.
    """
    found = _RECORDS.findall(text)
    body_lines = len(_FRAME_LINES.sub("", text).splitlines())
    payloads = [payload for _, _, payload in found]
    sizes = np.array([int(size) for _, size, _ in found], np.int64)
    counts = np.array([payload.count("0x") for payload in payloads], np.int64)
    joined = _SHORT_BYTE.sub(r"0\1", " ".join(payloads)).replace("0x", "")
    try:
        data = np.frombuffer(bytes.fromhex(joined), np.uint8)
    except ValueError:
        data = None
    if data is None or body_lines != len(found) or not np.array_equal(sizes, counts) or data.size != sizes.sum():
        return _parse_records_by_line(text, path)
    offsets = np.array([int(offset, 16) for offset, _, _ in found], np.int64)
    if not found:
        return []
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    breaks = np.flatnonzero(offsets[1:] != offsets[:-1] + sizes[:-1]) + 1
    run_starts = np.concatenate(([0], breaks))
    run_ends = np.concatenate((breaks, [len(found)]))
    return [(int(offsets[a]), data[starts[a]:starts[b - 1] + sizes[b - 1]].copy())
            for a, b in zip(run_starts, run_ends, strict=True)]


def _parse_records_by_line(text: str, path: str) -> list[tuple[int, np.ndarray]]:
    records = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line in ("", "{", "}", "},", "{,"):
            continue
        match = _RECORD.match(line)
        if not match:
            raise DataFileError(f"not a memory record: {line[:60]!r}", path=path, line=number)
        offset, size, payload = int(match.group(1), 16), int(match.group(2)), match.group(3).split()
        values = []
        for token in payload:
            byte = _BYTE.match(token)
            if not byte:
                raise DataFileError(f"bad payload byte {token!r}", path=path, line=number)
            values.append(int(byte.group(1), 16))
        if len(values) != size:
            raise DataFileError(f"record says size:{size} but has {len(values)} payload bytes",
                                path=path, line=number)
        records.append((offset, np.array(values, np.uint8)))
    return records


_TXN_DATA = re.compile(r"^\s*0x[0-9a-fA-F]{1,2}(\s+0x[0-9a-fA-F]{1,2})*\s*$")


def parse_byte_lines(text: str, path: str = "<dat>") -> np.ndarray:
    """Parse the nvdlav1 traceplayer .dat syntax: header lines, then lines of `0xNN` bytes.

    ../shared/nvdla/README.md, "traceplayer/: the nvdlav1 input.txn format".
    """
    lines = [line for line in text.splitlines() if line.strip().startswith("0x")]
    joined = _SHORT_BYTE.sub(r"0\1", " ".join(lines)).replace("0x", "")
    try:
        return np.frombuffer(bytes.fromhex(joined), np.uint8).copy()
    except ValueError:
        pass
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("0x") and not _TXN_DATA.match(stripped):
            raise DataFileError(f"bad data line {stripped[:60]!r}", path=path, line=number)
    raise DataFileError("bad data bytes", path=path)


def is_record_syntax(text: str) -> bool:
    return "offset" in text[:4096]


def read_memory_file(path: str | Path) -> list[tuple[int, np.ndarray]]:
    """Load any NVIDIA memory file (.dat/.mem, either syntax) as (offset, bytes) records."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise DataFileError(f"cannot read memory file: {exc.strerror}", path=str(path)) from None
    except UnicodeDecodeError:
        raise DataFileError("memory file is not text", path=str(path)) from None
    if is_record_syntax(text):
        return parse_records(text, str(path))
    return [(0, parse_byte_lines(text, str(path)))]


def format_records(records: Iterable[tuple[int, np.ndarray]], record_size: int = 32) -> str:
    """Write records in the wrapped trace_tests syntax, `record_size` payload bytes per record."""
    lines = ["{"]
    for offset, payload in records:
        payload = _as_bytes(payload)
        for start in range(0, payload.size, record_size):
            chunk = payload[start:start + record_size]
            body = " ".join(f"0x{b:02x}" for b in chunk.tolist())
            lines.append(f"{{offset:0x{offset + start:x}, size:{chunk.size}, payload:{body}}} ,")
    lines.append("}")
    return "\n".join(lines) + "\n"


def format_byte_lines(data, per_line: int = 32) -> str:
    """Write bytes in the traceplayer .dat syntax (data lines only)."""
    data = _as_bytes(data)
    return "".join(
        " ".join(f"0x{b:02x}" for b in data[start:start + per_line].tolist()) + "\n"
        for start in range(0, data.size, per_line))
