import json
from pathlib import Path

import pytest

from golden.errors import TraceError
from golden.formats.program_file import read_program
from golden.regs.regmap import RegisterMap
from golden.steps import compile_trace
from golden.trace import load_trace
from rtl.job import Job, JobFileError, interrupt_bit, job_from_trace
from rtl.suite import nvidia_trace

REGMAP = RegisterMap.for_layout("master")


def golden_example() -> Path:
    return Path(__file__).resolve().parents[2] / "golden" / "examples" / "sdp_bias_relu_int8.cfg"


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
    job = job_from_trace(trace)
    ops = [s.op for s in job.steps]
    assert ops.count("write_register") == 96
    assert ops[-3:] == ["watch_interrupt", "check_region", "await_sync"]
    check = job.steps[-2]
    assert (check.addr, check.size, check.sync) == (0x900001C0, 0xF00, "sync_id_0")
    assert not hasattr(check, "crc"), "the bench reads regions back; the trace's CRC is for the verdict only"
    first = next(s for s in job.steps if s.op == "write_register")
    assert (first.addr, first.value, REGMAP.at(first.addr).qualified) == (0x9004, 0, "SDP.S_POINTER")
    loads = [s for s in job.steps if s.op == "load_memory"]
    assert sum(s.size for s in loads) > 0 and all(len(s.data) == s.size for s in loads)
    job.timeout_cycles, job.axi_pause, job.clock = 1234, 0.25, "py"
    saved = job.save(compile_trace(trace), tmp_path)
    assert saved == tmp_path / "job.json" and (tmp_path / "program.json").is_file()
    again = Job.load(saved)
    assert again == job, "the bench reads back the steps and parameters it was given"
    assert again.reg_writes(REGMAP)["SDP", "D_DP_BS_CFG"] == 0x8


def test_the_bench_reads_the_program_file_form(tmp_path):
    """One file form of a compiled program: the job's program is golden/formats/program_file.py's."""
    trace = load_trace(golden_example())
    job = job_from_trace(trace)
    saved = job.save(compile_trace(trace), tmp_path)
    assert json.loads(saved.read_text())["program"] == "program.json"
    assert len(read_program(tmp_path).steps) == len(compile_trace(trace).steps)
    assert Job.load(saved) == job and any(step.op == "load_memory" and step.data for step in job.steps)


def test_a_job_file_of_an_older_bench_is_one_clear_error(tmp_path):
    (tmp_path / "job.json").write_text(json.dumps({"steps": [{"op": "reg_write", "addr": 4}], "clock_ns": 10}))
    with pytest.raises(JobFileError, match="older bench"):
        Job.load(tmp_path / "job.json")


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
    again = Job.load(job_from_trace(loaded).save(compile_trace(loaded), tmp_path))
    assert (again.intr_status_addr, again.intr_mask_addr) == (status, mask)
