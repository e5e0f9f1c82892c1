"""Ctrl-C (SIGINT) and SIGTERM stop a run cleanly: no interrupted test is recorded as a result, every child
ends, and --resume gives what an uninterrupted run gives (verdicts, JUnit XML, sign-off)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("hjson")
pytest.importorskip("xdist")

from suites.unit.ci.regress_helpers import SMALL_TRACES, ctrl_c_reaches_it, data_root, interrupted  # noqa: E402

PROGRAM = Path(__file__).with_name("golden_program.py")


def _regress(data: Path, out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "ci.cli", "regress", "--level", "smoke", "--impl",
            f"command:{sys.executable} {PROGRAM}", "--seed", "3", "--nvdla-data", str(data), "--out", str(out),
            "-j", "2", "--test", "nvidia/*", *extra]


@pytest.fixture(scope="module")
def small_data(nvdla_data, tmp_path_factory) -> Path:
    """Six small nv_small traces, all in the smoke level: a run stopped after three has three more to resume."""
    assert len(SMALL_TRACES) == 6
    return data_root(nvdla_data, tmp_path_factory.mktemp("interrupts") / "data")


@pytest.fixture(scope="module")
def whole(small_data, tmp_path_factory) -> Path:
    """The uninterrupted run both signals' resumed runs must equal, run once."""
    out = tmp_path_factory.mktemp("interrupts") / "whole"
    subprocess.run(_regress(small_data, out), capture_output=True, timeout=900, check=False)
    return out


def _junit(out: Path) -> str:
    return re.sub(r' time="[^"]*"', "", (out / "junit.xml").read_text())


def _report(out: Path) -> tuple:
    report = json.loads((out / "results.json").read_text())
    verdicts = sorted((r["id"], r["status"], r["detail"]) for r in report["tests"])
    signoff = [{k: v for k, v in row.items()} for row in report["signoff"]]
    return verdicts, signoff, report["counts"]


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_regress_resumes_to_the_uninterrupted_result(small_data, whole, tmp_path, sig):
    cut = tmp_path / "cut"
    code, out, err = interrupted(_regress(small_data, cut), cut, sig)
    assert code == 130, out + err
    assert "--resume runs the rest" in err
    records = [json.loads(p.read_text()) for p in (cut / "results").glob("*.json")]
    assert 0 < len(records) < len(SMALL_TRACES), "stopped with tests done and tests left"
    assert not any("KeyboardInterrupt" in r["detail"] or r["verdict"] == "crash" for r in records)
    assert not (cut / "results.json").exists()
    # --resume with --out alone: the seed, options and tests come from the stopped run's manifest
    resumed = subprocess.run([sys.executable, "-m", "ci.cli", "regress", "--resume", "--out", str(cut)],
                             capture_output=True, text=True, timeout=900)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert len(_report(whole)[0]) == len(SMALL_TRACES)
    assert _report(cut) == _report(whole)
    assert _junit(cut) == _junit(whole)
    names = [json.loads(p.read_text())["name"] for p in (cut / "allure-results").glob("*-result.json")]
    assert sorted(names) == sorted(set(names)) and len(names) == len(_report(whole)[0])


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_during_conform_ends_the_external_program_and_its_folder(nvdla_data, tmp_path, sig):
    trace = nvdla_data / "trace_tests" / "nv_small" / "sdp_1x1x1_pass_through_int8"
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    command = [sys.executable, "-m", "ci.cli", "conform", str(trace), "--impl",
               f"command:{sys.executable} {PROGRAM} --fault hang"]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=ctrl_c_reaches_it)
    deadline = time.monotonic() + 120
    while not list(tmp_path.glob("nvdla-*")) and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.5)  # the program has started inside its folder
    process.send_signal(sig)
    process.communicate(timeout=60)
    assert process.returncode == 130
    left = subprocess.run(["pgrep", "-f", f"{PROGRAM} --fault hang {tmp_path}"], capture_output=True, text=True)
    assert left.stdout.strip() == "", "the external program was left running"
    assert list(tmp_path.glob("nvdla-*")) == []
