"""Stimulus throughput: small random layers per second per unit family, generated, and generated + run.

Run: python benchmarks/bench_stimulus.py [--profile nv_small] [-n 200]
"generate" draws the layer (registers and memory images); "trace" also writes it as a .cfg trace with its
.dat files and plays it on the golden model to fill in the CRCs (stimulus/export.py), which is what
`nvdla-verif generate` does per trace. ratio = generate seconds / trace seconds: the share of a generated
trace's cost spent choosing the layer (measured in the same run).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from golden.config import get_profile  # noqa: E402
from stimulus.families import available, layers, write_generated  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="nv_small")
    parser.add_argument("-n", type=int, default=200)
    args = parser.parse_args()
    profile = get_profile(args.profile)
    print(f"{'family':8} {'generate/s':>11} {'trace/s':>9} {'ratio':>6}   ({args.n} layers, {profile.name})")
    for family in available(profile):
        start = time.perf_counter()
        for index in range(args.n):
            layers(family, profile, 1, index)
        generate = time.perf_counter() - start
        with tempfile.TemporaryDirectory() as out:
            start = time.perf_counter()
            for index in range(args.n):
                write_generated(family, profile, 1, index, out)
            trace = time.perf_counter() - start
        print(f"{family:8} {args.n / generate:11.0f} {args.n / trace:9.0f} {generate / trace:6.2f}")


if __name__ == "__main__":
    main()
