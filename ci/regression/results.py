"""A run's results on disk and the report built from them (the same code for one run and for merged shards).

    OUT/manifest.json        what the run was asked to do: plan, level, seed, implementations, shard, items
    OUT/results/ID.json      one record per item, written by the test as it finishes (ci/regression/engine.py)
    OUT/pytest-junit.xml     pytest's JUnit XML of the last pytest session (fills in the records of tests whose
                             worker crashed)
    OUT/junit.xml            the run's JUnit XML, written from the records: every test, however many sessions
                             (a resumed run, merged shards) it took
    OUT/results.json         the report: meta, tests (sorted by id), triage buckets, sign-off, coverage, history
    OUT/summary.txt          the plain-text summary printed at the end
    OUT/history/*.json       earlier runs' results.json in this folder, for new/fixed/still failing/flaky
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Collection
from pathlib import Path

from ci import shell
from ci.final import final_line, numbers
from ci.regression import coverage as functional
from ci.regression.code_coverage import lines as code_lines
from ci.regression.record import Finding, Record
from ci.regression.signature import KEPT_FOLDER, normalise, shortened, text
from golden.errors import NvdlaVerifError
from golden.status import FAILING, RecordStatus

PYTEST_JUNIT = "pytest-junit.xml"
#: A test's status in its record (golden.status.RecordStatus) that says nothing was judged (skipped: the test cannot
#: run here, e.g. unsupported by the implementation; not applicable: made for a profile the implementation under
#: test is not).
NOT_RUN = (RecordStatus.SKIPPED, RecordStatus.NOT_APPLICABLE)
#: A record's status in JUnit XML: the element its testcase holds (a passed test: none). Read back (pytest's own
#: JUnit XML), an element is the first status that writes it; a testcase without one passed.
JUNIT = {RecordStatus.FAILED: "failure", RecordStatus.ERROR: "error", RecordStatus.SKIPPED: "skipped",
         RecordStatus.NOT_APPLICABLE: "skipped"}
HISTORY_KEPT = 10
#: Fields of the report that say how and where a run ran, not what it found (left out when comparing content).
RUN_FIELDS = ("shard", "started", "wall_s", "out", "jobs", "history", "merged_from", "launcher")
#: The error of a test that has no result.
NO_RESULT = "no result: the run stopped before this test finished"
COVERAGE_NOTE = ("functional: the stimulus covergroups (stimulus/coverage.py) sampled from every layer the golden "
                 "model ran for a passed test (NVIDIA traces and generated layers; the fixture mutants verify the "
                 "bench and are not sampled)")


def shrunk_file(out: Path, item_id: str) -> Path:
    """Where ci/regression/shrink.py leaves what shrinking an item gave (its trace beside, in OUT/shrunk/)."""
    return out / "shrunk" / (item_id.replace("/", "__") + ".json")


def shrunk_cases(out: Path) -> dict[str, dict]:
    folder = out / "shrunk"
    cases = [json.loads(f.read_text()) for f in sorted(folder.glob("*.json"))] if folder.is_dir() else []
    return {case["id"]: case for case in cases}


def record_file(out: Path, item_id: str) -> Path:
    return out / "results" / (item_id.replace("/", "__") + ".json")


def write_record(out: Path, record: dict) -> None:
    path = record_file(out, record["id"])
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    tmp.replace(path)


def collect_records(out: Path, manifest: dict, missing: str | None = None) -> list[dict]:
    """The record of every item of the manifest; a test whose worker died gets one from the JUnit XML, one
    that never ran an error record saying why (`missing`, else that the run stopped before it)."""
    junit = _junit_outcomes(out / PYTEST_JUNIT)
    records = []
    for item in manifest["items"]:
        path = record_file(out, item["id"])
        if path.is_file():
            records.append(json.loads(path.read_text()))
            continue
        status, message = junit.get(item["id"], (RecordStatus.ERROR, missing or NO_RESULT))
        # a test its batch shard never finished, however often submitted, is no crash of the implementation
        verdict = Finding.NO_RESULT if missing and item["id"] not in junit else Finding.CRASH
        signature = {"unit": "?", "implementation": manifest["impl"], "check": verdict,
                     "pattern": normalise(message)} if status in FAILING else None
        records.append(Record.unfinished(item, manifest, status, verdict, message, signature).to_json())
    return records


#: How a not-applicable test's message starts wherever it is shown (pytest's skip, JUnit, the progress line).
NOT_APPLICABLE = "not applicable: "


def record_message(record: dict) -> str:
    """A test's message as the reports show it: why it was not applicable, its triage bucket, its detail."""
    prefix = NOT_APPLICABLE if record["status"] == RecordStatus.NOT_APPLICABLE else ""
    signature = f"[{text(record['signature'])}] " if record.get("signature") else ""
    return f"{prefix}{signature}{record['detail']}"


def write_junit(path: Path, records: list[dict], name: str) -> None:
    """The JUnit XML of the run from its records (sorted by id): one testcase per test, its failure, error or
    skip with the record's detail, so that a resumed or merged run gives the file an uninterrupted run gives."""
    records = sorted(records, key=lambda r: r["id"])
    tags = [JUNIT.get(r["status"]) for r in records]
    suite = ET.Element("testsuite", name=name, tests=str(len(records)),
                       failures=str(tags.count(JUNIT[RecordStatus.FAILED])),
                       errors=str(tags.count(JUNIT[RecordStatus.ERROR])),
                       skipped=str(tags.count(JUNIT[RecordStatus.SKIPPED])),
                       time=f"{sum(r.get('seconds') or 0.0 for r in records):.3f}")
    for r in records:
        case = ET.SubElement(suite, "testcase", classname=f"regression.{r['kind']}", name=r["id"],
                             time=f"{r.get('seconds') or 0.0:.3f}")
        tag = JUNIT.get(r["status"])
        if tag:
            message = record_message(r)
            element = ET.SubElement(case, tag, message=message.splitlines()[0][:300] if message else tag)
            element.text = message
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def _junit_outcomes(path: Path) -> dict[str, tuple[str, str]]:
    if not path.is_file():
        return {}
    outcomes = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        name = case.get("name", "")
        if "[" not in name:
            continue
        item_id = name[name.index("[") + 1:-1]
        for status, tag in JUNIT.items():
            node = case.find(tag)
            if node is not None:
                outcomes[item_id] = (status, (node.get("message") or "").splitlines()[0][:300] if node.get(
                    "message") else tag)
                break
        else:
            outcomes[item_id] = (RecordStatus.PASSED, "")
    return outcomes


def build_report(manifest: dict, records: list[dict], plan_testpoints: list[dict], unavailable: list[str],
                 previous: list[dict] | None = None, shrunk: dict | None = None,
                 shrinkable: Collection[str] = (), mutant_runs: Collection[str] = ()) -> dict:
    """The run's report; `shrinkable` and `mutant_runs` name the test kinds that declare those flags
    (ci/regression/kinds/base.py TestKind: the caller asks the kind registry, which this module cannot import)."""
    records = sorted(records, key=lambda r: r["id"])
    counts: dict[str, int] = {s: sum(r["status"] == s for r in records) for s in RecordStatus}
    counts["total"] = len(records)
    meta = {k: manifest.get(k) for k in ("plan", "level", "seed", "impl", "ref", "profile", "rtl_profile",
                                         "plan_items")}
    hits = functional.merged_hits(records)
    note = COVERAGE_NOTE
    try:
        rows = signoff(plan_testpoints, records, unavailable, hits)
        measured = functional.functional_report(hits, functional.reached_by(records))
    except NvdlaVerifError as exc:  # no cocotb-coverage here: the counts are kept, nothing is judged
        rows, measured, note = signoff(plan_testpoints, records, unavailable, None), {}, str(exc)
    report = {"meta": meta, "counts": counts, "tests": records, "buckets": buckets(records, shrunk, shrinkable),
              "mutants": mutant_table(records, mutant_runs), "signoff": rows, "unavailable": unavailable,
              "coverage": {"functional": measured, "hits": hits, "code": None, "note": note,
                           "directed": functional.directed_report(manifest.get("directed"), measured)}}
    report["history"] = history(records, previous or [])
    return report


def buckets(records: list[dict], shrunk: dict | None = None, shrinkable: Collection[str] = ()) -> list[dict]:
    """Failures grouped by signature, the largest bucket first; each with its smallest failing case and, when
    the bucket holds records of a shrinkable kind (`shrinkable`: their kinds' names), the smallest of them
    shrunk (`shrunk`: ci/regression/shrink.py)."""
    groups: dict[str, list[dict]] = {}
    for r in records:
        if r["status"] in FAILING and r.get("signature"):
            groups.setdefault(text(r["signature"]), []).append(r)
    out = []
    for signature, members in groups.items():
        smallest = min(members, key=lambda r: (r.get("size_bytes") or 0, r["id"]))
        entry = {"signature": signature, "parts": members[0]["signature"], "count": len(members),
                 "tests": sorted(r["id"] for r in members), "smallest": smallest["id"],
                 "reproduce": smallest.get("reproduce", "")}
        generated = sorted((r for r in members if r["kind"] in shrinkable),
                           key=lambda r: (r.get("size_bytes") or 0, r["id"]))
        if generated and shrunk and generated[0]["id"] in shrunk:
            entry["shrunk"] = shrunk[generated[0]["id"]]
        out.append(entry)
    return sorted(out, key=lambda b: (-b["count"], b["signature"]))


def mutant_table(records: list[dict], mutant_runs: Collection[str]) -> list[dict]:
    """A row per fixture mutant run (records of the kinds named in `mutant_runs`)."""
    rows = []
    for r in records:
        if r["kind"] not in mutant_runs or r["status"] in NOT_RUN:
            continue
        caught = r.get("caught_by", [])
        signatures = sorted({text(c["signature"]) for c in caught})
        rows.append({"mutant": r["id"].split("/", 1)[1], "caught": r["verdict"] == Finding.CAUGHT,
                     "status": r["status"], "layers": [c["layer"] for c in caught], "buckets": signatures,
                     "detail": r["detail"][:200]})
    return rows


def signoff(testpoints: list[dict], records: list[dict], unavailable: list[str],
            hits: dict | None = None) -> list[dict]:
    rows = []
    for tp in testpoints:
        mine = [r for r in records if tp["name"] in r["testpoints"]]
        ran = [r for r in mine if r["status"] not in NOT_RUN]
        passed = sum(r["status"] == RecordStatus.PASSED for r in ran)
        missing = [t for t in tp["tests"] if t in unavailable]
        rows.append({"testpoint": tp["name"], "milestone": tp["milestone"], "tests": tp["tests"], "items": len(mine),
                     "ran": len(ran), RecordStatus.PASSED: passed,
                     **{s: sum(r["status"] == s for r in mine) for s in NOT_RUN},
                     "pass_rate": round(passed / len(ran), 4) if ran else None,
                     "not_available": missing, "covers": tp.get("covers", []),
                     "coverage": functional.testpoint_coverage(tp.get("covers", []), hits)
                     if hits is not None else None})
    return rows


def history(records: list[dict], previous: list[dict]) -> dict:
    """Compared with the previous runs in the same folder (newest first): new/fixed/still failing/flaky."""
    now = {r["id"]: r["status"] for r in records}
    if not previous:
        return {"compared_with": None, "new_failures": [], "fixed": [], "still_failing": [], "flaky": []}
    last = {r["id"]: r["status"] for r in previous[0]["tests"]}
    new = sorted(i for i, s in now.items() if s in FAILING and last.get(i) not in FAILING)
    fixed = sorted(i for i, s in now.items() if s == RecordStatus.PASSED and last.get(i) in FAILING)
    still = sorted(i for i, s in now.items() if s in FAILING and last.get(i) in FAILING)
    flaky = []
    for item_id in sorted(now):
        verdicts = [now[item_id]] + [_status_in(run, item_id) for run in previous]
        seen = [v in FAILING for v in verdicts if v in (*FAILING, RecordStatus.PASSED)]
        flips = sum(a != b for a, b in zip(seen, seen[1:], strict=False))
        if flips >= 2:
            flaky.append(item_id)
    return {"compared_with": previous[0]["meta"].get("seed"), "runs_compared": len(previous),
            "new_failures": new, "fixed": fixed, "still_failing": still, "flaky": flaky}


def _status_in(run: dict, item_id: str) -> str | None:
    for r in run["tests"]:
        if r["id"] == item_id:
            return r["status"]
    return None


def content(report: dict) -> dict:
    """The report without what depends on how it was run (times, shards, the temporary folders a failing
    implementation kept): for comparing runs."""
    clean = json.loads(json.dumps(report))
    for key in RUN_FIELDS:
        clean.get("meta", {}).pop(key, None)
        clean.pop(key, None)
    for record in clean["tests"]:
        record.pop("seconds", None)
        record.pop("ran_on", None)
        record["detail"] = KEPT_FOLDER.sub("(folder kept: ...)", record["detail"])
        for caught in record.get("caught_by") or ():  # a hung mutant names the simulator's own run folder
            caught["detail"] = KEPT_FOLDER.sub("(folder kept: ...)", caught["detail"])
    return clean


def summary_text(report: dict, out: Path | None = None) -> str:
    m, c = report["meta"], report["counts"]
    ref = m["ref"] or "none"
    counted = ", ".join(f"{c.get(s, 0)} {'errors' if s == RecordStatus.ERROR else s}" for s in RecordStatus)
    lines = [f"regress {m['level']}: seed {m['seed']}, {m['impl']} vs {ref}, {c['total']} tests: {counted}"]
    if m.get("rtl_profile"):
        lines[0] += f" (the RTL is {m['rtl_profile']})"
    if report["buckets"]:
        lines.append("failure buckets (count, signature; smallest case; reproduce):")
        for b in report["buckets"]:
            lines.append(f"  {b['count']:3}  {b['signature']}")
            lines.append(f"       smallest: {b['smallest']}")
            if b["reproduce"]:
                lines.append(f"       {b['reproduce']}")
            cut = b.get("shrunk")
            if cut and cut.get("path"):
                lines.append(f"       shrunk: {cut['id']} to {cut['layers']} layer(s), {cut['bytes']} bytes of trace "
                             f"data (from {cut['from_bytes']}, {cut['attempts']} attempts): {cut['describe'][:150]}")
                play = cut["reproduce"] if out is None else shell.in_folder(out, cut["reproduce"])
                lines.append(f"       {play}")
            elif cut:
                lines.append(f"       shrinking: {cut['id']} did not fail again when replayed (flaky?)")
    lines += skipped_lines(report["tests"])
    lines += not_applicable_lines(report["tests"])
    if report["mutants"]:
        lines.append("fixture mutants:")
        for row in report["mutants"]:
            errored = not row["caught"] and row["status"] != RecordStatus.FAILED
            verdict = Finding.CAUGHT if row["caught"] else (RecordStatus.ERROR if errored else Finding.SURVIVED).upper()
            shown = "; ".join(row["buckets"]) or (f"({row['detail']})" if errored else "")
            lines.append(f"  {row['mutant']:22} {verdict:8} {shortened(shown, 160)}")
    h = report["history"]
    if h["compared_with"] is not None:
        lines.append(f"since the previous run (seed {h['compared_with']}): {len(h['new_failures'])} new failures, "
                     f"{len(h['fixed'])} fixed, {len(h['still_failing'])} still failing, {len(h['flaky'])} flaky")
        for key in ("new_failures", "fixed", "flaky"):
            for item_id in h[key][:20]:
                lines.append(f"  {key.replace('_', ' ')}: {item_id}")
    lines += signoff_lines(report["signoff"])
    lines += code_lines(report["coverage"].get("code"))
    lines.append("functional coverage per covergroup (bins hit by passed tests; every hole in coverage.txt):")
    lines += functional.summary_lines(report["coverage"]["functional"], holes_shown=4, points_shown=4) or [
        f"  nothing sampled ({report['coverage']['note']})"]
    lines += functional.directed_lines(report["coverage"].get("directed") or [])
    if out is not None:
        lines.append(f"results: {out / 'results.json'}  junit: {out / 'junit.xml'}")
    return "\n".join(lines)


#: pytest's exit statuses of a session that ran to its end (tests failed: 1; no test collected: 5).
PYTEST_ENDED = (0, 1, 5)


def verdict(report: dict, pytest_exit: int | None = None, command: str = "regress") -> tuple[int, str]:
    """The run's exit status and its last line (ci/final.py): 1 when a test failed or errored, or when the pytest
    session itself ended abnormally (`pytest_exit`: its status, None for merged shards); 0 otherwise."""
    c = report["counts"]
    counted = numbers({s: c[s] for s in (RecordStatus.PASSED, *FAILING)}, {RecordStatus.ERROR: "errors"})
    aside = numbers({s: c.get(s, 0) for s in NOT_RUN})
    aside = f"not run: {aside} (listed above)" if aside else ""
    if c[RecordStatus.FAILED] or c[RecordStatus.ERROR]:
        code, rule = 1, "a test failed or errored"
    elif pytest_exit is not None and pytest_exit not in PYTEST_ENDED:
        code, rule = 1, f"the pytest session ended with exit {pytest_exit} (its output: pytest.log)"
    else:
        code, rule = 0, "no test failed or errored"
    return code, final_line(command, code, f"{counted or 'nothing'} of {c['total']} tests", rule, aside)


def not_applicable_lines(records: list[dict]) -> list[str]:
    """The tests not applicable to the implementation under test by name, grouped by what its profile lacks."""
    return _grouped(records, RecordStatus.NOT_APPLICABLE, "not applicable (made for what the implementation under test "
                                                    "lacks):")


def skipped_lines(records: list[dict]) -> list[str]:
    """The skipped tests by name, grouped by why they did not run (the implementation does not support what they
    use, a data file is missing, no generator yet, ...)."""
    return _grouped(records, RecordStatus.SKIPPED, "skipped (not run; count, why, tests):")


def _grouped(records: list[dict], status: RecordStatus, heading: str) -> list[str]:
    groups: dict[str, list[str]] = {}
    for r in records:
        if r["status"] == status:
            groups.setdefault(r["detail"], []).append(r["id"])
    lines = [heading] if groups else []
    for reason, ids in sorted(groups.items()):
        lines.append(f"  {len(ids):3}  {reason}")
        lines += [f"       {item_id}" for item_id in ids]
    return lines


def signoff_lines(rows: list[dict]) -> list[str]:
    """The sign-off table: testpoint, milestone, tests, passed/ran, pass rate, coverage of its cover points."""
    lines = [f"sign-off: {'testpoint':34} {'milestone':9} {'passed/ran':>10} {'pass':>6} {'coverage':>22}  tests"]
    for row in rows:
        rate = "-" if row["pass_rate"] is None else f"{100 * row['pass_rate']:.0f}%"
        lines.append(f"  {row['testpoint']:42} {row['milestone']:9} {row['passed']:>4}/{row['ran']:<5} {rate:>6} "
                     f"{coverage_cell(row):>22}  {', '.join(row['tests'])}")
        extra = []
        extra += [f"{row[s]} {s}" for s in NOT_RUN if row.get(s)]
        if row["not_available"]:
            extra.append("not available: " + ", ".join(row["not_available"]))
        cov = row.get("coverage") or {}
        if cov.get("unknown"):
            extra.append("unknown cover points: " + ", ".join(cov["unknown"]))
        if extra:
            lines.append(f"      ({'; '.join(extra)})")
    return lines


def coverage_cell(row: dict) -> str:
    if row["items"] and row.get(RecordStatus.NOT_APPLICABLE) == row["items"]:
        return RecordStatus.NOT_APPLICABLE
    if not row["ran"]:  # nothing measured: no hole either
        why = numbers({s: row.get(s, 0) for s in NOT_RUN})
        return f"not run ({why or 'no tests'})"
    cov = row.get("coverage")
    if cov is None:
        return "not measured" if row.get("covers") else "no cover points"
    if cov["rate"] is None:
        return cov.get("note", "no bins")
    return f"{100 * cov['rate']:.1f}% ({cov['hit']}/{cov['bins']} bins)"


def previous_runs(out: Path) -> list[dict]:
    """The earlier reports kept in OUT/history, newest first."""
    folder = out / "history"
    if not folder.is_dir():
        return []
    files = sorted(folder.glob("*.json"), reverse=True)[:HISTORY_KEPT]
    return [json.loads(f.read_text()) for f in files]


def keep_history(out: Path, stamp: str) -> None:
    """Move the previous report into OUT/history before a new run overwrites it; keep the newest few."""
    current = out / "results.json"
    if not current.is_file():
        return
    folder = out / "history"
    folder.mkdir(parents=True, exist_ok=True)
    current.replace(folder / f"{stamp}.json")
    for old in sorted(folder.glob("*.json"), reverse=True)[HISTORY_KEPT:]:
        old.unlink()
