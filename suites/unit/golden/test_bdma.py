"""BDMA: nvdlav1 sanity traces, copies against numpy strided copies, slots/groups/status, limitations."""

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from golden.config import get_profile
from golden.errors import ConfigurationError, ProfileFeatureError
from golden.memory import MemorySystem, parse_byte_lines
from golden.regs.regmap import RegisterMap
from golden.regs.values import RegisterValues
from golden.units import bdma
from golden.units.base import LayerContext

FULL = get_profile("nv_full")
REGMAP = RegisterMap.for_layout("nvdlav1")
SANITY = ["sanity0", "sanity1", "sanity1_cvsram", "sanity2", "sanity2_cvsram"]


class TxnDriver:
    """Plays an nvdlav1 input.txn against a BdmaEngine and a GLB interrupt status word.

    A stand-in for golden/player.py, limited to what the BDMA sanity traces use.
    """

    def __init__(self, folder: Path):
        self.folder = folder
        self.memory = MemorySystem()
        self.engine = bdma.BdmaEngine(FULL, REGMAP)
        self.intr_status = 0
        self.checks = 0

    def memory_at(self, address: int):
        return self.memory.sec if address >> 28 == 0x5 else self.memory.pri

    def register(self, word: str):
        return REGMAP.at((int(word, 16) & 0xFFFF) << 2)

    def write(self, reg, value: int) -> None:
        if reg.unit == "BDMA":
            for kind, name in self.engine.on_register_write(reg.name, value, self.memory):
                assert kind == "interrupt"
                self.intr_status |= REGMAP.get("GLB", "S_INTR_STATUS").field(name).mask
        elif reg.qualified == "GLB.S_INTR_STATUS":
            self.intr_status &= ~value  # write-one-to-clear
        else:
            raise AssertionError(f"driver does not model writes to {reg.qualified}")

    def read(self, reg) -> int:
        if reg.unit == "BDMA":
            return self.engine.read(reg.name)
        if reg.qualified == "GLB.S_INTR_STATUS":
            return self.intr_status
        raise AssertionError(f"driver does not model reads of {reg.qualified}")

    def play(self) -> None:
        for number, line in enumerate((self.folder / "input.txn").read_text().splitlines(), 1):
            fields = line.split("#")[0].split()
            if not fields:
                continue
            command, args = fields[0], fields[1:]
            if command == "load_mem":
                base, size = int(args[0], 16), int(args[1], 16)
                data = parse_byte_lines((self.folder / args[2]).read_text())[:size]
                self.memory_at(base).write(base, data)
            elif command == "write_reg":
                self.write(self.register(args[0]), int(args[1], 16))
            elif command == "read_reg":
                mask, expected = int(args[1], 16), int(args[2], 16)
                got = self.read(self.register(args[0]))
                assert got & mask == expected & mask, f"line {number}: {line.strip()} read {got:#x}"
                self.checks += 1
            elif command == "wait":
                assert self.intr_status, f"line {number}: wait with no interrupt pending"
            else:
                raise AssertionError(f"line {number}: command {command} not used by BDMA traces")


@pytest.mark.parametrize("name", SANITY)
def test_sanity_traces(nvdla_data, name):
    folder = nvdla_data / "traceplayer" / name
    driver = TxnDriver(folder)
    driver.play()
    assert driver.checks >= 2
    if name == "sanity0":
        return
    # Beyond the trace's own checks: the copy itself (8 lines of 256 bytes, strides 0x100/0x800).
    source = parse_byte_lines((folder / "sample_surf.dat").read_text())[:0x800]
    memory = driver.memory.sec if name.endswith("cvsram") else driver.memory.pri
    base = 0x51000000 if name.endswith("cvsram") else 0x81000000
    np.testing.assert_array_equal(memory.read(base, 0x800), source)
    assert driver.engine.read("STATUS") == REGMAP.get("BDMA", "STATUS").encode(FREE_SLOT=20, IDLE=1)
    assert driver.intr_status == 1 << 6  # BDMA_DONE_STATUS0


def test_sanity1_status_read_fails_without_interrupt(nvdla_data):
    """The trace's final read_reg really checks the BDMA interrupt (the driver can fail)."""
    driver = TxnDriver(nvdla_data / "traceplayer" / "sanity1")
    driver.engine.deferred = True  # the group never completes
    with pytest.raises(AssertionError, match="BDMA_DONE_STATUS0"):
        driver.play()


# -- copies against numpy ----------------------------------------------------------------------------
def program(regs: dict, *, src, dst, line_atoms, lines, surfaces, src_line, dst_line, src_surf, dst_surf,
            src_mc=True, dst_mc=True) -> dict:
    regs.update({
        "CFG_SRC_ADDR_LOW": src & 0xFFFFFFFF, "CFG_SRC_ADDR_HIGH": src >> 32,
        "CFG_DST_ADDR_LOW": dst & 0xFFFFFFFF, "CFG_DST_ADDR_HIGH": dst >> 32,
        "CFG_LINE": line_atoms - 1, "CFG_LINE_REPEAT": lines - 1, "CFG_SURF_REPEAT": surfaces - 1,
        "CFG_SRC_LINE": src_line, "CFG_DST_LINE": dst_line, "CFG_SRC_SURF": src_surf,
        "CFG_DST_SURF": dst_surf, "CFG_CMD": int(src_mc) | int(dst_mc) << 1,
    })
    return regs


def context(regs: dict, profile=FULL, memory=None) -> LayerContext:
    values = RegisterValues(REGMAP, {("BDMA", name): value for name, value in regs.items()})
    return LayerContext(profile, values, memory or MemorySystem())


@st.composite
def copies(draw):
    line_atoms = draw(st.integers(1, 6))
    lines = draw(st.integers(1, 5))
    surfaces = draw(st.integers(1, 4))
    line_bytes = line_atoms * 32
    src_line = line_bytes + 32 * draw(st.integers(0, 3))
    dst_line = line_bytes + 32 * draw(st.integers(0, 3))
    src_surf = (lines - 1) * src_line + line_bytes + 32 * draw(st.integers(0, 3))
    dst_surf = (lines - 1) * dst_line + line_bytes + 32 * draw(st.integers(0, 3))
    where = draw(st.sampled_from([(True, True), (True, False), (False, True), (False, False)]))
    high = draw(st.sampled_from([0, 0x12 << 32]))
    return dict(src=0x80000000 + high, dst=0x90000000 + 32 * draw(st.integers(0, 64)), line_atoms=line_atoms,
                lines=lines, surfaces=surfaces, src_line=src_line, dst_line=dst_line, src_surf=src_surf,
                dst_surf=dst_surf, src_mc=where[0], dst_mc=where[1])


def numpy_copy(source: np.ndarray, destination: np.ndarray, p: dict) -> None:
    """Reference: an as_strided view of each buffer, copied with numpy."""
    shape = (p["surfaces"], p["lines"], p["line_atoms"] * 32)
    src = np.lib.stride_tricks.as_strided(source, shape, (p["src_surf"], p["src_line"], 1))
    dst = np.lib.stride_tricks.as_strided(destination, shape, (p["dst_surf"], p["dst_line"], 1))
    dst[...] = src


@settings(max_examples=60, deadline=None)
@given(copies(), st.integers(0, 2**32 - 1))
def test_copy_equals_numpy_strided_copy(p, seed):
    rng = np.random.default_rng(seed)
    span = 8192
    source = rng.integers(0, 256, span, dtype=np.uint8)
    before = rng.integers(0, 256, span, dtype=np.uint8)
    memory = MemorySystem()
    memory.select(not p["src_mc"]).write(p["src"], source)
    memory.select(not p["dst_mc"]).write(p["dst"], before)
    result = bdma.run(context(program({}, **p), memory=memory))
    expected = before.copy()
    numpy_copy(source, expected, p)
    np.testing.assert_array_equal(memory.select(not p["dst_mc"]).read(p["dst"], span), expected)
    surface = result.surfaces[0]
    layout = (surface.base, surface.line_stride, surface.surface_stride)
    assert layout == (p["dst"], p["dst_line"], p["dst_surf"])
    assert surface.memory == ("pri_mem" if p["dst_mc"] else "sec_mem")


def test_dram_and_cvsram_are_separate_memories():
    p = dict(src=0x80000000, dst=0x80000000, line_atoms=1, lines=1, surfaces=1, src_line=32, dst_line=32,
             src_surf=32, dst_surf=32, src_mc=True, dst_mc=False)
    memory = MemorySystem()
    memory.pri.write(0x80000000, np.arange(32, dtype=np.uint8))
    bdma.run(context(program({}, **p), memory=memory))  # same address, different memory: legal
    np.testing.assert_array_equal(memory.sec.read(0x80000000, 32), np.arange(32))
    np.testing.assert_array_equal(memory.pri.read(0x80000000, 32), np.arange(32))


# -- slots, groups, status ---------------------------------------------------------------------------
def write_operation(engine, memory, p) -> list:
    for name, value in program({}, **p).items():
        assert engine.on_register_write(name, value, memory) == []
    return engine.on_register_write("NVDLA_BDMA.CFG_OP_0", 1, memory)


def small_op(index: int, dst_mc: bool = True) -> dict:
    return dict(src=0x80000000 + 64 * index, dst=0x90000000 + 64 * index, line_atoms=1, lines=1, surfaces=1,
                src_line=32, dst_line=32, src_surf=32, dst_surf=32, src_mc=True, dst_mc=dst_mc)


def loaded_memory() -> MemorySystem:
    memory = MemorySystem()
    memory.pri.write(0x80000000, np.arange(4096, dtype=np.uint32).astype(np.uint8))
    return memory


def free_slots(engine) -> int:
    return REGMAP.get("BDMA", "STATUS").field("FREE_SLOT").decode(engine.read("STATUS"))


def test_group_of_operations_and_free_slots():
    memory = loaded_memory()
    engine = bdma.BdmaEngine(FULL)
    assert engine.read("STATUS") == REGMAP.get("BDMA", "STATUS").reset  # 20 free slots, idle
    for index in range(5):
        assert write_operation(engine, memory, small_op(index)) == []
        assert free_slots(engine) == 19 - index
    assert not memory.pri.is_written(0x90000000, 32).any()  # cached, not executed
    assert engine.read("CFG_OP") == 1  # plain register: reads back what was written
    events = engine.on_register_write("CFG_LAUNCH1", 1, memory)
    assert events == [("interrupt", "BDMA_DONE_STATUS1")]
    assert free_slots(engine) == 20 and engine.read("CFG_LAUNCH1") == 1
    for index in range(5):
        np.testing.assert_array_equal(memory.pri.read(0x90000000 + 64 * index, 32),
                                      memory.pri.read(0x80000000 + 64 * index, 32))


def test_deferred_groups_report_busy_until_drained():
    memory = loaded_memory()
    engine = bdma.BdmaEngine(FULL, deferred=True)
    status = REGMAP.get("BDMA", "STATUS")
    write_operation(engine, memory, small_op(0))
    assert engine.on_register_write("CFG_LAUNCH0", 1, memory) == []
    write_operation(engine, memory, small_op(1))
    write_operation(engine, memory, small_op(2))
    engine.on_register_write("CFG_LAUNCH1", 1, memory)
    busy = {"FREE_SLOT": 17, "IDLE": 0, "GRP0_BUSY": 1, "GRP1_BUSY": 1}
    assert status.decode(engine.read("STATUS")) == busy
    with pytest.raises(ConfigurationError, match="both busy") as info:
        write_operation(engine, memory, small_op(3))
    assert info.value.rule == "programming-guide: Limitation/BDMA"
    assert engine.drain(memory) == [("interrupt", "BDMA_DONE_STATUS0"), ("interrupt", "BDMA_DONE_STATUS1")]
    idle = {"FREE_SLOT": 20, "IDLE": 1, "GRP0_BUSY": 0, "GRP1_BUSY": 0}
    assert status.decode(engine.read("STATUS")) == idle


def test_relaunch_of_busy_group_is_rejected():
    memory = loaded_memory()
    engine = bdma.BdmaEngine(FULL, deferred=True)
    write_operation(engine, memory, small_op(0))
    engine.on_register_write("CFG_LAUNCH0", 1, memory)
    write_operation(engine, memory, small_op(1))
    with pytest.raises(ConfigurationError, match="before its interrupt returned"):
        engine.on_register_write("CFG_LAUNCH0", 1, memory)


def test_twenty_first_operation_is_rejected():
    memory = loaded_memory()
    engine = bdma.BdmaEngine(FULL)
    for index in range(20):
        write_operation(engine, memory, small_op(index))
    assert free_slots(engine) == 0
    with pytest.raises(ConfigurationError, match="no free slot") as info:
        write_operation(engine, memory, small_op(20))
    assert "20 slots" in info.value.rule


def test_empty_launch_and_launch_zero_are_handled():
    memory = loaded_memory()
    engine = bdma.BdmaEngine(FULL)
    assert engine.on_register_write("CFG_LAUNCH0", 0, memory) == []  # NO: no action
    with pytest.raises(ConfigurationError, match="no operation enabled"):
        engine.on_register_write("CFG_LAUNCH0", 1, memory)


def test_one_destination_ram_type_per_group():
    memory = loaded_memory()
    engine = bdma.BdmaEngine(FULL)
    write_operation(engine, memory, small_op(0, dst_mc=True))
    write_operation(engine, memory, small_op(1, dst_mc=False))
    with pytest.raises(ConfigurationError, match="both DRAM and CV-SRAM") as info:
        engine.on_register_write("CFG_LAUNCH0", 1, memory)
    assert info.value.rule == "programming-guide: Limitation/BDMA"
    assert "BDMA.CFG_CMD.DST_RAM_TYPE" in info.value.fields


def test_status_writes_are_ignored_and_other_units_rejected():
    engine = bdma.BdmaEngine(FULL)
    engine.on_register_write("STATUS", 0, MemorySystem())
    assert engine.read("BDMA.STATUS") == REGMAP.get("BDMA", "STATUS").reset
    with pytest.raises(Exception, match="not a BDMA register"):
        engine.on_register_write("NVDLA_SDP.D_OP_ENABLE_0", 1, MemorySystem())


# -- limitations ---------------------------------------------------------------------------------------
BASE = small_op(0)


@pytest.mark.parametrize("change, register, rule", [
    ({"src": 0x80000010}, "CFG_SRC_ADDR_LOW", "32-byte units"),
    ({"dst_line": 48, "lines": 2}, "CFG_DST_LINE", "32-byte units"),
    ({"src_surf": 0x41, "surfaces": 2}, "CFG_SRC_SURF", "32-byte units"),
    ({"lines": 0x2001, "src_line": 32, "dst_line": 32, "src_surf": 0x40000, "dst_surf": 0x40000},
     "CFG_LINE_REPEAT", "CFG_LINE_REPEAT"),
    ({"lines": 2, "src_line": 0}, "CFG_SRC_LINE", "Buffer allocation"),
    ({"lines": 2, "dst_line": 32, "src_line": 64, "line_atoms": 2}, "CFG_DST_LINE", "Buffer allocation"),
    ({"surfaces": 2, "dst_surf": 0, "src_surf": 64}, "CFG_DST_SURF", "Buffer allocation"),
    ({"dst": 0x80000000 + (5 << 40)}, "CFG_DST_ADDR_HIGH", "40 bits"),
    ({"dst": 0x80000000}, "CFG_DST_ADDR_LOW", "disjoint"),
])
def test_limitations_name_register_and_rule(change, register, rule):
    p = dict(BASE, **change)
    regs = program({}, **p)
    memory = loaded_memory()
    with pytest.raises(ConfigurationError) as info:
        bdma.run(context(regs, memory=memory))
    text = str(info.value)
    assert register in text and (rule in text or rule in (info.value.rule or ""))


def test_profile_without_bdma_rejects_copy():
    master = RegisterMap.for_layout("master")
    values = RegisterValues(master, {("BDMA", name): value for name, value in program({}, **BASE).items()})
    ctx = LayerContext(get_profile("nv_small"), values, loaded_memory())
    with pytest.raises(ProfileFeatureError, match="BDMA") as info:
        bdma.run(ctx)
    assert "nv_small" in str(info.value)
    engine = bdma.BdmaEngine(get_profile("nv_small"))
    with pytest.raises(ProfileFeatureError, match="BDMA"):
        write_operation(engine, loaded_memory(), BASE)


def test_cvsram_needs_secondary_memory_interface():
    # No built-in profile has BDMA without CV-SRAM; derive one to exercise the rule.
    profile = dataclasses.replace(FULL, secondary_memif=False)
    with pytest.raises(ProfileFeatureError, match="SECONDARY_MEMIF"):
        bdma.run(context(program({}, **dict(BASE, dst_mc=False)), profile=profile, memory=loaded_memory()))


# -- the player's path: operations queued by the register file, run() per operation ----------------------
def operation_values(p: dict) -> RegisterValues:
    return RegisterValues(REGMAP, {("BDMA", name): value for name, value in program({}, **p).items()})


def test_validate_group_rules():
    bdma.validate_group(FULL, [operation_values(small_op(i)) for i in range(20)], 0)
    with pytest.raises(ConfigurationError, match="21 operations") as info:
        bdma.validate_group(FULL, [operation_values(small_op(i)) for i in range(21)], 1)
    assert "20 slots" in info.value.rule and "BDMA.CFG_LAUNCH1.GRP1_LAUNCH" in info.value.fields
    with pytest.raises(ConfigurationError, match="both DRAM and CV-SRAM"):
        bdma.validate_group(FULL, [operation_values(small_op(0)), operation_values(small_op(1, dst_mc=False))], 0)
    with pytest.raises(ConfigurationError, match="no operation"):
        bdma.validate_group(FULL, [], 0)
    with pytest.raises(ProfileFeatureError):
        bdma.validate_group(get_profile("nv_small"), [operation_values(small_op(0))], 0)


@pytest.mark.parametrize("name", SANITY)
def test_sanity_traces_through_the_player(nvdla_data, name):
    from golden import player

    folder = nvdla_data / "traceplayer" / name
    result = player.play(folder / "input.txn", FULL)
    reads = sum(line.startswith("read_reg") for line in (folder / "input.txn").read_text().splitlines())
    assert result.status == "passed", result.detail
    assert len(result.checks) == reads
    if name != "sanity0":
        assert [layer.name for layer in result.layers] == ["BDMA"]
        source = parse_byte_lines((folder / "sample_surf.dat").read_text())[:0x800]
        memory = result.memory.sec if name.endswith("cvsram") else result.memory.pri
        np.testing.assert_array_equal(memory.read(0x51000000 if name.endswith("cvsram") else 0x81000000, 0x800),
                                      source)


def test_reading_never_written_source_follows_memory_policy():
    from golden.errors import MemoryAccessError

    p = dict(small_op(0), lines=4, src_line=64, dst_line=32, src_surf=256, dst_surf=128)
    memory = MemorySystem()
    memory.pri.write(0x80000000, np.ones(32 * 3, np.uint8))  # line 1 (0x80000040) and line 3 never written
    with pytest.raises(MemoryAccessError, match="never-written"):
        bdma.run(context(program({}, **p), memory=memory))
    memory.pri.write(0x80000000, np.ones(256, np.uint8))
    memory.pri.declare(0x80000000, 0x40)
    memory.pri.declare(0x80000040, 0x100)  # rows inside regions, the window across two: still legal
    memory.pri.declare(0x90000000, 0x80)
    bdma.run(context(program({}, **p), memory=memory))
    np.testing.assert_array_equal(memory.pri.read(0x90000000, 128, unwritten="allow"), 1)
