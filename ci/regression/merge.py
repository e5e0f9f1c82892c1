"""Merging the results folders of shards into one report (`report merge`, and `regress --on slurm|lsf`).

    merge_into(out, folders, extra_meta, missing) -> report dict

A merged report is the report one unsharded run with the same plan, level and seed would have written: the
same tests, verdicts, triage buckets, sign-off and coverage (only times, shards and nodes differ). Shards of
different runs (plan, level, seed, implementations) are refused, and so is a test found in two folders.

A shard is read and copied without following a symbolic link: a link among the files read (the manifest, the
records, the JUnit XML) refuses the shard; one among the files copied (Allure results, shrunk layers, code
coverage) is skipped, never copied as what it points to, and named in a warning. `out` must have been claimed
for the results (ci/ownership.py): only the entries its manifest lists are replaced.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

from ci.ownership import clear
from ci.regression.finish import finish
from ci.regression.plan import PlanError
from ci.regression.results import PYTEST_JUNIT, collect_records, keep_history

#: What shards of one run share; a folder that differs in one of these is another run's.
SAME_RUN = ("plan", "level", "seed", "impl", "ref", "profile", "rtl_profile", "plan_items", "directed")


def load_shards(folders: list[Path]) -> list[tuple[Path, dict]]:
    shards = []
    for folder in map(Path, folders):
        manifest_file = folder / "manifest.json"
        _refuse_links(folder)
        if not manifest_file.is_file():
            raise PlanError(f"{folder}: not a regress results folder (no manifest.json)")
        shards.append((folder, json.loads(manifest_file.read_text())))
    first_dir, first = shards[0]
    for folder, manifest in shards[1:]:
        for key in SAME_RUN:
            if manifest.get(key) != first.get(key):
                raise PlanError(f"{folder} and {first_dir} are shards of different runs: {key} "
                                f"{manifest.get(key)!r} vs {first.get(key)!r}")
    return shards


def _refuse_links(folder: Path) -> None:
    """The files a merge reads in a shard are its own: a symbolic link among them refuses it."""
    results = folder / "results"
    read = [folder / "manifest.json", folder / PYTEST_JUNIT, results]
    if results.is_dir() and not results.is_symlink():
        read += sorted(results.iterdir())
    link = next((path for path in read if path.is_symlink()), None)
    if link is not None:
        raise PlanError(f"{link}: a symbolic link in a shard (to {link.readlink()}); a merge reads only the "
                        "shard's own files: replace it by the file, or merge another copy of the shard")


def merged_manifest(shards: list[tuple[Path, dict]], out: Path) -> dict:
    seen: dict[str, Path] = {}
    items = []
    for folder, manifest in shards:
        for item in manifest["items"]:
            if item["id"] in seen:
                raise PlanError(f"test {item['id']} is in both {seen[item['id']]} and {folder}: overlapping shards")
            seen[item["id"]] = folder
            items.append(item)
    return {**shards[0][1], "items": sorted(items, key=lambda i: i["id"]), "shard": None, "out": str(out)}


def merge_into(out: Path, folders: list[Path], extra_meta: dict | None = None, missing: dict | None = None,
               keep: dict | None = None, history: bool = True) -> dict:
    """Write the merged report of `folders` into `out` and return it. `missing` maps a folder to why its tests
    without a result have none (else the generic "the run stopped" record); `keep` are manifest fields of `out`
    the merged manifest carries on (a batch run's launcher settings); `history`: the report in `out` before is
    the previous run's (a batch run kept it when it started: False)."""
    shards = load_shards(folders)
    manifest = {**merged_manifest(shards, out), **(keep or {})}
    records = [r for folder, m in shards for r in collect_records(folder, m, (missing or {}).get(folder))]
    out.mkdir(parents=True, exist_ok=True)
    if history:
        keep_history(out, time.strftime("%Y%m%dT%H%M%S"))
    skipped: list[Path] = []
    _merge_allure(out, [folder for folder, _ in shards], skipped)
    _merge_folders(out, [folder for folder, _ in shards], skipped)
    if skipped:
        print(f"merge: warning: {len(skipped)} symbolic link(s) or special file(s) in the shards not copied "
              f"(first: {skipped[0]})", file=sys.stderr, flush=True)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return finish(out, manifest, records, {"merged_from": len(shards), **(extra_meta or {})})


def _merge_allure(out: Path, folders: list[Path], skipped: list[Path]) -> None:
    target = out / "allure-results"
    clear(out, [target.name])
    target.mkdir(parents=True)
    for folder in folders:
        source = folder / "allure-results"
        if source.is_symlink():
            skipped.append(source)
        elif source.is_dir():
            for path in source.iterdir():
                if path.name not in ("categories.json", "environment.properties"):  # rewritten for the merged run
                    _copy_own(path, target / path.name, skipped)


def _merge_folders(out: Path, folders: list[Path], skipped: list[Path]) -> None:
    """The shards' shrunk layers (OUT/shrunk: each bucket shows its smallest generated failure's, wherever it ran)
    and their tests' RTL code coverage (OUT/rtl-coverage, merged again by finish)."""
    for name in ("shrunk", "rtl-coverage"):
        clear(out, [name])
        for folder in folders:
            if (folder / name).is_dir() or (folder / name).is_symlink():
                _copy_own(folder / name, out / name, skipped)


def _copy_own(source: Path, target: Path, skipped: list[Path]) -> None:
    """Copy the folders and regular files of `source` into `target` (merged with what is there); a symbolic link
    or a special file is added to `skipped` and neither followed nor copied."""
    if source.is_symlink() or not (source.is_dir() or source.is_file()):
        skipped.append(source)
    elif source.is_dir():
        target.mkdir(parents=True, exist_ok=True)
        for path in sorted(source.iterdir()):
            _copy_own(path, target / path.name, skipped)
    else:
        shutil.copy2(source, target, follow_symlinks=False)
