"""Soft-fail: a test that raises, an external implementation that hangs and one that crashes each give that
test its own failed/error verdict, the others pass, and the run's exit status says something failed."""

from __future__ import annotations

import json

import pytest

from suites.unit.ci.regress_helpers import data_root, faulty_impl, regress, write_plan

pytest.importorskip("hjson")
pytest.importorskip("xdist")

TESTS = """
    {"name": "traces", "kind": "nvidia_traces", "glob": "trace_tests/nv_small/*/*.cfg"}
    {"name": "generator_bug", "kind": "random_sdp", "layers": 3, "seeds": "fixed", "fixed_seeds": [1]}
"""
POINTS = """
    {"name": "faults", "stage": "smoke", "desc": "soft-fail (README Nightly regression)",
     "tests": ["traces", "generator_bug"]}
"""


@pytest.mark.slow
def test_a_raising_a_hanging_and_a_crashing_test_do_not_stop_the_run(nvdla_data, tmp_path, capsys):
    root = data_root(nvdla_data, tmp_path / "data", ("sdp_1x1x1_pass_through_int8", "sdp_1x1x8_pass_through_int8_0",
                                                     "sdp_8x8x32_bypass_int8_0", "sdp_3x3x33_bs_int8_reg_0"))
    plan = write_plan(tmp_path / "plan.hjson", TESTS, POINTS)
    faults = "sdp_1x1x8_pass_through_int8_0=hang,sdp_8x8x32_bypass_int8_0=crash"
    out = tmp_path / "out"
    code = regress("--plan", str(plan), "--nvdla-data", str(root), "--impl", faulty_impl(), "--ref", "golden",
                   "--seed", "3", "--out", str(out), "-j", "2", "--timeout-scale", "0.05",
                   env={"NVDLA_FAULTS": faults})
    assert code == 1
    report = json.loads((out / "results.json").read_text())
    by_id = {r["id"]: r for r in report["tests"]}
    assert set(by_id) == {"nvidia/nv_small/sdp_1x1x1_pass_through_int8",
                          "nvidia/nv_small/sdp_1x1x8_pass_through_int8_0", "nvidia/nv_small/sdp_8x8x32_bypass_int8_0",
                          "nvidia/nv_small/sdp_3x3x33_bs_int8_reg_0", "random_sdp/s1_3l"}
    hang = by_id["nvidia/nv_small/sdp_1x1x8_pass_through_int8_0"]
    assert hang["status"] in ("failed", "error") and "did not finish within" in hang["detail"], hang
    crash = by_id["nvidia/nv_small/sdp_8x8x32_bypass_int8_0"]
    assert crash["status"] == "error" and "killed by signal 11" in crash["detail"], crash
    raised = by_id["random_sdp/s1_3l"]
    assert raised["status"] == "error" and "RuntimeError" in raised["detail"], raised
    for ok in ("sdp_1x1x1_pass_through_int8", "sdp_3x3x33_bs_int8_reg_0"):
        assert by_id[f"nvidia/nv_small/{ok}"]["status"] == "passed", by_id[f"nvidia/nv_small/{ok}"]
    assert report["counts"] == {"passed": 2, "failed": hang["status"] == "failed",
                                "error": 2 + (hang["status"] == "error"), "skipped": 0, "not applicable": 0,
                                "total": 5}
    junit = (out / "junit.xml").read_text()
    assert junit.count("<testcase") == 5
    printed = capsys.readouterr().out
    assert "regress smoke: seed 3" in printed and "failure buckets" in printed
    assert "regress: [5/5] " in printed  # the progress line of the last test
    last = printed.strip().splitlines()[-1]
    assert last.startswith("regress: FAILED: 2 passed, ") and "(exit 1: a test failed or errored" in last, last
