"""`nvdla-verif conform`: play every trace under the given paths and report a verdict per trace.

Exit status 0 only when every trace that is valid for its profile and has all its
input files passed ("invalid" traces and traces with a missing input file do not count).
"""

from __future__ import annotations

import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from golden.config import Profile, get_profile, infer_profile_name, load_spec
from golden.errors import NvdlaVerifError
from golden.player import STATUSES, TraceResult, play
from golden.trace import find_traces

NAME = "conform"
HELP = "play NVIDIA traces (.cfg / input.txn) on an implementation and report pass/fail per trace"


def add_arguments(parser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="trace files or folders to search")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--profile", help="hardware profile for every trace (default: from the folder names)")
    group.add_argument("--profile-spec", metavar="FILE", help="a .spec file defining the profile")
    parser.add_argument("-k", action="append", default=[], metavar="PATTERN",
                        help="run only traces whose name contains PATTERN (repeatable: any matches)")
    parser.add_argument("--json", metavar="OUT", help="write the results as JSON")
    parser.add_argument("-j", type=int, default=1, metavar="N", help="run N traces in parallel processes")
    parser.add_argument("--impl", choices=("golden", "rtl"), default="golden",
                        help="implementation to play the traces on (default: golden)")
    rtl = parser.add_argument_group("RTL under test (--impl rtl; default: the project's fixture DUT)")
    rtl.add_argument("--rtl-filelist", metavar="FILE",
                     help="a Verilator-ready file list of your NVDLA RTL (e.g. your nvdla/hw nv_small build)")
    rtl.add_argument("--rtl-top", metavar="NAME", help="the top module of --rtl-filelist (NV_nvdla-like ports)")
    rtl.add_argument("--rtl-define", action="append", default=[], metavar="D",
                     help="a Verilator define for --rtl-filelist, e.g. EMULATION (repeatable)")


def _profile_for(path: Path, args, spec: Profile | None) -> Profile | None:
    if spec is not None:
        return spec
    if args.profile:
        return get_profile(args.profile)
    name = infer_profile_name(path)
    return get_profile(name) if name else None


def _play_one(task: tuple[str, Profile | None, str]) -> TraceResult:
    path, profile, impl = task
    if profile is None:
        return TraceResult(_label(Path(path)), "?", "error",
                           "cannot infer the hardware profile from the folder names; use --profile")
    result = play(path, profile, impl=impl)
    result.layers, result.memory = [], None  # registers and memories stay in the worker
    return result


def counts(results: list[TraceResult]) -> dict[str, int]:
    summary = {"total": len(results)}
    summary.update({status: sum(r.status == status for r in results) for status in STATUSES})
    return summary


def exit_code(results: list[TraceResult]) -> int:
    counted = [r for r in results if r.status != "invalid" and not r.detail.startswith("missing file")]
    return 0 if all(r.status == "passed" for r in counted) else 1


def _rtl_environment(args) -> dict[str, str]:
    """The RTL build options, handed to rtl.build.BuildOptions.from_env through the environment."""
    if (args.rtl_top or args.rtl_define) and not args.rtl_filelist:
        raise NvdlaVerifError("--rtl-top and --rtl-define need --rtl-filelist FILE")
    if not args.rtl_filelist:
        return {}
    if args.impl != "rtl":
        raise NvdlaVerifError("--rtl-filelist needs --impl rtl")
    if not Path(args.rtl_filelist).is_file():
        raise NvdlaVerifError(f"{args.rtl_filelist}: RTL file list not found")
    try:
        from rtl.build import BuildOptions
    except ModuleNotFoundError as exc:
        raise NvdlaVerifError(f"--impl rtl needs the RTL bench's packages ({exc.name} is missing): "
                              "bash ci/setup.sh --test") from None
    return BuildOptions(Path(args.rtl_filelist), args.rtl_top, tuple(args.rtl_define)).to_env()


@contextmanager
def _environment(values: dict[str, str]):
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def run(args) -> int:
    with _environment(_rtl_environment(args)):
        return _conform(args)


def _conform(args) -> int:
    paths = [p for p in find_traces(*args.paths) if not args.k or any(k in p.stem or k in p.parent.name
                                                                         for k in args.k)]
    spec = load_spec(args.profile_spec) if args.profile_spec else None
    tasks = [(str(p), _profile_for(p, args, spec), args.impl) for p in paths]
    started = time.perf_counter()
    results: list[TraceResult] = []
    width = max((len(_label(Path(t[0]))) for t in tasks), default=10)

    def report(index: int, result: TraceResult) -> None:
        results.append(result)
        print(f"[{index:3}/{len(tasks)}] {result.status.upper():11} {result.profile:12} "
              f"{result.name:{width}} {result.seconds:6.2f}s  {result.detail[:160]}", flush=True)

    if args.j > 1 and len(tasks) > 1:
        with ProcessPoolExecutor(max_workers=args.j) as pool:
            for index, result in enumerate(pool.map(_play_one, tasks, chunksize=1), 1):
                report(index, result)
    else:
        for index, task in enumerate(tasks, 1):
            report(index, _play_one(task))
    summary = counts(results)
    _print_table(results, summary, time.perf_counter() - started)
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"summary": summary, "results": [r.as_dict() for r in results]}, indent=1) + "\n")
    return exit_code(results)


def _label(path: Path) -> str:
    return path.parent.name if path.suffix == ".txn" else path.stem


def _print_table(results: list[TraceResult], summary: dict[str, int], seconds: float) -> None:
    profiles = sorted({r.profile for r in results})
    header = f"{'profile':14}" + "".join(f"{s:>12}" for s in (*STATUSES, "total"))
    print("\n" + header, file=sys.stdout)
    print("-" * len(header))
    for profile in profiles:
        rows = [r for r in results if r.profile == profile]
        print(f"{profile:14}" + "".join(f"{sum(r.status == s for r in rows):12}" for s in STATUSES)
              + f"{len(rows):12}")
    print(f"{'all':14}" + "".join(f"{summary[s]:12}" for s in STATUSES) + f"{summary['total']:12}")
    print(f"{summary['total']} traces in {seconds:.1f} s")
