"""What regress's summary tells a first-time user (issue 46): why each skipped test did not run, coverage of units
no test ran reported as not applicable or not run instead of as holes, a sign-off row without tests as not run,
and a last line with the verdict and the rule behind the exit status."""

from __future__ import annotations

import json

import pytest

from ci.regression.results import build_report, signoff_lines, summary_text, verdict
from suites.unit.ci.regress_helpers import data_root, regress, write_plan

pytest.importorskip("cocotb_coverage")

MANIFEST = {"plan": "p", "level": "smoke", "seed": 1, "impl": "rtl", "ref": "golden"}
TESTPOINTS = [{"name": "sdp_layers", "milestone": "smoke", "tests": ["sdp"], "covers": ["sdp"]},
              {"name": "other_configurations", "milestone": "smoke", "tests": ["other"],
               "covers": ["nv_small.conv"]},
              {"name": "pooling", "milestone": "smoke", "tests": ["pdp"], "covers": ["pdp"]}]


def _record(item_id: str, status: str, detail: str, coverage: dict | None = None, test: str = "sdp") -> dict:
    return {"id": item_id, "kind": "nvidia_traces", "tests": [test], "testpoints": [{"sdp": "sdp_layers",
            "pdp": "pooling"}.get(test, "other_configurations")], "status": status, "verdict": status,
            "detail": detail, "impl": "rtl", "ref": "golden", "seed": None, "coverage": coverage}


def _report() -> dict:
    records = [
        _record("nvidia/sdp_a", "passed", "1 checks passed", {"nv_small": {"sdp.precision": {"int8->int8": 1}}}),
        _record("nvidia/cdp_a", "skipped", "unsupported: units CDP are not in the fixture",
                {"nv_small": {"cdp.precision": {"int8": 1}}}, "pdp"),
        _record("nvidia/cdp_b", "skipped", "unsupported: units CDP are not in the fixture",
                {"nv_small": {"cdp.local_size": {"3": 1}}}, "pdp"),
        _record("nvidia/img_a", "skipped", "missing file: img_a_dt.dat", None, "pdp"),
        _record("nvidia/pdp_a", "failed", "1 of 1 checks failed", {"nv_small": {"pdp.precision": {"int8": 1}}},
                "pdp"),
    ]
    return build_report(MANIFEST, records, TESTPOINTS, [])


def test_the_summary_names_each_skipped_test_with_why_grouped():
    text = summary_text(_report())
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("skipped"))
    block = lines[start:start + 6]
    assert any("2" in line and "unsupported: units CDP are not in the fixture" in line for line in block), block
    assert any("missing file: img_a_dt.dat" in line for line in block), block
    assert {"nvidia/cdp_a", "nvidia/cdp_b", "nvidia/img_a"} <= {line.strip() for line in block}, block


def test_coverage_of_units_no_test_ran_is_not_shown_as_holes():
    report = _report()
    text = summary_text(report)
    groups = report["coverage"]["functional"]["nv_small"]
    assert "not_run" not in groups["sdp"] and "not_run" not in groups["pdp"]  # passed, and a failure: holes
    assert groups["cdp"]["not_run"].startswith("not applicable")  # only skipped tests reach it
    assert groups["conv"]["not_run"].startswith("not run")  # no test reaches it
    assert "hole cdp." not in text and "hole conv." not in text
    assert "hole pdp." in text and "hole sdp." in text
    aside = [line for line in text.splitlines() if "nv_small.cdp" in line or "nv_small.conv" in line]
    assert len(aside) == 2 and "%" not in "".join(aside), aside


def test_a_testpoint_whose_tests_did_not_run_is_not_run_in_the_signoff_not_a_hole():
    rows = signoff_lines(_report()["signoff"])
    other = next(line for line in rows if "other_configurations" in line)
    assert "not run (no tests)" in other and "%" not in other, other
    pooling = next(line for line in rows if "pooling" in line)
    assert "%" in pooling  # a failed test ran: its coverage is measured


def test_the_verdict_line_says_the_rule_behind_the_exit_status():
    report = _report()
    code, line = verdict(report)
    assert code == 1 and line.startswith("regress: FAILED: 1 passed, 1 failed of 5 tests (exit 1: "), line
    assert "not run: 3 skipped" in line
    report["counts"].update(failed=0, passed=2)
    code, line = verdict(report)
    assert code == 0 and line.startswith("regress: PASSED: 2 passed of 5 tests (exit 0: "), line
    code, line = verdict(report, pytest_exit=3)
    assert code == 1 and "pytest session ended with exit 3" in line, line


TESTS = '{"name": "traces", "kind": "nvidia_traces", "glob": "trace_tests/nv_small/*/*.cfg"}'
POINTS = '{"name": "traces", "stage": "smoke", "desc": "a passing and a skipped trace", "tests": ["traces"]}'


def test_a_green_run_ends_with_its_verdict_and_lists_its_skipped_test(nvdla_data, tmp_path, capsys):
    pytest.importorskip("xdist")
    root = data_root(nvdla_data, tmp_path / "data", ("sdp_1x1x1_pass_through_int8",
                                                     "img_51x96x4_1x10x4x32_A8B8G8R8_int8_0"))  # lacks a data file
    plan = write_plan(tmp_path / "plan.hjson", TESTS, POINTS)
    out = tmp_path / "out"
    assert regress("--plan", str(plan), "--nvdla-data", str(root), "--impl", "golden", "--seed", "1",
                   "--out", str(out), "--shrink", "0") == 0
    printed = capsys.readouterr().out.strip().splitlines()
    assert printed[-1].startswith("regress: PASSED: 1 passed of 2 tests (exit 0: "), printed[-1]
    assert "not run: 1 skipped" in printed[-1]
    summary = (out / "summary.txt").read_text()
    assert "missing file" in summary and "img_51x96x4_1x10x4x32_A8B8G8R8_int8_0" in summary
    assert json.loads((out / "results.json").read_text())["counts"]["skipped"] == 1
    assert "hole conv." not in summary  # no test reached the convolution pipeline's covergroups
