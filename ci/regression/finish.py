"""After the tests: the report files of a run (or of merged shards), the Allure categories and the HTML report.

    finish(out, manifest, records) -> report dict   writes results.json, summary.txt, signoff.txt, coverage.txt,
                                                    the Allure categories and the sign-off as an Allure result
"""

from __future__ import annotations

import json
import re
import time
from html import escape
from pathlib import Path

from ci.regression import code_coverage
from ci.regression.coverage import coverage_text
from ci.regression.results import (
    build_report,
    coverage_cell,
    previous_runs,
    shrunk_cases,
    signoff_lines,
    summary_text,
    write_junit,
)

#: Files of the sign-off's Allure result; report merge leaves the shards' copies out and writes its own.
SIGNOFF_PREFIX = "nvdla-signoff"


def finish(out: Path, manifest: dict, records: list[dict], extra_meta: dict | None = None) -> dict:
    report = build_report(manifest, records, manifest["testpoints"], manifest["unavailable"], previous_runs(out),
                          shrunk_cases(out))
    report["meta"].update(extra_meta or {})
    report["coverage"]["code"] = code_coverage.merge_run(out / "rtl-coverage", out / "rtl-coverage.dat")
    (out / "results.json").write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    write_junit(out / "junit.xml", report["tests"], f"nvdla-verif {manifest['level']}")
    text = summary_text(report, out)
    (out / "summary.txt").write_text(text + "\n")
    (out / "signoff.txt").write_text("\n".join(signoff_lines(report["signoff"])
                                               + code_coverage.lines(report["coverage"]["code"])) + "\n")
    (out / "coverage.txt").write_text(coverage_text(report["coverage"]["functional"]))
    allure_dir = out / "allure-results"
    if allure_dir.is_dir():
        write_categories(allure_dir, report["buckets"])
        write_environment(allure_dir, report["meta"])
        write_signoff_result(allure_dir, report, out)
    return report


def categories(buckets: list[dict]) -> list[dict]:
    """One Allure category per triage bucket (the test's message holds "[signature]"), then the rest.

    The regular expression must mean the same in Allure 3 (JavaScript, searched) and Allure 2 (Java, matched
    whole): no inline flags, [\\s\\S] for any character."""
    rules = [{"name": f"{b['signature']} ({b['count']})", "matchedStatuses": ["failed", "broken"],
              "messageRegex": f"[\\s\\S]*\\[{re.escape(b['signature'])}\\][\\s\\S]*"} for b in buckets]
    rules.append({"name": "Other failures", "matchedStatuses": ["failed", "broken"]})
    return rules


def write_categories(allure_dir: Path, buckets: list[dict]) -> None:
    (allure_dir / "categories.json").write_text(json.dumps(categories(buckets), indent=1) + "\n")


def write_environment(allure_dir: Path, meta: dict) -> None:
    lines = [f"{key}={meta[key]}" for key in ("plan", "level", "seed", "impl", "ref", "profile", "rtl_profile")
             if meta.get(key) is not None]
    (allure_dir / "environment.properties").write_text("\n".join(lines) + "\n")


def signoff_csv(rows: list[dict]) -> str:
    lines = ["testpoint,stage,tests,passed,ran,pass rate,coverage,cover points"]
    for row in rows:
        rate = "" if row["pass_rate"] is None else f"{100 * row['pass_rate']:.0f}%"
        cells = [row["testpoint"], row["stage"], " ".join(row["tests"]), str(row["passed"]), str(row["ran"]), rate,
                 coverage_cell(row), " ".join(row["covers"])]
        lines.append(",".join('"' + cell.replace('"', '""') + '"' for cell in cells))
    return "\n".join(lines) + "\n"


def _share(pair: list[int]) -> str:
    return f"{100 * pair[0] / pair[1]:.1f}% ({pair[0]}/{pair[1]})" if pair[1] else "-"


def write_signoff_result(allure_dir: Path, report: dict, out: Path) -> None:
    """The sign-off table and the coverage holes as one Allure test result ("testplan sign-off"), with the
    table as its description and as a CSV attachment (Allure shows CSV as a table)."""
    for old in allure_dir.glob(f"{SIGNOFF_PREFIX}*"):
        old.unlink()
    rows = report["signoff"]
    table = ["<table><tr><th>testpoint</th><th>stage</th><th>passed/ran</th><th>pass rate</th>"
             "<th>coverage of its cover points</th><th>tests</th></tr>"]
    for row in rows:
        rate = "-" if row["pass_rate"] is None else f"{100 * row['pass_rate']:.0f}%"
        table.append(f"<tr><td>{escape(row['testpoint'])}</td><td>{row['stage']}</td>"
                     f"<td>{row['passed']}/{row['ran']}</td><td>{rate}</td><td>{escape(coverage_cell(row))}</td>"
                     f"<td>{escape(', '.join(row['tests']))}</td></tr>")
    table.append("</table>")
    code = report["coverage"]["code"]
    if code:
        table.append(f"<p>Code coverage of the RTL (Verilator, {code['tests']} tests, {escape(code['merged_by'])})"
                     "</p><table><tr><th>unit</th><th>line (blocks, branches)</th><th>toggle</th></tr>")
        for unit, row in [*code["units"].items(), ("all", code["total"])]:
            table.append(f"<tr><td>{escape(unit)}</td><td>{_share(row['line'])}</td><td>{_share(row['toggle'])}"
                         "</td></tr>")
        table.append("</table>")
    (allure_dir / f"{SIGNOFF_PREFIX}-table-attachment.csv").write_text(signoff_csv(rows))
    (allure_dir / f"{SIGNOFF_PREFIX}-holes-attachment.txt").write_text((out / "coverage.txt").read_text())
    failing = report["counts"]["failed"] + report["counts"]["error"]
    meta = report["meta"]
    result = {
        "uuid": f"{SIGNOFF_PREFIX}-0", "historyId": "nvdla-testplan-signoff", "testCaseId": "nvdla-testplan-signoff",
        "name": "testplan sign-off", "fullName": f"{meta['plan']}: testplan sign-off",
        # "unknown", not "failed": the sign-off is no test, and a failed one would land in a triage category
        "status": "unknown" if failing else "passed", "stage": "finished",
        "statusDetails": {"message": f"{failing} tests failed or errored" if failing else "every test ran passed"},
        "descriptionHtml": "".join(table),
        "labels": [{"name": "parentSuite", "value": "testplan"}, {"name": "suite", "value": "sign-off"}],
        "attachments": [
            {"name": "sign-off table", "source": f"{SIGNOFF_PREFIX}-table-attachment.csv", "type": "text/csv"},
            {"name": "functional coverage and holes", "source": f"{SIGNOFF_PREFIX}-holes-attachment.txt",
             "type": "text/plain"}],
        "start": int(time.time() * 1000), "stop": int(time.time() * 1000),
    }
    (allure_dir / f"{SIGNOFF_PREFIX}-result.json").write_text(json.dumps(result, indent=1) + "\n")
