"""RTL bench speed: the bench's simulated cycles per second against a plain C++ loop clocking the same model.

Run: python benchmarks/bench_rtl.py [TRACE_NAME ...]   (from the repository root; needs the `rtl` extra)

The DUT is the fixture, or the RTL named by $NVDLA_RTL_FILELIST / $NVDLA_RTL_TOP / $NVDLA_RTL_DEFINES,
e.g. NVIDIA's nv_small with a few of its own traces:

    NVDLA_RTL_FILELIST=nv_small.f NVDLA_RTL_TOP=NV_nvdla NVDLA_RTL_DEFINES=EMULATION \\
        python benchmarks/bench_rtl.py dc_8x16x128_3x3x128x32_int8 pdp_8x8x64_2x2_int8

Both are measured in this run, on the same trace, the same verilated model and the same compiled job:
- bench: the `rtl` implementation judged by scoreboards.verdict.verify against the trace's own checks (cocotb +
  pyuvm; cycles from reset to the last check over the simulator's time for them, without process start-up);
- yardstick: benchmarks/rtl_yardstick.cpp (no VPI, no Python; built once, cached);
ratio = bench cycles/s / yardstick cycles/s (the issue's goal for NVIDIA's nv_small: >= 0.30).
Both check the job's CRCs; a mismatch stops the script. The build times print when a build happens
(delete the cache, $NVDLA_RTL_CACHE, to time a fresh one).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from rtl_yardstick import run_yardstick, yardstick_binary  # noqa: E402

from golden.config import get_profile  # noqa: E402
from golden.trace import CheckCrc, load_trace  # noqa: E402
from rtl.build import BuildOptions, build  # noqa: E402
from rtl.implementation import Rtl  # noqa: E402
from rtl.suite import nvidia_trace  # noqa: E402
from scoreboards.verdict import verify  # noqa: E402
from stimulus.fixture_sdp import write_random_trace  # noqa: E402

LAYERS = ("sdp_3x3x33_bs_bn_int8_0", "sdp_8x8x32_bypass_int8_1", "sdp_4x1x8192_pass_through_int8_0",
          "sdp_1x8192x1_pass_through_int8_0")


def timed(what: str, action):
    started = time.perf_counter()
    result = action()
    print(f"{what}: {time.perf_counter() - started:.1f} s", flush=True)
    return result


def main(argv: list[str]) -> None:
    profile = get_profile("nv_small")
    options = BuildOptions.from_env()
    timed(f"bench build of {options.toplevel} (or cache hit)", lambda: build(options))
    timed(f"yardstick build of {options.toplevel} (or cache hit)", lambda: yardstick_binary(options))
    with tempfile.TemporaryDirectory() as folder:
        names = argv or LAYERS
        cases = [(name, nvidia_trace(name)) for name in names if nvidia_trace(name).exists()]
        if not argv:
            cases.append(("random_7 (2 layers)", write_random_trace(Path(folder), 7, 2)))
        print(f"{'layer':36} {'cycles':>8} {'bench c/s':>10} {'yardstick c/s':>14} {'ratio':>6} {'bench wall s':>12}")
        for name, path in cases:
            rtl = Rtl(build_options=options)
            result = verify(path, profile, rtl)
            assert result.status == "passed", (name, result.status, result.detail)
            run = rtl.last_run
            stick = run_yardstick(path, profile, options)
            expected = {(c.base, c.size): c.crc for c in load_trace(path).commands if isinstance(c, CheckCrc)}
            assert all(stick["crcs"].get(region) == crc for region, crc in expected.items()), (name, stick)
            print(f"{name:36} {run.cycles:8d} {run.cycles_per_s:10.0f} {stick['cycles_per_s']:14.0f} "
                  f"{run.cycles_per_s / stick['cycles_per_s']:6.3f} {run.wall_s:12.2f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
