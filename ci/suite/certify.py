"""`nvdla-verif certify --suite DIR --impl I --out PKG`: every test of a suite through an implementation, and the
submission package that `verify` checks.

Each mustpass test is played as `conform` plays a trace (ci/conformance.py: the implementation, judged by the
trace's own checks and against the reference); a failure, a crash or a missing result is that test's result and
the run goes on. A test's result in the package:

    pass           passed
    not supported  not applicable (the implementation's declared profile lacks a feature the test needs) or
                   unsupported (the implementation reports a feature it does not have, naming it)
    waived         failed or errored, and the waiver file names the test with a reason
    fail           failed (a check, a mismatch against the reference, a hang)
    error          error, or invalid on the reference (a suite the reference does not pass)

The package folder:

    statement.json   implementation (name, --impl, --impl-version, declared profile), reference, profile, suite
                     (version, profile, sha256 of suite.json), date (UTC), machine, nvdla-verif and golden model
    results.json     every test: result, status, detail, mismatch summary, family, units, seconds, cycles
    waivers.json     the waivers applied (test, reason)
    coverage.txt     with --coverage: the functional coverage (stimulus/coverage.py) of the tests that passed, from
                     the golden model's layers of their traces: each covergroup's hit rate and holes
    certify.log      the run's lines
    summary.html     one static page: per family passed / failed / errors / waived / not supported, the failing
                     tests with their mismatches, the waivers with their reasons
    suite/           the suite's suite.json and mustpass.txt
    manifest.json    sha256 of every other file (but signature.json)
    signature.json   with a signing key (certify --sign): an Ed25519 signature over the statement and the manifest's
                     hashes (ci/suite/signature.py)
"""

from __future__ import annotations

import datetime
import itertools
import json
import os
import platform
import shlex
import sys
import time
from functools import lru_cache
from pathlib import Path

import ci.implementations as registry
import golden
from ci.journal import Journal
from ci.options import reference_spec, resolve
from ci.signals import process_pool
from ci.suite import (
    MANIFEST,
    MUSTPASS,
    PACKAGE_FORMAT,
    Suite,
    SuiteError,
    dumps,
    file_hashes,
    golden_fingerprint,
)
from ci.suite.signature import SIGNATURE, sign_package
from ci.suite.summary import write_summary
from ci.suite.verify import PACKAGE_MANIFEST, Certification, Verdict, counted, counts, judge
from golden.config import Profile, get_profile
from golden.settings import Settings
from golden.status import Verdict as TraceVerdict
from scoreboards.verdict import verify

#: A trace's verdict -> the package's result (before waivers)
RESULT = {TraceVerdict.PASSED: Certification.PASS, TraceVerdict.NOT_APPLICABLE: Certification.NOT_SUPPORTED,
          TraceVerdict.UNSUPPORTED: Certification.NOT_SUPPORTED, TraceVerdict.FAILED: Certification.FAIL,
          TraceVerdict.ERROR: Certification.ERROR, TraceVerdict.INVALID: Certification.ERROR}


def load_waivers(path: str | Path | None, suite: Suite) -> dict[str, str]:
    """test id -> reason from a JSON or hjson file: {"waivers": [{"test": ID, "reason": TEXT}, ...]}, a list of
    such entries, or {ID: REASON, ...}. A test the suite lacks or a waiver without a reason is refused."""
    if path is None:
        return {}
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise SuiteError(f"--waivers {path}: cannot read it: {exc.strerror}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        import hjson

        try:
            data = hjson.loads(text)
        except hjson.HjsonDecodeError as exc:
            raise SuiteError(f"--waivers {path}: neither JSON nor hjson: {exc}") from None
    entries = data.get("waivers", data) if isinstance(data, dict) else data
    if isinstance(entries, dict):
        entries = [{"test": test, "reason": reason} for test, reason in entries.items()]
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise SuiteError(f"--waivers {path}: expected {{\"waivers\": [{{\"test\": ID, \"reason\": TEXT}}, ...]}} "
                         "or {ID: REASON, ...}")
    waivers = {}
    for entry in entries:
        test, reason = entry.get("test"), entry.get("reason")
        if test not in suite.tests:
            raise SuiteError(f"--waivers {path}: {test!r} is not a test of suite {suite.version} "
                             f"({suite.folder / MUSTPASS} lists them)")
        if not isinstance(reason, str) or not reason.strip():
            raise SuiteError(f"--waivers {path}: the waiver of {test} has no reason")
        if test in waivers:
            raise SuiteError(f"--waivers {path}: {test} is waived twice")
        waivers[test] = " ".join(reason.split())
    return waivers


@lru_cache(maxsize=4)
def _created(spec: str | None, settings: Settings | None):
    return registry.create(spec, settings) if spec else None


def _play(task: tuple[str, str, str, Profile, str, str | None, Settings | None]) -> dict:
    """One test's result entry (without the waiver), never raising for a problem of the test or the model."""
    test, path, folder, profile, impl, ref, settings = task
    result = verify(path, profile, _created(impl, settings), _created(ref, settings))
    mismatch = result.mismatch_summary() if result.status == TraceVerdict.FAILED else ""
    return {"id": test, "status": result.status, "result": RESULT[result.status],
            "detail": _within(result.detail, folder), "mismatch": _within(mismatch, folder),
            "seconds": round(result.seconds, 3), "cycles": result.cycles,
            "warnings": [_within(w, folder) for w in result.warnings]}


def _within(text: str, folder: str) -> str:
    return text.replace(folder + "/", "").replace(folder, ".")


def certify(suite_folder: str | Path, impl: str, ref: str | None, waivers_file: str | None, out: str | Path, *,
            jobs: int = 1, impl_version: str | None = None, resume: bool = False, coverage: bool = False,
            signing_key=None, say=print, settings: Settings | None = None) -> Verdict:
    """The suite's tests on the implementation, written as a package into `out`; `settings`: what the
    implementations are created with (golden/settings.py; default the person's overrides)."""
    suite = Suite(suite_folder)
    problems = suite.check()
    if problems:
        raise SuiteError(f"suite {suite.folder} differs from its {MANIFEST}: {problems[0]}"
                         + (f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""))
    waivers = load_waivers(waivers_file, suite)
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise SuiteError(f"--out {out}: not a folder")
    journal = Journal(out / "certify.journal", {"command": "certify", "suite": suite.sha256, "implementation": impl,
                                                "reference": ref})
    if out.exists() and any(out.iterdir()) and not (resume and journal.path.exists()):
        raise SuiteError(f"--out {out}: not empty; a package is written into a new or empty folder"
                         + (" (--resume needs the journal of a stopped run)" if resume else ""))
    implementation, reference = resolve(impl, ref, settings)
    ref_spec = reference_spec(impl, ref)
    profile = get_profile(suite.profile)
    out.mkdir(parents=True, exist_ok=True)
    finished = journal.finished() if resume else {}
    folder = str(suite.folder.resolve())
    tasks = [(test, str(suite.trace(test).resolve()), folder, profile, impl, ref_spec, settings)
             for test in suite.mustpass if test not in finished]
    log = open(out / "certify.log", "a" if finished else "w")  # closed below
    started = time.perf_counter()

    def note(line: str) -> None:
        say(line)
        log.write(line + "\n")
        log.flush()

    note(f"certify {implementation.name} ({impl}) on suite {suite.profile} {suite.version}: {len(suite.mustpass)} "
         f"tests" + (f", compared with {reference.name}" if reference is not None else "")
         + (f", {len(finished)} done before" if finished else "") + (f", {jobs} in parallel" if jobs > 1 else ""))
    results = dict(finished)
    journal.open(resume)
    width = max(len(test) for test in suite.mustpass)

    def record(index: int, entry: dict) -> None:
        results[entry["id"]] = entry
        journal.record(entry["id"], entry)
        note(f"[{index:4}/{len(suite.mustpass)}] {entry['status'].upper():14} {entry['id']:{width}} "
             f"{entry['seconds']:7.2f}s  {entry['detail'][:160]}")

    first = len(finished) + 1
    try:
        if jobs > 1 and len(tasks) > 1:
            with process_pool(jobs) as pool:
                for index, entry in enumerate(pool.map(_play, tasks), first):
                    record(index, entry)
        else:
            _created.cache_clear()
            for index, task in enumerate(tasks, first):
                record(index, _play(task))
    finally:
        journal.close(done=False)
    entries = []
    for test in suite.mustpass:
        entry = dict(results[test])
        meta = suite.tests[test]
        entry.update(family=meta["family"], units=meta.get("units", []), source=meta["source"])
        if entry["result"] in (Certification.FAIL, Certification.ERROR) and test in waivers:
            entry["result"], entry["waiver"] = Certification.WAIVED, waivers[test]
        entries.append(entry)
    verdict = judge(entries)
    note(f"{len(entries)} tests in {time.perf_counter() - started:.1f} s: {counted(entries)}")
    log.write(verdict.line + "\n")  # the command prints it last, with its exit code (ci/commands/certify.py)
    for reason in verdict.reasons:
        note(f"  {reason}")
    log.close()
    if coverage:
        passed = [suite.trace(e["id"]) for e in entries if e["result"] == Certification.PASS]
        (out / "coverage.txt").write_text(coverage_of(passed, profile))
    _write_package(out, suite, implementation, impl, impl_version, ref_spec, entries, waivers, verdict)
    if signing_key is not None:
        sign_package(out, signing_key)
    else:  # a resumed run's earlier signature is over what was just rewritten
        (out / SIGNATURE).unlink(missing_ok=True)
    journal.close(done=True)
    return verdict


_COVERAGE = itertools.count()


def _from_the_command_line() -> bool:
    """Whether sys.argv is nvdla-verif's own (not a program that called ci.cli.main, e.g. pytest)."""
    return bool(sys.argv) and Path(sys.argv[0]).name in ("nvdla-verif", "cli.py")


def coverage_of(traces: list[Path], profile: Profile) -> str:
    """The covergroups' hit rates and holes over every layer the golden model runs from the traces."""
    from golden.player import play
    from stimulus.coverage import Coverage

    prefix = f"certify_{os.getpid()}_{next(_COVERAGE)}"  # a name of its own in cocotb-coverage's database
    covered = Coverage(profile, prefix=prefix, outcomes=True)
    layers = 0
    for trace in traces:
        for layer in play(trace, profile).layers:
            if layer.regs is not None:
                covered.sample_run(layer)
                layers += 1
    return (f"functional coverage of the {len(traces)} tests that passed ({layers} layers)\n"
            + covered.report().replace(prefix, profile.name) + "\n")


def _write_package(out: Path, suite: Suite, implementation, impl: str, impl_version: str | None,
                   ref_spec: str | None, entries: list[dict], waivers: dict[str, str], verdict: Verdict) -> None:
    declared = getattr(implementation, "profile", None)
    statement = {
        "format": PACKAGE_FORMAT,
        "implementation": {"name": implementation.name, "spec": impl, "version": impl_version,
                           "declared_profile": declared.name if declared is not None else None},
        "reference": ref_spec, "profile": suite.profile,
        "suite": {"version": suite.version, "profile": suite.profile, "sha256": suite.sha256,
                  "tests": len(suite.mustpass)},
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": {"host": platform.node(), "platform": platform.platform(), "machine": platform.machine(),
                    "cpus": os.cpu_count(), "python": platform.python_version()},
        "nvdla_verif_version": golden.__version__,
        "golden_model": {"version": golden.__version__, "sources_sha256": golden_fingerprint()},
        "command": shlex.join(["nvdla-verif", *sys.argv[1:]]) if _from_the_command_line() else None,
        "verdict": verdict.line,
    }
    (out / "statement.json").write_text(dumps(statement))
    (out / "results.json").write_text(dumps({"suite_version": suite.version, "profile": suite.profile,
                                             "summary": counts(entries), "results": entries}))
    applied = [{"test": test, "reason": reason} for test, reason in sorted(waivers.items())]
    (out / "waivers.json").write_text(dumps({"waivers": applied}))
    (out / "suite").mkdir(exist_ok=True)
    for name in (MANIFEST, MUSTPASS):
        (out / "suite" / name).write_bytes((suite.folder / name).read_bytes())
    write_summary(out / "summary.html", statement, entries, waivers, verdict)
    (out / PACKAGE_MANIFEST).write_text(dumps({"format": PACKAGE_FORMAT,
                                               "files": file_hashes(out, skip=(PACKAGE_MANIFEST, SIGNATURE,
                                                                             "certify.journal"))}))
