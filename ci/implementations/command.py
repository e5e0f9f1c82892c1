"""`--impl 'command:PROGRAM ARGS'`: an external program as the implementation (a vendor C model, an FPGA
host script, an emulator), through a folder of files. The contract (README, "External programs"):

    PROGRAM ARGS FOLDER                      run with the folder as its last argument, cwd = FOLDER
    FOLDER/request.json                      {"version": 1, "program": "program.json",
                                              "trace": "<file>", "format": "cfg" | "txn" (when the program
                                              is a trace's own compile), "layout": "master" | "nvdlav1",
                                              "profile": "<name>",
                                              "regions": [{"id", "memory", "base", "size", "file", "where"}],
                                              "reads": [{"id", "register", "address", "where"}]}
    FOLDER/program.json, FOLDER/memory/      the compiled program, the steps to execute in order
                                             (golden/formats/program_file.py, its JSON Schema beside it);
                                             a region's or read's id is its step's index
    FOLDER/<trace> and the .dat files it names, as NVIDIA writes them (with a trace only)
    FOLDER/out/region_<id>.dat               written by the program: each requested region's bytes when its
                                             check ran, as a .dat file (NVIDIA's record or byte-line syntax)
    FOLDER/out/result.json                   written by the program, every key optional:
                                             {"registers": {"<id>": value}, "interrupts": ["SDP_0", ...],
                                              "cycles": N}

Exit status 0 means the outcome is in out/; any other status, a crash or running past the time limit
(NVDLA_COMMAND_TIMEOUT seconds, default 600) is an `error` result naming the cause, with the end of
the program's output. The folder is kept after an error (and always with NVDLA_KEEP_FOLDERS=1).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from golden.config import Profile
from golden.errors import NvdlaVerifError
from golden.formats.program_file import FILE, write_program
from golden.memory import read_memory_file
from golden.outcome import Outcome
from golden.steps import CheckRegion, Program, ReadRegister

DEFAULT_TIMEOUT_S = 600
OUTPUT_TAIL = 1500


def absolute_words(words: list[str]) -> list[str]:
    """The program runs inside its request folder: a relative path the person typed means their folder."""
    return [str(Path(word).absolute()) if not Path(word).is_absolute() and Path(word).exists() else word
            for word in words]


def absolute_spec(spec: str) -> str:
    """An --impl value with the paths of a command's words made absolute (for runs in other folders)."""
    name, _, argument = spec.partition(":")
    if name != "command" or not argument:
        return spec
    try:
        return f"command:{shlex.join(absolute_words(shlex.split(argument)))}"
    except ValueError:
        return spec


class Command:
    name = "command"

    def __init__(self, argument: str | None = None, timeout_s: float | None = None):
        if not argument:
            raise NvdlaVerifError("--impl command needs the program: --impl 'command:PROGRAM ARGS'")
        try:
            words = shlex.split(argument)
        except ValueError as exc:
            raise NvdlaVerifError(f"--impl command:{argument}: {exc}") from None
        self.argv = absolute_words(words)
        self.timeout_s = timeout_s or float(os.environ.get("NVDLA_COMMAND_TIMEOUT", DEFAULT_TIMEOUT_S))

    def prepare(self) -> None:
        """Once before any trace: the program must be one that can start."""
        program = self.argv[0]
        found = program if "/" in program else shutil.which(program)
        if not found or not Path(found).is_file():
            raise NvdlaVerifError(f"--impl command: cannot start {program!r}: "
                                  + ("no such file" if "/" in program else "not found on PATH"))
        if not os.access(found, os.X_OK):
            raise NvdlaVerifError(f"--impl command: cannot start {program!r}: not executable (chmod +x, or name "
                                  "its interpreter first)")

    def run(self, program: Program, profile: Profile) -> Outcome:
        folder = Path(tempfile.mkdtemp(prefix=f"nvdla-{program.name}-"))
        write_request(program, profile, folder)
        outcome = Outcome(self.name)
        started = time.perf_counter()
        failure = self._execute(folder)
        outcome.seconds = time.perf_counter() - started
        if failure:
            return outcome.stopped("error", f"{failure} (folder kept: {folder})")
        try:
            read_result(program, folder / "out", outcome)
        except NvdlaVerifError as exc:
            return outcome.stopped("error", f"{exc} (folder kept: {folder})")
        if not os.environ.get("NVDLA_KEEP_FOLDERS"):
            shutil.rmtree(folder, ignore_errors=True)
        return outcome

    def _execute(self, folder: Path) -> str:
        """Run the program; '' when it exited 0, else what went wrong."""
        log = folder / "program.log"
        with open(log, "w") as out:
            try:
                process = subprocess.Popen([*self.argv, str(folder)], cwd=folder, stdout=out,
                                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                           start_new_session=True)
            except OSError as exc:
                return f"cannot start {self.argv[0]}: {exc.strerror}"
            try:
                code = process.wait(timeout=self.timeout_s)
            except subprocess.TimeoutExpired:
                _end(process)
                return f"{self.argv[0]} did not finish within {self.timeout_s:g} s{_tail(log)}"
            except BaseException:  # Ctrl-C, SIGTERM, a layer's time budget: the program's group goes with us
                _end(process)
                shutil.rmtree(folder, ignore_errors=True)
                raise
        if code:
            cause = f"killed by signal {-code}" if code < 0 else f"exited with status {code}"
            return f"{self.argv[0]} {cause}{_tail(log)}"
        return ""


def _end(process: subprocess.Popen) -> None:
    """Kill the program and everything it started (its own session), and reap it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


def _tail(log: Path) -> str:
    text = log.read_text(errors="replace").strip()
    return f"; its output ends: {text[-OUTPUT_TAIL:]}" if text else ""


def write_request(program: Program, profile: Profile, folder: Path) -> None:
    """The request folder: the compiled program (program.json and its memory images, always), and the trace
    with its files when the program is that trace's own compile (an adapter's rewritten program has none)."""
    write_program(program, folder)
    request = {"version": 1, "program": FILE, "layout": program.layout, "profile": profile.name}
    trace = program.trace
    if trace is not None:
        shutil.copy(trace.path, folder / trace.path.name)
        for _, path in trace.files():
            shutil.copy(path, folder / path.name)
        request.update(trace=trace.path.name, format=trace.format)
    regions = [{"id": i, "memory": s.memory, "base": s.base, "size": s.size, "file": f"region_{i}.dat",
                "where": s.where} for i, s in program.regions]
    reads = [{"id": i, "register": s.register.trace_name, "address": s.address, "where": s.where}
             for i, s in enumerate(program.steps) if isinstance(s, ReadRegister)]
    request.update(regions=regions, reads=reads)
    (folder / "request.json").write_text(json.dumps(request, indent=1) + "\n")
    (folder / "out").mkdir()


def read_result(program: Program, out: Path, outcome: Outcome) -> None:
    for index, step in program.regions:
        path = out / f"region_{index}.dat"
        if path.is_file():
            outcome.regions[index] = _image(path, step)
    if not outcome.regions and program.regions:
        outcome.unavailable["regions"] = "the program wrote no region file"
    result = out / "result.json"
    if not result.is_file():
        outcome.unavailable["registers"] = "the program wrote no out/result.json"
        return
    try:
        data = json.loads(result.read_text())
        outcome.registers = {int(k): int(v) & 0xFFFFFFFF for k, v in data.get("registers", {}).items()}
        outcome.interrupts = [str(i) for i in data.get("interrupts", [])]
        outcome.cycles = int(data["cycles"]) if "cycles" in data else None
    except (ValueError, TypeError, AttributeError) as exc:
        raise NvdlaVerifError(f"{result}: not the result.json of the contract: {exc}") from None
    if "registers" not in data:
        outcome.unavailable["registers"] = "the program reported no register reads"


def _image(path: Path, step: CheckRegion) -> np.ndarray:
    """The region's bytes from the program's .dat file (records at offsets from the region's base)."""
    image = np.zeros(step.size, np.uint8)
    end = 0
    for offset, data in read_memory_file(path):
        if offset + data.size > step.size:
            raise NvdlaVerifError(f"{path}: bytes at offset {offset:#x}+{data.size:#x} lie outside the "
                                  f"{step.size:#x}-byte region")
        image[offset:offset + data.size] = data
        end = max(end, offset + data.size)
    return image[:end] if end < step.size else image
