"""NVIDIA's memory-file syntaxes (.dat / .mem): parse them into (offset, bytes) records and write them.

../shared/nvdla/README.md, ".dat / .mem memory-image syntax": records {offset:0x.., size:N, payload:0x.. ..}
in three spellings (wrapped, flat, warehouse), and the nvdlav1 traceplayer's lines of `0xNN` bytes.
A record must end within the memory limit (golden.limits.memory_limit(): the offsets are relative to the
load address, and the player may build an image of the file); numbers too long to be one are rejected
before they are converted. A traceplayer file's lines other than data lines must be the header lines NVIDIA
writes (`KEY = VALUE`, `# comment`, the dump's banner lines), so that an HTML page or binary is refused.

inside(folder, name, ...) is the one rule of where a trace's data files may lie: inside the trace's
folder, or inside a data root the user names.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from golden.errors import DataFileError
from golden.limits import memory_limit

_MAX_DIGITS = 20

_RECORD = re.compile(
    r"\{\s*'?offset'?\s*:\s*(0x[0-9a-fA-F]+)\s*,\s*'?size'?\s*:\s*(\d+)\s*,\s*'?(?:payload|value)'?\s*:"
    r"\s*([0-9a-fA-Fx ]*?)\s*\}\s*,?\s*$")
_BYTE = re.compile(r"0x([0-9a-fA-F]{1,2})$")
_RECORDS = re.compile(
    r"\{\s*'?offset'?\s*:\s*(0x[0-9a-fA-F]+)\s*,\s*'?size'?\s*:\s*(\d+)\s*,\s*'?(?:payload|value)'?\s*:"
    r"\s*([0-9a-fA-Fx ]*?)\s*\}")
_SHORT_BYTE = re.compile(r"0x([0-9a-fA-F])(?![0-9a-fA-F])")
_FRAME_LINES = re.compile(r"^\s*(?:[{}],?)?\s*$\n?", re.MULTILINE)


def split_lines(text: str) -> list[str]:
    """Lines split at \\n (and \\r\\n) only: \\x0b, \\x0c, \\x1c-\\x1e, \\x85, U+2028/9 are not line breaks
    in NVIDIA's files, and str.splitlines would shift every later line number."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def _record_numbers(offset: str, size: str, path: str, line: int | None) -> tuple[int, int]:
    if len(offset) > _MAX_DIGITS or len(size) > _MAX_DIGITS:
        raise DataFileError("record offset or size is too long a number", path=path, line=line)
    offset_value, size_value = int(offset, 16), int(size)
    if offset_value + size_value > memory_limit():
        raise DataFileError(f"record offset:{offset} size:{size} ends beyond the memory limit of "
                            f"{memory_limit():#x} bytes (golden.limits)", path=path, line=line)
    return offset_value, size_value


def parse_records(text: str, path: str = "<dat>") -> list[tuple[int, np.ndarray]]:
    """Parse the trace_tests record syntax into (offset, payload) pairs.

    Contiguous records are merged into one run. The whole file is parsed with
    C-level regex and bytes.fromhex; only a file that does not parse cleanly is
    walked line by line, to name the offending line.
    """
    found = _RECORDS.findall(text)
    if not found:
        if split_lines(_FRAME_LINES.sub("", text)):
            return _parse_records_by_line(text, path)
        return []
    body_lines = len(split_lines(_FRAME_LINES.sub("", text)))
    numbers = [_record_numbers(offset, size, path, None) for offset, size, _ in found]
    payloads = [payload for _, _, payload in found]
    sizes = np.array([size for _, size in numbers], np.int64)
    counts = np.array([payload.count("0x") for payload in payloads], np.int64)
    joined = _SHORT_BYTE.sub(r"0\1", " ".join(payloads)).replace("0x", "")
    try:
        data = np.frombuffer(bytes.fromhex(joined), np.uint8)
    except ValueError:
        data = None
    if data is None or body_lines != len(found) or not np.array_equal(sizes, counts) or data.size != sizes.sum():
        return _parse_records_by_line(text, path)
    offsets = np.array([offset for offset, _ in numbers], np.int64)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    breaks = np.flatnonzero(offsets[1:] != offsets[:-1] + sizes[:-1]) + 1
    run_starts = np.concatenate(([0], breaks))
    run_ends = np.concatenate((breaks, [len(found)]))
    return [(int(offsets[a]), data[starts[a]:starts[b - 1] + sizes[b - 1]].copy())
            for a, b in zip(run_starts, run_ends, strict=True)]


def _parse_records_by_line(text: str, path: str) -> list[tuple[int, np.ndarray]]:
    records = []
    for number, raw in enumerate(split_lines(text), 1):
        line = raw.strip()
        if line in ("", "{", "}", "},", "{,"):
            continue
        match = _RECORD.match(line)
        if not match:
            raise DataFileError(f"not a memory record: {line[:60]!r}", path=path, line=number)
        offset, size = _record_numbers(match.group(1), match.group(2), path, number)
        payload = match.group(3).split()
        values = []
        for token in payload:
            byte = _BYTE.match(token)
            if not byte:
                raise DataFileError(f"bad payload byte {token[:20]!r}", path=path, line=number)
            values.append(int(byte.group(1), 16))
        if len(values) != size:
            raise DataFileError(f"record says size:{size} but has {len(values)} payload bytes",
                                path=path, line=number)
        records.append((offset, np.array(values, np.uint8)))
    return records


CONTAINMENT_RULE = "a trace reads only files inside its folder; conform/play --data-root DIR widens that"
_TXN_DATA = re.compile(r"^\s*0x[0-9a-fA-F]{1,2}(\s+0x[0-9a-fA-F]{1,2})*\s*$")
#: The lines of a traceplayer .dat other than data lines (../shared/nvdla/README.md, "traceplayer/"): blank,
#: `# comment`, `KEY = VALUE` (an optional trailing comment), and a dump's `dumped memory,start_address=...`,
#: `memory type:dram`, `=====` and `dump done`.
_TXN_HEADER = re.compile(r"\s*(?:#.*|=+|dump done|dumped memory,[\w =]*|memory type\s*:\s*\w+"
                         r"|\w+\s*=\s*[\w.+-]+\s*(?:#.*)?)?\s*")


def parse_byte_lines(text: str, path: str = "<dat>") -> np.ndarray:
    """Parse the nvdlav1 traceplayer .dat syntax: header lines, then lines of `0xNN` bytes.

    ../shared/nvdla/README.md, "traceplayer/: the nvdlav1 input.txn format".
    """
    lines = []
    for number, line in enumerate(split_lines(text), 1):
        if line.lstrip().startswith("0x"):
            lines.append(line)
        elif not _TXN_HEADER.fullmatch(line):
            raise DataFileError(f"not a line of NVIDIA's memory-file syntaxes: {line.strip()[:60]!r} (neither "
                                "a data line of 0xNN bytes nor a KEY = VALUE header)", path=path, line=number)
    joined = _SHORT_BYTE.sub(r"0\1", " ".join(lines)).replace("0x", "")
    try:
        return np.frombuffer(bytes.fromhex(joined), np.uint8).copy()
    except ValueError:
        pass
    for number, line in enumerate(split_lines(text), 1):
        stripped = line.strip()
        if stripped.startswith("0x") and not _TXN_DATA.match(stripped):
            raise DataFileError(f"bad data line {stripped[:60]!r}", path=path, line=number)
    raise DataFileError("bad data bytes", path=path)


def inside(folder: Path, name: str, *, path: str, line: int | None, data_root: Path | None = None) -> Path:
    """The file `name` that a trace (`path`, `line`) reads, relative to the trace's `folder`: it must lie inside
    that folder, or inside `data_root` when the user names one. An absolute name, a `..` leading out, or a
    symbolic link whose target lies outside is a DataFileError at the trace's line."""
    boxes = [Path(folder)] + ([Path(data_root)] if data_root is not None else [])
    box = f"the trace's folder {folder}" + (f" and the data root {data_root}" if data_root is not None else "")

    def refused(message: str) -> DataFileError:
        return DataFileError(message, path=path, line=line, rule=CONTAINMENT_RULE)

    if os.path.isabs(name):
        raise refused(f"data file {name!r} is an absolute path, outside {box}")
    try:
        target = (Path(folder) / name).resolve()
        roots = [box.resolve() for box in boxes]
    except (OSError, RuntimeError, ValueError) as exc:  # RuntimeError: a symbolic link loop
        raise refused(f"data file {name!r} cannot be resolved: {exc}") from None
    if any(target.is_relative_to(root) for root in roots):
        return Path(folder) / name
    lexical = Path(os.path.normpath(Path(folder).absolute() / name))
    how = ("a symbolic link on the way leads to" if any(lexical.is_relative_to(b.absolute()) for b in boxes)
           else "'..' leads out to")
    raise refused(f"data file {name!r} lies outside {box}: {how} {target}")


def is_record_syntax(text: str) -> bool:
    return "offset" in text[:4096]


def read_memory_file(path: str | Path) -> list[tuple[int, np.ndarray]]:
    """Load any NVIDIA memory file (.dat/.mem, either syntax) as (offset, bytes) records."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise DataFileError(f"cannot read memory file: {exc.strerror}", path=str(path)) from None
    except (UnicodeDecodeError, ValueError):
        raise DataFileError("memory file is not text", path=str(path)) from None
    if is_record_syntax(text):
        return parse_records(text, str(path))
    return [(0, parse_byte_lines(text, str(path)))]


def file_image(records: Iterable[tuple[int, np.ndarray]], size: int, path: str, limit: int) -> np.ndarray:
    """The first `size` bytes of a memory file's records as one image from offset 0 (gaps as zero).

    For load_mem SIZE and check_file/dump_mem: only `size` bytes are allocated, never the records' extent;
    a size over `limit` or beyond what the file holds is a DataFileError.
    """
    records = list(records)
    end = max((offset + data.size for offset, data in records), default=0)
    if size > limit:
        raise DataFileError(f"the trace compares or loads {size:#x} bytes of the file, more than the memory "
                            f"limit of {limit:#x}", path=path)
    if end < size:
        raise DataFileError(f"the file holds {end:#x} bytes, the trace uses {size:#x}", path=path)
    image = np.zeros(size, np.uint8)
    for offset, data in records:
        if offset < size:
            image[offset:offset + min(data.size, size - offset)] = data[:size - offset]
    return image


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


def _as_bytes(data) -> np.ndarray:
    if isinstance(data, np.ndarray):
        return np.ascontiguousarray(data).reshape(-1).view(np.uint8)
    return np.frombuffer(bytes(data), np.uint8)
