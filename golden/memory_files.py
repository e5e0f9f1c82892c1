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
#: (the payload's characters taken possessively: a payload keeps its trailing spaces, which no use of it minds,
#: and the scan never backtracks into it)
_RECORDS = re.compile(
    r"\{\s*'?offset'?\s*:\s*(0x[0-9a-fA-F]+)\s*,\s*'?size'?\s*:\s*(\d+)\s*,\s*'?(?:payload|value)'?\s*:"
    r"\s*([0-9a-fA-Fx ]*+)\s*\}")
_SHORT_BYTE = re.compile(r"0x([0-9a-fA-F])(?![0-9a-fA-F])")


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


def _numbers(found: list[tuple[str, str, str]], path: str) -> list[tuple[int, int]]:
    """The records' (offset, size), or the first bad record's DataFileError (_record_numbers)."""
    offsets, sizes = [offset for offset, _, _ in found], [size for _, size, _ in found]
    if max(map(len, offsets)) <= _MAX_DIGITS and max(map(len, sizes)) <= _MAX_DIGITS:
        numbers = list(zip([int(offset, 16) for offset in offsets], map(int, sizes), strict=True))
        if max(offset + size for offset, size in numbers) <= memory_limit():
            return numbers
    return [_record_numbers(offset, size, path, None) for offset, size, _ in found]


def parse_records(text: str, path: str = "<dat>") -> list[tuple[int, np.ndarray]]:
    """Parse the trace_tests record syntax into (offset, payload) pairs.

    Contiguous records are merged into one run. The whole file is parsed with
    C-level regex and numpy (or bytes.fromhex where a payload is not spelled `0xhh 0xhh ...`); only a file
    that does not parse cleanly is walked line by line, to name the offending line.
    """
    found = _RECORDS.findall(text)
    if not found:
        if _body_lines(text):
            return _parse_records_by_line(text, path)
        return []
    body_lines = _body_lines(text)
    numbers = _numbers(found, path)
    payloads = [payload for _, _, payload in found]
    sizes = np.array([size for _, size in numbers], np.int64)
    data, counts = _canonical_payloads(payloads)
    if data is None:
        counts = np.array([payload.count("0x") for payload in payloads], np.int64)
        joined = _SHORT_BYTE.sub(r"0\1", " ".join(payloads)).replace("0x", "")
        try:
            data = np.frombuffer(bytes.fromhex(joined), np.uint8)
        except ValueError:
            data = None
    if (data is None or counts is None or body_lines != len(found) or not np.array_equal(sizes, counts)
            or data.size != sizes.sum()):
        return _parse_records_by_line(text, path)
    offsets = np.array([offset for offset, _ in numbers], np.int64)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    breaks = np.flatnonzero(offsets[1:] != offsets[:-1] + sizes[:-1]) + 1
    run_starts = np.concatenate(([0], breaks))
    run_ends = np.concatenate((breaks, [len(found)]))
    return [(int(offsets[a]), data[starts[a]:starts[b - 1] + sizes[b - 1]].copy())
            for a, b in zip(run_starts, run_ends, strict=True)]


#: The lines around records that parse_records skips (after strip()).
_FRAMES = frozenset(("", "{", "}", "{,", "},"))


def _body_lines(text: str) -> int:
    """How many lines are neither blank nor a lone brace (with an optional comma)."""
    lines = text.split("\n")  # split_lines' lines, plus a last empty one that strip() makes a frame
    return len(lines) - sum(map(_FRAMES.__contains__, map(str.strip, lines)))


#: ASCII code -> the value of a hexadecimal digit, -1 for any other character
_NIBBLES = np.full(256, -1, np.int16)
for _digit in "0123456789abcdefABCDEF":
    _NIBBLES[ord(_digit)] = int(_digit, 16)


def _canonical_payloads(payloads: list[str]) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The bytes and per-record byte counts of payloads spelled as format_records writes them (`0xhh`
    separated by single spaces), decoded with numpy; (None, None) for any other spelling."""
    joined = " ".join(payloads) + " "
    if len(joined) % 5:
        return None, None
    cells = np.frombuffer(joined.encode("ascii"), np.uint8).reshape(-1, 5)
    digits = _NIBBLES[cells[:, 2:4]]
    if not ((cells[:, 0] == ord("0")).all() and (cells[:, 1] == ord("x")).all() and (cells[:, 4] == ord(" ")).all()
            and (digits >= 0).all()):
        return None, None
    counts = (np.array([len(payload) for payload in payloads], np.int64) + 1) // 5
    return (digits[:, 0] * 16 + digits[:, 1]).astype(np.uint8), counts


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
    data = _canonical_byte_lines(text)
    if data is not None:
        return data
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


def _canonical_byte_lines(text: str) -> np.ndarray | None:
    """The bytes of a file spelled as format_byte_lines writes it (lines of `0xhh` separated by single spaces),
    decoded with numpy; None for any other spelling."""
    if len(text) % 5 or not text.isascii():
        return None
    cells = np.frombuffer(text.encode("ascii"), np.uint8).reshape(-1, 5)
    digits = _NIBBLES[cells[:, 2:4]]
    if not ((cells[:, 0] == ord("0")).all() and (cells[:, 1] == ord("x")).all() and (digits >= 0).all()
            and ((cells[:, 4] == ord(" ")) | (cells[:, 4] == ord("\n"))).all() and text[-1:] in ("", "\n")):
        return None
    return (digits[:, 0] * 16 + digits[:, 1]).astype(np.uint8)


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
    # a name in the folder itself that is no symbolic link lies inside a folder that resolves (a stat of it
    # succeeds: no link loop); anything else takes the whole test below
    if _plain(name) and os.path.isdir(folder) and not os.path.islink(os.path.join(folder, name)):
        return Path(folder) / name
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


def _plain(name: str) -> bool:
    """A file name without a folder part, other than the folder itself or its parent."""
    return name not in ("", ".", "..") and "/" not in name and os.sep not in name and "\0" not in name


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
        tokens = _tokens(payload)  # "0xhh " per byte
        for start in range(0, payload.size, record_size):
            end = min(start + record_size, payload.size)
            lines.append(f"{{offset:0x{offset + start:x}, size:{end - start}, "
                         f"payload:{tokens[5 * start:5 * end - 1]}}} ,")
    lines.append("}")
    return "\n".join(lines) + "\n"


def format_byte_lines(data, per_line: int = 32) -> str:
    """Write bytes in the traceplayer .dat syntax (data lines only)."""
    data = _as_bytes(data)
    tokens = _HEX_TOKENS[data]  # "0xhh " per byte; the last of each line ends it instead
    tokens[per_line - 1::per_line, 4] = ord("\n")
    tokens[-1:, 4] = ord("\n")
    return tokens.tobytes().decode("ascii")


#: byte -> its five characters "0xhh " (ASCII codes), for writing whole arrays at once
_HEX_TOKENS = np.frombuffer("".join(f"0x{b:02x} " for b in range(256)).encode("ascii"), np.uint8).reshape(256, 5)


def _tokens(data: np.ndarray) -> str:
    return _HEX_TOKENS[data].tobytes().decode("ascii")


def _as_bytes(data) -> np.ndarray:
    if isinstance(data, np.ndarray):
        return np.ascontiguousarray(data).reshape(-1).view(np.uint8)
    return np.frombuffer(bytes(data), np.uint8)
