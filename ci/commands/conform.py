"""`nvdla-verif conform`: play every trace under the given paths on an implementation and report a verdict per trace.

The implementation's outcome is judged against each trace's own checks and, through the scoreboards,
against a reference implementation (--ref; the golden model unless --impl is golden itself).
Exit status 0 only when every trace that is valid for its profile and has all its input files
passed ("invalid" and "not applicable" traces and traces with a missing input file do not count); 1 otherwise; 2 when
nothing was selected or an option is wrong. The last line says the verdict, the counts and why the run exits as it
does (ci/final.py).
"""

from __future__ import annotations

import json
import sys
import time
from contextlib import nullcontext
from functools import lru_cache
from pathlib import Path

import ci.implementations as registry
from ci import shell
from ci.cli import invocation
from ci.conformance import draw_pictures, label
from ci.final import final_line, numbers
from ci.implementations.command import absolute_spec, keep_folder
from ci.journal import Journal
from ci.options import (
    add_data_root_option,
    add_implementation_options,
    add_profile_options,
    fixed_profile,
    implementations,
    positive,
    profile_for,
    reference_spec,
    rtl_arguments,
    settings_from,
    workers,
)
from ci.ownership import owned
from ci.signals import process_pool
from golden.config import Profile
from golden.errors import NvdlaVerifError
from golden.settings import Settings
from golden.status import FAILING, Verdict
from golden.trace import find_traces
from golden.verdict import TraceResult
from scoreboards.verdict import verify

NAME = "conform"
HELP = "play NVIDIA traces (.cfg / input.txn) on an implementation and report pass/fail per trace"


def add_arguments(parser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="trace files or folders to search")
    add_profile_options(parser)
    add_data_root_option(parser)
    parser.add_argument("-k", action="append", default=[], metavar="PATTERN",
                        help="run only traces whose name contains PATTERN (repeatable: any matches)")
    parser.add_argument("--json", metavar="OUT", help="write the results as JSON (and, while running, each "
                        "result to OUT.journal as it is known)")
    parser.add_argument("--resume", action="store_true",
                        help="continue a run that was stopped: keep the results in OUT.journal, play the rest")
    parser.add_argument("--pictures", metavar="DIR",
                        help="draw each mismatching surface's picture into DIR (PNG), as play does")
    parser.add_argument("-j", type=positive, default=1, metavar="N",
                        help="run N traces in parallel processes (default 1)")
    add_implementation_options(parser)


@lru_cache(maxsize=8)
def _created(spec: str | None, settings: Settings):
    return registry.create(spec, settings) if spec else None


def _play_one(task: tuple[str, Profile | None, str, str | None, str | None, str | None, Settings]
              ) -> tuple[TraceResult, list[Path]]:
    """The result of one trace (registers and memories stay in the worker) and the pictures drawn of it."""
    path, fixed, impl, ref, pictures, data_root, settings = task
    try:
        profile = profile_for(Path(path), fixed)
    except NvdlaVerifError as exc:
        return TraceResult(label(Path(path)), "?", Verdict.ERROR, str(exc), path=path, implementation=impl), []
    result = verify(path, profile, _created(impl, settings), _created(ref, settings), data_root)
    drawn = draw_pictures(result, pictures) if pictures else []
    result.layers, result.memory, result.reports = [], None, []
    return result, drawn


def counts(results: list[TraceResult]) -> dict[str, int]:
    summary = {"total": len(results)}
    summary.update({status: sum(r.status == status for r in results) for status in Verdict})
    return summary


def _not_counted(result: TraceResult) -> str:
    """Why a trace does not count for the exit status ('' when it counts)."""
    if result.status == Verdict.INVALID:
        return "invalid for their profile"
    if result.status == Verdict.NOT_APPLICABLE:
        return "not applicable to the implementation"
    if result.status == Verdict.ERROR and result.detail.startswith("missing file"):
        return "lack a data file (not run)"
    return ""


def exit_code(results: list[TraceResult]) -> int:
    return 0 if all(r.status == Verdict.PASSED for r in results if not _not_counted(r)) else 1


def final(results: list[TraceResult]) -> str:
    """The run's last line: the verdict, the counts, the exit code and the rule behind it (ci/final.py)."""
    code = exit_code(results)
    counted = [r for r in results if not _not_counted(r)]
    shown = numbers({status: sum(r.status == status for r in counted) for status in Verdict},
                    {Verdict.ERROR: "errors"}) or "nothing counted"
    aside = numbers({why: sum(_not_counted(r) == why for r in results)
                     for why in dict.fromkeys(map(_not_counted, results)) if why})
    if code == 0:
        rule = "every trace that counts passed" if counted else "no trace counts"
    else:
        rule = "a trace that counts did not pass" + (
            " (unsupported counts: the implementation lacks what the trace uses)"
            if any(r.status == Verdict.UNSUPPORTED for r in counted) else "")
    return final_line("conform", code, f"{shown} of {len(results)} traces", rule,
                      f"not counted: {aside}" if aside else "")


def reproduce(args, path: str) -> str:
    """A `play` command for one trace with the run's implementations, profile and data root, to paste into a shell
    in any folder: it shows the layers, the checks and the mismatch reports of that trace."""
    words = [*invocation(), "play", str(Path(path).absolute())]
    words += shell.option("--profile", args.profile) if args.profile else []
    words += ["--profile-spec", str(Path(args.profile_spec).absolute())] if args.profile_spec else []
    words += ["--data-root", str(Path(args.data_root).absolute())] if args.data_root else []
    words += shell.option("--impl", absolute_spec(args.impl)) if args.impl != "golden" else []
    words += shell.option("--ref", absolute_spec(args.ref)) if args.ref else []
    return shell.line(words + rtl_arguments(args))


def continues(args) -> str | None:
    """What a run stopped by a full disk keeps, and how it goes on (ci/cli.py prints it)."""
    if not args.json:
        return None
    return (f"the traces played so far are kept in {args.json}.journal; once there is space, the same command "
            "with --resume plays the rest")


def run(args) -> int:
    settings = settings_from(args)
    if args.json:
        settings = settings.keeping_runs_in(keep_folder(Path(args.json).parent))
    with owned(args.json, "file") if args.json else nullcontext():
        return _conform(args, settings)


def _conform(args, settings: Settings) -> int:
    implementation, reference = implementations(args, settings)
    ref = reference.name if reference is not None else None
    ref_spec = reference_spec(args.impl, args.ref)
    paths = [p for p in find_traces(*args.paths) if not args.k or any(k in p.stem or k in p.parent.name
                                                                         for k in args.k)]
    if not paths:
        where = ", ".join(args.paths) + (f" matching {' or '.join(args.k)}" if args.k else "")
        raise NvdlaVerifError(f"no trace selected: no .cfg or input.txn under {where}")
    if args.resume and not args.json:
        raise NvdlaVerifError("--resume needs --json OUT: the run's journal is OUT.journal")
    fixed = fixed_profile(args)
    args.j = workers(args.j)
    tasks = [(str(p), fixed, args.impl, ref_spec, args.pictures, args.data_root, settings) for p in paths]
    journal = _journal(args, ref_spec, paths)
    finished = journal.finished() if journal and args.resume else {}
    selected = {path for path, *_ in tasks}
    results = {key: TraceResult.from_dict(value) for key, value in finished.items() if key in selected}
    todo = [task for task in tasks if task[0] not in results]
    print(f"playing {len(todo)} traces on {implementation.name}" + (f", compared with {ref}" if ref else "")
          + (f", {args.j} in parallel" if args.j > 1 else "")
          + (f" ({len(results)} done before, from {journal.path})" if results else ""))
    started = time.perf_counter()
    width = max(len(label(p)) for p in paths)
    if journal:
        journal.open(args.resume)

    def report(index: int, path: str, played: tuple[TraceResult, list[Path]]) -> None:
        result, drawn = played
        results[path] = result
        if journal:
            journal.record(path, result.as_dict())
        detail = result.detail if result.status != Verdict.PASSED else result.detail[:80]
        print(f"[{index:3}/{len(tasks)}] {result.status.upper():14} {result.profile:12} "
              f"{result.name:{width}} {result.seconds:6.2f}s  {detail}", flush=True)
        if result.status in (*FAILING, Verdict.UNSUPPORTED) and not _not_counted(result):
            print(f"      reproduce: {reproduce(args, path)}")
        for warning in result.warnings:
            print(f"      warning: {warning}")
        for picture in drawn:
            print(f"      picture: {picture}")

    first = len(tasks) - len(todo) + 1
    if args.j > 1 and len(todo) > 1:
        with process_pool(args.j) as pool:
            for index, (task, result) in enumerate(zip(todo, pool.map(_play_one, todo), strict=True), first):
                report(index, task[0], result)
    else:
        for index, task in enumerate(todo, first):
            report(index, task[0], _play_one(task))
    results = [results[path] for path, *_ in tasks]
    summary = counts(results)
    _print_table(results, summary, time.perf_counter() - started)
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"implementation": args.impl, "reference": ref_spec, "summary": summary,
             "results": [r.as_dict() for r in results]}, indent=1) + "\n")
        journal.close(done=True)
    print(final(results))
    return exit_code(results)


def _journal(args, ref_spec: str | None, paths: list[Path]) -> Journal | None:
    if not args.json:
        return None
    header = {"command": "conform", "implementation": args.impl, "reference": ref_spec,
              "profile": args.profile or args.profile_spec, "traces": len(paths)}
    if args.data_root:
        header["data_root"] = args.data_root
    return Journal(Path(args.json + ".journal"), header)


def _print_table(results: list[TraceResult], summary: dict[str, int], seconds: float) -> None:
    profiles = sorted({r.profile for r in results})
    width = max(14, *(len(p) + 1 for p in profiles))
    header = f"{'profile':{width}}" + "".join(f"{s:>15}" for s in (*Verdict, "total"))
    print("\n" + header, file=sys.stdout)
    print("-" * len(header))
    for profile in profiles:
        rows = [r for r in results if r.profile == profile]
        print(f"{profile:{width}}" + "".join(f"{sum(r.status == s for r in rows):15}" for s in Verdict)
              + f"{len(rows):15}")
    print(f"{'all':{width}}" + "".join(f"{summary[s]:15}" for s in Verdict) + f"{summary['total']:15}")
    print(f"{summary['total']} traces in {seconds:.1f} s")
