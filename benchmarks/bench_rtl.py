"""RTL bench speed: the bench's simulated cycles per second against a plain C++ loop clocking the same model.

Run: python benchmarks/bench_rtl.py [TRACE ...] [--profile P] [--rtl-filelist F --rtl-top T --rtl-define D ...]
(from the repository root; needs the `rtl` extra)

A TRACE is a trace file or folder, or the name of a test folder under NVDLA_DATA/trace_tests/<profile>/ (the
profile: --profile, default nv_small); a name found nowhere is an error before anything is built. The DUT is the
fixture, or the RTL the --rtl-* options name, as `nvdla-verif conform --impl rtl` takes them (ci/options.py),
e.g. NVIDIA's nv_small with a few of its own traces:

    python benchmarks/bench_rtl.py --rtl-filelist nv_small.f --rtl-top NV_nvdla --rtl-define EMULATION \\
        --rtl-profile nv_small dc_8x16x128_3x3x128x32_int8 pdp_8x8x64_2x2_int8

Both are measured in this run, on the same trace, the same verilated model and the same compiled job:
- bench: the `rtl` implementation judged by scoreboards.verdict.verify against the trace's own checks (cocotb +
  pyuvm; cycles from reset to the last check over the simulator's time for them, without process start-up);
- yardstick: benchmarks/rtl_yardstick.cpp (no VPI, no Python; built once, cached);
ratio = bench cycles/s / yardstick cycles/s (the issue's goal for NVIDIA's nv_small: >= 0.30).
Both check the job's CRCs; a mismatch stops the script. Both builds print their progress when a build happens
(delete the cache, $NVDLA_RTL_CACHE, to time a fresh one).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from rtl_yardstick import run_yardstick, yardstick_binary  # noqa: E402

from ci.options import (  # noqa: E402
    add_profile_options,
    add_rtl_options,
    fixed_profile,
    profile_for,
    settings_from,
)
from golden.config import Profile, get_profile  # noqa: E402
from golden.errors import NvdlaVerifError  # noqa: E402
from golden.settings import Settings  # noqa: E402
from golden.trace import CheckCrc, load_trace  # noqa: E402
from rtl.suite import DATA_ROOT  # noqa: E402
from scoreboards.verdict import verify  # noqa: E402
from stimulus.sdp.fixture import write_random_trace  # noqa: E402

LAYERS = ("sdp_3x3x33_bs_bn_int8_0", "sdp_8x8x32_bypass_int8_1", "sdp_4x1x8192_pass_through_int8_0",
          "sdp_1x8192x1_pass_through_int8_0")
#: The profile of the default layers and of the generated one, and of names when --profile is not given.
DEFAULT_PROFILE = "nv_small"


def parser() -> argparse.ArgumentParser:
    options = argparse.ArgumentParser(prog="bench_rtl.py", description="The RTL bench's simulated cycles per "
                                      "second against a plain C++ loop clocking the same verilated model.")
    options.add_argument("traces", nargs="*", metavar="TRACE",
                         help="trace files or folders, or test names under NVDLA_DATA/trace_tests/<profile>/ "
                              f"(default: {len(LAYERS)} SDP layers of {DEFAULT_PROFILE} and a generated one)")
    add_profile_options(options)
    add_rtl_options(options)
    options.set_defaults(impl="rtl", ref=None)  # what settings_from checks the --rtl-* options against
    return options


def timed(what: str, action):
    started = time.perf_counter()
    result = action()
    print(f"{what}: {time.perf_counter() - started:.1f} s", flush=True)
    return result


def cases(names: list[str], fixed: Profile | None) -> list[tuple[str, Path, Profile]]:
    """(name, trace, profile) of each TRACE: a path as it is, a name under the profile's trace_tests folder;
    every name found nowhere in one NvdlaVerifError."""
    folder = DATA_ROOT / "trace_tests" / (fixed.name if fixed is not None else DEFAULT_PROFILE)
    found, unknown = [], []
    for name in names:
        path = Path(name) if Path(name).exists() else folder / name
        if not path.exists():
            unknown.append(name)
            continue
        found.append((name, path, profile_for(path, fixed)))
    if unknown:
        raise NvdlaVerifError(f"no trace {', '.join(unknown)}: neither a path nor a test folder in {folder} "
                              "(--profile chooses the folder, $NVDLA_DATA the data)")
    return found


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    try:
        fixed = fixed_profile(args)
        chosen = cases(args.traces or list(LAYERS), fixed or (None if args.traces else get_profile(DEFAULT_PROFILE)))
        _bench(chosen, fixed, settings_from(args), generated=not args.traces)
    except NvdlaVerifError as exc:
        print(f"bench_rtl.py: error: {exc}", file=sys.stderr)
        return 2
    return 0


def _bench(chosen: list[tuple[str, Path, Profile]], fixed: Profile | None, settings: Settings,
           generated: bool) -> None:
    from rtl.build import BuildOptions, build
    from rtl.implementation import Rtl

    options = BuildOptions.from_settings(settings.rtl)
    timed(f"bench build of {options.toplevel} (or cache hit)", lambda: build(options))
    timed(f"yardstick build of {options.toplevel} (or cache hit)", lambda: yardstick_binary(options))
    with tempfile.TemporaryDirectory() as folder:
        if generated:
            chosen.append(("random_7 (2 layers)", write_random_trace(Path(folder), 7, 2),
                           fixed or get_profile(DEFAULT_PROFILE)))
        print(f"{'layer':36} {'cycles':>8} {'bench c/s':>10} {'yardstick c/s':>14} {'ratio':>6} {'bench wall s':>12}")
        for name, path, profile in chosen:
            rtl = Rtl(settings=settings)
            result = verify(path, profile, rtl)
            if result.status != "passed":
                raise NvdlaVerifError(f"{name}: {result.status} on the bench: {result.detail}")
            run = rtl.last_run
            stick = run_yardstick(path, profile, options)
            expected = {(c.base, c.size): c.crc for c in load_trace(path).commands if isinstance(c, CheckCrc)}
            assert all(stick["crcs"].get(region) == crc for region, crc in expected.items()), (name, stick)
            print(f"{name:36} {run.cycles:8d} {run.cycles_per_s:10.0f} {stick['cycles_per_s']:14.0f} "
                  f"{run.cycles_per_s / stick['cycles_per_s']:6.3f} {run.wall_s:12.2f}", flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
