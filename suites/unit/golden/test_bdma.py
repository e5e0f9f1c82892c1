"""BDMA as the player runs it: NVIDIA's nvdlav1 sanity traces, small .cfg traces for the slots, groups
and status (golden/regs/regfile.py), copies against numpy strided copies and the limitations
(golden/units/bdma.py)."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from golden.config import get_profile
from golden.errors import ConfigurationError, MemoryAccessError, ProfileFeatureError
from golden.memory import MemorySystem, format_records, parse_byte_lines
from golden.player import Player, play
from golden.regs.regmap import RegisterMap
from golden.regs.values import RegisterValues
from golden.trace import parse_cfg, parse_txn
from golden.units import bdma
from golden.units.base import LayerContext

FULL = get_profile("nv_full")
REGMAP = RegisterMap.for_layout("nvdlav1")
STATUS = REGMAP.get("BDMA", "STATUS")
SANITY = ["sanity0", "sanity1", "sanity1_cvsram", "sanity2", "sanity2_cvsram"]
SOURCE = 0x80000000
LIMIT = "programming-guide: Limitation/BDMA"


# -- NVIDIA's traces -----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", SANITY)
def test_sanity_traces(nvdla_data, name):
    folder = nvdla_data / "traceplayer" / name
    result = play(folder / "input.txn", FULL)
    reads = sum(line.startswith("read_reg") for line in (folder / "input.txn").read_text().splitlines())
    assert result.status == "passed", result.detail
    assert len(result.checks) == reads >= 2
    if name == "sanity0":
        return
    assert [layer.name for layer in result.layers] == ["BDMA"]
    # Beyond the trace's own checks: the copy itself (8 lines of 256 bytes, strides 0x100/0x800).
    source = parse_byte_lines((folder / "sample_surf.dat").read_text())[:0x800]
    memory = result.memory.sec if name.endswith("cvsram") else result.memory.pri
    np.testing.assert_array_equal(memory.read(0x51000000 if name.endswith("cvsram") else 0x81000000, 0x800),
                                  source)


def test_sanity1_fails_when_the_group_is_never_launched(nvdla_data):
    """The trace's own reads really check the launch and the BDMA interrupt (they can fail)."""
    path = nvdla_data / "traceplayer" / "sanity1" / "input.txn"
    text = path.read_text().replace("write_reg 0xffff100d 0x1", "write_reg 0xffff100d 0x0")
    result = play(parse_txn(text, path, REGMAP), FULL)
    assert result.status == "failed"
    failed = [check.message for check in result.checks if not check.passed]
    assert len(failed) == 2 and "S_INTR_STATUS" in failed[1]


# -- small traces: slots, groups, status --------------------------------------------------------------
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


def small_op(index: int, dst_mc: bool = True) -> dict:
    return dict(src=SOURCE + 64 * index, dst=0x90000000 + 64 * index, line_atoms=1, lines=1, surfaces=1,
                src_line=32, dst_line=32, src_surf=32, dst_surf=32, src_mc=True, dst_mc=dst_mc)


def operation(p: dict) -> list[str]:
    """The CSB writes of one operation, ending with CFG_OP.EN = 1."""
    writes = [f"reg_write(NVDLA_BDMA.{name}_0, {value:#x});" for name, value in program({}, **p).items()]
    return [*writes, "reg_write(NVDLA_BDMA.CFG_OP_0, 0x1);"]


def launch(group: int) -> list[str]:
    return [f"reg_write(NVDLA_BDMA.CFG_LAUNCH{group}_0, 0x1);"]


def status_is(**fields: int) -> list[str]:
    """Read STATUS and compare it whole (fields not named are 0)."""
    value = STATUS.encode(**{**{field.name: 0 for field in STATUS.fields}, **fields})
    return [f"reg_read_check(NVDLA_BDMA.STATUS_0, {value:#x});"]


def done(group: int) -> list[str]:
    """Wait for the group's done interrupt (GLB.S_INTR_STATUS.BDMA_DONE_STATUS<group>)."""
    return [f"intr_notify(BDMA_{group}, bdma_done{group});", f"check_nothing(bdma_done{group});"]


def bdma_trace(folder, lines: list[str], regmap: RegisterMap = REGMAP):
    """A .cfg trace that loads 4 KiB of counting bytes at SOURCE, then runs `lines`."""
    (folder / "source.dat").write_text(format_records([(0, np.arange(4096, dtype=np.uint32).astype(np.uint8))]))
    text = "\n".join([f'mem_load(pri_mem, {SOURCE:#x}, "source.dat");', *lines])
    return parse_cfg(text, folder / "bdma.cfg", regmap)


def run_lines(folder, *groups_of_lines: list[str]):
    """Play the trace on nv_full; every check in it must pass."""
    result = Player(bdma_trace(folder, [line for lines in groups_of_lines for line in lines]), FULL).run()
    assert [c.message for c in result.checks if not c.passed] == []
    return result


def copied(result, index: int) -> bool:
    destination, source = 0x90000000 + 64 * index, SOURCE + 64 * index
    return bool(np.array_equal(result.memory.pri.read(destination, 32), result.memory.pri.read(source, 32)))


def test_a_group_of_operations_and_the_free_slots(tmp_path):
    lines = status_is(FREE_SLOT=20, IDLE=1)
    for index in range(5):
        lines += operation(small_op(index)) + status_is(FREE_SLOT=19 - index)
    lines += ["reg_read_check(NVDLA_BDMA.CFG_OP_0, 0x1);"]  # a plain register: reads back what was written
    lines += launch(1) + status_is(FREE_SLOT=15, GRP1_BUSY=1)  # launched operations still hold their slots
    lines += done(1) + status_is(FREE_SLOT=20, IDLE=1) + ["reg_read_check(NVDLA_BDMA.CFG_LAUNCH1_0, 0x1);"]
    result = run_lines(tmp_path, lines)
    assert len(result.checks) == 11  # 10 register reads and the check_nothing of the done interrupt
    assert [(layer.name, layer.groups) for layer in result.layers] == [("BDMA", {"BDMA": 1})]
    assert all(copied(result, index) for index in range(5))


def test_operations_are_cached_not_executed_until_launched(tmp_path):
    result = run_lines(tmp_path, operation(small_op(0)), operation(small_op(1)))
    assert result.layers == []
    assert not result.memory.pri.is_written(0x90000000, 128).any()


def test_two_launched_groups_are_busy_until_they_run(tmp_path):
    busy = operation(small_op(0)) + launch(0) + operation(small_op(1)) + operation(small_op(2)) + launch(1)
    busy += status_is(FREE_SLOT=17, GRP0_BUSY=1, GRP1_BUSY=1)
    result = run_lines(tmp_path, busy, done(0), done(1), status_is(FREE_SLOT=20, IDLE=1))
    assert [layer.groups for layer in result.layers] == [{"BDMA": 0}, {"BDMA": 1}]
    assert all(copied(result, index) for index in range(3))
    with pytest.raises(ConfigurationError, match="both busy") as info:
        run_lines(tmp_path, busy, operation(small_op(3)))
    assert info.value.rule == LIMIT


def test_relaunch_of_a_busy_group_is_rejected(tmp_path):
    with pytest.raises(ConfigurationError, match="before its interrupt returned") as info:
        run_lines(tmp_path, operation(small_op(0)), launch(0), operation(small_op(1)), launch(0))
    assert "BDMA.STATUS.GRP0_BUSY" in info.value.fields


def test_twenty_operations_fill_the_slots_and_a_twenty_first_is_rejected(tmp_path):
    twenty = [line for index in range(20) for line in operation(small_op(index))] + status_is(FREE_SLOT=0)
    result = run_lines(tmp_path, twenty, launch(0), done(0))
    assert all(copied(result, index) for index in range(20))
    with pytest.raises(ConfigurationError, match="no free slot") as info:
        run_lines(tmp_path, twenty, operation(small_op(20)))
    assert "20 slots" in info.value.rule


def test_a_group_into_cvsram_raises_its_interrupt_once(tmp_path):
    lines = operation(small_op(0, dst_mc=False)) + operation(small_op(1, dst_mc=False)) + launch(1) + done(1)
    lines += ["reg_read_check(NVDLA_GLB.S_INTR_STATUS_0, 0x0);"]  # the watch cleared the bit; nothing else rose
    result = run_lines(tmp_path, lines, status_is(FREE_SLOT=20, IDLE=1))
    for index in range(2):
        np.testing.assert_array_equal(result.memory.sec.read(0x90000000 + 64 * index, 32),
                                      result.memory.pri.read(SOURCE + 64 * index, 32))
    assert not result.memory.pri.is_written(0x90000000, 128).any()


def test_launch_zero_does_nothing_and_an_empty_launch_is_rejected(tmp_path):
    result = run_lines(tmp_path, ["reg_write(NVDLA_BDMA.CFG_LAUNCH0_0, 0x0);"], status_is(FREE_SLOT=20, IDLE=1))
    assert result.layers == []
    with pytest.raises(ConfigurationError, match="no operation enabled"):
        run_lines(tmp_path, launch(0))


def test_one_destination_ram_type_per_group(tmp_path):
    with pytest.raises(ConfigurationError, match="both DRAM and CV-SRAM") as info:
        run_lines(tmp_path, operation(small_op(0, dst_mc=True)), operation(small_op(1, dst_mc=False)), launch(0))
    assert info.value.rule == f"BDMA-GROUP-DST-RAM ({LIMIT})"
    assert "BDMA.CFG_CMD.DST_RAM_TYPE" in info.value.fields


def test_status_writes_are_ignored(tmp_path):
    run_lines(tmp_path, ["reg_write(NVDLA_BDMA.STATUS_0, 0x0);"], status_is(FREE_SLOT=20, IDLE=1))


def test_profile_without_bdma_is_invalid(tmp_path):
    trace = bdma_trace(tmp_path, operation(small_op(0)) + launch(0), RegisterMap.for_layout("master"))
    result = play(trace, get_profile("nv_small"))
    assert result.status == "invalid" and "BDMA" in result.detail


# -- limitations ---------------------------------------------------------------------------------------
BASE = small_op(0)


@pytest.mark.parametrize("change, register, rule", [
    ({"lines": 0x2001, "src_line": 32, "dst_line": 32, "src_surf": 0x40000, "dst_surf": 0x40000},
     "CFG_LINE_REPEAT", "CFG_LINE_REPEAT"),
    ({"lines": 2, "src_line": 0}, "CFG_SRC_LINE", "Buffer allocation"),
    ({"lines": 2, "dst_line": 32, "src_line": 64, "line_atoms": 2}, "CFG_DST_LINE", "Buffer allocation"),
    ({"surfaces": 2, "dst_surf": 0, "src_surf": 64}, "CFG_DST_SURF", "Buffer allocation"),
    ({"dst": SOURCE + (5 << 40)}, "CFG_DST_ADDR_HIGH", "40 bits"),
    ({"dst": SOURCE}, "CFG_DST_ADDR_LOW", "disjoint"),
])
def test_limitations_name_register_and_rule(tmp_path, change, register, rule):
    with pytest.raises(ConfigurationError) as info:
        run_lines(tmp_path, operation(dict(BASE, **change)), launch(0))
    text = str(info.value)
    assert register in text and (rule in text or rule in (info.value.rule or ""))


def context(regs: dict, profile=FULL, memory=None) -> LayerContext:
    values = RegisterValues(REGMAP, {("BDMA", name): value for name, value in regs.items()})
    return LayerContext(profile, values, memory or MemorySystem())


def loaded_memory() -> MemorySystem:
    memory = MemorySystem()
    memory.pri.write(SOURCE, np.arange(4096, dtype=np.uint32).astype(np.uint8))
    return memory


@pytest.mark.parametrize("change, register", [
    ({"src": SOURCE + 0x10}, "CFG_SRC_ADDR_LOW"),
    ({"dst_line": 48, "lines": 2}, "CFG_DST_LINE"),
    ({"src_surf": 0x41, "surfaces": 2}, "CFG_SRC_SURF"),
])
def test_run_rejects_bits_below_the_32_byte_unit(change, register):
    """A CSB write keeps bits [31:5] of these registers only; run() also refuses raw values that set bits [4:0]."""
    with pytest.raises(ConfigurationError, match=register) as info:
        bdma.run(context(program({}, **dict(BASE, **change)), memory=loaded_memory()))
    assert "32-byte units" in info.value.rule


def test_run_needs_the_bdma_unit():
    master = RegisterMap.for_layout("master")
    values = RegisterValues(master, {("BDMA", name): value for name, value in program({}, **BASE).items()})
    with pytest.raises(ProfileFeatureError, match="BDMA") as info:
        bdma.run(LayerContext(get_profile("nv_small"), values, loaded_memory()))
    assert "nv_small" in str(info.value)


def test_cvsram_needs_secondary_memory_interface():
    # No built-in profile has BDMA without CV-SRAM; derive one to exercise the rule.
    profile = dataclasses.replace(FULL, secondary_memif=False)
    with pytest.raises(ProfileFeatureError, match="SECONDARY_MEMIF"):
        bdma.run(context(program({}, **dict(BASE, dst_mc=False)), profile=profile, memory=loaded_memory()))


# -- copies against numpy ----------------------------------------------------------------------------
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
    return dict(src=SOURCE + high, dst=0x90000000 + 32 * draw(st.integers(0, 64)), line_atoms=line_atoms,
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
    p = dict(src=SOURCE, dst=SOURCE, line_atoms=1, lines=1, surfaces=1, src_line=32, dst_line=32,
             src_surf=32, dst_surf=32, src_mc=True, dst_mc=False)
    memory = MemorySystem()
    memory.pri.write(SOURCE, np.arange(32, dtype=np.uint8))
    bdma.run(context(program({}, **p), memory=memory))  # same address, different memory: legal
    np.testing.assert_array_equal(memory.sec.read(SOURCE, 32), np.arange(32))
    np.testing.assert_array_equal(memory.pri.read(SOURCE, 32), np.arange(32))


def test_validate_group_rules():
    def values(p: dict) -> RegisterValues:
        return RegisterValues(REGMAP, {("BDMA", name): value for name, value in program({}, **p).items()})

    bdma.validate_group(FULL, [values(small_op(i)) for i in range(20)], 0)
    with pytest.raises(ConfigurationError, match="both DRAM and CV-SRAM"):
        bdma.validate_group(FULL, [values(small_op(0)), values(small_op(1, dst_mc=False))], 0)
    with pytest.raises(ConfigurationError, match="no operation"):
        bdma.validate_group(FULL, [], 0)
    with pytest.raises(ProfileFeatureError):
        bdma.validate_group(get_profile("nv_small"), [values(small_op(0))], 0)


def test_reading_never_written_source_follows_memory_policy():
    p = dict(small_op(0), lines=4, src_line=64, dst_line=32, src_surf=256, dst_surf=128)
    memory = MemorySystem()
    memory.pri.write(SOURCE, np.ones(32 * 3, np.uint8))  # line 1 (0x80000040) and line 3 never written
    with pytest.raises(MemoryAccessError, match="never-written"):
        bdma.run(context(program({}, **p), memory=memory))
    memory.pri.write(SOURCE, np.ones(256, np.uint8))
    memory.pri.declare(SOURCE, 0x40)
    memory.pri.declare(SOURCE + 0x40, 0x100)  # rows inside regions, the window across two: still legal
    memory.pri.declare(0x90000000, 0x80)
    bdma.run(context(program({}, **p), memory=memory))
    np.testing.assert_array_equal(memory.pri.read(0x90000000, 128, unwritten="allow"), 1)
