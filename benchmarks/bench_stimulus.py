"""Stimulus throughput: random layers per second per core, per unit family, generated and generated + run.

Run: python benchmarks/bench_stimulus.py [--profile nv_small] [--profile nv_full] [-n 40] [--repeat 3]
                                         [--family sdp ...] [--against REV | --against none]

"generate" draws the layers (registers and memory images); "generate+run" also writes each as a trace with its
.dat files and plays it on the golden model to fill in the checks (stimulus/families.py write_generated), which is
what `nvdla-verif generate` does per trace: the stimulus benchmarks' mix is layer 0..n-1 of seed 1 of every family
the profile runs. Figures are layers per CPU second of one single-threaded process (time.process_time, so per
core, and less disturbed than wall time by other work on a shared machine; writing the files counts), min, median
and max over --repeat runs, each run a fresh process after one untimed warm-up layer.

The baseline, measured in the same run: the same layers on another revision of this repository (--against REV,
default HEAD: a clean tree then shows the noise of the machine, a changed one the effect of the change), extracted
with `git archive` into a temporary folder and measured by this script in its own process with that folder first
on PYTHONPATH, interleaved with this tree's runs so both see the same machine load. ratio = this tree's median /
the baseline's median. `--against FOLDER` takes another copy of the repository as it is; `--against none` runs
no baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def measure(profile_name: str, family: str, count: int) -> dict[str, float]:
    """CPU seconds to generate, and to generate + run, layers 0..count-1 of seed 1 (after one warm-up layer)."""
    from golden.config import get_profile
    from stimulus.families import layers, write_generated

    profile = get_profile(profile_name)
    with tempfile.TemporaryDirectory(prefix="bench-stimulus-") as out:
        write_generated(family, profile, 1, count + 1000, out)
        start = time.process_time()
        for index in range(count):
            layers(family, profile, 1, index)
        generate = time.process_time() - start
        start = time.process_time()
        for index in range(count):
            write_generated(family, profile, 1, index, out)
        both = time.process_time() - start
    return {"generate": generate, "run": both}


def _families(tree: Path, profile: str) -> list[str]:
    code = ("import json; from golden.config import get_profile; from stimulus.families import available; "
            f"print(json.dumps(available(get_profile({profile!r}))))")
    return json.loads(_python(tree, ["-c", code]))


def _python(tree: Path, args: list[str]) -> str:
    env = {**os.environ, "PYTHONPATH": str(tree), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, *args], cwd=tree, env=env, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"{tree}: {' '.join(args[:3])} failed:\n{done.stderr}")
    return done.stdout


def _run(tree: Path, profile: str, family: str, count: int) -> dict[str, float]:
    """One run in a fresh process: this script's measure() on the tree's golden model and generators."""
    return json.loads(_python(tree, [str(Path(__file__).resolve()), "--worker", profile, family, str(count)]))


def _checkout(revision: str, into: str) -> Path:
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision], capture_output=True)
    if archive.returncode:
        sys.exit(f"--against {revision}: {archive.stderr.decode().strip()}")
    subprocess.run(["tar", "-x", "-C", into], input=archive.stdout, check=True)
    return Path(into)


def _spread(values: list[float]) -> str:
    return f"{min(values):6.0f} {statistics.median(values):6.0f} {max(values):6.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", action="append", help="a profile to measure (repeatable; default nv_small)")
    parser.add_argument("--family", action="append", help="only these families (repeatable; default all)")
    parser.add_argument("-n", type=int, default=40, help="layers per run and family (default 40)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per family and tree (default 3)")
    parser.add_argument("--against", default="HEAD",
                        help="the baseline: a git revision, a folder holding another copy, or none (default HEAD)")
    parser.add_argument("--worker", nargs=3, metavar=("PROFILE", "FAMILY", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        profile, family, count = args.worker
        print(json.dumps(measure(profile, family, int(count))))
        return
    with tempfile.TemporaryDirectory(prefix="bench-stimulus-base-") as base:
        trees = {"this": ROOT}
        if Path(args.against).is_dir():
            trees["base"] = Path(args.against).resolve()
        elif args.against.lower() != "none":
            trees["base"] = _checkout(args.against, base)
        print(f"generate+run layers per CPU second, min median max of {args.repeat} runs of {args.n} layers; "
              f"baseline: {args.against}; load average {os.getloadavg()[0]:.1f} at the start")
        for profile in args.profile or ["nv_small"]:
            families = [f for f in _families(ROOT, profile) if not args.family or f in args.family]
            header = f"{profile:12} {'generate':>8}   {'generate+run':^20}"
            if "base" in trees:
                header += f"   {'baseline':^20} {'ratio':>6}"
            print(header)
            for family in families:
                runs: dict[str, list[dict[str, float]]] = {tree: [] for tree in trees}
                for _ in range(args.repeat):
                    for tree, path in trees.items():
                        runs[tree].append(_run(path, profile, family, args.n))
                rates = {tree: [args.n / r["run"] for r in found] for tree, found in runs.items()}
                generate = statistics.median(args.n / r["generate"] for r in runs["this"])
                line = f"  {family:10} {generate:8.0f}   {_spread(rates['this'])}"
                if "base" in trees:
                    ratio = statistics.median(rates["this"]) / statistics.median(rates["base"])
                    line += f"   {_spread(rates['base'])} {ratio:6.2f}"
                print(line, flush=True)
        print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
