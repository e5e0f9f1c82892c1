"""Packing/unpacking throughput of the in-memory formats, as a ratio to a plain numpy copy.

Run: python benchmarks/bench_formats.py   (from the repository root)
The baseline is `np.copy` of the same number of bytes, timed in the same run;
ratio = baseline time / layout time (1.0 = as fast as a copy; goal >= 0.1).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.timing import best_time  # noqa: E402
from golden.formats.feature import pack_feature, packed_strides, unpack_feature  # noqa: E402
from golden.formats.weight import pack_dc_weights, unpack_dc_weights  # noqa: E402


def timed(function) -> float:
    """Seconds per call: the best of 7 runs of 5 calls, after a warm-up call."""
    return best_time(function, 7, number=5, warmup=True)


def report(name: str, nbytes: int, baseline: float, elapsed: float) -> float:
    ratio = baseline / elapsed
    print(f"{name:<46} {nbytes / elapsed / 1e9:8.3f} GB/s   copy {nbytes / baseline / 1e9:7.3f} GB/s"
          f"   ratio {ratio:6.3f}")
    return ratio


def main() -> int:
    rng = np.random.default_rng(0)
    cube = rng.integers(-128, 128, (64, 224, 224), dtype=np.int8)           # 224x224x64 int8 feature cube
    atom = 32
    line, surface = packed_strides(cube.shape, "int8", atom)
    packed = pack_feature(cube, "int8", line, surface, atom)
    copy_cube = timed(lambda: np.copy(cube))
    ratios = [
        report("feature pack   224x224x64 int8 (32-byte atoms)", cube.nbytes, copy_cube,
               timed(lambda: pack_feature(cube, "int8", line, surface, atom))),
        report("feature unpack 224x224x64 int8 (32-byte atoms)", cube.nbytes, copy_cube,
               timed(lambda: unpack_feature(packed, 0, cube.shape, "int8", line, surface, atom))),
    ]
    weights = rng.integers(-128, 128, (256, 256, 3, 3), dtype=np.int8)      # 3x3x256x256 int8 weights
    mapped = pack_dc_weights(weights, "int8", 64, 32)
    copy_weights = timed(lambda: np.copy(weights))
    ratios += [
        report("weight pack   3x3x256x256 int8 (nv_full groups)", weights.nbytes, copy_weights,
               timed(lambda: pack_dc_weights(weights, "int8", 64, 32))),
        report("weight unpack 3x3x256x256 int8 (nv_full groups)", weights.nbytes, copy_weights,
               timed(lambda: unpack_dc_weights(mapped, 0, weights.shape, "int8", 64, 32))),
    ]
    # the floor: the weight order moves single bytes (a kernel's 9 taps are contiguous in the cube, its
    # 64 channels in memory), so at least one numpy strided one-byte copy of the whole set is needed
    taps = weights.reshape(-1, 9)
    report("one strided byte copy (9 taps -> tap-major)", weights.nbytes, copy_weights,
           timed(lambda: np.ascontiguousarray(taps.T)))
    print(f"minimum ratio {min(ratios):.3f} (goal >= 0.1)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
