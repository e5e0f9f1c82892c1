"""A test's page in the HTML report (Allure): what its labels, parameters, description and status message say,
built from its item and record in the words of golden/status.py.

    implementation_label(spec) -> str       an --impl/--ref value as the report's tree shows it: golden, rtl,
                                            command:my_model (the program's base name)
    parameters(item) -> [(name, Shown)]     the item's kind and its scalar parameters (seed, profile, layers, ...)
    description(record, shrunk) -> str      what the status means here, the reproduce command, the full
                                            implementation lines (markdown)
    message(record) -> str                  the status message: the detail first, then the triage bucket and the
                                            reproduce command
    rewrite(allure_dir, records, shrunk)    after the tests (ci/regression/finish.py): every result's description
                                            and status message from its record, the shrunk layer first
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path, PurePath

from ci import shell
from ci.regression.item import Item
from ci.regression.record import Finding
from ci.regression.results import NOT_APPLICABLE, NOT_RUN
from ci.regression.signature import text
from golden.status import FAILING, RecordStatus

#: What each record status means on a test's page. Allure has no word of its own for an error: it shows it as
#: "Broken", so the page says what that is here.
MEANING = {
    RecordStatus.PASSED: "every check passed",
    RecordStatus.FAILED: "a mismatch: the implementation's output or a register read is not what the trace (or the "
                         "reference) expects, or the implementation hung",
    RecordStatus.ERROR: "Allure shows it as Broken: the implementation or its input errored (a crash, a missing or bad "
                        "input, an error status, nothing checked). It is not a mismatch",
    RecordStatus.SKIPPED: "not run, and no failure: the test cannot run here (no generator for it yet, an unknown "
                          "profile, layers the implementation does not support or the profile does not allow)",
    RecordStatus.NOT_APPLICABLE: "not run, and no failure: made for a profile the implementation under test is not "
                                 "built as",
}
#: A record's status as Allure says it (pytest_driver.py gives each the pytest outcome Allure reads it from: a skip,
#: an exception other than an assertion, a failure); the report's categories match the failing ones.
ALLURE = {RecordStatus.PASSED: "passed", RecordStatus.FAILED: "failed", RecordStatus.ERROR: "broken",
          RecordStatus.SKIPPED: "skipped", RecordStatus.NOT_APPLICABLE: "skipped"}
#: Programs that run the program named after them: a command's label is the one they run.
_INTERPRETERS = {"env", "sh", "bash", "node", "perl", "ruby", "java", "nice", "timeout"}


@dataclass(frozen=True)
class Shown:
    """A value Allure shows as its text: allure-pytest shows a parameter's repr (a str quoted, an Item as the
    dataclass), so a parameter is given as one of these; `item` carries the manifest's item to the test."""

    text: str
    item: Item | None = None

    def __repr__(self) -> str:
        return self.text


def implementation_label(spec: str | None) -> str:
    """`command:/usr/bin/python3 /home/me/model.py --fast` -> `command:model.py`; golden, rtl stay as they are."""
    if not spec:
        return "none"
    name, _, argument = spec.partition(":")
    if not argument:
        return name
    try:
        words = shlex.split(argument)
    except ValueError:
        words = argument.split()
    for word in words:
        base = PurePath(word).name
        if word.startswith("-") or "=" in word or base in _INTERPRETERS or base.startswith("python"):
            continue
        return f"{name}:{base}"
    return f"{name}:{PurePath(words[0]).name}" if words else name


def parameters(item: Item) -> list[tuple[str, Shown]]:
    found = [("kind", Shown(item.kind))]
    for key, value in item.params.items():
        if key != "name" and isinstance(value, str | int | float | bool):  # `name` is the id's last part
            found.append((key, Shown(str(value))))
    return found


def message(record: dict) -> str:
    status = record["status"]
    lines = [(NOT_APPLICABLE if status == RecordStatus.NOT_APPLICABLE else "") + record["detail"]]
    if record.get("signature"):
        lines.append(f"\ntriage bucket: [{text(record['signature'])}]")
    if status in FAILING and record.get("reproduce"):
        lines.append(f"reproduce: {record['reproduce']}")
    return "\n".join(lines)


def description(record: dict, shrunk: dict | None = None, out: Path | None = None) -> str:
    status = RecordStatus(record["status"])
    parts = []
    if shrunk:
        parts += [f"**{_shrunk_text(shrunk)}**", shell.fenced(shell.in_folder(out, shrunk["reproduce"]))]
    if status in NOT_RUN:
        parts.append(f"**{status}**: {_plain(record['detail'][:2000])}")
        parts.append(f"*{status}: {MEANING[status]}.*")
    else:
        parts.append(f"**{status}**: {MEANING[status]}.")
    if status in FAILING and record.get("reproduce"):
        parts += ["**Reproduce** (paste into a shell):", shell.fenced(record["reproduce"])]
    reference = f"reference: {_plain(record['ref'])}" if record.get("ref") else "no reference"
    parts.append(f"**Implementation under test**: {_plain(record['impl'])}; {reference}")
    return "\n\n".join(parts)


def _plain(words: str) -> str:
    """Text shown as it is in Markdown (CommonMark escapes every ASCII punctuation character)."""
    return re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", words)


def _shrunk_text(cut: dict) -> str:
    return (f"shrunk to {cut['layers']} layer(s), {cut['bytes']} bytes of trace data (from {cut['from_bytes']}): "
            f"{cut['describe']}")


def rewrite(allure_dir: Path, records: list[dict], shrunk: dict[str, dict], out: Path) -> None:
    """Each result's description and status message from its record (the same on every call: a resumed run or a
    merge rewrites them all). Allure 3 heads any status message "Error", so a test that did not run has none:
    its description says why. `shrunk`: {test id: its bucket's shrunk layer}, put first on that test's page."""
    by_id = {r["id"]: r for r in records}
    for path in allure_dir.glob("*-result.json"):
        result = json.loads(path.read_text())
        record = by_id.get(result.get("name"))
        if record is None:
            continue
        cut = shrunk.get(record["id"])
        result["description"] = description(record, cut, out)
        status = RecordStatus(record["status"])
        if status in NOT_RUN or status == RecordStatus.PASSED:
            result.pop("statusDetails", None)
        else:
            details = result.setdefault("statusDetails", {})
            details["message"] = message(record)
            if cut:
                details["message"] += (f"\n{_shrunk_text(cut)}\nplay it: "
                                       f"{shell.in_folder(out, cut['reproduce'])}")
            if record.get("verdict") != Finding.CRASH:  # the driver's own traceback says nothing about the test
                details.pop("trace", None)
        path.write_text(json.dumps(result))
