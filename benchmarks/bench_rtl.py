"""RTL bench (fixture DUT under Verilator, cocotb + pyuvm) vs golden model: wall time per layer.

Run: python benchmarks/bench_rtl.py   (from the repository root; needs Verilator, cocotb 1.8, pyuvm)

For each layer: the golden model's time to play the trace (golden.player.play, best of 3),
the bench's time (rtl.runner.run_trace_on_rtl with golden=None: job preparation, simulator
start-up, reset, CSB programming, the layer, read-back; the fixture build is cached and
timed once, separately), the simulated cycles and cycles per second, and
ratio = bench time / golden time (how many times slower the RTL bench is).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from golden.config import get_profile  # noqa: E402
from golden.player import play  # noqa: E402
from rtl.build import BuildOptions, build  # noqa: E402
from rtl.runner import run_trace_on_rtl  # noqa: E402
from rtl.suite import nvidia_trace  # noqa: E402
from stimulus.fixture_sdp import write_random_trace  # noqa: E402

LAYERS = ("sdp_1x1x1_pass_through_int8", "sdp_3x3x33_bs_bn_int8_0", "sdp_8x8x32_bypass_int8_1",
          "sdp_4x22x42_bypass_int8", "sdp_4x1x8192_pass_through_int8_0", "sdp_1x8192x1_pass_through_int8_0")


def golden_seconds(path: Path, profile) -> float:
    times = []
    for _ in range(3):
        result = play(path, profile)
        assert result.status == "passed", result.detail
        times.append(result.seconds)
    return min(times)


def main() -> None:
    profile = get_profile("nv_small")
    started = time.perf_counter()
    build(BuildOptions())
    print(f"fixture build (or cache hit): {time.perf_counter() - started:.1f} s")
    with tempfile.TemporaryDirectory() as folder:
        cases = [(name, nvidia_trace(name)) for name in LAYERS if nvidia_trace(name).exists()]
        cases.append(("random_7 (2 layers)", write_random_trace(Path(folder), 7, 2)))
        print(f"{'layer':36} {'golden s':>9} {'bench s':>8} {'cycles':>7} {'cycles/s':>9} {'ratio':>8}")
        for name, path in cases:
            golden = golden_seconds(path, profile)
            run = run_trace_on_rtl(path, profile, golden=None)
            assert run.status == "pass", (name, run.status, run.message)
            print(f"{name:36} {golden:9.4f} {run.wall_s:8.2f} {run.cycles:7d} {run.cycles / run.sim_s:9.0f} "
                  f"{run.wall_s / golden:8.0f}")


if __name__ == "__main__":
    main()
