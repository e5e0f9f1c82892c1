"""Run-wide resource limits of the golden model.

The memory limit bounds every memory access, every surface a layer reads or writes, the page storage of
one memory image and the records of a memory file, so a hostile stride or size ends in MemoryLimitError /
DataFileError instead of exhausting the host. Raise it for a run whose real layers need more
(`set_memory_limit`, before the memories are made; `nvdla-verif --memory-limit SIZE COMMAND`, which hands it to
its worker processes in its settings, golden/settings.py; or $NVDLA_VERIF_MEMORY_LIMIT).

It also bounds a layer's working set where a unit can estimate it before it runs (`check_working_set`: the
arrays the golden model computes a layer with are several times the bytes of its surfaces), and an allocation
that fails anyway becomes `memory_exhausted()`: one error naming this limit and the address-space limit.
"""

from __future__ import annotations

from golden.errors import MemoryExhaustedError, MemoryLimitError
from golden.settings import override

try:
    import resource
except ImportError:  # not a POSIX host: no address-space limit to report
    resource = None  # type: ignore[assignment]  # None: the module is absent (checked where it is used)

GIB = 1 << 30
DEFAULT_MEMORY_LIMIT = 4 * GIB
#: The person's override of the limit (bytes or e.g. "16GiB"; golden/settings.py OVERRIDES).
ENVIRONMENT = "NVDLA_VERIF_MEMORY_LIMIT"


def memory_limit() -> int:
    """Bytes: the limit of every Memory made from now on in this process (Memory.limit overrides it)."""
    return _memory_limit


def set_memory_limit(limit: int) -> None:
    global _memory_limit
    if limit <= 0:
        raise ValueError("the memory limit must be positive")
    _memory_limit = int(limit)


def human_size(size: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift:
            return f"{size / (1 << shift):.1f} {unit}"
    return f"{size} bytes"


def check_working_set(what: str, size: int, limit: int | None = None) -> None:
    """Refuse, before it is allocated, a working set of `size` bytes over the memory limit (default: the run's)
    or over the address-space limit."""
    limit = memory_limit() if limit is None else limit
    if size > limit:
        raise MemoryLimitError(f"{what} needs about {human_size(size)} of working memory, more than the memory "
                               f"limit of {human_size(limit)}", what=what, size=size, limit=limit)
    space = address_space_limit()
    if space is not None and size > space:
        raise MemoryLimitError(f"{what} needs about {human_size(size)} of working memory, more than this "
                               f"process's address-space limit of {human_size(space)} (ulimit -v)", what=what,
                               size=size, limit=space)


def address_space_limit() -> int | None:
    """Bytes: this process's address-space limit (RLIMIT_AS, `ulimit -v`), None when there is none."""
    if resource is None:
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    return None if soft == resource.RLIM_INFINITY else soft


def memory_exhausted(exc: MemoryError | None = None) -> MemoryExhaustedError:
    """What a failed allocation means and what to do, as the project's one error."""
    limit, space = memory_limit(), address_space_limit()
    failed = str(exc).strip().splitlines()[0][:160] if exc is not None and str(exc).strip() else ""
    text = f"out of memory{f' ({failed})' if failed else ''}: the golden model's memory limit is {human_size(limit)}"
    if space is not None:
        text += (f" (--memory-limit) and this process's address space is limited to {human_size(space)} "
                 "(ulimit -v); lower --memory-limit well below the address-space limit (a layer too big for it is "
                 "then refused before it runs), raise the address-space limit, or run fewer jobs in parallel (-j)")
    else:
        text += (" (--memory-limit) and the host had no more memory to give; lower --memory-limit (a layer too "
                 "big for it is then refused before it runs) or run fewer jobs in parallel (-j)")
    return MemoryExhaustedError(text, limit=limit, address_space=space)


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
    text = override(ENVIRONMENT)
    if not text:
        return DEFAULT_MEMORY_LIMIT
    try:
        return parse_size(text)
    except ValueError:
        return DEFAULT_MEMORY_LIMIT


_memory_limit = _from_environment()
