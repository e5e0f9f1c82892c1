"""`nvdla-verif suite build`: a frozen, versioned conformance suite for one hardware profile.

    build(profile, version, out, data, ...) -> dict   (the suite.json written)

What it holds (ci/suite/__init__.py has the folder's layout):

* NVIDIA's traces made for the profile (trace_tests/<profile>/ for master-layout profiles, traceplayer/ for
  nv_full), copied file by file so that the suite needs nothing else. Each is played on the golden model first:
  only the ones it passes are tests (their own CRCs and golden files are the expected results); the others (a
  missing input file in the public snapshot, a feature the profile lacks) are listed in suite.json's
  `excluded` with the golden model's verdict. A trace that reads a file outside its folder (an absolute name,
  `..`, a symbolic link leading out) stops the build before anything is written: no hash could cover it.
* Generated traces of every stimulus family the profile has, drawn coverage-directed (stimulus/directed.py:
  only the draws that closed a hole of the family's covergroup are kept, at most --max-layers per family and
  trace length) with the golden model's CRCs. Seeds come from the version: sha256("PROFILE:VERSION:FAMILY:L").
* mustpass.txt (every test id, sorted) and suite.json (versions, tests, sha256 of every other file).

Nothing depends on the time, the folder or the machine: the same version, options and project give the same
bytes.
"""

from __future__ import annotations

import fnmatch
import hashlib
import re
import shutil
from pathlib import Path

import golden
from ci.signals import process_pool
from ci.suite import MANIFEST, MUSTPASS, SUITE_FORMAT, SuiteError, dumps, file_hashes, golden_fingerprint
from golden.config import Profile
from golden.errors import DataFileError, TraceError
from golden.memory_files import inside
from golden.status import Verdict
from golden.trace import load_trace
from stimulus.directed import directed
from stimulus.export import GenerationError
from stimulus.families import available, covergroups, write_generated
from stimulus.families import family as declared_family

#: Draws in a row that close no hole before a family's drawing stops.
PATIENCE = 60
VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")


def derived_seed(profile: str, version: str, family: str, count: int) -> int:
    digest = hashlib.sha256(f"{profile}:{version}:{family}:{count}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def nvidia_traces(data: Path, profile: Profile) -> list[Path]:
    """NVIDIA's trace files made for the profile, by test name."""
    if profile.layout == "nvdlav1":
        return sorted(data.glob("traceplayer/*/input.txn"), key=lambda p: p.parent.name)
    return sorted((p for p in data.glob(f"trace_tests/{profile.name}/*/*.cfg") if p.stem == p.parent.name),
                  key=lambda p: p.parent.name)


def _family(test: str) -> str:
    """NVIDIA's family of a test: its name's first word (sdp, pdp, cdp, dc, img, sanity, ...)."""
    return test.split("_", 1)[0]


def _golden_run(task: tuple[str, Profile]) -> tuple[str, str, list[str]]:
    """(status, detail, units) of a trace on the golden model alone."""
    from golden.implementation import Golden
    from scoreboards.verdict import verify

    path, profile = task
    result = verify(path, profile, Golden())
    units = sorted({unit for layer in result.layers for unit in layer.groups})
    return result.status, result.detail, units


def build(profile: Profile, version: str, out: str | Path, data: str | Path, *, max_layers: int = 40,
          patience: int = PATIENCE, families: list[str] | None = None, nvidia: list[str] | None = None,
          jobs: int = 1, say=print) -> dict:
    out, data = Path(out), Path(data)
    if not VERSION.fullmatch(version):
        raise SuiteError(f"--version {version!r}: letters, digits and . _ + - only (at most 64), e.g. 2026.1")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise SuiteError(f"{out}: not empty; a suite is built into a new or empty folder")
    have = available(profile)
    lacking = [f for f in families or () if f not in have]
    if lacking:
        raise SuiteError(f"--family {', '.join(lacking)}: profile {profile.name} has no such family "
                         f"(its families: {', '.join(have)})")
    if not data.is_dir():
        raise SuiteError(f"NVIDIA's traces not found at {data} (use --nvdla-data DIR)")
    chosen = [p for p in nvidia_traces(data, profile)
              if nvidia is None or any(fnmatch.fnmatchcase(p.parent.name, g) for g in nvidia)]
    for trace in chosen:
        _refuse_outside(trace)
    out.mkdir(parents=True, exist_ok=True)
    tests, excluded = [], []

    # NVIDIA's traces: copied, then kept when the golden model passes them
    copies = []
    for trace in chosen:
        folder = out / "nvidia" / profile.name / trace.parent.name
        folder.mkdir(parents=True)
        for source in sorted(trace.parent.iterdir()):
            if source.is_file():
                shutil.copyfile(source, folder / source.name)
        copies.append(folder / trace.name)
    say(f"suite {profile.name} {version}: {len(copies)} NVIDIA traces copied; playing them on the golden model")
    for copy, (status, detail, units) in zip(copies, _run_all(copies, profile, jobs), strict=True):
        name = copy.parent.name
        if status == Verdict.PASSED:
            tests.append({"id": f"nvidia/{name}", "source": "nvidia", "family": _family(name), "units": units,
                          "trace": copy.relative_to(out).as_posix()})
        else:
            shutil.rmtree(copy.parent)
            excluded.append({"id": f"nvidia/{name}", "status": status, "detail": _relative(detail, out, data)})

    # generated layers: coverage-directed per family and trace length
    generated, written = {}, []
    for family in families or have:
        for count in declared_family(family).lengths:
            seed = derived_seed(profile.name, version, family, count)
            if family in covergroups():
                found = directed(family, profile, seed, max_layers, patience, count)
                indices, draws, holes = found.indices, found.draws, found.holes
            else:  # no covergroup (deconv): the first traces of the seed
                indices, draws, holes = list(range(max_layers)), max_layers, None
            key = family if count == 1 else f"{family}_{count}l"
            generated[key] = {"family": family, "layers": count, "seed": seed, "draws": draws, "holes_left": holes,
                              "traces": 0}
            for index in indices:
                try:
                    path = write_generated(family, profile, seed, index, out / "generated", count)
                except GenerationError as exc:
                    excluded.append({"id": f"generated/{family} seed {seed} trace {index}", "status": Verdict.ERROR,
                                     "detail": _relative(str(exc), out, data)})
                    continue
                written.append((path, family, key, seed, index, count))
            say(f"  {key}: {len(indices)} traces of seed {seed} after {draws} draws"
                + (f", {holes} coverage holes left" if holes is not None else ""))
    for (path, family, key, seed, index, count), (status, detail, units) in zip(
            written, _run_all([w[0] for w in written], profile, jobs), strict=True):
        name = path.parent.name
        if status != Verdict.PASSED:  # the golden model wrote its CRCs: anything else is the project's bug
            raise SuiteError(f"generated trace {name} does not pass on the golden model: {status}: {detail}")
        generated[key]["traces"] += 1
        tests.append({"id": f"generated/{name}", "source": "generated", "family": family, "units": units,
                      "seed": seed, "index": index, "layers": count, "trace": path.relative_to(out).as_posix()})

    if not tests:
        raise SuiteError(f"no test for profile {profile.name}: no NVIDIA trace passed and nothing was generated")
    tests.sort(key=lambda t: t["id"])
    (out / MUSTPASS).write_text("".join(f"{t['id']}\n" for t in tests))
    manifest = {
        "format": SUITE_FORMAT, "suite_version": version, "profile": profile.name,
        "nvdla_verif_version": golden.__version__,
        "golden_model": {"version": golden.__version__, "sources_sha256": golden_fingerprint()},
        "build": {"max_layers": max_layers, "patience": patience, "families": families or have,
                  "nvidia": nvidia or ["*"]},
        "nvidia": {"traces": sum(t["source"] == "nvidia" for t in tests), "candidates": len(chosen)},
        "generated": generated, "excluded": sorted(excluded, key=lambda e: e["id"]),
        "tests": tests, "files": file_hashes(out, skip=(MANIFEST,)),
    }
    manifest["size"] = {"tests": len(tests), "files": len(manifest["files"]),
                        "bytes": sum((out / name).stat().st_size for name in manifest["files"])}
    (out / MANIFEST).write_text(dumps(manifest))
    return manifest


def _refuse_outside(trace: Path) -> None:
    """A SuiteError when the trace, or a file of its folder that the build copies, reads outside its folder."""
    try:
        for entry in sorted(trace.parent.iterdir()):
            inside(trace.parent, entry.name, path=str(entry), line=None)
        load_trace(trace).files()
    except TraceError:  # malformed: played, it is excluded with its error
        return
    except DataFileError as exc:
        raise SuiteError(f"NVIDIA trace {trace.parent.name} reads outside its folder, which no hash of a suite "
                         f"covers: {exc.where}: {exc.message} (--nvidia GLOB selects the traces to take)") from None


def _run_all(paths: list[Path], profile: Profile, jobs: int) -> list[tuple[str, str, list[str]]]:
    tasks = [(str(p), profile) for p in paths]
    if jobs > 1 and len(tasks) > 1:
        with process_pool(jobs) as pool:
            return list(pool.map(_golden_run, tasks))
    return [_golden_run(task) for task in tasks]


def _relative(text: str, *folders: Path) -> str:
    """A message without the machine's folders in it (suite.json holds no absolute path)."""
    for folder in folders:
        for spelling in sorted({str(folder.resolve()), str(folder.absolute())}, key=len, reverse=True):
            text = text.replace(spelling + "/", "").replace(spelling, ".")
    return text
