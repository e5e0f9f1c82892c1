import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from golden.errors import DataFileError, MemoryAccessError
from golden.memory import (
    PAGE_SIZE,
    Memory,
    MemoryAccessWarning,
    MemorySystem,
    format_byte_lines,
    format_records,
    parse_byte_lines,
    parse_records,
    read_memory_file,
)


@settings(max_examples=60, deadline=None)
@given(address=st.integers(0, 1 << 40), data=st.binary(min_size=1, max_size=3 * PAGE_SIZE // 2))
def test_write_read_round_trip_across_pages(address, data):
    memory = Memory()
    memory.write(address, data)
    assert memory.read(address, len(data)).tobytes() == data
    assert memory.is_written(address, len(data)).all()


def test_numpy_arrays_are_written_as_raw_bytes():
    memory = Memory()
    memory.write(0x100, np.array([1, -2], np.int16))
    assert memory.read(0x100, 4).tolist() == [1, 0, 0xFE, 0xFF]


def test_unwritten_reads_follow_the_policy():
    memory = Memory(unwritten="error")
    memory.write(0x1000, b"\x01\x02")
    with pytest.raises(MemoryAccessError, match=r"address 0x1000\+0x4: .*2 never-written"):
        memory.read(0x1000, 4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert memory.read(0x1000, 4, unwritten="warn").tolist() == [1, 2, 0, 0]
    assert caught and issubclass(caught[0].category, MemoryAccessWarning)
    assert memory.read(0x5000, 2, unwritten="allow").tolist() == [0, 0]


def test_accesses_outside_declared_regions():
    memory = Memory(outside="error", unwritten="allow")
    memory.declare(0x8000_0000, 0x100, "input")
    memory.write(0x8000_0000, bytes(0x100))
    with pytest.raises(MemoryAccessError, match="outside every declared region"):
        memory.write(0x8000_00F0, bytes(0x20))
    with pytest.raises(MemoryAccessError, match="outside every declared region"):
        memory.read(0x9000_0000, 4)
    Memory(outside="allow", regions=memory.regions).write(0x9000_0000, b"x")


def test_address_space_bounds():
    memory = Memory(address_bits=32)
    with pytest.raises(MemoryAccessError, match="32-bit address space"):
        memory.write(0xFFFF_FFFE, b"abcd")
    with pytest.raises(MemoryAccessError):
        memory.read(-4, 4)


def test_written_runs_merge_across_pages():
    memory = Memory()
    memory.write(PAGE_SIZE - 3, b"abcdef")
    memory.write(PAGE_SIZE * 5, b"z")
    runs = [(a, d.tobytes()) for a, d in memory.written_runs()]
    assert runs == [(PAGE_SIZE - 3, b"abcdef"), (PAGE_SIZE * 5, b"z")]


def test_copy_is_independent():
    memory = Memory()
    memory.write(0, b"\x01")
    clone = memory.copy()
    clone.write(0, b"\x02")
    assert memory.read(0, 1)[0] == 1


def test_memory_system_keeps_two_address_spaces():
    system = MemorySystem()
    system.pri.write(0x5000_0000, b"\x11")
    system.sec.write(0x5000_0000, b"\x22")
    assert system.select(cvsram=False).read(0x5000_0000, 1)[0] == 0x11
    assert system.by_name("sec_mem").read(0x5000_0000, 1)[0] == 0x22


def _memory_files(root):
    return sorted(p for p in root.rglob("*") if p.suffix in (".dat", ".mem"))


def test_every_nvidia_memory_file_loads_dumps_and_reloads(nvdla_data):
    files = _memory_files(nvdla_data)
    assert len(files) >= 150
    for path in files:
        first = Memory()
        first.load_records(0, read_memory_file(path))
        runs = first.written_runs()
        assert runs, path
        second = Memory()
        second.load_records(0, parse_records(format_records(runs)))
        for address, data in runs:
            assert second.read(address, data.size).tobytes() == data.tobytes(), path
            assert parse_byte_lines(format_byte_lines(data)).tobytes() == data.tobytes(), path


def test_crc_of_passthrough_input_equals_trace_check_crc(nvdla_data):
    # A passthrough layer copies its input unchanged, so the CRC of the input image
    # placed at the output base is what the trace's check_crc expects.
    folder = nvdla_data / "trace_tests" / "nv_large" / "sdp_passthrough_8x8x32_pack_inc_int8"
    cfg = (folder / f"{folder.name}.cfg").read_text()
    check = re.search(r"check_crc\(\s*\w+\s*,\s*\w+\s*,\s*(0x\w+)\s*,\s*(0x\w+)\s*,\s*(0x\w+)", cfg)
    base, size, crc = (int(v, 16) for v in check.groups())
    memory = Memory()
    memory.load_records(base, read_memory_file(folder / "SDP_0_input.dat"))
    assert memory.crc32(base, size) == crc
    memory.write(base + 5, b"\xff")
    assert memory.crc32(base, size) != crc


def test_crc_reads_unwritten_bytes_as_zero():
    import zlib
    assert Memory(unwritten="error").crc32(0x1000, 0x800) == zlib.crc32(bytes(0x800))


def test_malformed_records_name_the_line(tmp_path):
    bad = tmp_path / "bad.dat"
    bad.write_text("{\n{offset:0x0, size:2, payload:0x01 0x02} ,\n{offset:0x2, size:3, payload:0x01} ,\n}\n")
    with pytest.raises(DataFileError, match=r"bad.dat:3: record says size:3 but has 1"):
        read_memory_file(bad)
    bad.write_text("{\nhello\n}\n")
    with pytest.raises(DataFileError, match=r"bad.dat:2: not a memory record"):
        parse_records(bad.read_text(), str(bad))
    with pytest.raises(DataFileError, match="cannot read"):
        read_memory_file(tmp_path / "absent.dat")


def test_byte_line_syntax_skips_headers():
    text = ("W=8\n# comment\ndumped memory,start_address=0x0 size=0x4\n=====\n"
            "0x01 0x02\n 0x03 0x04\ndump done\n")
    assert parse_byte_lines(text).tolist() == [1, 2, 3, 4]
    with pytest.raises(DataFileError, match=":2:"):
        parse_byte_lines("0x01\n0x02 0xzz\n", "f.dat")
