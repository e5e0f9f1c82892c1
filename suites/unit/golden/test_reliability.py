"""Issue 17: every class of hostile input found by fuzzing ends in one clear project error.

One minimal trace per class, written here: either a few lines of `.cfg`, or one of NVIDIA's traces with
one register, size or file changed (those need the NVIDIA data, see conftest.py --nvdla-data).
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import tracemalloc

import pytest

import golden.limits
from golden.config import get_profile
from golden.errors import TraceError
from golden.player import play
from golden.trace import load_trace

NV_SMALL, NV_LARGE = get_profile("nv_small"), get_profile("nv_large")
PDP = "trace_tests/nv_small/pdp_28x28x8_2x2_max_int8_0"
CDP = "trace_tests/nv_small/cdp_8x8x32_lrn3_int8_2"
SDP = "trace_tests/nv_small/sdp_23x13x42_bs_int8_mem_0"


def _cfg(tmp_path, text: str, name: str = "t.cfg"):
    path = tmp_path / name
    path.write_text(text)
    return path


def _mutated(nvdla_data, tmp_path, folder: str, changes: dict[str, int] | None = None, edit=None):
    """A copy of an NVIDIA trace with register values replaced (and `edit` applied to its text)."""
    source = nvdla_data / folder
    target = tmp_path / source.name
    shutil.copytree(source, target)
    cfg = target / f"{source.name}.cfg"
    text = cfg.read_text()
    for register, value in (changes or {}).items():
        text, count = re.subn(rf"(reg_write\(NVDLA_{re.escape(register)}_0, )0x[0-9a-fA-F]+", rf"\g<1>{value:#x}",
                              text)
        assert count, register
    cfg.write_text(edit(text) if edit else text)
    return cfg


def _internal(result) -> bool:
    return "internal error" in result.detail


@pytest.mark.parametrize("size", [1 << 34, 1 << 40, (1 << 63) - 1, 1 << 63])
def test_huge_mem_init_is_a_memory_limit_error(tmp_path, size):
    result = play(_cfg(tmp_path, f"mem_init(pri_mem, 0x0, {size:#x}, ALL_ZERO);\n"), NV_LARGE)
    assert result.status == "error" and "memory limit" in result.detail, result.detail


@pytest.mark.parametrize("size", [1 << 34, 1 << 63])
def test_huge_check_crc_is_a_memory_limit_error(nvdla_data, tmp_path, size):
    cfg = _mutated(nvdla_data, tmp_path, PDP, edit=lambda t: t.replace("0x80000120, 0x11160, 0x80012571",
                                                                        f"0x80000120, {size:#x}, 0x80012571"))
    result = play(cfg, NV_SMALL)
    assert result.status == "error" and re.search("memory limit|address space", result.detail), result.detail


def test_a_gib_mem_init_is_cheap(tmp_path):
    path = _cfg(tmp_path, "mem_init(pri_mem, 0x80000000, 0x40000000, ALL_ZERO);\n")
    tracemalloc.start()
    result = play(path, NV_LARGE)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert not _internal(result) and peak < 32 << 20, (result.detail, peak)


@pytest.mark.parametrize("register", ["PDP_RDMA.D_SRC_LINE_STRIDE", "PDP_RDMA.D_SRC_SURFACE_STRIDE",
                                      "PDP.D_DST_LINE_STRIDE"])
def test_pdp_strides_near_4_gib_name_the_surface(nvdla_data, tmp_path, register):
    changes = {register: 0xFFFF_FFF8}
    if register.startswith("PDP_RDMA"):
        changes[register.replace("PDP_RDMA", "PDP")] = 0xFFFF_FFF8
    if register.endswith("SURFACE_STRIDE"):  # a second surface: 16 channels of 8-byte atoms
        changes.update({"PDP_RDMA.D_DATA_CUBE_IN_CHANNEL": 15, "PDP.D_DATA_CUBE_IN_CHANNEL": 15,
                        "PDP.D_DATA_CUBE_OUT_CHANNEL": 15})
    result = play(_mutated(nvdla_data, tmp_path, PDP, changes), NV_SMALL)
    assert result.status == "error" and re.search(r"PDP(_RDMA)? (input|output) surface spans 0x\w+ bytes",
                                                  result.detail), result.detail


@pytest.mark.parametrize("registers", [
    # a line stride that large makes the surfaces overlap (rule SDP-SRC-SURFACE-STRIDE) unless they move apart too
    {"SDP_RDMA.D_SRC_LINE_STRIDE": 0x1000_0000, "SDP_RDMA.D_SRC_SURFACE_STRIDE": 0xFFFF_FFF8},
    {"SDP_RDMA.D_BS_LINE_STRIDE": 0xFFFF_FFF8}, {"SDP_RDMA.D_BS_SURFACE_STRIDE": 0xFFFF_FFF8}])
def test_sdp_rdma_strides_near_4_gib_name_the_surface(nvdla_data, tmp_path, registers):
    result = play(_mutated(nvdla_data, tmp_path, SDP, registers), NV_SMALL)
    assert result.status == "error" and re.search(r"SDP_RDMA[ \w]* surface spans 0x\w+ bytes", result.detail), \
        result.detail


@pytest.mark.parametrize("folder, register", [(PDP, "PDP.D_DST_LINE_STRIDE"), (CDP, "CDP.D_DST_SURFACE_STRIDE")])
def test_a_destination_stride_near_4_gib_does_not_allocate_the_span(nvdla_data, tmp_path, monkeypatch, folder,
                                                                     register):
    monkeypatch.setattr(golden.limits, "_memory_limit", 1 << 40)  # so the layer runs: its lines are 4 GiB apart
    cfg = _mutated(nvdla_data, tmp_path, folder, {register: 0xFFFF_FFF8})
    wide = dataclasses.replace(NV_SMALL, mem_address_width=64)  # nv_small's own 32 bits end 4 GiB in
    assert play(cfg, NV_SMALL).status == "error"
    tracemalloc.start()
    result = play(cfg, wide)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert result.status == "failed" and peak < 256 << 20, (result.detail, peak)


@pytest.mark.parametrize("folder, register", [
    (PDP, "PDP_RDMA.D_SRC_BASE_ADDR_LOW"), (PDP, "PDP_RDMA.D_SRC_LINE_STRIDE"),
    (CDP, "CDP_RDMA.D_SRC_BASE_ADDR_LOW"), (CDP, "CDP_RDMA.D_SRC_LINE_STRIDE"),
    (PDP, "PDP.D_DST_LINE_STRIDE"), (CDP, "CDP.D_DST_BASE_ADDR_LOW"), (SDP, "SDP_RDMA.D_BS_BASE_ADDR_LOW"),
    (SDP, "SDP_RDMA.D_SRC_LINE_STRIDE")])
def test_unaligned_dma_addresses_and_strides_cite_table_35(nvdla_data, tmp_path, folder, register):
    text = (nvdla_data / folder / f"{folder.rsplit('/', 1)[1]}.cfg").read_text()
    value = int(re.search(rf"NVDLA_{re.escape(register)}_0, (0x\w+)", text).group(1), 16)
    result = play(_mutated(nvdla_data, tmp_path, folder, {register: value + 4}), NV_SMALL)
    assert result.status == "error" and "Table 35" in result.detail and register in result.detail, result.detail


@pytest.mark.parametrize("start", [0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF])
@pytest.mark.parametrize("function", [0, 1])
def test_extreme_cdp_lut_start_is_a_clear_verdict(nvdla_data, tmp_path, start, function):
    def edit(text):
        return text.replace("reg_write(NVDLA_CDP.S_LUT_LE_START_HIGH_0, 0x0);",
                            f"reg_write(NVDLA_CDP.S_LUT_LE_START_HIGH_0, {start & 0x3F:#x});")

    cfg = _mutated(nvdla_data, tmp_path, CDP, {"CDP.S_LUT_LE_START_LOW": start}, edit)
    text = cfg.read_text()
    cfg.write_text(re.sub(r"(reg_write\(NVDLA_CDP\.S_LUT_CFG_0, )(0x\w+)",
                          lambda m: f"{m.group(1)}{int(m.group(2), 16) & ~1 | function:#x}", text))
    result = play(cfg, NV_SMALL)
    assert result.status in ("passed", "failed", "error") and not _internal(result), result.detail


def test_huge_dat_record_offsets_and_sizes_are_data_file_errors(tmp_path):
    path = _cfg(tmp_path, 'mem_load(pri_mem, 0x80000000, "in.dat");\n')
    for record in ("{offset:0xfffffffffffffffffff0, size:1, payload:0x01}",
                   "{offset:0x0, size:123456789012345678901234567890, payload:0x01}"):
        (tmp_path / "in.dat").write_text("{\n" + record + " ,\n}\n")
        result = play(path, NV_LARGE)
        assert result.status == "error" and "in.dat" in result.detail, result.detail


def test_a_5000_digit_register_value_is_a_trace_error(tmp_path):
    path = _cfg(tmp_path, "// header\nreg_write(NVDLA_SDP.D_OP_ENABLE_0, " + "9" * 5000 + ");\n")
    with pytest.raises(TraceError, match=r"t\.cfg:2: value of NVDLA_SDP\.D_OP_ENABLE_0: 99999.*does not fit"):
        load_trace(path)
    result = play(path, NV_LARGE)
    assert result.status == "error" and "t.cfg:2" in result.detail and len(result.detail) < 400


def test_a_file_name_longer_than_the_file_system_allows_is_a_trace_error(tmp_path):
    path = _cfg(tmp_path, f'mem_load(pri_mem, 0x80000000, "{"a" * 300}.dat");\n')
    result = play(path, NV_LARGE)
    assert result.status == "error" and "t.cfg:1" in result.detail and "file name" in result.detail
    txn = tmp_path / "input.txn"
    txn.write_text(f"load_mem 0x80000000 0x10 {'b' * 300}\n")
    with pytest.raises(TraceError, match=r"input\.txn:1: file name"):
        load_trace(txn)


@pytest.mark.parametrize("separator", ["\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\u2029"])
def test_line_numbers_do_not_shift_for_unicode_line_separators(tmp_path, separator):
    path = _cfg(tmp_path, f"// a comment{separator}with a separator\nmem_init(pri_mem, 0x0, 0x10, ALL_ZERO);\n"
                          "not a command\n")
    with pytest.raises(TraceError, match=r"t\.cfg:3: malformed line"):
        load_trace(path)


def test_mem_init_above_4_gib_is_rejected_on_a_32_bit_profile(tmp_path):
    result = play(_cfg(tmp_path, "mem_init(pri_mem, 0x100000000, 0x100, ALL_ZERO);\n"), NV_SMALL)
    assert result.status == "error" and "32-bit address space" in result.detail, result.detail


def test_a_trace_path_longer_than_the_file_system_allows_is_a_trace_error():
    from golden.trace import find_traces

    with pytest.raises(TraceError, match="cannot read trace"):
        load_trace("a" * 5000 + ".cfg")
    with pytest.raises(TraceError, match="no such file or folder"):
        find_traces("b" * 5000)
    assert play("c" * 5000 + ".cfg", NV_LARGE).status == "error"


@pytest.mark.parametrize("high", [0x8000_0000, 0xFFFF_FFFF])
def test_a_surface_above_2_63_is_an_address_error(nvdla_data, tmp_path, high):
    result = play(_mutated(nvdla_data, tmp_path, PDP, {"PDP_RDMA.D_SRC_BASE_ADDR_HIGH": high}), NV_SMALL)
    assert result.status == "error" and "address space" in result.detail, result.detail


def test_a_decimal_number_with_a_leading_zero_is_a_trace_error(tmp_path):
    # fuzz finding (text flip): int("0615", 0) raised ValueError.
    path = _cfg(tmp_path, "reg_write(NVDLA_CDP.S_LUT_ACCESS_DATA_0, 0615);\n")
    with pytest.raises(TraceError, match=r"t\.cfg:1: .*'0615' is not a number"):
        load_trace(path)


@pytest.mark.parametrize("high", [0x20, 0xE0, 0x1F])
def test_a_38_bit_cdp_lut_start_beyond_int32_is_a_clear_verdict(nvdla_data, tmp_path, high):
    # fuzz finding (register LE_START_HIGH = 0xe0): START = -2**37 overflowed the int32 square sums.
    cfg = _mutated(nvdla_data, tmp_path, "trace_tests/nv_large/cdp_8x8x64_lrn9_int8_0",
                   {"CDP.S_LUT_LE_START_HIGH": high})
    result = play(cfg, NV_LARGE)
    assert result.status in ("passed", "failed", "error") and not _internal(result), result.detail
