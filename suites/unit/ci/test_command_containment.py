"""`--impl command` keeps a hostile or broken external program in its box (README "External programs"): its
output is a bounded log, its files are bounded by the request, every process it starts ends with it, it
starts with default signal dispositions, and its work folder is kept or removed, never left behind."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

import pytest

from ci.implementations import command
from ci.implementations.command import Command
from golden.config import get_profile
from golden.player import prepare
from golden.status import Ending

TRACE = "trace_tests/nv_small/sdp_1x1x1_pass_through_int8"
#: The address space nvdla-verif gets in the tests that flood it: less than the flood, plenty for the run.
ADDRESS_SPACE = 2 << 30


@pytest.fixture(autouse=True)
def scratch(tmp_path, monkeypatch) -> Path:
    """The temporary folder the runs in this process make their work folders in."""
    folder = tmp_path / "scratch"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def _program(tmp_path: Path, body: str, name: str = "program.py") -> str:
    """A Python program: `folder` is its request folder, `request` its request.json."""
    script = tmp_path / name
    script.write_text("import json, os, pathlib, signal, sys, time\nfolder = pathlib.Path(sys.argv[-1])\n"
                      "request = json.loads((folder / 'request.json').read_text())\n" + textwrap.dedent(body))
    return f"{sys.executable} {script}"


def _conform_capped(nvdla_data: Path, tmp_path: Path, program: str) -> tuple[subprocess.CompletedProcess, dict]:
    """`nvdla-verif conform` in a process whose address space is ADDRESS_SPACE, with its own $TMPDIR."""
    scratch = tmp_path / "capped"
    scratch.mkdir()
    capped = ("import resource, sys\n"
              f"resource.setrlimit(resource.RLIMIT_AS, ({ADDRESS_SPACE}, {ADDRESS_SPACE}))\n"
              "from ci.cli import main\nsys.exit(main(sys.argv[1:]))\n")
    out = tmp_path / "run" / "out.json"
    completed = subprocess.run(
        [sys.executable, "-c", capped, "conform", str(nvdla_data / TRACE), "--json", str(out),
         "--impl", f"command:{program}"], capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "TMPDIR": str(scratch), "OPENBLAS_NUM_THREADS": "1"})
    assert "internal error" not in completed.stdout + completed.stderr
    assert not list(scratch.iterdir())
    return completed, json.loads(out.read_text())["results"][0]


def _kept(tmp_path: Path) -> Path:
    (folder,) = (tmp_path / "run" / "kept").iterdir()
    return folder


def test_a_program_printing_3_gib_is_one_clear_error_with_a_bounded_log(nvdla_data, tmp_path):
    flood = 3 << 30
    last = b"\nthe last words\n"
    program = _program(tmp_path, f"""
        chunk = bytes(1 << 20)
        for _ in range({flood} >> 20):
            os.write(1, chunk)
        os.write(2, {last!r})
        sys.exit(3)
        """)
    completed, result = _conform_capped(nvdla_data, tmp_path, program)
    assert completed.returncode == 1
    assert result["status"] == "error"
    assert f"exited with status 3; its output ({flood + len(last)} bytes" in result["detail"]
    assert result["detail"].split(" (folder kept: ")[0].endswith("ends: the last words")
    kept = _kept(tmp_path)
    assert sum(f.stat().st_size for f in kept.rglob("*") if f.is_file()) < 1 << 20
    assert (kept / "program.log").read_bytes().endswith(last)


def test_a_region_file_far_larger_than_its_region_is_refused_unread(nvdla_data, tmp_path):
    huge = 1900 << 20
    program = _program(tmp_path, f"""
        for region in request["regions"]:
            with open(folder / "out" / region["file"], "wb") as file:
                file.truncate({huge})
        """)
    _, result = _conform_capped(nvdla_data, tmp_path, program)
    assert result["status"] == "error"
    named = re.search(r"(\S+/out/region_\d+\.dat): (\d+) bytes, more than the (\d+) bytes a (0x[0-9a-f]+)-byte "
                      r"region's file may take", result["detail"])
    assert named, result["detail"]
    region = json.loads((_kept(tmp_path) / "request.json").read_text())["regions"][0]
    assert named[1].endswith(region["file"]) and int(named[2]) == huge
    assert int(named[4], 16) == region["size"] < int(named[3]) < huge


def _run(nvdla_data: Path, program: str, timeout_s: float = 60):
    profile = get_profile("nv_small")
    return Command(program, timeout_s=timeout_s).run(prepare(nvdla_data / TRACE, profile), profile)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


#: A program that starts a child in its own process group and a daemon (its own session, forked twice), each
#: sleeping after writing its pid to PIDS, then ends as THEN says.
ESCAPES = """
pids = pathlib.Path(sys.argv[1])
def sleeper():
    with open(pids, "a") as file:
        file.write(f"{os.getpid()}\\n")
    time.sleep(60)
    os._exit(0)
if os.fork() == 0:
    os.setpgid(0, 0)
    sleeper()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        sleeper()
    os._exit(0)
while not pids.exists() or len(pids.read_text().split()) < 2:
    time.sleep(0.01)
"""


@pytest.mark.parametrize("then", ["exits", "hangs", "is interrupted"])
def test_no_process_the_program_started_outlives_it(nvdla_data, tmp_path, scratch, then):
    pids = tmp_path / "pids"
    program = _program(tmp_path, ESCAPES + ("sys.exit(0)\n" if then == "exits" else "time.sleep(60)\n"))
    started = time.monotonic()
    try:
        if then == "is interrupted":
            _interrupted_when(lambda: pids.exists() and len(pids.read_text().split()) == 2,
                              lambda: _run(nvdla_data, f"{program} {pids}"))
        else:
            outcome = _run(nvdla_data, f"{program} {pids}", timeout_s=3)
            if then == "hangs":
                assert outcome.status == Ending.ERROR and "did not finish within 3 s" in outcome.detail
            else:
                assert outcome.notes == [f"{sys.executable} left 2 process(es) running when it ended; they were killed"]
        left = [int(pid) for pid in pids.read_text().split()]
        assert len(left) == 2 and not [pid for pid in left if _alive(pid)]
        assert time.monotonic() - started < 30
        if then == "is interrupted":
            assert not list(scratch.iterdir())
    finally:
        for pid in pids.read_text().split() if pids.exists() else []:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass


def _interrupted_when(ready, run) -> None:
    """Run `run` in this (main) thread and raise KeyboardInterrupt in it, as Ctrl-C does, once `ready()`."""
    def interrupt(*_):
        raise KeyboardInterrupt

    def watch():
        while not ready():
            time.sleep(0.01)
        signal.pthread_kill(threading.main_thread().ident, signal.SIGALRM)

    previous = signal.signal(signal.SIGALRM, interrupt)
    watcher = threading.Thread(target=watch, daemon=True)
    try:
        watcher.start()
        with pytest.raises(KeyboardInterrupt):
            run()
    finally:
        watcher.join(30)
        signal.signal(signal.SIGALRM, previous)


def test_the_program_starts_with_default_signal_dispositions(nvdla_data, tmp_path):
    """A nightly started in the background (SIGINT ignored) or with signals blocked passes neither to the
    program: it can still be stopped."""
    program = _program(tmp_path, """
        ignored = [s.name for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
                   if signal.getsignal(s) is signal.SIG_IGN]
        blocked = sorted(s.name for s in signal.pthread_sigmask(signal.SIG_BLOCK, []))
        print("ignored", ignored, "blocked", blocked)
        sys.exit(5 if ignored or blocked else 0)
        """)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    try:
        outcome = _run(nvdla_data, program)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        signal.signal(signal.SIGINT, previous)
    assert outcome.status == Ending.COMPLETED, outcome.detail


@pytest.mark.parametrize(("body", "words"), [
    ("(folder / 'out' / 'result.json').write_text(' ' * (16 << 20) + json.dumps({'protocol': 2}))",
     r"out/result\.json: 16777231 bytes, more than the \d+ bytes result\.json may take"),
    ("os.symlink('/etc/hostname', folder / 'out' / request['regions'][0]['file'])",
     r"out/region_\d+\.dat: not a regular file"),
])
def test_a_result_file_out_of_bounds_is_the_programs_error(nvdla_data, tmp_path, body, words):
    outcome = _run(nvdla_data, _program(tmp_path, body + "\n"))
    assert outcome.status == Ending.ERROR and re.search(words, outcome.detail), outcome.detail


@pytest.mark.parametrize(("keep", "kept"), [("failed", 1), ("never", 0)])
def test_an_unexpected_error_keeps_or_removes_the_folder_as_asked(nvdla_data, tmp_path, scratch, monkeypatch, keep,
                                                                   kept):
    def exhausted(*_):
        raise MemoryError

    into = tmp_path / "kept"
    monkeypatch.setattr(command, "read_result", exhausted)
    monkeypatch.setenv("NVDLA_COMMAND_KEEP", keep)
    monkeypatch.setenv("NVDLA_COMMAND_KEEP_DIR", str(into))
    with pytest.raises(MemoryError) as raised:
        _run(nvdla_data, _program(tmp_path, "sys.exit(0)\n"))
    folders = list(into.glob("nvdla-*")) if into.exists() else []
    assert not list(scratch.iterdir()) and len(folders) == kept
    assert getattr(raised.value, "__notes__", []) == [f"folder kept: {f}" for f in folders]
