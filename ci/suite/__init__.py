"""Frozen, versioned conformance suites, certification packages and their verification (issue 29).

    ci/suite/build.py    `nvdla-verif suite build`: NVIDIA's traces of a profile plus coverage-directed generated
                         layers, each with the golden model's expected results; mustpass.txt; suite.json
    ci/suite/certify.py  `nvdla-verif certify`: every test of a suite through an implementation; a submission
                         package (statement, results, log, waivers, summary.html, manifest)
    ci/suite/verify.py   `nvdla-verif verify`: a package against its suite, without running anything

A suite folder:

    suite.json                     the manifest: suite version, profile, versions, tests, sha256 of every file
    mustpass.txt                   one test id per line: the tests a conformant implementation passes
    nvidia/<profile>/<test>/       NVIDIA's trace folders as nvdla/hw has them (test id nvidia/<test>)
    generated/<profile>/<test>/    generated traces with the golden model's CRCs (test id generated/<test>)

A suite is self-contained: every test's trace is a file of the folder that suite.json hashes, the folder holds no
symbolic link, and a trace reads only files inside its own folder (golden.memory_files.inside), so every byte a
certification reads is one the suite's hashes cover.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path, PurePosixPath

import golden
from golden.errors import NvdlaVerifError

SUITE_FORMAT = "nvdla-verif-suite/1"
PACKAGE_FORMAT = "nvdla-verif-package/1"
PACKAGE_MANIFEST = "manifest.json"
MANIFEST = "suite.json"
MUSTPASS = "mustpass.txt"
GOLDEN = Path(golden.__file__).resolve().parent


class SuiteError(NvdlaVerifError):
    """A suite folder, package, waiver file or option that cannot be used."""


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_hashes(folder: Path, skip: tuple[str, ...] = ()) -> dict[str, str]:
    """relative POSIX path -> sha256 of every file under the folder (sorted; `skip`: relative paths left out)."""
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    found = {p.relative_to(folder).as_posix(): p for p in files}
    return {name: sha256(path) for name, path in sorted(found.items()) if name not in skip}


def outside(name) -> bool:
    """Whether a name a manifest lists does not name a file inside its folder (absolute, `..`, not a string)."""
    if not isinstance(name, str) or not name or "\\" in name:
        return True
    pure = PurePosixPath(name)
    return pure.is_absolute() or ".." in pure.parts


def links(folder: Path) -> list[str]:
    """The symbolic links under a folder (relative POSIX paths): a suite or package holds plain files only."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_symlink())


def test_problems(manifest: dict) -> list[str]:
    """Tests of a suite manifest whose trace is not one of the files the manifest hashes, inside the folder."""
    files = manifest.get("files", {})
    problems = []
    for test in manifest.get("tests", []):
        name = test.get("trace") if isinstance(test, dict) else None
        if outside(name):
            problems.append(f"test {test.get('id') if isinstance(test, dict) else test}: trace {name!r} lies "
                            "outside the suite folder")
        elif name not in files:
            problems.append(f"test {test.get('id')}: trace {name} is not among the files {MANIFEST} hashes")
    return problems


def golden_fingerprint() -> str:
    """sha256 over the golden model's sources and tables (golden/**/*.py, *.json): what computed the expected
    results, beyond its version number."""
    digest = hashlib.sha256()
    for path in sorted(p for p in GOLDEN.rglob("*") if p.suffix in (".py", ".json") and p.is_file()
                       and "__pycache__" not in p.parts):
        digest.update(path.relative_to(GOLDEN).as_posix().encode() + b"\0" + bytes.fromhex(sha256(path)))
    return digest.hexdigest()


def dumps(data) -> str:
    """JSON as every file of a suite or package is written: sorted keys, one indentation, a final newline."""
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def _field(path: Path, manifest: dict, name: str, kind: type):
    value = manifest.get(name)
    if not isinstance(value, kind):
        raise SuiteError(f"{path}: malformed suite manifest: {name!r} must be a {kind.__name__}")
    return value


class Suite:
    """A suite folder as its suite.json describes it."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        path = self.folder / MANIFEST
        if not path.is_file():
            raise SuiteError(f"{self.folder}: not a suite folder (no {MANIFEST}; build one with "
                             "`nvdla-verif suite build`)")
        try:
            self.manifest = json.loads(path.read_text())
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise SuiteError(f"{path}: not JSON: {exc}") from None
        if not isinstance(self.manifest, dict) or self.manifest.get("format") != SUITE_FORMAT:
            raise SuiteError(f"{path}: not a suite manifest of nvdla-verif (format {SUITE_FORMAT} expected)")
        self.version = _field(path, self.manifest, "suite_version", str)
        self.profile = _field(path, self.manifest, "profile", str)
        _field(path, self.manifest, "files", dict)
        tests = _field(path, self.manifest, "tests", list)
        if not all(isinstance(test, dict) and isinstance(test.get("id"), str) for test in tests):
            raise SuiteError(f"{path}: malformed suite manifest: every entry of 'tests' needs an 'id'")
        self.tests = {test["id"]: test for test in tests}
        self.mustpass = read_mustpass(self.folder / MUSTPASS)
        self.sha256 = sha256(path)

    def check(self) -> list[str]:
        """What differs from the manifest: altered, missing or unlisted files, a mustpass id without a test, and
        anything that is not self-contained (a listed name or test outside the folder, an unhashed test, a
        symbolic link)."""
        listed = self.manifest["files"]
        present = file_hashes(self.folder, skip=(MANIFEST,))
        problems = [f"{name}: altered (sha256 differs from {MANIFEST})" for name in sorted(listed)
                    if name in present and present[name] != listed[name]]
        problems += [f"{name}: missing" for name in sorted(set(listed) - set(present))]
        problems += [f"{name}: not in {MANIFEST}" for name in sorted(set(present) - set(listed))]
        problems += [f"{MUSTPASS}: {test} has no test in {MANIFEST}" for test in self.mustpass
                     if test not in self.tests]
        problems += [f"{name}: lies outside the suite folder (listed in {MANIFEST})" for name in sorted(listed)
                     if outside(name)]
        problems += test_problems(self.manifest)
        problems += [f"{name}: a symbolic link (a suite holds plain files only)" for name in links(self.folder)]
        return problems

    def trace(self, test: str) -> Path:
        return self.folder / self.tests[test]["trace"]


def read_mustpass(path: Path) -> list[str]:
    if not path.is_file():
        raise SuiteError(f"{path}: missing (the suite's mustpass list)")
    return [line.strip() for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]
