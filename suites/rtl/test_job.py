import pytest

from golden.errors import TraceError
from golden.regs.regmap import RegisterMap
from golden.trace import load_trace
from rtl.job import Job, interrupt_bit, job_from_trace
from rtl.suite import nvidia_trace

REGMAP = RegisterMap.for_layout("master")


def test_interrupt_bits_follow_the_glb_register():
    assert interrupt_bit("SDP_0", REGMAP) == 0
    assert interrupt_bit("SDP_1", REGMAP) == 1
    assert interrupt_bit("cdma_dat_0", REGMAP) == 16
    assert interrupt_bit("CACC_1", REGMAP) == 21
    with pytest.raises(TraceError):
        interrupt_bit("FOO_0", REGMAP, "x.cfg:3")


def test_job_from_an_nvidia_trace(tmp_path):
    path = nvidia_trace("sdp_3x3x33_bs_int8_reg_0")
    if not path.exists():
        pytest.skip("NVIDIA traces not available")
    trace = load_trace(path)
    job = job_from_trace(trace, REGMAP, tmp_path)
    ops = [s.op for s in job.steps]
    assert ops.count("reg_write") == 96
    assert ops[-3:] == ["watch_intr", "check", "await_sync"]
    check = job.steps[-2]
    assert (check.addr, check.size, check.crc, check.sync) == (0x900001C0, 0xF00, 0x87C9168E, "sync_id_0")
    first = next(s for s in job.steps if s.op == "reg_write")
    assert (first.addr, first.value, first.name) == (0x9004, 0, "SDP.S_POINTER")
    loads = [s for s in job.steps if s.op == "mem_write"]
    assert sum(s.size for s in loads) > 0 and all((tmp_path / s.file).exists() for s in loads)
    job.save(tmp_path / "job.json")
    again = Job.load(tmp_path / "job.json")
    assert again.steps == job.steps
    assert again.reg_writes(REGMAP)["SDP", "D_DP_BS_CFG"] == 0x8
