"""`nvdla-verif coverage`: functional coverage of generated layers (and of traces), with its holes."""

from __future__ import annotations

import tempfile
from pathlib import Path

from ci.options import count, families_for, positive, profile_for
from golden.config import get_profile
from golden.errors import NvdlaVerifError
from golden.player import play
from golden.status import Verdict
from golden.trace import find_traces, load_trace
from stimulus.coverage import Coverage, merge
from stimulus.export import play_layers
from stimulus.families import covergroups, layers
from stimulus.families import names as family_names

NAME = "coverage"
HELP = "sample the configuration coverage of N generated layers per unit family (and of traces); print the holes"


def add_arguments(parser) -> None:
    parser.add_argument("--profile", help="hardware profile (default nv_small for generated layers; a trace's "
                                          "from its folder names, as conform takes it)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the generated layers: the same seed and profile draw the same layers (default 0)")
    parser.add_argument("-n", type=count, default=200, help="generated traces per unit family (default 200; 0: none)")
    parser.add_argument("--layers", type=positive, default=1,
                        help="back-to-back layers per generated trace (default 1; 2+: conv data/weight reuse)")
    parser.add_argument("--unit", action="append", choices=family_names(), help="unit family (repeatable)")
    parser.add_argument("--traces", nargs="*", default=[], metavar="PATH",
                        help="also sample every layer the golden model runs from these traces")
    parser.add_argument("--run", action="store_true",
                        help="also run each generated layer on the golden model and sample what it reported (LUT "
                             "hit/underflow/overflow, EQL result: the *_run groups)")
    parser.add_argument("--export", metavar="FILE", help="write the coverage database (YAML, mergeable)")
    parser.add_argument("--merge", nargs="+", metavar="FILE", help="merge these exports into --export and stop")


def run(args) -> int:
    if args.merge:
        if not args.export:
            raise NvdlaVerifError("--merge needs --export FILE for the merged database")
        missing = [name for name in args.merge if not Path(name).is_file()]
        if missing:
            raise NvdlaVerifError(f"--merge: no such coverage export: {', '.join(missing)}")
        merge(args.merge, args.export)
        print(f"merged {len(args.merge)} files into {args.export}")
        return 0
    traces = _readable(args.traces, get_profile(args.profile) if args.profile else None)
    seen = sorted({own.name for _, own in traces})
    if len(seen) > 1:
        raise NvdlaVerifError(f"the traces are of {len(seen)} profiles ({', '.join(seen)}): sample one at a time "
                              "(give the paths of one, or --profile)")
    profile = traces[0][1] if traces else get_profile(args.profile or "nv_small")
    coverage = Coverage(profile, outcomes=args.run or bool(args.traces))
    with tempfile.TemporaryDirectory() as scratch:
        for family in families_for(profile, args.unit):
            for index in range(args.n):
                generated = layers(family, profile, args.seed, index, args.layers)
                if not args.run:
                    for layer in generated:
                        coverage.sample_layer(layer)
                    continue
                result = play_layers(generated, scratch, "layer", profile)
                if result.status not in (Verdict.PASSED, Verdict.FAILED):  # failed: the unchecked CRCs (0) only
                    print(f"{family} seed {args.seed} index {index}: {result.status} {result.detail}")
                    return 1
                for run in result.layers:
                    coverage.sample_run(run)
    sampled = 0
    for path, own in traces:
        result = play(path, own)
        for layer in result.layers:
            if layer.regs is not None:
                coverage.sample_run(layer)
                sampled += 1
    if args.traces:
        print(f"sampled {sampled} layers from {len(traces)} traces")
    groups = None
    if args.unit:  # the covergroups of the families asked for, and their run outcomes
        wanted = {covergroups().get(f, f) for f in args.unit}
        groups = [g for g in coverage.groups if g in wanted or g.removesuffix("_run") in wanted]
    print(coverage.report(groups))
    if args.export:
        coverage.export(args.export)
    return 0


def _readable(paths: list[str], fixed) -> list[tuple]:
    """(trace, its profile) for every trace under the paths; any that cannot be read or whose profile cannot
    be told is named, all at once, before anything is sampled."""
    if not paths:
        return []
    found, problems = [], []
    for path in find_traces(*paths):
        try:
            load_trace(path)
            found.append((path, profile_for(path, fixed)))
        except NvdlaVerifError as exc:
            problems.append(f"{path}: {exc}")
    if problems:
        raise NvdlaVerifError(f"{len(problems)} of {len(problems) + len(found)} traces cannot be sampled:\n  "
                              + "\n  ".join(problems))
    if not found:
        raise NvdlaVerifError(f"no trace (.cfg or input.txn) under {', '.join(paths)}")
    return found

