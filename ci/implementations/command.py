"""`--impl 'command:PROGRAM ARGS'`: an external program as the implementation (a vendor C model, an FPGA
host script, an emulator), through a folder of files. The contract is docs/guides/external-programs.md;
the files are ci/implementations/command_files.py's, with their JSON Schemas in golden/formats/:

    PROGRAM ARGS FOLDER                      run with the folder as its last argument, cwd = FOLDER
    FOLDER/request.json, program.json, memory/, the trace and its .dat files (when there is one)
    FOLDER/out/region_<id>.dat, out/result.json    written by the program

Exit status 0 means the outcome is in out/; a protocol 2 result.json may say otherwise ("status": "hang",
"unsupported", "error"), even with another exit status. Any other exit status, a crash or running past the
time limit (the settings' command.timeout_s, default 600; $NVDLA_COMMAND_TIMEOUT) is an `error` result naming the
cause, with the end of the program's output. The folder of a run that errored or hung is kept (command.keep:
failed, the default; always; never; $NVDLA_COMMAND_KEEP) in command.keep_dir, which conform and regress set to
their output folder's kept/ unless the person chose one ($NVDLA_COMMAND_KEEP_DIR; else it stays in $TMPDIR).
The settings are golden/settings.py's CommandSettings, handed to Command by the registry.

The program runs under ci/implementations/supervisor.py: its output goes to FOLDER/program.log, of which only
the first and last 64 KiB are kept, and every process it started ends when it ends, times out or we are
interrupted. The folder is never left behind: an unexpected error keeps it as a failed run's, an interrupt
removes it.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ci.implementations.command_files import read_result, write_request
from ci.implementations.supervisor import HEAD
from golden.config import Profile
from golden.errors import NvdlaVerifError
from golden.outcome import Outcome
from golden.settings import CommandSettings, Settings
from golden.status import Ending
from golden.steps import Program

DEFAULT_TIMEOUT_S = 600
OUTPUT_TAIL = 1500
LOG = "program.log"
SUPERVISOR = Path(__file__).with_name("supervisor.py")
#: Seconds the supervisor gets past the program's time limit, or to stop when asked, before it is killed.
GRACE_S = 10
#: The command protocol's status (result.json, golden/formats/command_result.schema.json) -> the outcome's
#: (golden/outcome.py): a hang fails as the RTL bench's timeout does.
PROTOCOL = {"completed": Ending.COMPLETED, "hang": Ending.TIMEOUT, "unsupported": Ending.UNSUPPORTED,
            "error": Ending.ERROR}


def keep_folder(out: str | Path) -> str:
    """Where a run whose output folder is `out` keeps the folders of failed runs (unless the person chose one:
    golden/settings.py CommandSettings.keeping_in)."""
    return str(Path(out).absolute() / "kept")


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

    def __init__(self, argument: str | None = None, timeout_s: float | None = None,
                 settings: Settings | None = None):
        if not argument:
            raise NvdlaVerifError("--impl command needs the program: --impl 'command:PROGRAM ARGS'")
        try:
            words = shlex.split(argument)
        except ValueError as exc:
            raise NvdlaVerifError(f"--impl command:{argument}: {exc}") from None
        self.argv = absolute_words(words)
        given = settings.command if settings is not None else CommandSettings.from_environment()
        self.timeout_s = timeout_s or given.timeout_s or DEFAULT_TIMEOUT_S
        self.keep, self.keep_dir = given.keep, given.keep_dir

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
        try:
            outcome = self._run_in(folder, program, profile)
        except Exception as exc:  # not the program's doing (a full disk, ...): the folder is a failed run's
            kept = self._dispose(folder, failed=True)
            if kept:
                exc.add_note(f"folder kept: {kept}")
            raise
        except BaseException:  # Ctrl-C, SIGTERM, a layer's time budget: the program has been ended already
            _remove(folder)
            raise
        failed = outcome.status in (Ending.ERROR, Ending.TIMEOUT)
        kept = self._dispose(folder, failed)
        if kept and failed:
            outcome.detail += f" (folder kept: {kept})"
        return outcome

    def _run_in(self, folder: Path, program: Program, profile: Profile) -> Outcome:
        write_request(program, profile, folder)
        outcome = Outcome(self.name)
        started = time.perf_counter()
        code, failure = self._execute(folder, outcome)
        outcome.seconds = time.perf_counter() - started
        try:  # a program that failed may still say why in a protocol 2 result; its outcome is not taken
            result = read_result(program, folder / "out", outcome if code == 0 else Outcome(self.name)) \
                if code is not None else {}
        except NvdlaVerifError as exc:
            result = {}
            failure = failure or str(exc)
        said = result.get("protocol") == 2 and "status" in result
        ending = PROTOCOL[result["status"]] if said else Ending.COMPLETED
        if ending != Ending.COMPLETED:
            outcome.stopped(ending, self._reported(ending, result))
        elif failure:
            outcome.stopped(Ending.ERROR, failure)
        return outcome

    def _reported(self, ending: Ending, result: dict) -> str:
        detail = f": {result['detail']}" if result.get("detail") else ""
        if ending == Ending.UNSUPPORTED:
            return f"{result.get('feature', 'a feature')} not supported by {self.argv[0]}{detail}"
        return f"{self.argv[0]} reports {'a hang' if ending == Ending.TIMEOUT else 'an error'}{detail}"

    def _dispose(self, folder: Path, failed: bool) -> Path | None:
        """Keep the folder (a failed run's, or every one when asked: where it is kept), else remove it."""
        if self.keep == "never" or (self.keep == "failed" and not failed):
            _remove(folder)
            return None
        into = self.keep_dir
        if not into:
            return folder
        target = Path(into) / folder.name
        try:
            Path(into).mkdir(parents=True, exist_ok=True)
            return Path(shutil.move(folder, target))
        except OSError:  # e.g. another file system that is full: it stays where it is, and says so
            if folder.exists():
                _remove(target)
                return folder
            raise

    def _execute(self, folder: Path, outcome: Outcome) -> tuple[int | None, str]:
        """Run the program under ci/implementations/supervisor.py, which ends everything the program started:
        its exit status (None when it did not exit by itself) and '' when it exited 0, else what went wrong."""
        log = folder / LOG
        stop_r, stop_w = os.pipe()  # closing it (or our death) tells the supervisor to stop
        stop = open(stop_w, "wb", buffering=0)  # noqa: SIM115  (closed below, safely twice)
        try:
            process = subprocess.Popen(
                [sys.executable, "-I", "-S", str(SUPERVISOR), str(stop_r), str(log), f"{self.timeout_s}",
                 *self.argv, str(folder)], cwd=folder, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, pass_fds=(stop_r,), start_new_session=True)
        except OSError as exc:
            stop.close()
            return None, f"cannot start {self.argv[0]}: {exc.strerror}"
        finally:
            os.close(stop_r)
        wedged = False
        try:
            text, _ = process.communicate(timeout=self.timeout_s + GRACE_S)
            stop.close()
        except subprocess.TimeoutExpired:
            text, wedged = _stop(process, stop), True
        except BaseException:  # Ctrl-C, SIGTERM, a layer's time budget: the program goes with us
            _stop(process, stop)
            raise
        report = _report(text)
        program = self.argv[0]
        if report.get("ended"):
            outcome.notes.append(f"{program} left {report['ended']} process(es) running when it ended; "
                                 "they were killed")
        end = "timeout" if wedged else report.get("end")
        if end == "exited":
            code = report["code"]
            return code, f"{program} exited with status {code}{_tail(log, report)}" if code else ""
        if end == "signal":
            return -report["signal"], f"{program} killed by signal {report['signal']}{_tail(log, report)}"
        if end == "timeout":
            return None, f"{program} did not finish within {self.timeout_s:g} s{_tail(log, report)}"
        if end == "cannot start":
            return None, f"cannot start {program}: {report['error']}"
        if end == "stopped":
            return None, f"{program} was stopped by a signal to nvdla-verif's supervisor{_tail(log, report)}"
        return None, f"{program}: its supervisor failed: {text.decode(errors='replace')[-OUTPUT_TAIL:]}"


def _stop(process: subprocess.Popen, stop) -> bytes:
    """Tell the supervisor to end the program and all it started, and wait for it; past GRACE_S seconds kill
    it and the program's process group (all that can be reached without it). Its output."""
    stop.close()
    try:
        return process.communicate(timeout=GRACE_S)[0]
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        text = process.communicate()[0]
        pid = _report(text).get("pid")
        if pid:
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        return text


def _report(text: bytes) -> dict:
    """The supervisor's lines merged: {"pid": ...} then {"end": ..., ...}."""
    report = {}
    for line in text.decode(errors="replace").splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            report.update(value)
    return report


def _remove(folder: Path) -> None:
    """Remove a folder the program may have made hard to remove (a sub-folder without permissions)."""
    def writable(function, path, _):
        os.chmod(os.path.dirname(path), stat.S_IRWXU)
        if os.path.isdir(path) and not os.path.islink(path):
            os.chmod(path, stat.S_IRWXU)
        function(path)

    try:
        shutil.rmtree(folder, onerror=writable)
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)


def _tail(log: Path, report: dict) -> str:
    """The end of the program's output, read from the end of the log whatever is in the folder."""
    try:
        fd = os.open(log, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return ""
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return ""
        file.seek(max(0, info.st_size - 4 * OUTPUT_TAIL))
        text = file.read(4 * OUTPUT_TAIL).decode(errors="replace")
    text = "".join(c for c in text if c.isprintable() or c in "\n\t").strip()
    if not text:
        return ""
    size = f" ({report['output']} bytes, {LOG} keeps the first and last {HEAD // 1024} KiB)" \
        if report.get("dropped") else ""
    return f"; its output{size} ends: {text[-OUTPUT_TAIL:]}"
