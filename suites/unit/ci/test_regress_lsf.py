"""`regress --on lsf` through stand-ins for bsub, bjobs and bkill (suites/unit/ci/lsf/lsf_stub.py; no LSF runs
here): the submission is the recorded one (submission.json, task.sh, written from LSF's bsub reference), the
array's elements run the shards, and the merged report equals a local run with the same seed."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from ci.regression.launchers.lsf import parse_bjobs
from ci.regression.launchers.slurm import parse_squeue
from ci.regression.results import content
from suites.unit.ci.regress_helpers import data_root, faulty_impl, regress, write_plan

pytest.importorskip("hjson")
pytest.importorskip("xdist")

HERE = Path(__file__).resolve().parent / "lsf"
TESTS = """
    {"name": "traces", "kind": "nvidia_traces", "glob": "trace_tests/nv_small/*/*.cfg"}
"""
POINTS = """
    {"name": "sdp", "stage": "smoke", "desc": "regress on LSF", "tests": ["traces"], "covers": []}
"""


@pytest.fixture
def fake_lsf(tmp_path, monkeypatch):
    tools = tmp_path / "bin"
    tools.mkdir()
    for name in ("bsub", "bjobs", "bkill"):  # the stub knows which tool it is by its file name
        (tools / f"{name}.py").symlink_to(HERE / "lsf_stub.py")
        (tools / name).write_text(f"#!/bin/sh\nexec {sys.executable} {tools / (name + '.py')} \"$@\"\n")
        os.chmod(tools / name, 0o755)
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_LSF_DIR", str(tmp_path / "lsf"))
    return tmp_path / "lsf"


@pytest.mark.slow
def test_the_submission_is_the_recorded_one_and_the_merge_equals_a_local_run(fake_lsf, nvdla_data, tmp_path):
    root = data_root(nvdla_data, tmp_path / "data")
    plan = write_plan(tmp_path / "plan.hjson", TESTS, POINTS)
    common = ["--plan", str(plan), "--nvdla-data", str(root), "--impl", faulty_impl(), "--ref", "golden",
              "--seed", "5"]
    faults = {"NVDLA_FAULTS": "sdp_4x22x42_bypass_int8=wrong-byte"}
    assert regress(*common, "--out", str(tmp_path / "local"), env=faults) == 1
    out = tmp_path / "lsf-run"
    code = regress(*common, "--on", "lsf", "--shards", "2", "--queue", "normal", "--cpus-per-shard", "2",
                   "--mem-per-shard", "3G", "--time-limit", "1:30", "--submit-arg=-P", "--submit-arg=dv",
                   "--poll", "0.5", "--out", str(out), env=faults)
    assert code == 1
    calls = [json.loads(line) for line in (fake_lsf / "calls.jsonl").read_text().splitlines()]
    expected = json.loads((HERE / "submission.json").read_text())
    assert calls == [[word.replace("{OUT}", str(out)) for word in expected]]
    command = f"{sys.executable} -m ci.cli"  # how these tests start nvdla-verif (ci.cli.invocation)
    script = (HERE / "task.sh").read_text().replace("{OUT}", str(out)).replace("{COMMAND}", command)
    assert (out / "batch" / "task.sh").read_text() == script
    merged, single = (json.loads((folder / "results.json").read_text()) for folder in (out, tmp_path / "local"))
    assert content(merged) == content(single)
    assert merged["counts"]["failed"] == 1 and merged["counts"]["total"] == 6
    assert {t["ran_on"]["task"] for t in merged["tests"]} == {"lsf 100[1]", "lsf 100[2]"}


def test_bjobs_and_squeue_answers_are_read_per_array_element():
    bjobs = "1|DONE|hostA|-\n2|EXIT|hostB|TERM_RUNLIMIT\n3|RUN|hostC|-\n4|PEND|-|-\n"
    states = parse_bjobs(bjobs)
    assert [(i, s.state, s.reason, s.node) for i, s in sorted(states.items())] == [
        (1, "ended", "DONE", "hostA"), (2, "ended", "TERM_RUNLIMIT", "hostB"), (3, "running", "", "hostC"),
        (4, "pending", "", "")]
    squeue = "[3-5%2]|PENDING||Resources\n1|RUNNING|n01|None\n2|TIMEOUT|n02|TimeLimit\n"
    states = parse_squeue(squeue)
    assert sorted(states) == [1, 2, 3, 4, 5]
    assert states[2].state == "ended" and states[2].reason == "TIMEOUT" and states[2].node == "n02"
    assert states[4].state == "pending" and states[1].state == "running"
