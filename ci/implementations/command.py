"""`--impl 'command:PROGRAM ARGS'`: an external program as the implementation (a vendor C model, an FPGA
host script, an emulator), through a folder of files. The contract is the README's "External programs";
the files are ci/implementations/command_files.py's, with their JSON Schemas in golden/formats/:

    PROGRAM ARGS FOLDER                      run with the folder as its last argument, cwd = FOLDER
    FOLDER/request.json, program.json, memory/, the trace and its .dat files (when there is one)
    FOLDER/out/region_<id>.dat, out/result.json    written by the program

Exit status 0 means the outcome is in out/; a protocol 2 result.json may say otherwise ("status": "hang",
"unsupported", "error"), even with another exit status. Any other exit status, a crash or running past the
time limit (NVDLA_COMMAND_TIMEOUT seconds, default 600) is an `error` result naming the cause, with the end
of the program's output. The folder of a run that errored or hung is kept (NVDLA_COMMAND_KEEP=failed, the
default; always; never) in $NVDLA_COMMAND_KEEP_DIR, which conform and regress set to their output folder's
kept/ (else it stays in $TMPDIR); NVDLA_KEEP_FOLDERS=1 is protocol 1's name for always.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from ci.implementations.command_files import read_result, write_request
from golden.config import Profile
from golden.errors import NvdlaVerifError
from golden.outcome import Outcome
from golden.status import Status
from golden.steps import Program

DEFAULT_TIMEOUT_S = 600
OUTPUT_TAIL = 1500
KEEP_MODES = ("failed", "always", "never")
#: A result's status -> the outcome's (golden/outcome.py): a hang fails as the RTL bench's timeout does.
REPORTED = {"hang": Status.TIMEOUT, "unsupported": Status.UNSUPPORTED, "error": Status.ERROR}


def keep_folder(out: str | Path) -> dict[str, str]:
    """The environment that keeps the folders of failed runs in a run's output folder's kept/ (unless the
    person chose a folder)."""
    if "NVDLA_COMMAND_KEEP_DIR" in os.environ:
        return {}
    return {"NVDLA_COMMAND_KEEP_DIR": str(Path(out).absolute() / "kept")}


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
        keep = "always" if os.environ.get("NVDLA_KEEP_FOLDERS") else os.environ.get("NVDLA_COMMAND_KEEP", "failed")
        if keep not in KEEP_MODES:
            raise NvdlaVerifError(f"NVDLA_COMMAND_KEEP={keep}: expected one of {', '.join(KEEP_MODES)}")
        self.keep = keep

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
        code, failure = self._execute(folder)
        outcome.seconds = time.perf_counter() - started
        try:  # a program that failed may still say why in a protocol 2 result; its outcome is not taken
            result = read_result(program, folder / "out", outcome if code == 0 else Outcome(self.name)) \
                if code is not None else {}
        except NvdlaVerifError as exc:
            result = {}
            failure = failure or str(exc)
        status = result.get("status", "completed") if result.get("protocol") == 2 else "completed"
        if status != "completed":
            outcome.stopped(REPORTED[status], self._reported(status, result))
        elif failure:
            outcome.stopped(Status.ERROR, failure)
        return self._finish(outcome, folder)

    def _reported(self, status: str, result: dict) -> str:
        detail = f": {result['detail']}" if result.get("detail") else ""
        if status == "unsupported":
            return f"{result.get('feature', 'a feature')} not supported by {self.argv[0]}{detail}"
        return f"{self.argv[0]} reports {'a hang' if status == 'hang' else 'an error'}{detail}"

    def _finish(self, outcome: Outcome, folder: Path) -> Outcome:
        """Keep the folder (a failed run's, or every one when asked), else remove it."""
        failed = outcome.status in (Status.ERROR, Status.TIMEOUT)
        if self.keep == "never" or (self.keep == "failed" and not failed):
            shutil.rmtree(folder, ignore_errors=True)
            return outcome
        into = os.environ.get("NVDLA_COMMAND_KEEP_DIR")
        if into:
            Path(into).mkdir(parents=True, exist_ok=True)
            folder = Path(shutil.move(folder, Path(into) / folder.name))
        if failed:
            outcome.detail += f" (folder kept: {folder})"
        return outcome

    def _execute(self, folder: Path) -> tuple[int | None, str]:
        """Run the program: its exit status (None when it did not exit by itself) and '' when it exited 0,
        else what went wrong."""
        log = folder / "program.log"
        with open(log, "w") as out:
            try:
                process = subprocess.Popen([*self.argv, str(folder)], cwd=folder, stdout=out,
                                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                           start_new_session=True)
            except OSError as exc:
                return None, f"cannot start {self.argv[0]}: {exc.strerror}"
            try:
                code = process.wait(timeout=self.timeout_s)
            except subprocess.TimeoutExpired:
                _end(process)
                return None, f"{self.argv[0]} did not finish within {self.timeout_s:g} s{_tail(log)}"
            except BaseException:  # Ctrl-C, SIGTERM, a layer's time budget: the program's group goes with us
                _end(process)
                shutil.rmtree(folder, ignore_errors=True)
                raise
        if code:
            cause = f"killed by signal {-code}" if code < 0 else f"exited with status {code}"
            return code, f"{self.argv[0]} {cause}{_tail(log)}"
        return 0, ""


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
