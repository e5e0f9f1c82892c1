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

Environment: $NVDLA_RTL_AXI_PAUSE (random AXI back-pressure, probability per cycle and channel),
$NVDLA_RTL_CLOCK=py (a Python clock coroutine instead of cocotb's C++ clock, for comparisons).

RtlRunResult.status: "pass", "fail", "timeout", "error", "unsupported" (the fixture
does not implement the layer, nothing was simulated), or "invalid" (run_trace_on_rtl with
golden="auto": the golden model found the trace invalid for its profile, e.g. an SDP EW layer
on nv_small; nothing was simulated). Beside the bench's own checks it carries what the
monitors observed, by program step index: `regions` (bytes), `registers` (values).
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

import cocotb_tools.config
import find_libpython

from golden.errors import NvdlaVerifError
from golden.memory import Memory, MemorySystem
from golden.regs.regmap import RegisterMap
from golden.regs.values import RegisterValues
from golden.steps import Program, compile_trace
from golden.trace import Trace, load_trace
from rtl.build import BuildOptions, build
from rtl.cycle_budget import layer_cycle_budget
from rtl.fixture_subset import ATOM_BYTES, output_layout, unsupported_reason
from rtl.job import PORTS, TRACE_MEMORIES, Job, job_from_program

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
    #: Every range the DUT wrote over AXI with its final bytes: {memory name: [(address, bytes)]}.
    written: dict[str, list[tuple[int, bytes]]] = field(default_factory=dict)
    cycles: int = 0
    wall_s: float = 0.0
    sim_s: float = 0.0
    golden_s: float = 0.0
    run_dir: Path | None = None
    csb_stall_cycles: int = 0
    run_s: float = 0.0   # inside the simulator, reset to the last check (no process start-up)

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    @property
    def cycles_per_s(self) -> float:
        """Simulated clock cycles per second from reset to the last check (0 when nothing was simulated)."""
        seconds = self.run_s or self.sim_s
        return self.cycles / seconds if seconds > 0 else 0.0


def _golden_memory(trace: Trace, profile) -> tuple[MemorySystem | None, float, str, str]:
    """(memory, seconds, note, golden status) of the trace on the golden model."""
    from golden.player import play as play_golden

    result = play_golden(trace, profile)
    if result.memory is None or result.status not in ("passed", "failed"):
        note = result.detail if result.status == "invalid" else f"golden model: {result.status} ({result.detail})"
        return None, result.seconds, note, result.status
    return result.memory, result.seconds, f"golden model: {result.status}", result.status


def prepare_job(program: Program, profile, run_dir: Path, golden: MemorySystem | None) -> tuple[Job, str | None]:
    """The bench job for a program, and the reason the fixture cannot run it (None when it can)."""
    regmap = RegisterMap.for_profile(profile)
    job = job_from_program(program, run_dir)
    values = RegisterValues(regmap, job.reg_writes(regmap))
    units = {regmap.at(s.addr).unit for s in job.steps if s.op == "reg_write"}
    atom = profile.memory_atomic_size
    job.timeout_cycles = layer_cycle_budget(job, regmap, profile)
    job.axi_pause = axi_pause_from_env()
    layout = output_layout(values, atom) if "SDP" in units else None
    for step in job.steps:
        if step.op == "check":
            step.layout = layout
            if golden is not None:
                memory = golden.pri if step.mem == "pri" else golden.sec
                expect = run_dir / f"golden_{step.mem}_{step.addr:x}_{step.size:x}.bin"
                expect.write_bytes(memory.read(step.addr, step.size, unwritten="allow").tobytes())
                step.expect_file = expect.name
    # Each register group that launches a layer must be in the subset, not only the last values written (two
    # back-to-back layers: group 1's writes would hide what group 0 programs).
    reason = next((r for group in job.group_writes(regmap)
                   if (r := unsupported_reason(RegisterValues(regmap, group), units))), None)
    if atom != ATOM_BYTES:
        reason = (f"the fixture has nv_small's {ATOM_BYTES}-byte memory atoms, profile {profile.name} has "
                  f"{atom}-byte ones")
    if program.layout != "master":
        reason = f"the fixture has the master register layout, the trace uses {program.layout}'s"
    return job, reason


def axi_pause_from_env() -> float:
    """$NVDLA_RTL_AXI_PAUSE: the probability that the bench's AXI memories stall a channel each cycle
    (randomised back-pressure; 0, the default, never stalls)."""
    text = os.environ.get("NVDLA_RTL_AXI_PAUSE", "0") or "0"
    try:
        value = float(text)
    except ValueError:
        raise RtlError(f"$NVDLA_RTL_AXI_PAUSE={text!r}: expected a probability between 0 and 0.9") from None
    if not 0 <= value <= 0.9:
        raise RtlError(f"$NVDLA_RTL_AXI_PAUSE={text!r}: expected a probability between 0 and 0.9")
    return value


def simulation_env(toplevel: str, job_path: Path) -> dict[str, str]:
    """The variables cocotb 2 needs in the simulator process (as cocotb_tools.runner sets them for Verilator)."""
    env = dict(os.environ)
    libpython = env.get("LIBPYTHON_LOC") or find_libpython.find_libpython()
    if not libpython:
        raise RtlError("cannot find libpython for the simulator (set $LIBPYTHON_LOC)")
    env.update({
        "GPI_USERS": f"{libpython};{cocotb_tools.config.pygpi_entry_point()}",
        "PYGPI_PYTHON_BIN": sys.executable,
        "PATH": env.get("PATH", "") + os.pathsep + str(cocotb_tools.config.libs_dir),
        "PYTHONPATH": os.pathsep.join([str(REPO), *sys.path]),
        "COCOTB_TOPLEVEL": toplevel, "TOPLEVEL_LANG": "verilog", "COCOTB_TEST_MODULES": "rtl.bench.layer_test",
        "COCOTB_RESULTS_FILE": str(job_path.parent / "results.xml"),
        "COCOTB_LOG_LEVEL": env.get("COCOTB_LOG_LEVEL", "WARNING"),
        "COCOTB_TRUST_INERTIAL_WRITES": "1", "NVDLA_RTL_JOB": str(job_path),
        # cocotb 2 imports pytest to rewrite asserts, and pytest then loads every installed plugin: 1.5 s of
        # start-up per simulation that the bench (which reports through result.json) does not need
        "COCOTB_REWRITE_ASSERTION_FILES": "", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    })
    return env


def _simulate(build_dir: Path, toplevel: str, job_path: Path) -> dict:
    run_dir = job_path.parent
    log = run_dir / "sim.log"
    command = [str(build_dir / toplevel)]
    if os.environ.get("NVDLA_RTL_COVERAGE"):  # a coverage build writes its counts here as the simulation ends
        folder = Path(os.environ["NVDLA_RTL_COVERAGE"])
        folder.mkdir(parents=True, exist_ok=True)
        command.append(f"+verilator+coverage+file+{folder.resolve() / run_dir.name}.dat")
    with open(log, "w") as out:
        try:
            subprocess.run(command, cwd=run_dir, stdout=out, stderr=subprocess.STDOUT,
                           env=simulation_env(toplevel, job_path), timeout=SIM_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return {"status": "timeout", "message": f"simulation ran over {SIM_TIMEOUT_S} s (log: {log})"}
    result_file = run_dir / "result.json"
    if not result_file.exists():
        return {"status": "error", "message": f"the simulation wrote no result (log: {log}):\n{failure_cause(log)}"}
    return json.loads(result_file.read_text())


def missing_port(job: Job, build_dir: Path) -> str:
    """Why the built DUT cannot run the job before anything is simulated: a memory the job uses whose AXI port
    the DUT lacks (nv_small has no CV-SRAM port), from the ports the verilated model declares; or ''."""
    header = (build_dir / "Vtop.h").read_text(errors="replace")
    used = sorted({step.mem for step in job.steps if step.op in ("mem_fill", "mem_write", "check")})
    absent = [kind for kind in used if f"{PORTS[kind]}_aw_awvalid" not in header]
    return f"the trace uses {TRACE_MEMORIES[absent[0]]} and the DUT has no {PORTS[absent[0]]} port" if absent else ""


def failure_cause(log: Path) -> str:
    """What a simulation log says went wrong: from its first traceback or error line on (80 lines), in full."""
    lines = [line for line in log.read_text(errors="replace").splitlines(keepends=True) if line.strip()]
    markers = ("Traceback", " ERROR ", "%Error", "FATAL", "Segmentation fault")
    first = next((i for i, line in enumerate(lines) if any(m in line for m in markers)), None)
    return "".join(lines[-30:] if first is None else lines[first:first + 80])


def run_trace_on_rtl(trace, profile, build_options: BuildOptions | None = None, *, golden="auto",
                     work_dir: Path | None = None, keep: bool = False) -> RtlRunResult:
    started = time.perf_counter()
    trace = trace if isinstance(trace, Trace) else load_trace(trace)
    golden_s, note = 0.0, ""
    if isinstance(golden, str) and golden == "auto":
        golden, golden_s, note, golden_status = _golden_memory(trace, profile)
        if golden_status == "invalid":
            return RtlRunResult("invalid", note, golden_s=golden_s, wall_s=time.perf_counter() - started)
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
    missing = missing_port(job, build_dir)
    if missing:
        return RtlRunResult("unsupported", missing, run_dir=run_dir)
    sim_started = time.perf_counter()
    summary = _simulate(build_dir, options.toplevel, job_path)
    regions = {int(index): (run_dir / dump).read_bytes() for index, dump in summary.get("regions", {}).items()}
    memory = MemorySystem(Memory("pri_mem", unwritten="allow", outside="allow"),
                          Memory("sec_mem", unwritten="allow", outside="allow"))
    for step in job.steps:
        if step.op == "check" and step.index in regions:
            (memory.pri if step.mem == "pri" else memory.sec).write(step.addr, regions[step.index])
    result = RtlRunResult(
        summary["status"], summary.get("message", ""), memory, summary.get("checks", []), regions=regions,
        registers={int(k): v for k, v in summary.get("registers", {}).items()},
        interrupts=summary.get("interrupts", []), cycles=int(summary.get("sim_ns", 0) // summary.get("clock_ns", 1)),
        wall_s=time.perf_counter() - started, sim_s=time.perf_counter() - sim_started, run_dir=run_dir,
        csb_stall_cycles=int(summary.get("csb_stall_cycles", 0)), run_s=float(summary.get("run_s", 0.0)))
    result.written = {memory: [(address, (run_dir / dump).read_bytes()) for address, _, dump in runs]
                      for memory, runs in summary.get("written", {}).items()}
    if not keep and result.passed:
        for path in run_dir.iterdir():
            path.unlink()
        run_dir.rmdir()
        result.run_dir = None
    return result
