import re
import warnings
import zlib

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


@pytest.mark.slow
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


# -- memory that costs what is used (issue 17) -----------------------------------------------------------
def test_a_gib_fill_holds_no_page_and_reads_back():
    import tracemalloc

    memory = Memory(unwritten="error")
    tracemalloc.start()
    memory.fill(0x8000_0010, 1 << 30, 0)
    crc = memory.crc32(0x8000_0010, 1 << 30)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 16 << 20 and memory.held_bytes <= 2 * 2 * PAGE_SIZE  # two partial edge pages at most
    assert crc == zlib.crc32(bytes(1 << 20) * 1024) & 0xFFFFFFFF
    assert memory.all_written(0x8000_0010, 1 << 30) and memory.count_unwritten(0x8000_0000, 0x20) == 0x10


def test_writes_after_a_fill_win_and_a_later_fill_wins_over_them():
    memory = Memory()
    memory.fill(0, 4 * PAGE_SIZE, 7)
    memory.write(PAGE_SIZE + 5, b"\x01\x02")
    assert memory.read(PAGE_SIZE + 4, 4).tolist() == [7, 1, 2, 7]
    memory.fill(PAGE_SIZE - 1, PAGE_SIZE + 2, 9)
    assert memory.read(PAGE_SIZE + 4, 4).tolist() == [9, 9, 9, 9]
    assert memory.read(2 * PAGE_SIZE, 2).tolist() == [9, 7]
    runs = memory.written_runs()
    assert [(a, d.size) for a, d in runs] == [(0, 4 * PAGE_SIZE)]
    assert runs[0][1][PAGE_SIZE - 2:PAGE_SIZE + 1].tolist() == [7, 9, 9]
    clone = memory.copy()
    clone.write(0, b"\x00")
    assert memory.read(0, 1)[0] == 7


def test_huge_accesses_are_refused_before_allocating():
    from golden.errors import MemoryLimitError

    memory = Memory(limit=1 << 30)
    for action in (lambda: memory.fill(0, 1 << 34), lambda: memory.read(0, 1 << 40),
                   lambda: memory.crc32(0, 1 << 63), lambda: memory.is_written(0, 1 << 35)):
        with pytest.raises(MemoryLimitError, match="memory limit of 1.0 GiB"):
            action()
    with pytest.raises(MemoryAccessError, match="64-bit address space"):
        memory.fill(1 << 63, (1 << 63) + 1)


def test_the_image_footprint_is_bounded():
    from golden.errors import MemoryLimitError

    memory = Memory(limit=8 * PAGE_SIZE)
    memory.write(0, bytes(4 * PAGE_SIZE))  # whole pages: data only
    with pytest.raises(MemoryLimitError, match="pri_mem: the memory image would hold more"):
        for page in range(4, 100):
            memory.write(page * PAGE_SIZE + 1, b"x")  # partial pages: data and mask
    assert memory.held_bytes <= 8 * PAGE_SIZE


def test_profile_address_width_bounds_every_access():
    from golden.config import get_profile

    system = MemorySystem.for_profile(get_profile("nv_small"))
    with pytest.raises(MemoryAccessError, match="32-bit address space"):
        system.pri.fill(0xFFFF_0000, 0x2_0000)
    system.pri.fill(0xFFFF_0000, 0x1_0000)
    assert MemorySystem.for_profile(get_profile("nv_full")).pri.address_bits == 64


def test_the_never_written_policy_counts_bytes_for_every_access():
    memory = Memory(unwritten="count")
    memory.write(0x100, bytes(8))
    memory.read(0x100, 16)
    assert memory.unwritten_bytes_read == 8
    lines = memory.read_lines([0x100, 0x104, 0x1_0000_0000], 4)  # dense pair, then a far line
    assert lines.shape == (3, 4) and memory.unwritten_bytes_read == 12
    memory.read(0x200, 4, unwritten="allow")
    memory.crc32(0x300, 4)
    assert memory.unwritten_bytes_read == 12
    system = MemorySystem(memory, Memory("sec_mem", unwritten="count"))
    system.sec.read(0, 3)
    assert system.unwritten_bytes_read == 15


def test_sparse_lines_cost_only_their_bytes():
    import tracemalloc

    memory = Memory(unwritten="error")
    offsets = np.arange(4, dtype=np.int64) * 0xFFFF_FFE0
    rows = np.arange(4 * 32, dtype=np.uint8).reshape(4, 32)
    tracemalloc.start()
    memory.write_lines(offsets, rows)
    back = memory.read_lines(offsets, 32)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 4 << 20
    np.testing.assert_array_equal(back, rows)
    with pytest.raises(MemoryAccessError, match="read of 128 never-written"):
        memory.read_lines(offsets + 32, 32)


def test_read_gathered_applies_the_policy_to_the_selected_bytes_only():
    memory = Memory(unwritten="error")
    memory.write(0, b"\x01" * 4)
    assert memory.read_gathered(0, 8, lambda mask: mask[:4]).tolist() == [1, 1, 1, 1, 0, 0, 0, 0]
    with pytest.raises(MemoryAccessError, match="never-written"):
        memory.read_gathered(0, 8, lambda mask: mask[2:6])


def test_huge_record_offsets_and_sizes_are_data_file_errors(tmp_path):
    for record in ("{offset:0xffffffffffffffffff, size:1, payload:0x01} ,",
                   "{offset:0x0, size:99999999999999999999999999, payload:0x01} ,",
                   "{offset:0x" + "f" * 5000 + ", size:1, payload:0x01} ,"):
        path = tmp_path / "huge.dat"
        path.write_text("{\n" + record + "\n}\n")
        with pytest.raises(DataFileError, match="huge.dat"):
            read_memory_file(path)


def test_memory_files_split_lines_at_newlines_only():
    text = "{\n{offset:0x0, size:1, payload:0x01} ,\x0c\n{offset:0x1, size:1, payload:0xZZ} ,\n}\n"
    with pytest.raises(DataFileError, match=r":3: "):
        parse_records(text, "f.dat")


def test_memory_limit_sizes_parse():
    from golden.limits import parse_size

    assert parse_size("4GiB") == 4 << 30 and parse_size("512M") == 512 << 20 and parse_size("1024") == 1024
    for bad in ("", "GiB", "-1G", "x" * 5000, "0"):
        with pytest.raises(ValueError, match="not a size"):
            parse_size(bad)


def test_write_back_marks_only_the_chosen_bytes_written():
    memory = Memory(unwritten="count")
    memory.write(PAGE_SIZE - 2, b"\x09" * 4)
    window = memory.read(PAGE_SIZE - 4, 8, unwritten="allow")
    chosen = np.array([1, 0, 1, 0, 0, 1, 1, 0], bool)
    window[chosen] = [1, 3, 6, 7]
    memory.write_back(PAGE_SIZE - 4, window, chosen)
    assert memory.read(PAGE_SIZE - 4, 8, unwritten="allow").tolist() == [1, 0, 3, 9, 9, 6, 7, 0]
    assert memory.count_unwritten(PAGE_SIZE - 4, 8) == 2
    memory.write_back(5 * PAGE_SIZE, np.zeros(4, np.uint8), np.zeros(4, bool))
    assert memory.held_bytes == 2 * 2 * PAGE_SIZE  # nothing chosen on an absent page: nothing stored


def test_a_gapped_surface_write_marks_only_its_atoms_written():
    from golden.units.dma import read_feature, write_feature

    memory = Memory(unwritten="error")
    cube = np.arange(2 * 3 * 4, dtype=np.int8).reshape(2, 3, 4)  # 2 channels, 8-byte atoms: one surface
    write_feature(memory, 0x1000, cube, "int8", 48, 200, 8, name="T")
    assert memory.count_unwritten(0x1000, 2 * 48 + 32) == 2 * 16
    np.testing.assert_array_equal(read_feature(memory, 0x1000, cube.shape, "int8", 48, 200, 8, name="T"), cube)


def test_memory_files_are_written_byte_for_byte_in_nvidias_spellings():
    data = np.array([0x00, 0x0A, 0xFF, 0x10, 0x7E], np.uint8)
    assert format_records([(0x20, data)], record_size=2) == (
        "{\n{offset:0x20, size:2, payload:0x00 0x0a} ,\n{offset:0x22, size:2, payload:0xff 0x10} ,\n"
        "{offset:0x24, size:1, payload:0x7e} ,\n}\n")
    assert format_byte_lines(data, per_line=2) == "0x00 0x0a\n0xff 0x10\n0x7e\n"
    assert format_byte_lines(data[:0]) == "" and format_records([(0, data[:0])]) == "{\n}\n"


def test_memory_files_in_other_spellings_parse_to_the_same_bytes():
    spelled = "{\n{offset:0x20, size:3, payload:0x0 0xA  0xFf } ,\n {offset:0x23, size:2, payload:0x10 0x7e},\n}"
    [(offset, data)] = parse_records(spelled)
    assert offset == 0x20 and data.tolist() == [0x00, 0x0A, 0xFF, 0x10, 0x7E]
    assert parse_byte_lines("0x0 0xA\n  0xFf 0x10\n0x7e").tolist() == [0x00, 0x0A, 0xFF, 0x10, 0x7E]
    with pytest.raises(DataFileError, match=r":2: record says size:3 but has 2"):
        parse_records("{\n{offset:0x0, size:3, payload:0x01 0x02} ,\n}\n", "f.dat")
