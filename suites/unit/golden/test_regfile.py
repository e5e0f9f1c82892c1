"""golden/regs/regfile.py: ping-pong groups, op-enable, status, access rights, GLB interrupts, BDMA queue."""

from __future__ import annotations

import pytest

from golden.regs.regfile import IDLE, PENDING, RUNNING, RegisterFile
from golden.regs.regmap import RegisterMap

MAP = RegisterMap.for_layout("master")


def reg(name):
    return MAP.lookup(name)


@pytest.fixture
def rf():
    return RegisterFile(MAP)


def test_producer_selects_the_group_writes_and_reads_go_to(rf):
    rf.write(reg("SDP.D_DATA_CUBE_WIDTH"), 7)
    rf.write(reg("SDP.S_POINTER"), 1)
    assert rf.read(reg("SDP.D_DATA_CUBE_WIDTH")) == 0  # group 1 still at reset
    rf.write(reg("SDP.D_DATA_CUBE_WIDTH"), 9)
    assert rf.read(reg("SDP.D_DATA_CUBE_WIDTH")) == 9
    assert rf.raw("SDP", "D_DATA_CUBE_WIDTH", 0) == 7 and rf.raw("SDP", "D_DATA_CUBE_WIDTH", 1) == 9
    assert rf.values().field("SDP", "D_DATA_CUBE_WIDTH", "WIDTH") == 7  # consumer is group 0
    assert rf.values({"SDP": 1}).field("SDP", "D_DATA_CUBE_WIDTH", "WIDTH") == 9
    assert rf.read(reg("SDP.S_POINTER")) == 1  # PRODUCER=1, CONSUMER=0


def test_single_registers_are_shared_by_both_groups(rf):
    rf.write(reg("SDP.S_LUT_CFG"), 1)
    rf.write(reg("SDP.S_POINTER"), 1)
    assert rf.read(reg("SDP.S_LUT_CFG")) == 1


def test_op_enable_arms_the_consumer_group_and_complete_flips(rf):
    assert rf.armed() == {}
    rf.write(reg("CDP.S_POINTER"), 1)
    rf.write(reg("CDP.D_OP_ENABLE"), 1)  # group 1 armed while the consumer is group 0
    assert rf.armed() == {}
    assert rf.read(reg("CDP.S_STATUS")) == PENDING << 16
    rf.write(reg("CDP.S_POINTER"), 0)
    rf.write(reg("CDP.D_OP_ENABLE"), 1)
    assert rf.armed() == {"CDP": 0}
    assert rf.read(reg("CDP.S_STATUS")) == RUNNING | PENDING << 16
    assert rf.complete("CDP") == 0
    assert rf.read(reg("CDP.D_OP_ENABLE")) == 0
    assert rf.read(reg("CDP.S_POINTER")) == 1 << 16  # consumer now group 1
    assert rf.armed() == {"CDP": 1}
    assert rf.read(reg("CDP.S_STATUS")) == IDLE | RUNNING << 16


def test_read_only_fields_keep_hardware_values(rf):
    rf.write(reg("SDP.S_POINTER"), 0xFFFF0000)  # CONSUMER (bit 16) is read-only
    assert rf.read(reg("SDP.S_POINTER")) == 0
    rf.write(reg("SDP.D_PERF_OUT_SATURATION"), 0x1234)  # status counter: sw "r"
    assert rf.read(reg("SDP.D_PERF_OUT_SATURATION")) == 0
    rf.set_hardware("SDP", "D_PERF_OUT_SATURATION", 5, group=0)
    assert rf.read(reg("SDP.D_PERF_OUT_SATURATION")) == 5


def test_reads_return_only_implemented_bits(rf):
    rf.write(reg("SDP.D_DP_BS_ALU_SRC_VALUE"), 0xEE0FE1CF)
    assert rf.read(reg("SDP.D_DP_BS_ALU_SRC_VALUE")) == 0xE1CF
    assert rf.read(reg("GLB.S_NVDLA_HW_VERSION")) == reg("GLB.S_NVDLA_HW_VERSION").reset
    assert rf.read(reg("CDMA.S_CBUF_FLUSH_STATUS")) == 0  # flush after reset still running
    rf.cbuf_flushed = True
    assert rf.read(reg("CDMA.S_CBUF_FLUSH_STATUS")) == 1


def test_interrupt_status_is_write_one_to_clear_and_set_register_sets(rf):
    sdp0 = rf.interrupt_bit("SDP", 0)
    cacc1 = rf.interrupt_bit("CACC", 1)
    assert (sdp0, cacc1) == (1 << 0, 1 << 21)
    rf.raise_interrupts(sdp0 | cacc1)
    rf.write(reg("GLB.S_INTR_STATUS"), 0)  # writing 0 clears nothing
    assert rf.read(reg("GLB.S_INTR_STATUS")) == sdp0 | cacc1
    rf.write(reg("GLB.S_INTR_STATUS"), sdp0)
    assert rf.read(reg("GLB.S_INTR_STATUS")) == cacc1
    rf.write(reg("GLB.S_INTR_SET"), rf.interrupt_bit("PDP", 0))
    assert rf.read(reg("GLB.S_INTR_STATUS")) == cacc1 | 1 << 4
    rf.write(reg("GLB.S_INTR_MASK"), cacc1)
    assert rf.unmasked(sdp0 | cacc1) == sdp0


def test_bdma_queues_operations_until_launch(rf):
    rf.write(reg("BDMA.CFG_LINE"), 7)
    rf.write(reg("BDMA.CFG_OP"), 1)
    rf.write(reg("BDMA.CFG_LINE"), 3)
    rf.write(reg("BDMA.CFG_OP"), 1)
    assert rf.read(reg("BDMA.STATUS")) & 0xFF == 18  # two of 20 slots used
    rf.write(reg("BDMA.CFG_LAUNCH1"), 1)
    [(group, ops)] = rf.bdma_launched
    assert group == 1
    assert [rf.bdma_values(op).field("BDMA", "CFG_LINE", "SIZE") for op in ops] == [7, 3]
    assert rf.read(reg("BDMA.STATUS")) >> 10 & 1 == 1  # GRP1_BUSY
    assert rf.read(reg("BDMA.STATUS")) & 0xFF == 18  # a launched group holds its slots until it runs
