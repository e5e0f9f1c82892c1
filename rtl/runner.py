"""Run a compiled program on RTL through the pyuvm bench and collect its outcome.

    run_program_on_rtl(program, profile, build_options=None, *, settings=None, work_dir=None, keep=False)
    (rtl/implementation.py wraps it as the `rtl` implementation; scoreboards/verdict.py's verify judges it:
    verify(trace, profile, Rtl(), Golden()) is a trace on RTL against the golden model)

profile: a golden.config.Profile (register layout, memory atom size).
settings: golden.settings.RtlSettings: how the bench plays (random AXI back-pressure, the clock, a folder for
coverage counts); default the person's overrides (RtlSettings.from_environment).
build_options: rtl.build.BuildOptions; default the build the settings name (the fixture DUT unless a file list).

The simulator process gets its job as a file (rtl/job.py: the program in golden/formats/program_file.py's form
and the bench's parameters) named by a plusarg, +nvdla_job=PATH; nothing reaches it through the environment.

RtlRunResult.status says how the run ended (golden/status.py): completed, timeout, error, or unsupported
(the fixture does not implement the layer, or the DUT lacks a port it uses: nothing was simulated). It
carries what the monitors observed, by program step index: `regions` (bytes), `registers` (values), and
every range the DUT wrote; the bench judges none of it.
"""

from __future__ import annotations

import json
import os
import shutil
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
from golden.settings import RtlSettings
from golden.status import Ending
from golden.steps import Program
from rtl.build import BuildOptions, build
from rtl.cycle_budget import layer_cycle_budget
from rtl.fixture_subset import ATOM_BYTES, unsupported_reason
from rtl.job import CHECK, FILL, JOB_PLUSARG, LOAD, PORTS, TRACE_MEMORIES, WRITE, Job, job_from_program

REPO = Path(__file__).resolve().parent.parent
SIM_TIMEOUT_S = 1800


class RtlError(NvdlaVerifError):
    """The RTL simulation could not run or wrote no result."""


@dataclass
class RtlRunResult:
    status: Ending
    message: str = ""
    memory: MemorySystem = field(default_factory=MemorySystem)
    regions: dict[int, bytes] = field(default_factory=dict)
    registers: dict[int, int] = field(default_factory=dict)
    interrupts: list[str] = field(default_factory=list)
    #: Every range the DUT wrote over AXI with its final bytes: {memory name: [(address, bytes)]}.
    written: dict[str, list[tuple[int, bytes]]] = field(default_factory=dict)
    cycles: int = 0
    wall_s: float = 0.0
    sim_s: float = 0.0
    run_dir: Path | None = None
    csb_stall_cycles: int = 0
    run_s: float = 0.0   # inside the simulator, reset to the last check (no process start-up)

    def __post_init__(self) -> None:
        self.status = Ending(self.status)

    @property
    def cycles_per_s(self) -> float:
        """Simulated clock cycles per second from reset to the last check (0 when nothing was simulated)."""
        seconds = self.run_s or self.sim_s
        return self.cycles / seconds if seconds > 0 else 0.0


def prepare_job(program: Program, profile, settings: RtlSettings) -> tuple[Job, str | None]:
    """The bench job for a program, and the reason the fixture cannot run it (None when it can)."""
    regmap = RegisterMap.for_profile(profile)
    job = job_from_program(program)
    units = {regmap.at(s.addr).unit for s in job.steps if s.op == WRITE}
    atom = profile.memory_atomic_size
    job.timeout_cycles = layer_cycle_budget(job, regmap, profile)
    job.axi_pause, job.clock = settings.axi_pause, settings.clock
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
        "COCOTB_TRUST_INERTIAL_WRITES": "1",
        # cocotb 2 imports pytest to rewrite asserts, and pytest then loads every installed plugin: 1.5 s of
        # start-up per simulation that the bench (which reports through result.json) does not need
        "COCOTB_REWRITE_ASSERTION_FILES": "", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    })
    return env


def _simulate(build_dir: Path, toplevel: str, job_path: Path, coverage: str | None) -> dict:
    run_dir = job_path.parent
    log = run_dir / "sim.log"
    command = [str(build_dir / toplevel), f"{JOB_PLUSARG}{job_path.resolve()}"]
    if coverage:  # a coverage build writes its counts here as the simulation ends
        folder = Path(coverage)
        folder.mkdir(parents=True, exist_ok=True)
        command.append(f"+verilator+coverage+file+{folder.resolve() / run_dir.name}.dat")
    with open(log, "w") as out:
        try:
            subprocess.run(command, cwd=run_dir, stdout=out, stderr=subprocess.STDOUT,
                           env=simulation_env(toplevel, job_path), timeout=SIM_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return {"status": Ending.TIMEOUT, "message": f"simulation ran over {SIM_TIMEOUT_S} s (log: {log})"}
    result_file = run_dir / "result.json"
    if not result_file.exists():
        return {"status": Ending.ERROR,
                "message": f"the simulation wrote no result (log: {log}):\n{failure_cause(log)}"}
    return json.loads(result_file.read_text())


def missing_port(job: Job, build_dir: Path) -> str:
    """Why the built DUT cannot run the job before anything is simulated: a memory the job uses whose AXI port
    the DUT lacks (nv_small has no CV-SRAM port), from the ports the verilated model declares; or ''."""
    header = (build_dir / "Vtop.h").read_text(errors="replace")
    used = sorted({step.mem for step in job.steps if step.op in (FILL, LOAD, CHECK)})
    absent = [kind for kind in used if f"{PORTS[kind]}_aw_awvalid" not in header]
    return f"the trace uses {TRACE_MEMORIES[absent[0]]} and the DUT has no {PORTS[absent[0]]} port" if absent else ""


def failure_cause(log: Path) -> str:
    """What a simulation log says went wrong: from its first traceback or error line on (80 lines), in full."""
    lines = [line for line in log.read_text(errors="replace").splitlines(keepends=True) if line.strip()]
    markers = ("Traceback", " ERROR ", "%Error", "FATAL", "Segmentation fault")
    first = next((i for i, line in enumerate(lines) if any(m in line for m in markers)), None)
    return "".join(lines[-30:] if first is None else lines[first:first + 80])


def run_program_on_rtl(program: Program, profile, build_options: BuildOptions | None = None, *,
                       settings: RtlSettings | None = None, work_dir: Path | None = None,
                       keep: bool = False) -> RtlRunResult:
    """The program on the DUT; its folder (job, program, dumps, sim.log) is removed after a completed run unless
    `keep`."""
    settings = settings if settings is not None else RtlSettings.from_environment()
    options = build_options or BuildOptions.from_settings(settings)
    started = time.perf_counter()
    run_dir = Path(tempfile.mkdtemp(prefix="rtl-run-", dir=work_dir))
    job, reason = prepare_job(program, profile, settings)
    if reason and options.is_fixture:
        return RtlRunResult(Ending.UNSUPPORTED, reason, run_dir=run_dir)
    job_path = job.save(program, run_dir)
    build_dir = build(options)
    missing = missing_port(job, build_dir)
    if missing:
        return RtlRunResult(Ending.UNSUPPORTED, missing, run_dir=run_dir)
    sim_started = time.perf_counter()
    summary = _simulate(build_dir, options.toplevel, job_path, settings.coverage)
    regions = {int(index): (run_dir / dump).read_bytes() for index, dump in summary.get("regions", {}).items()}
    memory = MemorySystem(Memory("pri_mem", unwritten="allow", outside="allow"),
                          Memory("sec_mem", unwritten="allow", outside="allow"))
    for step in job.steps:
        if step.op == CHECK and step.index in regions:
            (memory.pri if step.mem == "pri" else memory.sec).write(step.addr, regions[step.index])
    result = RtlRunResult(
        summary["status"], summary.get("message", ""), memory, regions=regions,
        registers={int(k): v for k, v in summary.get("registers", {}).items()},
        interrupts=summary.get("interrupts", []), cycles=int(summary.get("sim_ns", 0) // summary.get("clock_ns", 1)),
        wall_s=time.perf_counter() - started, sim_s=time.perf_counter() - sim_started, run_dir=run_dir,
        csb_stall_cycles=int(summary.get("csb_stall_cycles", 0)), run_s=float(summary.get("run_s", 0.0)))
    result.written = {memory: [(address, (run_dir / dump).read_bytes()) for address, _, dump in runs]
                      for memory, runs in summary.get("written", {}).items()}
    if not keep and result.status == Ending.COMPLETED:
        shutil.rmtree(run_dir)
        result.run_dir = None
    return result
