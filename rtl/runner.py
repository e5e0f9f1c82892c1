"""Run one trace on RTL: `run_trace_on_rtl(trace, profile, build_options) -> RtlRunResult`.

The trace's steps are played by the pyuvm bench (rtl/bench) in a Verilator
simulation of the fixture DUT (default) or of the user's RTL; the result
carries the DUT's memory in every checked region, the scoreboard's verdicts
and the status: "pass", "fail", "timeout", "error", or "unsupported" (the
fixture does not implement the layer; nothing was simulated).
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

from golden.memory import Memory, MemorySystem
from golden.regs.regmap import RegisterMap
from golden.regs.values import RegisterValues
from rtl.build import BuildOptions, build
from rtl.fixture_subset import cycle_budget, output_layout, unsupported_reason
from rtl.job import Job, steps_from_cfg

REPO = Path(__file__).resolve().parent.parent
SIM_TIMEOUT_S = 1800


@dataclass
class RtlRunResult:
    status: str
    message: str = ""
    memory: MemorySystem = field(default_factory=MemorySystem)
    checks: list[dict] = field(default_factory=list)
    cycles: int = 0
    wall_s: float = 0.0
    build_s: float = 0.0
    run_dir: Path | None = None

    @property
    def passed(self) -> bool:
        return self.status == "pass"


def _trace_path(trace) -> Path:
    path = Path(getattr(trace, "path", trace))
    if path.is_dir():
        cfgs = sorted(path.glob("*.cfg"))
        if len(cfgs) != 1:
            raise FileNotFoundError(f"{path}: expected one .cfg trace, found {len(cfgs)}")
        path = cfgs[0]
    return path


def prepare_job(trace, profile, run_dir: Path, golden: MemorySystem | None = None) -> tuple[Job, str | None]:
    """The bench job for a trace, and the reason the fixture cannot run it (None when it can)."""
    regmap = RegisterMap.for_profile(profile)
    job = steps_from_cfg(_trace_path(trace), regmap, run_dir)
    values = RegisterValues(regmap, job.reg_writes(regmap))
    units = {regmap.at(s.addr).unit for s in job.steps if s.op == "reg_write"}
    atom = getattr(profile, "memory_atomic_size", 8)
    job.timeout_cycles = cycle_budget(values, atom) if "SDP" in units else job.timeout_cycles
    layout = output_layout(values, atom) if "SDP" in units else None
    for step in job.steps:
        if step.op == "check":
            step.layout = layout
            if golden is not None:
                expect = run_dir / f"golden_{step.mem}_{step.addr:x}_{step.size:x}.bin"
                memory = golden.pri if step.mem == "pri" else golden.sec
                expect.write_bytes(memory.read(step.addr, step.size, unwritten="allow").tobytes())
                step.expect_file = expect.name
    return job, unsupported_reason(values, units)


def simulation_env(build_dir: Path, toplevel: str, job_path: Path) -> dict[str, str]:
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


def run_trace_on_rtl(trace, profile, build_options: BuildOptions | None = None, *,
                     golden: MemorySystem | None = None, work_dir: Path | None = None,
                     keep: bool = False) -> RtlRunResult:
    """Play a `.cfg` trace (path, its folder, or an object with .path) on RTL.

    profile: a golden.config.Profile (register layout and atom size).
    build_options: rtl.build.BuildOptions; default the fixture DUT.
    golden: the golden model's memories after the layer; when given, the
    scoreboard also compares every checked region byte by byte.
    """
    options = build_options or BuildOptions()
    started = time.perf_counter()
    run_dir = Path(tempfile.mkdtemp(prefix="rtl-run-", dir=work_dir))
    job, reason = prepare_job(trace, profile, run_dir, golden)
    if reason and options.is_fixture:
        return RtlRunResult("unsupported", reason, run_dir=run_dir)
    job_path = run_dir / "job.json"
    job.save(job_path)
    build_dir = build(options)
    build_s = time.perf_counter() - started
    log = run_dir / "sim.log"
    with open(log, "w") as out:
        try:
            subprocess.run([str(build_dir / options.toplevel)], cwd=run_dir, stdout=out, stderr=subprocess.STDOUT,
                           env=simulation_env(build_dir, options.toplevel, job_path), timeout=SIM_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return RtlRunResult("timeout", f"simulation ran over {SIM_TIMEOUT_S} s (log: {log})", run_dir=run_dir)
    result_file = run_dir / "result.json"
    if not result_file.exists():
        tail = "".join(log.read_text().splitlines(keepends=True)[-30:])
        return RtlRunResult("error", f"the simulation wrote no result (log: {log}):\n{tail}", run_dir=run_dir)
    summary = json.loads(result_file.read_text())
    memory = MemorySystem(Memory("pri_mem", unwritten="allow", outside="allow"),
                          Memory("sec_mem", unwritten="allow", outside="allow"))
    for step in job.steps:
        if step.op == "check":
            dump = run_dir / f"dut_{step.mem}_{step.addr:x}_{step.size:x}.bin"
            if dump.exists():
                (memory.pri if step.mem == "pri" else memory.sec).write(step.addr, dump.read_bytes())
    result = RtlRunResult(summary["status"], summary["message"], memory, summary["checks"],
                          summary["sim_ns"] // summary["clock_ns"], time.perf_counter() - started, build_s,
                          run_dir)
    if not keep and result.passed:
        for path in run_dir.iterdir():
            path.unlink()
        run_dir.rmdir()
        result.run_dir = None
    return result
