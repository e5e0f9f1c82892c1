"""`regress --on slurm` against a real single-host Slurm cluster (suites/cluster/slurm_cluster.py): the merged
report of the shards equals a local run with the same seed; a shard cancelled mid-run is submitted again and
the report is complete; a shard past its time limit is submitted again with what it finished kept, and once
its retries are spent its tests are reported with why they have no result; Ctrl-C cancels the array and
--resume finishes the run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ci.regression.results import content
from suites.cluster.slurm_cluster import MAX_MINUTES, SlurmCluster, unavailable
from suites.unit.ci.regress_helpers import ctrl_c_reaches_it, data_root, faulty_impl, regress, write_plan

pytest.importorskip("hjson")
pytest.importorskip("xdist")
pytestmark = pytest.mark.skipif(unavailable() is not None, reason=str(unavailable()))  # `cluster`: conftest.py

REPO = Path(__file__).resolve().parents[2]
TESTS = """
    {"name": "traces", "kind": "nvidia_traces", "glob": "trace_tests/nv_small/*/*.cfg"}
    {"name": "random", "kind": "random_sdp", "layers": 1, "seeds": "per_run", "count": {"smoke": 3}}
"""
POINTS = """
    {"name": "sdp", "stage": "smoke", "desc": "regress on Slurm", "tests": ["traces", "random"],
     "covers": ["nv_small.sdp.width"]}
"""
SLURM = ("--on", "slurm", "--shards", "4", "--poll", "1")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with SlurmCluster(tmp_path_factory.mktemp("slurm")) as running:
        yield running


@pytest.fixture
def small_plan(nvdla_data, tmp_path):
    """Nine tests (six NVIDIA traces, three random layers) through an external program that can be slowed."""
    root = data_root(nvdla_data, tmp_path / "data")
    plan = write_plan(tmp_path / "plan.hjson", TESTS, POINTS)
    return ["--plan", str(plan), "--nvdla-data", str(root), "--impl", faulty_impl(), "--ref", "golden",
            "--seed", "77"]


def _report(folder: Path) -> dict:
    return json.loads((folder / "results.json").read_text())


def _junit(folder: Path) -> dict[str, str]:
    cases = ET.parse(folder / "junit.xml").getroot().iter("testcase")
    return {case.get("name"): ",".join(child.tag for child in case) for case in cases}


def _same_run(slurm: Path, local: Path) -> None:
    merged, single = _report(slurm), _report(local)
    assert content(merged) == content(single)
    assert merged["signoff"] == single["signoff"] and merged["coverage"] == single["coverage"]
    assert _junit(slurm) == _junit(local)
    assert (slurm / "coverage.txt").read_text() == (local / "coverage.txt").read_text()
    assert (slurm / "signoff.txt").read_text() == (local / "signoff.txt").read_text()


def _ran_on(folder: Path) -> dict[str, dict]:
    return {test["id"]: test["ran_on"] for test in _report(folder)["tests"]}


def test_golden_smoke_on_four_shards_equals_a_local_run(cluster, tmp_path, capsys):
    common = ["--level", "smoke", "--impl", "golden", "--seed", "77"]
    assert regress(*common, "-j", "2", "--out", str(tmp_path / "local")) == 0
    config = tmp_path / "launcher.json"  # the settings from a file this time
    config.write_text(json.dumps({"on": "slurm", "shards": 4, "poll": 1, "retries": 1}))
    assert regress(*common, "--launcher-config", str(config), "--out", str(tmp_path / "slurm"), env=cluster.env) == 0
    _same_run(tmp_path / "slurm", tmp_path / "local")
    said = capsys.readouterr()
    # the shards' worst case (seven tests of the golden model's 60 s budget) is held to the partition's MaxTime
    assert f"the default partition allows: asking for its {MAX_MINUTES} min" in said.err
    assert f"1 CPUs, 2048 MB, {MAX_MINUTES} min each" in said.out
    where = _ran_on(tmp_path / "slurm")
    assert len(where) == 25 and {w["shard"] for w in where.values()} == {"1/4", "2/4", "3/4", "4/4"}
    assert {w["node"] for w in where.values()} == {cluster.host}
    assert all(w["task"].startswith("slurm ") for w in where.values())
    state = json.loads((tmp_path / "slurm" / "batch" / "state.json").read_text())
    assert [len(s["attempts"]) for s in state["shards"]] == [1, 1, 1, 1]


def test_fixture_rtl_smoke_on_four_shards_equals_a_local_run_and_builds_once(cluster, verilator, tmp_path):
    common = ["--level", "smoke", "--seed", "78"]  # --impl rtl: the fixture DUT
    assert regress(*common, "-j", "2", "--out", str(tmp_path / "local")) == 0
    cache = {"NVDLA_RTL_CACHE": str(tmp_path / "rtl-cache")}  # empty: the submitting regress builds it once
    assert regress(*common, *SLURM, "--out", str(tmp_path / "slurm"), env={**cluster.env, **cache}) == 0
    _same_run(tmp_path / "slurm", tmp_path / "local")
    assert len(list((tmp_path / "rtl-cache").glob("*/.complete"))) == 1
    logs = [path.read_text() for path in (tmp_path / "slurm" / "logs").glob("shard-*.log")]
    assert len(logs) == 4 and not any("rtl build:" in log for log in logs)


def test_a_cancelled_shard_is_submitted_again_and_the_report_is_complete(cluster, small_plan, tmp_path):
    slow = {"NVDLA_FAULTS": "*=slow", "NVDLA_SLOW_S": "3"}
    assert regress(*small_plan, "-j", "2", "--out", str(tmp_path / "local"), env=slow) == 0
    out = tmp_path / "slurm"
    process = subprocess.Popen([sys.executable, "-m", "ci.cli", "regress", *small_plan, *SLURM, "--out", str(out)],
                               cwd=REPO, env={**os.environ, **cluster.env, **slow}, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    state = out / "batch" / "state.json"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not list((out / "shards" / "01" / "results").glob("*.json")):
        time.sleep(0.2)
    job = json.loads(state.read_text())["shards"][0]["attempts"][0]["job"]
    cluster.scancel(f"{job}_1")  # shard 1/4 is killed with a test done and more to run
    output, _ = process.communicate(timeout=600)
    assert process.returncode == 0, output
    assert "shard 1/4 ended unfinished (CANCELLED" in output and "attempt 2 of 3" in output
    _same_run(out, tmp_path / "local")
    attempts = json.loads(state.read_text())["shards"][0]["attempts"]
    assert [a["ended"] for a in attempts] == ["CANCELLED", "COMPLETED"]
    log = (out / "logs" / "shard-1.log").read_text()
    assert log.count("nvdla-verif: shard 1 on") == 2 and "tests done before" in log


def test_a_shard_past_its_time_limit_is_retried_then_its_tests_are_reported(cluster, small_plan, tmp_path):
    out = tmp_path / "slurm"
    hang = {"NVDLA_FAULTS": "sdp_8x8x32_bypass_int8_0=hang"}
    code = regress(*small_plan, *SLURM, "--time-limit", "1", "--retries", "1", "--out", str(out),
                   env={**cluster.env, **hang})
    assert code == 1
    report = _report(out)
    assert report["counts"]["total"] == 9
    # Round robin over the sorted ids puts the hung trace last in shard 2/4 (after sdp_1x1x8_pass_through_int8_0).
    hung = next(t for t in report["tests"] if t["id"].endswith("sdp_8x8x32_bypass_int8_0"))
    assert hung["status"] == "error" and hung["signature"]["check"] == "no result"
    assert ("no result: shard 2/4 ended 2 times without finishing this test (TIMEOUT on "
            f"{cluster.host}; TIMEOUT on {cluster.host})") in hung["detail"]
    others = [t for t in report["tests"] if t["id"] != hung["id"]]
    assert all(t["status"] == "passed" for t in others), [(t["id"], t["status"]) for t in others]
    assert "no result: shard" in (out / "summary.txt").read_text()


def test_ctrl_c_cancels_the_array_and_resume_finishes_the_run(cluster, small_plan, tmp_path):
    slow = {"NVDLA_FAULTS": "*=slow", "NVDLA_SLOW_S": "2"}
    assert regress(*small_plan, "-j", "2", "--out", str(tmp_path / "local"), env=slow) == 0
    out = tmp_path / "slurm"
    env = {**os.environ, **cluster.env, **slow}
    process = subprocess.Popen([sys.executable, "-m", "ci.cli", "regress", *small_plan, *SLURM, "--out", str(out)],
                               cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=ctrl_c_reaches_it)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not list(out.glob("shards/*/results/*.json")):
        time.sleep(0.2)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    job = json.loads((out / "batch" / "state.json").read_text())["shards"][0]["attempts"][0]["job"]
    assert f"cancelled slurm job {job}" in stderr and "--resume --out" in stderr
    deadline = time.monotonic() + 60
    while cluster.squeue(job).strip() and time.monotonic() < deadline:  # cancelled tasks end within KillWait
        time.sleep(0.5)
    assert cluster.squeue(job).strip() == ""  # nothing of the array is left pending or running
    done = len(list(out.glob("shards/*/results/*.json")))
    assert done < 9
    resumed = subprocess.run([sys.executable, "-m", "ci.cli", "regress", "--resume", "--out", str(out)], cwd=REPO,
                             env=env, capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"{done} tests have a result already" in resumed.stdout
    _same_run(out, tmp_path / "local")
