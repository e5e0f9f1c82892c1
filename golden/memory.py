"""Sparse byte-addressed memory images and check_crc's CRC.

A `Memory` stores only what was written: 64 KiB pages of bytes with a "written" mask, and pages
that a fill (mem_init) covered whole kept as one constant each, so a 1 GiB mem_init costs a few
megabytes. Every access is bounded before anything is allocated: by the address width (a profile's
MEM_ADDRESS_WIDTH) and by `limit`, the most bytes one access, one surface or the whole image may
hold (default golden.limits.memory_limit(), 4 GiB; golden.limits.set_memory_limit raises it for a run).

The never-written policy lives here and nowhere else: a read of bytes nobody wrote is an error,
a warning, only counted, or allowed ("error", "warn", "count", "allow"); under every policy but
"allow" the bytes are added to `unwritten_bytes_read`. Models read through `read`, `read_lines`
or `read_gathered`, which apply it to exactly the bytes the DMA uses.

A `MemorySystem` pairs the primary memory (DBB/DRAM, `pri_mem`) with the secondary one (CV-SRAM,
`sec_mem`): the two are separate address spaces.
"""

from __future__ import annotations

import warnings
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from golden.errors import MemoryAccessError, MemoryLimitError
from golden.limits import DEFAULT_MEMORY_LIMIT, human_size, memory_limit, set_memory_limit
from golden.memory_files import (  # noqa: F401  (re-exported: the memory-file syntaxes)
    format_byte_lines,
    format_records,
    is_record_syntax,
    parse_byte_lines,
    parse_records,
    read_memory_file,
)

PAGE_BITS = 16
PAGE_SIZE = 1 << PAGE_BITS
POLICIES = ("error", "warn", "count", "allow")
DEFAULT_LIMIT = DEFAULT_MEMORY_LIMIT
UNWRITTEN_RULE = "trace: memory a layer reads must be written first (mem_init/mem_load or an earlier layer)"
ADDRESS_RULE = "hardware profile: MEM_ADDRESS_WIDTH"
MODEL_ADDRESS_BITS = 63
#: A strided access reads one window when it is at most this many times the bytes it uses.
DENSE_FACTOR = 4

_FULL = np.ones(PAGE_SIZE, bool)
_FULL.flags.writeable = False
default_limit = memory_limit
set_default_limit = set_memory_limit


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
    #: Most bytes one access, one surface or the whole image may hold (None: default_limit()).
    limit: int | None = None
    #: Never-written bytes read so far under a policy other than "allow".
    unwritten_bytes_read: int = 0
    _pages: dict[int, np.ndarray] = field(default_factory=dict, repr=False)
    _written: dict[int, np.ndarray] = field(default_factory=dict, repr=False)
    #: Pages a fill covered whole: page -> byte value (written, not stored).
    _uniform: dict[int, int] = field(default_factory=dict, repr=False)
    _held: int = field(default=0, repr=False)

    def __post_init__(self) -> None:
        for policy in (self.unwritten, self.outside):
            if policy not in POLICIES:
                raise ValueError(f"policy must be one of {POLICIES}, not {policy!r}")
        if self.limit is None:
            self.limit = default_limit()

    @property
    def _limit(self) -> int:
        """`limit` as __post_init__ resolved it."""
        assert self.limit is not None
        return self.limit

    # -- bounds, regions and policies ---------------------------------------------------------------
    def declare(self, base: int, size: int, name: str = "") -> None:
        """Declare [base, base+size) as a region tests may touch."""
        self._check_bounds(base, size)
        self.regions.append(Region(base, size, name))

    def _check_bounds(self, address: int, size: int) -> None:
        # Addresses stay below 2**63 even on a 64-bit profile: DMA address arithmetic is int64 (numpy).
        if address < 0 or size < 0 or address + size > 1 << min(self.address_bits, MODEL_ADDRESS_BITS):
            beyond = "" if self.address_bits < MODEL_ADDRESS_BITS else " (the golden model keeps addresses below 2**63)"
            raise MemoryAccessError(
                f"{self.name}: access outside the {self.address_bits}-bit address space{beyond}",
                address=max(address, 0), size=max(size, 0), rule=ADDRESS_RULE)

    def check_span(self, address: int, size: int, what: str) -> None:
        """Reject a surface or access of `size` bytes at `address` beyond the address space or the limit."""
        try:
            self._check_bounds(address, size)
        except MemoryAccessError as exc:
            raise MemoryAccessError(f"{what} spans {size:#x} bytes ({human_size(size)}) of {self.name} at "
                                    f"{address:#x}, past its {self.address_bits}-bit address space",
                                    address=max(address, 0), size=max(size, 0), rule=exc.rule) from None
        if size > self._limit:
            raise MemoryLimitError(
                f"{what} spans {size:#x} bytes ({human_size(size)}) of {self.name} at {address:#x}, more than "
                f"the memory limit of {human_size(self._limit)}", what=what, size=size, limit=self._limit)

    def _check_region(self, address: int, size: int, verb: str) -> None:
        if not self.regions or self.outside == "allow" or size == 0:
            return
        if any(region.contains(address, size) for region in self.regions):
            return
        self._report(self.outside, f"{self.name}: {verb} outside every declared region", address, size)

    def _inside_regions(self, address: int, size: int) -> bool:
        return not self.regions or self.outside == "allow" or any(r.contains(address, size) for r in self.regions)

    @staticmethod
    def _report(policy: str, message: str, address: int, size: int) -> None:
        if policy == "error":
            raise MemoryAccessError(message, address=address, size=size, rule=UNWRITTEN_RULE)
        if policy == "warn":
            warnings.warn(f"address 0x{address:x}+0x{size:x}: {message}", MemoryAccessWarning, stacklevel=4)

    def _unwritten(self, missing: int, address: int, size: int, policy: str, who: str = "") -> None:
        """The never-written policy: count, then raise, warn or stay silent."""
        if not missing or policy == "allow":
            return
        self.unwritten_bytes_read += missing
        if policy != "count":
            prefix = f"{who} " if who else ""
            self._report(policy, f"{self.name}: {prefix}read of {missing} never-written byte(s)", address, size)

    # -- pages -----------------------------------------------------------------------------------
    @property
    def held_bytes(self) -> int:
        """Bytes of page storage the image holds (data and written masks)."""
        return self._held

    def _spans(self, address: int, size: int) -> Iterable[tuple[int, int, int, int]]:
        """(page number, offset in page, offset in buffer, length) covering [address, address+size)."""
        done = 0
        while done < size:
            page, offset = divmod(address + done, PAGE_SIZE)
            length = min(PAGE_SIZE - offset, size - done)
            yield page, offset, done, length
            done += length

    def _hold(self, size: int) -> None:
        if self._held + size > self._limit:
            raise MemoryLimitError(
                f"{self.name}: the memory image would hold more than the memory limit of {human_size(self._limit)} "
                f"(64 KiB pages touched by the layers' writes)", what=self.name, size=self._held + size,
                limit=self._limit)
        self._held += size

    def _page(self, page: int, whole: bool | np.bool_) -> np.ndarray:
        """The stored page, made on first write (`whole`: the write covers it, so no mask is needed)."""
        data = self._pages.get(page)
        if data is not None:
            return data
        value = self._uniform.pop(page, None)
        if value is not None or whole:
            self._hold(PAGE_SIZE)
            data = np.full(PAGE_SIZE, value or 0, np.uint8)
            self._written[page] = _FULL
        else:
            self._hold(2 * PAGE_SIZE)
            data = np.zeros(PAGE_SIZE, np.uint8)
            self._written[page] = np.zeros(PAGE_SIZE, bool)
        self._pages[page] = data
        return data

    def _drop(self, page: int) -> None:
        if self._pages.pop(page, None) is not None:
            self._held -= PAGE_SIZE if self._written.pop(page) is _FULL else 2 * PAGE_SIZE

    # -- raw access -----------------------------------------------------------------------------
    def write(self, address: int, data, *, check_region: bool = True) -> None:
        """Write bytes (bytes, bytearray or any numpy array, taken as its raw bytes)."""
        buffer = _as_bytes(data)
        self._check_bounds(address, buffer.size)
        if check_region:
            self._check_region(address, buffer.size, "write")
        for page, offset, start, length in self._spans(address, buffer.size):
            data_page = self._page(page, length == PAGE_SIZE)
            data_page[offset:offset + length] = buffer[start:start + length]
            mask = self._written[page]
            if mask is not _FULL:
                mask[offset:offset + length] = True

    def fill(self, address: int, size: int, value: int = 0) -> None:
        """Write `size` bytes of `value`; pages covered whole are kept as one constant each."""
        self.check_span(address, size, f"{self.name} fill")
        self._check_region(address, size, "write")
        value &= 0xFF
        first, last = -(-address // PAGE_SIZE), (address + size) // PAGE_SIZE  # pages covered whole
        if first >= last:
            self.write(address, np.full(size, value, np.uint8), check_region=False)
            return
        for page in [p for p in self._pages if first <= p < last]:
            self._drop(page)
        self._uniform.update(dict.fromkeys(range(first, last), value))
        head, tail = first * PAGE_SIZE - address, address + size - last * PAGE_SIZE
        if head:
            self.write(address, np.full(head, value, np.uint8), check_region=False)
        if tail:
            self.write(last * PAGE_SIZE, np.full(tail, value, np.uint8), check_region=False)

    def _chunks(self, address: int, size: int):
        """(offset in buffer, length, data or None, mask or None, constant or None) per page touched."""
        for page, offset, start, length in self._spans(address, size):
            data = self._pages.get(page)
            if data is not None:
                yield start, length, data[offset:offset + length], self._written[page][offset:offset + length], None
            else:
                yield start, length, None, None, self._uniform.get(page)

    def read(self, address: int, size: int, *, unwritten: str | None = None, who: str = "") -> np.ndarray:
        """Read `size` bytes as a new np.uint8 array. Never-written bytes read as 0."""
        self.check_span(address, size, f"{who or self.name} read")
        self._check_region(address, size, "read")
        policy = unwritten or self.unwritten
        out = np.zeros(size, np.uint8)
        missing = 0
        for start, length, data, mask, constant in self._chunks(address, size):
            if data is not None:
                out[start:start + length] = data
                if policy != "allow" and mask.base is not _FULL:
                    missing += length - int(np.count_nonzero(mask))
            elif constant is None:
                missing += length
            elif constant:
                out[start:start + length] = constant
        self._unwritten(missing, address, size, policy, who)
        return out

    def is_written(self, address: int, size: int) -> np.ndarray:
        """Boolean mask of which bytes in [address, address+size) were written."""
        self.check_span(address, size, f"{self.name} written mask")
        out = np.zeros(size, bool)
        for start, length, data, mask, constant in self._chunks(address, size):
            if data is not None:
                out[start:start + length] = mask
            elif constant is not None:
                out[start:start + length] = True
        return out

    def all_written(self, address: int, size: int) -> bool:
        """Whether every byte of [address, address+size) was written (no allocation)."""
        self._check_bounds(address, size)
        for _, _, data, mask, constant in self._chunks(address, size):
            if data is None and constant is None:
                return False
            if data is not None and mask.base is not _FULL and not mask.all():
                return False
        return True

    def count_unwritten(self, address: int, size: int) -> int:
        """How many bytes of [address, address+size) were never written (no allocation)."""
        self._check_bounds(address, size)
        missing = 0
        for _, length, data, mask, constant in self._chunks(address, size):
            if data is None:
                missing += length if constant is None else 0
            elif mask.base is not _FULL:
                missing += length - int(np.count_nonzero(mask))
        return missing

    # -- strided access (DMA lines and rows) ----------------------------------------------------------
    def read_lines(self, offsets, length: int, *, unwritten: str | None = None, who: str = "") -> np.ndarray:
        """The `length` bytes at each address of `offsets`, as an (n, length) np.uint8 array.

        The never-written policy applies to these bytes only (not to gaps between them); a dense set of
        lines is read as one window, a sparse one line run by line run, so a huge stride costs nothing.
        """
        offsets = np.asarray(offsets, np.int64).reshape(-1)
        if length == 0 or offsets.size == 0:
            return np.zeros((offsets.size, length), np.uint8)
        low = int(offsets.min())
        span = int(offsets.max()) + length - low
        self._check_bounds(low, span)
        self.check_span(low, offsets.size * length, f"{who or self.name} read")
        policy = unwritten or self.unwritten
        if span == offsets.size * length and offsets[0] == low and (np.diff(offsets) == length).all():
            return self.read(low, span, unwritten=policy, who=who).reshape(offsets.size, length)  # one run
        out = np.zeros((offsets.size, length), np.uint8)
        if span <= min(DENSE_FACTOR * out.size, self._limit) and self._inside_regions(low, span):
            rows = offsets - low
            out[:] = sliding_window_view(self.read(low, span, unwritten="allow"), length)[rows]
            if policy != "allow" and not self.all_written(low, span):
                written = sliding_window_view(self.is_written(low, span), length)[rows]
                self._unwritten(out.size - int(np.count_nonzero(written)), low, span, policy, who)
            return out
        missing = 0
        for first, end, address in _runs(offsets, length):
            size = (end - first) * length
            out[first:end] = self.read(address, size, unwritten="allow").reshape(-1, length)
            if policy != "allow":
                missing += self.count_unwritten(address, size)
        self._unwritten(missing, low, span, policy, who)
        return out

    def write_lines(self, offsets, rows: np.ndarray) -> None:
        """Write row i of `rows` at address offsets[i], in order (a later row wins on overlap)."""
        offsets = np.asarray(offsets, np.int64).reshape(-1)
        rows = np.ascontiguousarray(rows, np.uint8).reshape(offsets.size, -1)
        length = rows.shape[1]
        if length == 0 or offsets.size == 0:
            return
        low = int(offsets.min())
        span = int(offsets.max()) + length - low
        self._check_bounds(low, span)
        for first, end, address in _runs(offsets, length):
            self.write(address, rows[first:end].reshape(-1))

    def write_back(self, address: int, window: np.ndarray, written: np.ndarray) -> None:
        """Write back a window read from this memory (the caller changed only `written` bytes of it), marking
        only the `written` bytes as written: a DMA that writes the atoms of a surface, not the gaps between."""
        window, written = _as_bytes(window), np.asarray(written, bool).reshape(-1)
        self._check_bounds(address, window.size)
        self._check_region(address, window.size, "write")
        for page, offset, start, size in self._spans(address, window.size):
            chosen = written[start:start + size]
            if page not in self._pages and not chosen.any():
                continue
            self._page(page, size == PAGE_SIZE and chosen.all())[offset:offset + size] = window[start:start + size]
            mask = self._written[page]
            if mask is not _FULL:
                mask[offset:offset + size] |= chosen

    def read_gathered(self, address: int, size: int, gather: Callable[[np.ndarray], np.ndarray], *,
                      who: str = "") -> np.ndarray:
        """Read the window [address, address+size); the policy applies to the bytes `gather` selects.

        gather maps a window-shaped np.uint8 array to the bytes the DMA uses (e.g. the atoms of a cube).
        """
        buf = self.read(address, size, unwritten="allow", who=who)
        if self.unwritten != "allow" and not self.all_written(address, size):
            selected = gather(self.is_written(address, size).view(np.uint8))
            self._unwritten(int(np.count_nonzero(selected == 0)), address, size, self.unwritten, who)
        return buf

    # -- whole image ----------------------------------------------------------------------------------
    def written_runs(self) -> list[tuple[int, np.ndarray]]:
        """Maximal runs of written bytes as (address, bytes), in address order."""
        runs: list[tuple[int, list[np.ndarray]]] = []
        end = None
        for page in sorted({*self._pages, *self._uniform}):
            if page in self._pages:
                data, mask = self._pages[page], self._written[page]
            else:
                data, mask = np.full(PAGE_SIZE, self._uniform[page], np.uint8), _FULL
            edges = np.flatnonzero(np.diff(np.concatenate(([0], mask.view(np.int8), [0]))))
            for begin, stop in zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True):
                address = page * PAGE_SIZE + begin
                if address == end:
                    runs[-1][1].append(data[begin:stop].copy())
                else:
                    runs.append((address, [data[begin:stop].copy()]))
                end = page * PAGE_SIZE + stop
        return [(address, np.concatenate(chunks)) for address, chunks in runs]

    def crc32(self, address: int, size: int) -> int:
        """check_crc's CRC: zlib CRC-32 over [address, address+size), unwritten bytes as 0.

        ../shared/nvdla/README.md, "The CRC used by check_crc". Computed page by page: a CRC over a
        huge mem_init'ed range allocates nothing.
        """
        self.check_span(address, size, f"{self.name} CRC")
        self._check_region(address, size, "read")
        crc = 0
        for _, length, data, _, constant in self._chunks(address, size):
            chunk = data if data is not None else _constant_page(constant or 0)[:length]
            crc = zlib.crc32(chunk, crc)
        return crc & 0xFFFFFFFF

    def copy(self) -> Memory:
        clone = Memory(self.name, self.address_bits, self.unwritten, self.outside, list(self.regions),
                       self.limit, self.unwritten_bytes_read)
        clone._pages = {page: data.copy() for page, data in self._pages.items()}
        clone._written = {page: mask if mask is _FULL else mask.copy() for page, mask in self._written.items()}
        clone._uniform = dict(self._uniform)
        clone._held = self._held
        return clone

    def load_records(self, base: int, records: Iterable[tuple[int, np.ndarray]]) -> None:
        for offset, payload in records:
            self.write(base + offset, payload)


_CONSTANT_PAGES: dict[int, memoryview] = {}


def _constant_page(value: int) -> memoryview:
    if value not in _CONSTANT_PAGES:
        _CONSTANT_PAGES[value] = memoryview(bytes([value]) * PAGE_SIZE)
    return _CONSTANT_PAGES[value]


def _runs(offsets: np.ndarray, length: int):
    """(first row, end row, address) of maximal runs of back-to-back rows."""
    breaks = np.flatnonzero(np.diff(offsets) != length) + 1
    starts = np.concatenate(([0], breaks))
    ends = np.concatenate((breaks, [offsets.size]))
    return zip(starts.tolist(), ends.tolist(), offsets[starts].tolist(), strict=True)


@dataclass
class MemorySystem:
    """The primary (DBB/DRAM) and secondary (CV-SRAM) memories of one NVDLA instance."""

    pri: Memory = field(default_factory=lambda: Memory("pri_mem"))
    sec: Memory = field(default_factory=lambda: Memory("sec_mem"))

    @classmethod
    def for_profile(cls, profile, *, unwritten: str = "count", outside: str = "allow",
                    limit: int | None = None) -> MemorySystem:
        """The memories of a profile: addresses limited to its MEM_ADDRESS_WIDTH, the given policies."""
        bits = profile.mem_address_width or 64
        return cls(*(Memory(name, bits, unwritten, outside, limit=limit) for name in ("pri_mem", "sec_mem")))

    def select(self, cvsram: bool) -> Memory:
        return self.sec if cvsram else self.pri

    def by_name(self, name: str) -> Memory:
        """"pri_mem"/"sec_mem" as trace files name them."""
        if name == "pri_mem":
            return self.pri
        if name == "sec_mem":
            return self.sec
        raise KeyError(name)

    @property
    def unwritten_bytes_read(self) -> int:
        """Never-written bytes read from either memory (see Memory.unwritten)."""
        return self.pri.unwritten_bytes_read + self.sec.unwritten_bytes_read


def _as_bytes(data) -> np.ndarray:
    if isinstance(data, np.ndarray):
        return np.ascontiguousarray(data).reshape(-1).view(np.uint8)
    return np.frombuffer(bytes(data), np.uint8)
