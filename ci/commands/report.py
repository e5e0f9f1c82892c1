"""`nvdla-verif report`: the regression's reports after the fact.

    nvdla-verif report merge DIR... [--out DIR] [--html]   merge the results folders of `regress --shard i/n`
    nvdla-verif report html DIR                            (re)build DIR/report.html from DIR/allure-results

A merged report is the report one unsharded run with the same plan, level and seed would have written:
the same tests, verdicts, triage buckets, sign-off and coverage (only times and shard numbers differ).
Shards of different runs (plan, level, seed, implementations) are refused; a missing shard is named.
Exit status of merge: 0 when nothing failed or errored, 1 otherwise, 2 for unusable folders.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from ci.ownership import owned
from ci.regression import html
from ci.regression.finish import finish
from ci.regression.plan import PlanError
from ci.regression.results import collect_records, keep_history

NAME = "report"
HELP = "merge the results of regress shards into one report (report merge DIR...), build the HTML report"
SAME_RUN = ("plan", "level", "seed", "impl", "ref", "profile", "rtl_profile", "plan_items")


def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    merge = sub.add_parser("merge", help="merge shard result folders into one report")
    merge.add_argument("dirs", nargs="+", metavar="DIR", help="the --out folders of the shards")
    merge.add_argument("--out", default="regress-merged", metavar="DIR", help="where the merged report goes")
    merge.add_argument("--html", action="store_true", help="build the Allure 3 HTML report OUT/report.html")
    page = sub.add_parser("html", help="build DIR/report.html from DIR/allure-results")
    page.add_argument("dir", metavar="DIR")


def run(args) -> int:
    if args.action == "html":
        folder = Path(args.dir)
        meta = json.loads((folder / "results.json").read_text())["meta"] if (folder / "results.json").is_file() else {}
        page = html.build_run(folder, _title(meta), new_run=False)
        print(f"report: HTML report {page}")
        return 0
    return merge(args)


def _title(meta: dict) -> str:
    return f"nvdla-verif {meta.get('level', '')} seed {meta.get('seed', '')}".strip()


def load_shards(dirs: list[str]) -> list[tuple[Path, dict]]:
    shards = []
    for folder in map(Path, dirs):
        manifest_file = folder / "manifest.json"
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


def merged_manifest(shards: list[tuple[Path, dict]], out: Path) -> dict:
    seen: dict[str, Path] = {}
    items = []
    for folder, manifest in shards:
        for item in manifest["items"]:
            if item["id"] in seen:
                raise PlanError(f"test {item['id']} is in both {seen[item['id']]} and {folder}: overlapping shards")
            seen[item["id"]] = folder
            items.append(item)
    first = shards[0][1]
    merged = {**first, "items": sorted(items, key=lambda i: i["id"]), "shard": None, "out": str(out)}
    return merged


def merge(args) -> int:
    out = Path(args.out).resolve()
    inputs = [folder for folder in args.dirs if Path(folder).resolve() == out]
    if inputs:
        raise PlanError(f"--out {args.out} is one of the folders to merge ({inputs[0]}): merging would overwrite "
                        "it; choose another --out")
    with owned(out):
        return _merge(args, out)


def _merge(args, out: Path) -> int:
    shards = load_shards(args.dirs)
    manifest = merged_manifest(shards, out)
    records = [r for folder, m in shards for r in collect_records(folder, m)]
    missing = manifest["plan_items"] - len(manifest["items"])
    if missing > 0:
        print(f"report: warning: {missing} of the plan's {manifest['plan_items']} tests are in no folder given "
              "(a shard missing, or runs with --test)")
    out.mkdir(parents=True, exist_ok=True)
    keep_history(out, time.strftime("%Y%m%dT%H%M%S"))
    _merge_allure(out, [folder for folder, _ in shards])
    _merge_folders(out, [folder for folder, _ in shards])
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    report = finish(out, manifest, records, {"merged_from": len(shards)})
    print((out / "summary.txt").read_text(), end="")
    if args.html:
        page = html.build_run(out, _title(report["meta"]))
        print(f"report: HTML report {page}")
    counts = report["counts"]
    return 1 if counts["failed"] or counts["error"] else 0


def _merge_allure(out: Path, folders: list[Path]) -> None:
    target = out / "allure-results"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for folder in folders:
        source = folder / "allure-results"
        if not source.is_dir():
            continue
        for path in source.iterdir():
            if path.name not in ("categories.json", "environment.properties"):  # rewritten for the merged run
                shutil.copy2(path, target / path.name)


def _merge_folders(out: Path, folders: list[Path]) -> None:
    """The shards' shrunk layers (OUT/shrunk: each bucket shows its smallest generated failure's, wherever it ran)
    and their tests' RTL code coverage (OUT/rtl-coverage, merged again by finish)."""
    for name in ("shrunk", "rtl-coverage"):
        target = out / name
        shutil.rmtree(target, ignore_errors=True)
        for folder in folders:
            if (folder / name).is_dir():
                shutil.copytree(folder / name, target, dirs_exist_ok=True)
