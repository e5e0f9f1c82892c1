"""What merging a batch run's shards costs as the run grows: 1, 10 and 100 shards of 100 tests each.

    python benchmarks/bench_merge.py [--tests-per-shard 100] [--shards 1 10 100] [--repeat 3]

The shards are synthetic: one real golden smoke run (25 tests) is the template, its records and Allure
files cloned under new test ids until each shard holds --tests-per-shard tests, every 20th one failing into
one of five triage buckets. Prints the best merge time of each size (ci/regression/merge.py, the code
`regress --on slurm` and `report merge` run) and its ratio to the one-shard merge measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.timing import best_time  # noqa: E402
from ci.regression.merge import merge_into  # noqa: E402
from ci.regression.results import record_file  # noqa: E402


def template(folder: Path) -> tuple[dict, list[dict], list[Path]]:
    """A real golden smoke run: its manifest, records and Allure result files."""
    subprocess.run([sys.executable, "-m", "ci.cli", "regress", "--level", "smoke", "--impl", "golden", "--seed", "1",
                    "--shrink", "0", "--out", str(folder)], cwd=HERE.parent, check=True, capture_output=True)
    manifest = json.loads((folder / "manifest.json").read_text())
    records = [json.loads(record_file(folder, item["id"]).read_text()) for item in manifest["items"]]
    return manifest, records, sorted((folder / "allure-results").glob("*-result.json"))


def synthetic_shard(folder: Path, index: int, total: int, size: int, manifest: dict, records: list[dict],
                    allure: list[Path]) -> None:
    items, written = [], 0
    (folder / "results").mkdir(parents=True)
    (folder / "allure-results").mkdir()
    by_id = {item["id"]: item for item in manifest["items"]}
    while written < size:
        for record, result in zip(records, allure, strict=True):
            if written == size:
                break
            number = index * size + written
            clone = {**record, "id": f"{record['id']}-{number}", "ran_on": {"shard": f"{index + 1}/{total}"}}
            if number % 20 == 0:
                clone["status"], clone["verdict"] = "failed", "failed"
                clone["signature"] = {"unit": "SDP", "implementation": "golden", "check": "scoreboard",
                                      "pattern": f"synthetic mismatch {number % 5}"}
            record_file(folder, clone["id"]).write_text(json.dumps(clone))
            items.append({**by_id[record["id"]], "id": clone["id"]})
            data = json.loads(result.read_text())
            data["name"], data["uuid"] = clone["id"], str(uuid.uuid4())
            (folder / "allure-results" / f"{data['uuid']}-result.json").write_text(json.dumps(data))
            written += 1
    shard_manifest = {**manifest, "items": items, "shard": f"{index + 1}/{total}", "out": str(folder),
                      "plan_items": total * size}
    (folder / "manifest.json").write_text(json.dumps(shard_manifest))


def _merge(out: Path, folders: list[Path]) -> None:
    shutil.rmtree(out, ignore_errors=True)
    merge_into(out, folders)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests-per-shard", type=int, default=100)
    parser.add_argument("--shards", type=int, nargs="+", default=[1, 10, 100])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        manifest, records, allure = template(root / "template")
        baseline = None
        print(f"{'shards':>7} {'tests':>7} {'merge s (best)':>15} {'per test ms':>12} {'vs 1 shard':>11}")
        for count in args.shards:
            folders = []
            for index in range(count):
                folder = root / f"run{count}" / f"{index:03d}"
                synthetic_shard(folder, index, count, args.tests_per_shard, manifest, records, allure)
                folders.append(folder)
            out = root / f"merged{count}"
            seconds = best_time(lambda out=out, folders=folders: _merge(out, folders), repeat=args.repeat)
            baseline = baseline or seconds
            tests = count * args.tests_per_shard
            print(f"{count:>7} {tests:>7} {seconds:>15.2f} {1000 * seconds / tests:>12.2f} "
                  f"{seconds / baseline:>10.1f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
