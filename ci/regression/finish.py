"""After the tests: the report files of a run (or of merged shards), the Allure categories and the HTML report.

    finish(out, manifest, records) -> report dict   writes results.json, junit.xml, summary.txt, signoff.txt and
                                                    signoff.csv, coverage.txt, and the Allure categories and
                                                    environment (the sign-off is the HTML report's global
                                                    attachment, ci/regression/html.py: no test), and each test's
                                                    page from its record (ci/regression/report_page.py)
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ci.regression import code_coverage, kinds, report_page
from ci.regression.coverage import coverage_text
from ci.regression.report_page import ALLURE
from ci.regression.results import (
    build_report,
    coverage_cell,
    previous_runs,
    shrunk_cases,
    signoff_lines,
    summary_text,
    write_junit,
)
from golden.status import FAILING


def finish(out: Path, manifest: dict, records: list[dict], extra_meta: dict | None = None) -> dict:
    report = build_report(manifest, records, manifest["testpoints"], manifest["unavailable"], previous_runs(out),
                          shrunk_cases(out), kinds.having("shrinkable"), kinds.having("mutant_runs"))
    report["meta"].update(extra_meta or {})
    report["coverage"]["code"] = code_coverage.merge_run(out / "rtl-coverage", out / "rtl-coverage.dat")
    (out / "results.json").write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    write_junit(out / "junit.xml", report["tests"], f"nvdla-verif {manifest['level']}")
    text = summary_text(report, out)
    (out / "summary.txt").write_text(text + "\n")
    (out / "signoff.csv").write_text(signoff_csv(report["signoff"]))
    (out / "signoff.txt").write_text("\n".join(signoff_lines(report["signoff"])
                                               + code_coverage.lines(report["coverage"]["code"])) + "\n")
    (out / "coverage.txt").write_text(coverage_text(report["coverage"]["functional"],
                                                     report["coverage"].get("directed")))
    allure_dir = out / "allure-results"
    if allure_dir.is_dir():
        write_categories(allure_dir, report["buckets"])
        write_environment(allure_dir, report["meta"])
        report_page.rewrite(allure_dir, records, shrunk_layers(report["buckets"]), out)
    return report


def categories(buckets: list[dict]) -> list[dict]:
    """One Allure category per triage bucket (the test's message holds "[signature]"), then the rest.

    The regular expression must mean the same in Allure 3 (JavaScript, searched) and Allure 2 (Java, matched
    whole): no inline flags, [\\s\\S] for any character."""
    failing = [ALLURE[status] for status in FAILING]
    rules = [{"name": f"{b['signature']} ({b['count']})", "matchedStatuses": failing,
              "messageRegex": f"[\\s\\S]*\\[{re.escape(b['signature'])}\\][\\s\\S]*"} for b in buckets]
    rules.append({"name": "Other failures", "matchedStatuses": failing})
    return rules


def write_categories(allure_dir: Path, buckets: list[dict]) -> None:
    (allure_dir / "categories.json").write_text(json.dumps(categories(buckets), indent=1) + "\n")


def write_environment(allure_dir: Path, meta: dict) -> None:
    lines = [f"{key}={meta[key]}" for key in ("plan", "level", "seed", "impl", "ref", "profile", "rtl_profile")
             if meta.get(key) is not None]
    (allure_dir / "environment.properties").write_text("\n".join(lines) + "\n")


def signoff_csv(rows: list[dict]) -> str:
    lines = ["testpoint,milestone,tests,passed,ran,pass rate,coverage,cover points"]
    for row in rows:
        rate = "" if row["pass_rate"] is None else f"{100 * row['pass_rate']:.0f}%"
        cells = [row["testpoint"], row["milestone"], " ".join(row["tests"]), str(row["passed"]), str(row["ran"]), rate,
                 coverage_cell(row), " ".join(row["covers"])]
        lines.append(",".join('"' + cell.replace('"', '""') + '"' for cell in cells))
    return "\n".join(lines) + "\n"


def shrunk_layers(buckets: list[dict]) -> dict[str, dict]:
    """{test id: its bucket's shrunk layer} (shrinking runs after the tests), for the page of the test it was shrunk
    from."""
    return {b["shrunk"]["id"]: b["shrunk"] for b in buckets if b.get("shrunk", {}).get("path")}
