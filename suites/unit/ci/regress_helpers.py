"""Helpers of the regression tests: a small data root of NVIDIA traces and a testplan written for a test."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ci.cli import main as cli

HERE = Path(__file__).resolve().parent
SMALL_TRACES = ("sdp_1x1x1_pass_through_int8", "sdp_1x1x8_pass_through_int8_0", "sdp_8x8x32_bypass_int8_0",
                "sdp_3x3x33_bs_int8_reg_0", "sdp_3x3x33_bn_int8_reg_2", "sdp_4x22x42_bypass_int8")


def data_root(nvdla_data: Path, folder: Path, names=SMALL_TRACES) -> Path:
    """A copy of a few nv_small trace folders under folder/trace_tests/nv_small."""
    for name in names:
        shutil.copytree(nvdla_data / "trace_tests" / "nv_small" / name, folder / "trace_tests" / "nv_small" / name)
    return folder


def write_plan(path: Path, tests: str, testpoints: str) -> Path:
    path.write_text("{\n  name: test_plan\n  testpoints: [\n" + testpoints + "\n  ]\n"
                    "  tests: [\n" + tests + "\n  ]\n}\n")
    return path


def faulty_impl() -> str:
    return f"command:{sys.executable} {HERE / 'regress_faulty_program.py'}"


def regress(*args: str, env: dict | None = None) -> int:
    saved = {k: os.environ.get(k) for k in (env or {})}
    os.environ.update(env or {})
    try:
        return cli(["regress", *args])
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def after_invocation(command: str) -> list[str]:
    """A printed reproduce command's words from its subcommand on (the invocation before it is the path that
    started nvdla-verif, or this interpreter's `-m ci.cli` under pytest)."""
    words = shlex.split(command)
    start = next(i for i, word in enumerate(words) if word in ("conform", "generate", "regress", "play"))
    return words[start:]


def ctrl_c_reaches_it() -> None:
    """preexec_fn of a process a test interrupts with SIGINT: a job a shell starts in the background (`cmd &`,
    nohup) inherits SIGINT ignored, and Python then never raises KeyboardInterrupt; restore the default."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupted(command: list[str], out: Path, sig: int, *, after: int = 3, timeout_s: float = 600,
                env: dict | None = None) -> tuple[int, str, str]:
    """Start a regress, send it `sig` once `after` tests have their record in out/results, and return its exit
    status, stdout and stderr (a run that ends before it could be interrupted fails the test)."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                               preexec_fn=ctrl_c_reaches_it)
    deadline = time.monotonic() + timeout_s
    while process.poll() is None and time.monotonic() < deadline:
        if len(list((out / "results").glob("*.json"))) >= after:
            process.send_signal(sig)
            break
        time.sleep(0.02)
    stdout, stderr = process.communicate(timeout=180)
    if process.returncode == 0:
        pytest.fail("the run finished before it could be interrupted")
    return process.returncode, stdout, stderr
