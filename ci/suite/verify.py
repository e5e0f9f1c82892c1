"""`nvdla-verif verify PKG [--suite DIR]`: a submission package checked against its suite, nothing re-run.

    verify(package, suite=None) -> Verdict(line, reasons, conformant)

Checks, in order: every file the package manifest lists is there with its sha256 and nothing else is (but
signature.json); the
statement, results and waivers are readable; the suite matches (with --suite: the folder's own files against its
suite.json, and its version and suite.json sha256 against the package's statement; without: the package's copy
of suite.json and mustpass.txt against the statement); every mustpass test has exactly one result and nothing
else has one; every waiver names a test of the suite and gives a reason, every waived result has a waiver. Any of
these wrong makes the package invalid. A valid package is conformant when no mustpass test failed or errored
(passed, not supported or waived each count as allowed), as the Khronos CTS's allowed results.

The verdict line ends with what the package's signature.json says (ci/suite/signature.py): "; unsigned", "; signed
by key FP (not checked: give --key)" or, with `key` (a PEM Ed25519 public key file), "; signed by key FP
(checked)". With `key`, an unsigned package, a signature of another key or one not over the package's statement
and hashes makes the package invalid, as a malformed signature.json always does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from ci.suite import (
    MANIFEST,
    MUSTPASS,
    PACKAGE_FORMAT,
    PACKAGE_MANIFEST,
    Suite,
    SuiteError,
    file_hashes,
    links,
    outside,
    read_mustpass,
    sha256,
    test_problems,
)
from ci.suite.signature import SIGNATURE, SignatureError, check_signature, load_public_key
from golden.status import Verdict as TraceVerdict


class Certification(StrEnum):
    """The results a test can have in a package (results.json), the package's own vocabulary; the first three are
    allowed. certify's RESULT (ci/suite/certify.py) turns a verdict into one."""

    PASS = "pass"
    NOT_SUPPORTED = "not supported"
    WAIVED = "waived"
    FAIL = "fail"
    ERROR = "error"


ALLOWED = (Certification.PASS, Certification.NOT_SUPPORTED, Certification.WAIVED)
RESULTS = tuple(Certification)
#: The order a package's results are counted in (the verdict lines, summary.html's columns).
COLUMNS = (Certification.PASS, Certification.FAIL, Certification.ERROR, Certification.WAIVED,
           Certification.NOT_SUPPORTED)
#: How the terminal, the log and summary.html name a package's result: the verdict word (golden/status.py) where the
#: result is one, so that certify and conform say the same word; the package itself keeps the Certification word.
SHOWN = {Certification.PASS: TraceVerdict.PASSED, Certification.FAIL: TraceVerdict.FAILED,
         Certification.ERROR: TraceVerdict.ERROR, Certification.WAIVED: Certification.WAIVED,
         Certification.NOT_SUPPORTED: Certification.NOT_SUPPORTED}
#: A count of results as the verdict lines say it ("2 errors").
PLURAL = {Certification.ERROR: "errors"}
#: Why certify and verify exit as they do, per verdict (ci/final.py).
RULE = {True: "every mustpass test passed, is not supported or is waived",
        False: "a mustpass test failed or errored and no waiver names it"}


@dataclass
class Verdict:
    line: str
    reasons: list[str] = field(default_factory=list)
    conformant: bool = False

    def further(self) -> list[str]:
        """The reasons the line does not already say (an invalid package's line names its first)."""
        return [reason for reason in self.reasons if reason not in self.line]


def counted(results: list[dict]) -> str:
    """"8 passed, 1 failed, 0 errors, 0 waived, 1 not supported": every result's count in the shown words."""
    total = counts(results)
    return ", ".join(f"{total[name]} {PLURAL.get(name, SHOWN[name]) if total[name] != 1 else SHOWN[name]}"
                     for name in COLUMNS)


def counts(results: list[dict]) -> dict[str, int]:
    return {name: sum(r["result"] == name for r in results) for name in RESULTS}


def judge(results: list[dict]) -> Verdict:
    """The verdict of a valid package's results."""
    total = counts(results)
    bad = [r for r in results if r["result"] not in ALLOWED]
    if bad:
        fail, error = total[Certification.FAIL], total[Certification.ERROR]
        parts = [f"{fail} {SHOWN[Certification.FAIL]}"] + ([f"{error} {PLURAL[Certification.ERROR]}"] if error else [])
        reasons = [f"{SHOWN.get(r['result'], r['result'])}: {r['id']} ({r.get('family', '?')}; "
                   f"{', '.join(r.get('units', [])) or '-'}): {r.get('detail', '')}" for r in bad]
        return Verdict(f"not conformant: {', '.join(parts)} of {len(results)} tests", reasons)
    allowed = ", ".join(f"{total[name]} {SHOWN[name]}" for name in COLUMNS if name in ALLOWED)
    line = f"conformant: {allowed} of {len(results)} tests"
    return Verdict(line, [], True)


def verify(package: str | Path, suite: str | Path | None = None, key: str | Path | None = None) -> Verdict:
    package = Path(package)
    public_key = load_public_key(key) if key is not None else None
    if not package.is_dir():
        raise SuiteError(f"{package}: no such package folder")
    reasons = _check(package, suite)
    try:
        signed = check_signature(package, public_key)
    except SignatureError as exc:
        reasons = [str(exc), *reasons]
        return Verdict(f"invalid package: {reasons[0]}", reasons)
    if reasons:
        return Verdict(f"invalid package: {reasons[0]}; {signed}", reasons)
    verdict = judge(json.loads((package / "results.json").read_text())["results"])
    verdict.line += f"; {signed}"
    return verdict


def _load(path: Path, what: str):
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise _Invalid(f"{path.name}: unreadable {what}: {exc}") from None


class _Invalid(Exception):
    pass


def _check(package: Path, suite_folder) -> list[str]:
    try:
        return _problems(package, suite_folder)
    except _Invalid as exc:
        return [str(exc)]
    except (KeyError, TypeError, AttributeError) as exc:  # a file of the package lacks a field or has another shape
        return [f"malformed statement, results or waivers ({type(exc).__name__}: {exc})"]


def _problems(package: Path, suite_folder) -> list[str]:
    manifest_path = package / PACKAGE_MANIFEST
    if not manifest_path.is_file():
        raise _Invalid(f"no {PACKAGE_MANIFEST} (not a package written by nvdla-verif certify)")
    manifest = _load(manifest_path, "manifest")
    if not isinstance(manifest, dict) or manifest.get("format") != PACKAGE_FORMAT:
        raise _Invalid(f"{PACKAGE_MANIFEST}: not a package manifest ({PACKAGE_FORMAT})")
    listed, present = manifest.get("files", {}), file_hashes(package, skip=(PACKAGE_MANIFEST, SIGNATURE))
    reasons = [f"{name}: altered (sha256 differs from {PACKAGE_MANIFEST})" for name in sorted(listed)
               if name in present and present[name] != listed[name]]
    reasons += [f"{name}: missing (listed in {PACKAGE_MANIFEST})" for name in sorted(set(listed) - set(present))]
    reasons += [f"{name}: not listed in {PACKAGE_MANIFEST}" for name in sorted(set(present) - set(listed))]
    reasons += [f"{name}: lies outside the package (listed in {PACKAGE_MANIFEST})" for name in sorted(listed)
                if outside(name)]
    reasons += [f"{name}: a symbolic link (a package holds plain files only)" for name in links(package)]
    if reasons:
        return reasons
    statement = _load(package / "statement.json", "statement")
    report = _load(package / "results.json", "results")
    results = report["results"]
    waivers = _load(package / "waivers.json", "waivers")["waivers"]
    mustpass, reasons = _suite(package, statement, suite_folder)
    if report.get("suite_version") != statement["suite"].get("version"):
        reasons.append(f"results.json is of suite version {report.get('suite_version')}, the statement names "
                       f"{statement['suite'].get('version')}")
    if statement.get("profile") != statement["suite"].get("profile"):
        reasons.append(f"statement.json: profile {statement.get('profile')} is not the suite's "
                       f"{statement['suite'].get('profile')}")
    ids = [r.get("id") for r in results]
    required = set(mustpass)
    missing = [test for test in mustpass if test not in ids]
    if missing:
        reasons.append(f"{len(missing)} mustpass tests have no result: {_few(missing)}")
    unknown = sorted({test for test in ids if test not in required})
    if unknown:
        reasons.append(f"results of tests not in the suite's mustpass list: {_few(unknown)}")
    twice = sorted({test for test in ids if ids.count(test) > 1})
    if twice:
        reasons.append(f"more than one result for: {_few(twice)}")
    odd = sorted({f"{r.get('id')}: {r.get('result')!r}" for r in results if r.get("result") not in RESULTS})
    if odd:
        reasons.append(f"results other than {', '.join(RESULTS)}: {_few(odd)}")
    waived = {}
    for waiver in waivers:
        test, reason = waiver.get("test"), str(waiver.get("reason") or "").strip()
        if test not in required:
            reasons.append(f"unknown waiver: {test} is not a test of the suite")
        if not reason:
            reasons.append(f"waiver of {test} has no reason")
        waived[test] = reason
    reasons += [f"{r['id']} is waived but waivers.json has no waiver for it" for r in results
                if r.get("result") == Certification.WAIVED and r.get("id") not in waived]
    return reasons


def _suite(package: Path, statement: dict, suite_folder) -> tuple[list[str], list[str]]:
    """The mustpass list to check against, and what does not match."""
    claimed = statement.get("suite", {})
    if suite_folder is None:
        copy = package / "suite" / MANIFEST
        if sha256(copy) != claimed.get("sha256"):
            return [], [f"suite/{MANIFEST}: not the suite the statement names (sha256 differs)"]
        suite_manifest = json.loads(copy.read_text())
        mustpass = read_mustpass(package / "suite" / MUSTPASS)
        contained = test_problems(suite_manifest)
        if contained:
            return mustpass, [f"suite/{MANIFEST}: {problem}" for problem in contained]
        if sha256(package / "suite" / MUSTPASS) != suite_manifest["files"].get(MUSTPASS):
            return mustpass, [f"suite/{MUSTPASS}: not the suite's mustpass list (sha256 differs from its {MANIFEST})"]
        return mustpass, []
    suite = Suite(suite_folder)
    reasons = [f"suite {suite.folder}: {problem}" for problem in suite.check()]
    if claimed.get("version") != suite.version:
        reasons.append(f"suite version {claimed.get('version')} of the package does not match the suite's "
                       f"{suite.version}")
    elif claimed.get("sha256") != suite.sha256:
        reasons.append(f"the package was made with another build of suite {suite.version} ({MANIFEST} sha256 differs)")
    if claimed.get("profile") != suite.profile:
        reasons.append(f"suite profile {claimed.get('profile')} of the package is not the suite's {suite.profile}")
    return suite.mustpass, reasons


def _few(items: list[str], shown: int = 5) -> str:
    return ", ".join(items[:shown]) + (f" (+{len(items) - shown} more)" if len(items) > shown else "")
