"""Direct-convolution throughput of the convolution model, as a ratio to this machine's float64 GEMM rate.

Run: python benchmarks/bench_conv.py   (from the repository root)

Layer: 56x56x64 input, 3x3x64x64 kernels, stride 1, padding 1 (56x56x64 output, 115.6 M MACs).
Baseline: numpy float64 matmul of 1024x1024 matrices, MAC/s = FLOP/s / 2, timed in the same run.
Printed per case: MAC/s of the model's CSC -> CMAC -> CACC computation (golden.units.conv.direct.convolve), of a
full hardware layer through run() (register decode, limitation checks, CDMA reads from memory, weight
unpacking), and ratio = model MAC/s / baseline MAC/s (goal >= 0.5 for int8).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.timing import best_time  # noqa: E402
from golden.config import get_profile  # noqa: E402
from golden.units import conv  # noqa: E402
from golden.units.conv.direct import convolve  # noqa: E402
from golden.units.conv.geometry import Geometry  # noqa: E402
from golden.units.conv.program import DirectLayer, direct_layer  # noqa: E402

SIZE, CHANNELS, KERNELS, TAPS = 56, 64, 64, 3
MACS = SIZE * SIZE * KERNELS * CHANNELS * TAPS * TAPS


def gemm_macs_per_second() -> float:
    rng = np.random.default_rng(1)
    a, b = rng.random((1024, 1024)), rng.random((1024, 1024))
    return 1024**3 / best_time(lambda: a @ b, warmup=True)


def operands(precision: str):
    rng = np.random.default_rng(0)
    shape, wshape = (1, CHANNELS, SIZE, SIZE), (KERNELS, CHANNELS, TAPS, TAPS)
    if precision == "fp16":
        return rng.normal(size=shape).astype(np.float16), rng.normal(size=wshape).astype(np.float16)
    bits = 8 if precision == "int8" else 16
    lo, hi = -(1 << (bits - 1)), 1 << (bits - 1)
    return rng.integers(lo, hi, shape), rng.integers(lo, hi, wshape)


def bench_case(precision: str, geometry: Geometry, baseline: float) -> float:
    cube, weights = operands(precision)
    truncate = 8 if precision != "fp16" else 0
    core = best_time(lambda: convolve(cube, weights, geometry, precision, 0, truncate), warmup=True)
    ctx = direct_layer(get_profile("nv_full"), cube[0], weights, DirectLayer(precision=precision, pad=(1, 1)))
    full = best_time(lambda: conv.run(ctx), repeat=3, warmup=True)
    note = "   [includes the fp16 tolerance map]" if precision == "fp16" else ""
    print(f"{precision:5s} 56x56x64 * 3x3x64x64: convolve {MACS / core / 1e9:6.2f} G MAC/s "
          f"(ratio {MACS / core / baseline:5.2f}), run() {MACS / full / 1e9:6.2f} G MAC/s "
          f"(ratio {MACS / full / baseline:5.2f}){note}")
    return MACS / core / baseline


def main() -> int:
    baseline = gemm_macs_per_second()
    print(f"float64 GEMM baseline: {baseline / 1e9:.2f} G MAC/s (1024^3 matmul, FLOP/2)")
    geometry = Geometry(taps=(TAPS, TAPS), out_hw=(SIZE, SIZE), stride=(1, 1), dilation=(1, 1), pad_left=1,
                        pad_top=1)
    ratios = {}
    for precision in ("int8", "int16", "fp16"):
        # the machine is shared: re-measure the baseline next to every case and keep the fastest
        baseline = max(baseline, gemm_macs_per_second())
        ratios[precision] = bench_case(precision, geometry, baseline)
    print(f"float64 GEMM baseline (best seen): {baseline / 1e9:.2f} G MAC/s")
    print(f"int8 goal ratio >= 0.5: {'met' if ratios['int8'] >= 0.5 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
