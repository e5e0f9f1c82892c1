"""Run-wide resource limits of the golden model.

The memory limit bounds every memory access, every surface a layer reads or writes, the page storage of
one memory image and the records of a memory file, so a hostile stride or size ends in MemoryLimitError /
DataFileError instead of exhausting the host. Raise it for a run whose real layers need more
(`set_memory_limit`, before the memories are made; `nvdla-verif --memory-limit SIZE COMMAND`, which also
sets $NVDLA_VERIF_MEMORY_LIMIT so that worker processes start with it).
"""

from __future__ import annotations

import os

GIB = 1 << 30
DEFAULT_MEMORY_LIMIT = 4 * GIB
#: Environment variable with the limit (bytes or e.g. "16GiB"): how a CLI option reaches worker processes.
ENVIRONMENT = "NVDLA_VERIF_MEMORY_LIMIT"


def memory_limit() -> int:
    """Bytes: the limit of every Memory made from now on in this process (Memory.limit overrides it)."""
    return _memory_limit


def set_memory_limit(limit: int) -> None:
    global _memory_limit
    if limit <= 0:
        raise ValueError("the memory limit must be positive")
    _memory_limit = int(limit)


def parse_size(text: str) -> int:
    """'4GiB', '512MiB', '1.5G', '1073741824' -> bytes (for CLI options)."""
    units = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
    body = text.strip().lower().removesuffix("ib").removesuffix("b")
    unit = body[-1:] if body[-1:] in units else ""
    number = body[:-1] if unit else body
    try:
        value = float(number) if len(number) < 24 else -1.0
    except ValueError:
        value = -1.0
    if not value > 0:
        raise ValueError(f"not a size: {text[:40]!r} (e.g. 4GiB, 512MiB, 1073741824)")
    return int(value * units[unit])


def _from_environment() -> int:
    text = os.environ.get(ENVIRONMENT)
    if not text:
        return DEFAULT_MEMORY_LIMIT
    try:
        return parse_size(text)
    except ValueError:
        return DEFAULT_MEMORY_LIMIT


_memory_limit = _from_environment()
