"""golden/trace.py: both trace languages parse, errors name file:line, the .cfg writer round-trips."""

from __future__ import annotations

import pytest

from golden.errors import TraceError
from golden.regs.regmap import RegisterMap
from golden.trace import (
    CheckCrc,
    CheckFile,
    IntrNotify,
    MemInit,
    MemLoad,
    RegRead,
    RegWrite,
    Wait,
    find_traces,
    format_cfg,
    load_trace,
    parse_cfg,
    parse_txn,
)


@pytest.fixture(scope="module")
def all_traces(nvdla_data):
    return [load_trace(path) for path in find_traces(nvdla_data)]


def test_every_trace_parses(all_traces):
    cfg = [t for t in all_traces if t.format == "cfg"]
    txn = [t for t in all_traces if t.format == "txn"]
    # ../shared/nvdla/README.md: 97 .cfg tests (85 nv_small + 12 nv_large) and 12 traceplayer tests.
    assert (len(cfg), len(txn)) == (97, 12)
    count = {}
    for trace in all_traces:
        for command in trace.commands:
            count[command.op] = count.get(command.op, 0) + 1
    # Command counts from the README's tables: 18,973 reg_write + 802 write_reg; 26 polls + 808 read_reg.
    assert count["RegWrite"] == 18973 + 802
    assert count["RegRead"] == 26 + 808
    assert count["MemInit"] == 197 and count["MemLoad"] == 140 + 17
    assert count["CheckCrc"] == 97 and count["CheckFile"] == 7 and count["Wait"] == 24


def test_check_crc_memtype_one_is_primary(all_traces):
    crcs = [c for t in all_traces for c in t.commands if isinstance(c, CheckCrc)]
    assert {c.memory for c in crcs} == {"pri_mem", "sec_mem"}
    assert all(c.base >> 28 != 5 for c in crcs if c.memory == "pri_mem")


def test_txn_addresses_and_memories(nvdla_data):
    trace = load_trace(nvdla_data / "traceplayer" / "sanity2_cvsram")
    first = trace.commands[0]
    assert isinstance(first, MemLoad) and first.memory == "sec_mem" and first.size == 0x1000
    write = trace.commands[1]
    assert isinstance(write, RegWrite) and write.register.qualified == "BDMA.CFG_DST_SURF"
    assert write.where.endswith("input.txn:4")
    assert any(isinstance(c, Wait) for c in trace.commands)


def _error(text, parser=parse_cfg):
    with pytest.raises(TraceError) as info:
        parser(text, "t.cfg")
    return str(info.value)


@pytest.mark.parametrize("text, line, words", [
    ("// ok\nreg_write(NVDLA_SDP.D_OP_ENABLE_0, 0x1)\n", 2, "malformed"),
    ("reg_write(NVDLA_SDP.D_NO_SUCH_0, 0x1);\n", 1, "unknown register"),
    ("\n\nreg_write(NVDLA_XYZ.D_OP_ENABLE_0, 0x1);", 3, "unknown register"),
    ("reg_write(NVDLA_SDP.D_OP_ENABLE_0, 0x100000000);", 1, "does not fit in 32 bits"),
    ("reg_write(NVDLA_SDP.D_OP_ENABLE_0, banana);", 1, "expected a number"),
    ("reg_write(NVDLA_SDP.D_OP_ENABLE_0);", 1, "takes 2 arguments"),
    ("frobnicate(1, 2);", 1, "unknown command"),
    ("mem_load(pri_mem, 0x80000000, file.dat);", 1, "quoted file name"),
    ("mem_init(dram, 0x80000000, 0x10, ALL_ZERO);", 1, "unknown memory"),
    ("mem_init(pri_mem, 0x80000000, 0x10, RANDOM);", 1, "ALL_ZERO"),
    ("check_crc(s, pri_mem, 0x0, 0x10, 0x1ffffffff);", 1, "does not fit"),
])
def test_cfg_errors_name_the_line(text, line, words):
    message = _error(text)
    assert message.startswith(f"t.cfg:{line}: ") and words in message


def test_strict_mode_rejects_bits_outside_every_field():
    text = "reg_write(NVDLA_SDP.D_DP_BS_ALU_SRC_VALUE_0, 0x10014);"
    assert parse_cfg(text).commands[0].value == 0x10014  # NVIDIA's own traces do this
    with pytest.raises(TraceError, match=r"t.cfg:1: .*outside the fields.*BS_ALU_OPERAND\[15:0\]"):
        parse_cfg(text, "t.cfg", strict=True)


@pytest.mark.parametrize("text, words", [
    ("write_reg 0x0000002c 0x1", "0xffff flag"),
    ("write_reg 0xffff3fff 0x1", "unknown register"),
    ("read_reg 0xffff0003 0xffffffff", "takes 3 arguments"),
    ("poke 1 2", "unknown command"),
])
def test_txn_errors_name_the_line(text, words):
    with pytest.raises(TraceError) as info:
        parse_txn("# header\n" + text, "input.txn")
    assert str(info.value).startswith("input.txn:2: ") and words in str(info.value)


def test_cfg_writer_round_trips_every_cfg_trace(all_traces):
    for trace in all_traces:
        if trace.format != "cfg":
            continue
        again = parse_cfg(format_cfg(trace), trace.path)
        assert again.commands == trace.commands, trace.path


def test_writer_forms():
    regmap = RegisterMap.for_layout("master")
    reg = regmap.lookup("NVDLA_CDMA.S_CBUF_FLUSH_STATUS_0")
    where = {"path": "x", "line": 1}
    commands = [
        MemInit(**where, memory="sec_mem", base=0x50000000, size=0x40),
        RegRead(**where, register=reg, expected=1, poll=True),
        RegRead(**where, register=reg, mask=1, expected=1, poll=True),
        IntrNotify(**where, source="SDP_0", sync="s"),
        CheckFile(**where, sync="s", memory="pri_mem", base=0x80000000, size=0x20, file="golden.dat"),
    ]
    text = format_cfg(commands)
    assert "poll_reg_equal(NVDLA_CDMA.S_CBUF_FLUSH_STATUS_0, 0x1);" in text
    assert "poll_field_equal(NVDLA_CDMA.S_CBUF_FLUSH_STATUS_0.FLUSH_DONE, 0x1);" in text
    assert parse_cfg(text).commands == commands


def test_segments_split_after_launch(nvdla_data):
    trace = load_trace(nvdla_data / "traceplayer" / "sanity3")
    segments = trace.segments()
    launched = [segment for segment in segments if segment.enabled]
    assert len(launched) == 1
    assert set(launched[0].enabled) == {"SDP", "CACC", "CMAC_A", "CMAC_B", "CSC", "CDMA"}
    assert sum(len(segment.commands) for segment in segments) == len(trace.commands)


def test_find_traces_rejects_missing_path(tmp_path):
    with pytest.raises(TraceError, match="no such file"):
        find_traces(tmp_path / "nope")
