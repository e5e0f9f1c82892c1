"""kind: fuzz in `regress`: a directed and a random campaign of the same budget on the implementation under test,
judged run by run; the record compares them, the test's report page carries their summaries and the plot."""

from __future__ import annotations

import json

import pytest

from suites.unit.ci.regress_helpers import data_root, faulty_impl, regress, write_plan

pytest.importorskip("hjson")
pytest.importorskip("xdist")

TESTS = """
    {"name": "fuzz_small", "kind": "fuzz", "runs": {"smoke": 3}, "families": ["sdp_reg"], "seeds": "fixed",
     "fixed_seeds": [5]}
"""
POINTS = """
    {"name": "fuzzing", "milestone": "smoke", "desc": "d", "tests": ["fuzz_small"]}
"""


def _run(tmp_path, nvdla_data, impl: str, env: dict | None = None) -> tuple[int, dict, object]:
    plan = write_plan(tmp_path / "plan.hjson", TESTS, POINTS)
    out = tmp_path / "out"
    data = data_root(nvdla_data, tmp_path / "data", names=("sdp_1x1x1_pass_through_int8",))
    code = regress("--plan", str(plan), "--nvdla-data", str(data),
                   "--impl", impl, "--seed", "1", "--out", str(out), "-j", "1", "--shrink", "0", env=env)
    (record,) = json.loads((out / "results.json").read_text())["tests"]
    return code, record, out


@pytest.mark.slow
def test_a_fuzz_test_runs_both_campaigns_and_compares_them(tmp_path, nvdla_data):
    code, record, out = _run(tmp_path, nvdla_data, "golden")
    assert code == 0, record
    assert record["id"] == "fuzz/nv_small/s5_3r" and record["status"] == "passed", record
    assert record["fuzz"]["a_runs"] == record["fuzz"]["b_runs"] == 3
    assert record["fuzz"]["measure"] == "golden covergroup bins"
    for mode in ("directed", "random"):
        assert (out / "fuzz" / "fuzz_nv_small_s5_3r" / mode / "summary.txt").is_file()
    assert "--directed" in record["reproduce"] and "--compare fuzz-random" in record["reproduce"]
    pages = [json.loads(p.read_text()) for p in (out / "allure-results").glob("*-result.json")]
    names = {a["name"] for page in pages for a in page.get("attachments", [])}
    assert {"directed campaign", "random campaign"} <= names


@pytest.mark.slow
def test_a_finding_fails_the_fuzz_test_with_its_signature(tmp_path, nvdla_data):
    code, record, _ = _run(tmp_path, nvdla_data, faulty_impl(), env={"NVDLA_FAULTS": "*=wrong-byte"})
    assert code == 1 and record["status"] == "failed", record
    assert record["signature"] and "findings: directed" in record["detail"]
    assert record["fuzz"]["a_findings"] + record["fuzz"]["b_findings"] >= 1
