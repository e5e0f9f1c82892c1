"""Shards: four shards run one after another and merged (nvdla-verif report merge) give the same tests,
verdicts, triage buckets, sign-off and functional coverage as one unsharded run with the same seed; history
compares a run with the previous one in the same folder."""

from __future__ import annotations

import json

import pytest

from ci.cli import main as cli
from ci.regression.results import content
from suites.unit.ci.regress_helpers import after_invocation, data_root, faulty_impl, regress, write_plan

pytest.importorskip("hjson")
pytest.importorskip("xdist")
pytestmark = pytest.mark.slow  # every test reads the module's five regress runs and a merge (about a minute)

TESTS = """
    {"name": "traces", "kind": "nvidia_traces", "glob": "trace_tests/nv_small/*/*.cfg"}
    {"name": "random", "kind": "random_sdp", "layers": 1, "seeds": "per_run", "count": {"smoke": 3}}
"""
POINTS = """
    {"name": "sdp", "stage": "smoke", "desc": "shards (README Nightly regression)", "tests": ["traces", "random"],
     "covers": ["nv_small.sdp.width", "sdp.BS.*", "no_such.point"]}
"""
BROKEN = "sdp_3x3x33_bs_int8_reg_0=wrong-byte,sdp_4x22x42_bypass_int8=wrong-byte,sdp_1x1x1_pass_through_int8=crash"


@pytest.fixture(scope="module")
def runs(nvdla_data, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("shards")
    root = data_root(nvdla_data, tmp / "data")
    plan = write_plan(tmp / "plan.hjson", TESTS, POINTS)
    common = ["--plan", str(plan), "--nvdla-data", str(root), "--impl", faulty_impl(), "--ref", "golden",
              "--seed", "77"]
    env = {"NVDLA_FAULTS": BROKEN}
    codes = {"single": regress(*common, "--out", str(tmp / "single"), "-j", "2", env=env)}
    for index in range(1, 5):
        codes[index] = regress(*common, "--shard", f"{index}/4", "--out", str(tmp / f"shard{index}"), env=env)
    codes["merged"] = cli(["report", "merge", *(str(tmp / f"shard{i}") for i in range(1, 5)),
                           "--out", str(tmp / "merged")])
    return tmp, codes, common


def _report(folder):
    return json.loads((folder / "results.json").read_text())


def test_four_merged_shards_equal_one_run(runs):
    tmp, codes, _ = runs
    single, merged = _report(tmp / "single"), _report(tmp / "merged")
    assert codes["single"] == 1 and codes["merged"] == 1
    assert single["counts"]["total"] == 9 and single["counts"]["failed"] == 2 and single["counts"]["error"] == 1
    shard_sizes = [_report(tmp / f"shard{i}")["counts"]["total"] for i in range(1, 5)]
    assert sum(shard_sizes) == 9 and all(size in (2, 3) for size in shard_sizes)
    assert content(merged) == content(single)
    assert (tmp / "merged" / "junit.xml").read_text().count("<testcase") == 9


def test_merged_functional_coverage_is_the_one_run_coverage(runs):
    tmp, _, _ = runs
    single, merged = _report(tmp / "single"), _report(tmp / "merged")
    assert merged["coverage"] == single["coverage"] and merged["signoff"] == single["signoff"]
    shards = [_report(tmp / f"shard{i}")["coverage"]["hits"]["nv_small"] for i in range(1, 5)]
    hits = single["coverage"]["hits"]["nv_small"]
    # Every offline nv_small SDP layer hits the one precision bin once; only passed tests count.
    passed = [r for r in single["tests"] if r["status"] == "passed"]
    layers = sum(r["layers_sampled"] for r in passed)
    assert len(passed) == 6 and layers >= 6
    assert hits["sdp.precision"] == {"int8->int8": layers}
    assert sum(s.get("sdp.precision", {}).get("int8->int8", 0) for s in shards) == layers
    failed = [r for r in single["tests"] if r["status"] == "failed"]
    assert all(r["coverage"]["nv_small"]["sdp.precision"] for r in failed)  # sampled, yet not merged
    row = single["signoff"][0]["coverage"]
    assert row["unknown"] == ["no_such.point"] and 0 < row["hit"] < row["bins"]
    functional = single["coverage"]["functional"]["nv_small"]["sdp"]
    assert functional["point_hit"] + functional["cross_hit"] < functional["point_bins"] + functional["cross_bins"]
    assert "nv_small.sdp" in (tmp / "merged" / "coverage.txt").read_text()
    assert "no_such.point" in (tmp / "merged" / "signoff.txt").read_text()
    assert "no_such.point" in (tmp / "merged" / "signoff.csv").read_text()  # the report's global attachment
    names = [json.loads(f.read_text())["name"] for f in (tmp / "merged" / "allure-results").glob("*-result.json")]
    assert "testplan sign-off" not in names and len(names) == len(single["tests"])


def test_failures_are_bucketed_with_the_smallest_case_and_a_reproduce_command(runs):
    tmp, _, _ = runs
    buckets = _report(tmp / "single")["buckets"]
    assert [b["count"] for b in buckets] == [2, 1]
    wrong = buckets[0]
    assert wrong["parts"]["unit"] == "SDP" and wrong["parts"]["check"] == "scoreboard"
    assert wrong["parts"]["implementation"] == "command"
    assert wrong["tests"] == ["nvidia/nv_small/sdp_3x3x33_bs_int8_reg_0", "nvidia/nv_small/sdp_4x22x42_bypass_int8"]
    assert wrong["smallest"] == "nvidia/nv_small/sdp_3x3x33_bs_int8_reg_0"  # 3x3x33 is smaller than 4x22x42
    assert after_invocation(wrong["reproduce"])[0] == "conform"
    assert "sdp_3x3x33_bs_int8_reg_0.cfg" in wrong["reproduce"]
    crash = buckets[1]
    assert crash["parts"]["check"] == "error" and "killed by signal #" in crash["parts"]["pattern"]
    categories = json.loads((tmp / "single" / "allure-results" / "categories.json").read_text())
    assert [c["name"] for c in categories[:2]] == [f"{b['signature']} ({b['count']})" for b in buckets]


def test_shards_of_different_runs_are_refused(runs, capsys):
    tmp, _, common = runs
    other = tmp / "other-seed"
    regress(*[a if a != "77" else "78" for a in common], "--shard", "1/4", "--out", str(other), "--test", "random*")
    assert cli(["report", "merge", str(tmp / "shard1"), str(other), "--out", str(tmp / "bad")]) == 2
    assert "shards of different runs: seed" in capsys.readouterr().err


def test_history_names_new_fixed_still_failing_and_flaky(runs):
    tmp, _, common = runs
    out = tmp / "single"  # its first run had BROKEN; now sdp_4x22x42 is fixed and sdp_8x8x32 newly broken
    now = "sdp_3x3x33_bs_int8_reg_0=wrong-byte,sdp_8x8x32_bypass_int8_0=wrong-byte,sdp_1x1x1_pass_through_int8=crash"
    regress(*common, "--out", str(out), "--test", "nvidia/*", env={"NVDLA_FAULTS": now})
    history = _report(out)["history"]
    assert history["new_failures"] == ["nvidia/nv_small/sdp_8x8x32_bypass_int8_0"]
    assert history["fixed"] == ["nvidia/nv_small/sdp_4x22x42_bypass_int8"]
    assert history["still_failing"] == ["nvidia/nv_small/sdp_1x1x1_pass_through_int8",
                                        "nvidia/nv_small/sdp_3x3x33_bs_int8_reg_0"]
    assert history["flaky"] == []
    regress(*common, "--out", str(out), "--test", "nvidia/*", env={"NVDLA_FAULTS": BROKEN})
    assert _report(out)["history"]["flaky"] == ["nvidia/nv_small/sdp_4x22x42_bypass_int8",
                                                "nvidia/nv_small/sdp_8x8x32_bypass_int8_0"]
