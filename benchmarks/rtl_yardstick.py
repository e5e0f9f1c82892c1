"""The C++ yardstick (rtl_yardstick.cpp): the same verilated model and the same compiled job as the bench,
clocked by a plain C++ loop, for the bench's cycles/s to be measured against.

    yardstick_binary(options) -> Path            build (cached next to the bench's builds)
    run_yardstick(trace, profile, options) -> dict(cycles, seconds, cycles_per_s, crcs)

Only the DBB port (pri memory, 64-bit data) is modelled; a job that uses CV-SRAM is refused.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from golden.regs.regmap import RegisterMap
from golden.trace import load_trace
from rtl.build import (  # the bench build's helpers: its log and its compile progress lines
    VERILATOR_ARGS,
    BuildError,
    BuildOptions,
    _CompileProgress,
    _run_logged,
    build_key,
    cache_root,
    fixture_sources,
    make_command,
)
from rtl.cycle_budget import layer_cycle_budget
from rtl.job import AWAIT, CHECK, LOAD, READ, WATCH, WRITE, job_from_trace
from rtl.toolchain import find_verilator

SOURCE = Path(__file__).with_name("rtl_yardstick.cpp")


def yardstick_binary(options: BuildOptions, progress: Callable[[str], None] = print) -> Path:
    """The yardstick for the DUT; verilated once, then only remade (make) when rtl_yardstick.cpp changed.
    `progress` receives a line as each step starts and as the C++ compiles (rtl/build.py's lines)."""
    build_dir = cache_root(options) / f"{build_key(options)}-yardstick"
    verilator = find_verilator()
    steps = [("compiling the C++", make_command(options, build_dir))]
    if not (build_dir / "Vtop.mk").exists():
        shutil.rmtree(build_dir, ignore_errors=True)
        build_dir.mkdir(parents=True)
        sources = ([str(p) for p in fixture_sources()] if options.is_fixture
                   else ["-F", str(Path(options.filelist).resolve())])
        steps.insert(0, (f"verilating {options.toplevel}", [
            str(verilator.binary), "-cc", "--exe", "-Mdir", str(build_dir), "--top-module", options.toplevel,
            "--prefix", "Vtop", "-o", "yardstick", *VERILATOR_ARGS, *options.extra_args,
            *[f"-D{d}" for d in options.defines], str(SOURCE), *sources]))
    log_path = build_dir / "build.log"
    with open(log_path, "a") as log:
        for what, command in steps:
            started = time.perf_counter()
            on_line = None
            if command[0] == "make":
                planned = subprocess.run([*command, "-n"], cwd=build_dir, capture_output=True, text=True,
                                         env=verilator.env()).stdout
                files = sum(_CompileProgress.is_compile(line) for line in planned.splitlines())
                what += f" ({files} files)"
                on_line = _CompileProgress(files, lambda line: progress(line.replace("rtl build:", "yardstick:")))
            else:
                files = 1
            if files:  # an up-to-date yardstick is remade silently (make links it at most)
                progress(f"yardstick: {what} (log: {log_path})")
            if _run_logged(command, build_dir, log, verilator.env(), on_line):
                raise BuildError(f"yardstick build failed (log: {log_path})")
            if files:
                progress(f"yardstick: {what}: {time.perf_counter() - started:.0f} s")
    return build_dir / "yardstick"


def write_commands(job, run_dir: Path) -> Path:
    """The job's steps as the yardstick's flat command file (each memory load's bytes in a file of its own)."""
    lines = []
    for number, step in enumerate(job.steps):
        if step.mem != "pri" and step.op in (LOAD, CHECK):
            raise ValueError("the yardstick models only the DBB (pri) memory")
        sync = step.sync or "-"
        if step.op == WRITE:
            lines.append(f"write {step.addr} {step.value} 0 0")
        elif step.op == READ:
            lines.append(f"read {step.addr} {step.value} {step.mask} {int(step.sync == 'poll')}")
        elif step.op == LOAD:
            blob = run_dir / f"load{number}.bin"
            blob.write_bytes(step.data)
            lines.append(f"load {step.addr} {blob}")
        elif step.op == WATCH:
            lines.append(f"watch {step.value} {sync}")
        elif step.op == AWAIT:
            lines.append(f"await {sync}")
        elif step.op == CHECK:
            lines.append(f"check {step.addr} {step.size} {sync}")
    path = run_dir / "yardstick.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def run_yardstick(trace, profile, options: BuildOptions) -> dict:
    binary = yardstick_binary(options)
    trace = load_trace(trace)
    with tempfile.TemporaryDirectory(prefix="yardstick-") as folder:
        regmap = RegisterMap.for_profile(profile)
        job = job_from_trace(trace)
        job.timeout_cycles = layer_cycle_budget(job, regmap, profile)
        commands = write_commands(job, Path(folder))
        out = subprocess.run([str(binary), str(commands), str(job.reset_idle_cycles), str(job.timeout_cycles)],
                             capture_output=True, text=True, timeout=3600)
    if out.returncode:
        raise RuntimeError(f"yardstick failed on {trace.name} (exit {out.returncode}): "
                           f"{(out.stderr + out.stdout).strip()}")
    result = {"crcs": {}}
    for line in out.stdout.splitlines():
        words = line.split()
        if words[0] == "crc":
            result["crcs"][int(words[1], 16), int(words[2], 16)] = int(words[3], 16)
        elif words[0] == "cycles":
            result.update(cycles=int(words[1]), seconds=float(words[3]), cycles_per_s=float(words[5]))
    return result
