"""Run traces on RTL through the pyuvm bench and compare with the golden model.

    run_trace_on_rtl(trace, profile, build_options=None, *, golden="auto") -> RtlRunResult
    run_program_on_rtl(program, profile, build_options=None, *, golden=None) -> RtlRunResult
    (rtl/implementation.py wraps the second as the `rtl` implementation of `--impl rtl`)

trace: a golden.trace.Trace, a .cfg / input.txn path, or a test folder.
profile: a golden.config.Profile (register layout, memory atom size).
build_options: rtl.build.BuildOptions; default `BuildOptions.from_env()`, i.e. the fixture DUT
unless $NVDLA_RTL_FILELIST / $NVDLA_RTL_TOP / $NVDLA_RTL_DEFINES name the user's RTL.
golden: "auto" plays the trace on the golden model first and the scoreboard then
compares every checked region byte for byte as well; a MemorySystem supplies the
golden memories directly; None compares with the trace's CRCs and files only.

RtlRunResult.status: "pass", "fail", "timeout", "error", or "unsupported" (the fixture
does not implement the layer, nothing was simulated). Beside the bench's own checks it carries
what the monitors observed, by program step index: `regions` (bytes), `registers` (values).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import cocotb.config
import find_libpython

from golden.errors import NvdlaVerifError
from golden.memory import Memory, MemorySystem
from golden.regs.regmap import RegisterMap
from golden.regs.values import RegisterValues
from golden.steps import Program, compile_trace
from golden.trace import Trace, load_trace
from rtl.build import BuildOptions, build
from rtl.fixture_subset import cycle_budget, output_layout, unsupported_reason
from rtl.job import Job, job_from_program

REPO = Path(__file__).resolve().parent.parent
SIM_TIMEOUT_S = 1800


class RtlError(NvdlaVerifError):
    """The RTL simulation could not run or wrote no result."""


@dataclass
class RtlRunResult:
    status: str
    message: str = ""
    memory: MemorySystem = field(default_factory=MemorySystem)
    checks: list[dict] = field(default_factory=list)
    regions: dict[int, bytes] = field(default_factory=dict)
    registers: dict[int, int] = field(default_factory=dict)
    interrupts: list[str] = field(default_factory=list)
    cycles: int = 0
    wall_s: float = 0.0
    sim_s: float = 0.0
    golden_s: float = 0.0
    run_dir: Path | None = None

    @property
    def passed(self) -> bool:
        return self.status == "pass"


def _golden_memory(trace: Trace, profile) -> tuple[MemorySystem | None, float, str]:
    from golden.player import play as play_golden

    result = play_golden(trace, profile)
    if result.memory is None or result.status not in ("passed", "failed"):
        return None, result.seconds, f"golden model: {result.status} ({result.detail})"
    return result.memory, result.seconds, f"golden model: {result.status}"


def prepare_job(program: Program, profile, run_dir: Path, golden: MemorySystem | None) -> tuple[Job, str | None]:
    """The bench job for a program, and the reason the fixture cannot run it (None when it can)."""
    regmap = RegisterMap.for_profile(profile)
    job = job_from_program(program, run_dir)
    values = RegisterValues(regmap, job.reg_writes(regmap))
    units = {regmap.at(s.addr).unit for s in job.steps if s.op == "reg_write"}
    atom = profile.memory_atomic_size
    if "SDP" in units:
        job.timeout_cycles = cycle_budget(values, atom)
    layout = output_layout(values, atom) if "SDP" in units else None
    for step in job.steps:
        if step.op == "check":
            step.layout = layout
            if golden is not None:
                memory = golden.pri if step.mem == "pri" else golden.sec
                expect = run_dir / f"golden_{step.mem}_{step.addr:x}_{step.size:x}.bin"
                expect.write_bytes(memory.read(step.addr, step.size, unwritten="allow").tobytes())
                step.expect_file = expect.name
    reason = unsupported_reason(values, units)
    if program.layout != "master":
        reason = f"the fixture has the master register layout, the trace uses {program.layout}'s"
    return job, reason


def simulation_env(toplevel: str, job_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update({
        "LIBPYTHON_LOC": env.get("LIBPYTHON_LOC") or find_libpython.find_libpython(),
        "PATH": env.get("PATH", "") + os.pathsep + cocotb.config.libs_dir,
        "PYTHONPATH": os.pathsep.join([str(REPO), *sys.path]),
        "TOPLEVEL": toplevel, "TOPLEVEL_LANG": "verilog", "MODULE": "rtl.bench.layer_test",
        "COCOTB_RESULTS_FILE": str(job_path.parent / "results.xml"),
        "COCOTB_LOG_LEVEL": env.get("COCOTB_LOG_LEVEL", "WARNING"),
        "COCOTB_REDUCED_LOG_FMT": "1", "NVDLA_RTL_JOB": str(job_path),
    })
    if sys.prefix != sys.base_prefix:  # cocotb 1.8 finds a virtualenv's packages through VIRTUAL_ENV
        env["VIRTUAL_ENV"] = sys.prefix
    return env


def _simulate(build_dir: Path, toplevel: str, job_path: Path) -> dict:
    run_dir = job_path.parent
    log = run_dir / "sim.log"
    with open(log, "w") as out:
        try:
            subprocess.run([str(build_dir / toplevel)], cwd=run_dir, stdout=out, stderr=subprocess.STDOUT,
                           env=simulation_env(toplevel, job_path), timeout=SIM_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return {"status": "timeout", "message": f"simulation ran over {SIM_TIMEOUT_S} s (log: {log})"}
    result_file = run_dir / "result.json"
    if not result_file.exists():
        lines = [line for line in log.read_text().splitlines(keepends=True) if line.strip()]
        first = next((i for i, line in enumerate(lines) if "Traceback" in line or " ERROR " in line), 0)
        return {"status": "error", "message": f"the simulation wrote no result (log: {log}):\n"
                                              + "".join(lines[first:first + 30])}
    return json.loads(result_file.read_text())


def run_trace_on_rtl(trace, profile, build_options: BuildOptions | None = None, *, golden="auto",
                     work_dir: Path | None = None, keep: bool = False) -> RtlRunResult:
    trace = trace if isinstance(trace, Trace) else load_trace(trace)
    golden_s, note = 0.0, ""
    if isinstance(golden, str) and golden == "auto":
        golden, golden_s, note = _golden_memory(trace, profile)
    result = run_program_on_rtl(compile_trace(trace), profile, build_options, golden=golden, work_dir=work_dir,
                                keep=keep)
    result.golden_s = golden_s
    result.message = "; ".join(m for m in (result.message, note) if m)
    return result


def run_program_on_rtl(program: Program, profile, build_options: BuildOptions | None = None, *,
                       golden: MemorySystem | None = None, work_dir: Path | None = None,
                       keep: bool = False) -> RtlRunResult:
    options = build_options or BuildOptions.from_env()
    started = time.perf_counter()
    run_dir = Path(tempfile.mkdtemp(prefix="rtl-run-", dir=work_dir))
    job, reason = prepare_job(program, profile, run_dir, golden)
    if reason and options.is_fixture:
        return RtlRunResult("unsupported", reason, run_dir=run_dir)
    job_path = run_dir / "job.json"
    job.save(job_path)
    build_dir = build(options)
    sim_started = time.perf_counter()
    summary = _simulate(build_dir, options.toplevel, job_path)
    regions = {int(index): (run_dir / dump).read_bytes() for index, dump in summary.get("regions", {}).items()}
    memory = MemorySystem(Memory("pri_mem", unwritten="allow", outside="allow"),
                          Memory("sec_mem", unwritten="allow", outside="allow"))
    for step in job.steps:
        if step.op == "check" and step.index in regions:
            (memory.pri if step.mem == "pri" else memory.sec).write(step.addr, regions[step.index])
    result = RtlRunResult(summary["status"], summary.get("message", ""), memory, summary.get("checks", []),
                          regions, {int(k): v for k, v in summary.get("registers", {}).items()},
                          summary.get("interrupts", []),
                          int(summary.get("sim_ns", 0) // summary.get("clock_ns", 1)),
                          time.perf_counter() - started, time.perf_counter() - sim_started, 0.0, run_dir)
    if not keep and result.passed:
        for path in run_dir.iterdir():
            path.unlink()
        run_dir.rmdir()
        result.run_dir = None
    return result
