"""Throughput of golden.numerics over 10**7 elements, as a ratio to numpy's float32 add of the same size.

Run: python benchmarks/bench_numerics.py [--size N] [--repeat R]
Prints seconds (best of R) and time ratio vs the baseline measured in the same run (1.0 = as fast as
numpy adding two float32 arrays; 10.0 = ten times slower).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.timing import best_time  # noqa: E402
from golden.numerics import fp, fp_arith, integer  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10**7)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    n = args.size

    a = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    h = rng.integers(0, 1 << 16, size=n, dtype=np.uint32).astype(np.uint16)
    x = rng.integers(-(1 << 31), 1 << 31, size=n, dtype=np.int64)

    cases = {
        "numpy float32 add (baseline)": lambda: np.add(a, b),
        "fp16 -> fp32 -> fp16": lambda: fp.fp32_to_fp16(fp.fp16_to_fp32(h)),
        "fp16 -> fp32": lambda: fp.fp16_to_fp32(h),
        "fp32 -> fp16": lambda: fp.fp32_to_fp16(a),
        "convertor int32 -> int8": lambda: integer.convertor(x, 12345, -1234, 13, 8),
        "fp32 add, cmod-exact (fp_arith)": lambda: fp_arith.fp_add(a, b),
    }
    baseline = best_time(cases["numpy float32 add (baseline)"], args.repeat)
    print(f"elements: {n}, best of {args.repeat}, numpy {np.__version__}")
    print(f"{'operation':32s} {'seconds':>9s} {'Melem/s':>9s} {'time / baseline':>16s}")
    for name, fn in cases.items():
        t = baseline if name.endswith("(baseline)") else best_time(fn, args.repeat)
        print(f"{name:32s} {t:9.4f} {n / t / 1e6:9.1f} {t / baseline:16.1f}")


if __name__ == "__main__":
    main()
