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
    assert (check.addr, check.size, check.sync, check.file) == (0x900001C0, 0xF00, "sync_id_0", "")
    assert not hasattr(check, "crc"), "the bench reads regions back; the trace's CRC is for the verdict only"
    first = next(s for s in job.steps if s.op == "reg_write")
    assert (first.addr, first.value, first.name) == (0x9004, 0, "SDP.S_POINTER")
    loads = [s for s in job.steps if s.op == "mem_write"]
    assert sum(s.size for s in loads) > 0 and all((tmp_path / s.file).exists() for s in loads)
    job.save(tmp_path / "job.json")
    again = Job.load(tmp_path / "job.json")
    assert again.steps == job.steps
    assert again.reg_writes(REGMAP)["SDP", "D_DP_BS_CFG"] == 0x8


@pytest.mark.parametrize("trace, status, mask", [
    # master: GLB at 0x1000 (nvdla/hw master NV_NVDLA_GLB_csb.v offsets 0x4 and 0xc within the unit)
    ("sdp_3x3x33_bs_int8_reg_0", 0x100C, 0x1004),
    # nvdlav1: GLB at 0x0000; the traceplayer writes S_INTR_STATUS at CSB word 0x0003 (byte 0xc)
    ("../../traceplayer/sanity2/input.txn", 0x000C, 0x0004),
])
def test_the_bench_reads_the_interrupt_status_of_the_traces_layout(trace, status, mask, tmp_path):
    path = nvidia_trace(trace)
    if not path.exists():
        pytest.skip("NVIDIA traces not available")
    loaded = load_trace(path)
    job = job_from_trace(loaded, RegisterMap.for_layout(loaded.layout), tmp_path)
    job.save(tmp_path / "job.json")
    again = Job.load(tmp_path / "job.json")
    assert (again.intr_status_addr, again.intr_mask_addr) == (status, mask)
