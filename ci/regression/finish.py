"""After the tests: the report files of a run (or of merged shards), the Allure categories and the HTML report.

    finish(out, manifest, records) -> report dict   writes results.json, summary.txt, allure categories
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ci.regression.results import build_report, previous_runs, summary_text


def finish(out: Path, manifest: dict, records: list[dict], extra_meta: dict | None = None) -> dict:
    report = build_report(manifest, records, manifest["testpoints"], manifest["unavailable"], previous_runs(out))
    report["meta"].update(extra_meta or {})
    (out / "results.json").write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    text = summary_text(report, out)
    (out / "summary.txt").write_text(text + "\n")
    allure_dir = out / "allure-results"
    if allure_dir.is_dir():
        write_categories(allure_dir, report["buckets"])
        write_environment(allure_dir, report["meta"])
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
    lines = [f"{key}={meta[key]}" for key in ("plan", "level", "seed", "impl", "ref", "profile") if key in meta]
    (allure_dir / "environment.properties").write_text("\n".join(lines) + "\n")
