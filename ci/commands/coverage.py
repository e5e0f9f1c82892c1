"""`nvdla-verif coverage`: functional coverage of generated layers (and of traces), with its holes."""

from __future__ import annotations

from golden.config import get_profile
from golden.player import play
from golden.trace import find_traces
from stimulus.coverage import Coverage, merge
from stimulus.families import GENERATORS, available, layers

NAME = "coverage"
HELP = "sample the configuration coverage of N generated layers per unit family (and of traces); print the holes"


def add_arguments(parser) -> None:
    parser.add_argument("--profile", default="nv_small", help="hardware profile (default nv_small)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("-n", type=int, default=200, help="generated traces per unit family (0: none)")
    parser.add_argument("--layers", type=int, default=1,
                        help="back-to-back layers per generated trace (2+: conv data/weight reuse)")
    parser.add_argument("--unit", action="append", choices=sorted(GENERATORS), help="unit family (repeatable)")
    parser.add_argument("--traces", nargs="*", default=[], metavar="PATH",
                        help="also sample every layer the golden model runs from these traces")
    parser.add_argument("--export", metavar="FILE", help="write the coverage database (YAML, mergeable)")
    parser.add_argument("--merge", nargs="+", metavar="FILE", help="merge these exports into --export and stop")


def run(args) -> int:
    if args.merge:
        if not args.export:
            print("--merge needs --export FILE for the merged database")
            return 2
        merge(args.merge, args.export)
        print(f"merged {len(args.merge)} files into {args.export}")
        return 0
    profile = get_profile(args.profile)
    coverage = Coverage(profile)
    for family in args.unit or [f for f in available(profile) if f != "bdma"]:
        for index in range(args.n):
            for layer in layers(family, profile, args.seed, index, args.layers):
                coverage.sample_layer(layer)
    sampled = 0
    for path in find_traces(*args.traces):
        result = play(path, profile)
        for layer in result.layers:
            if layer.regs is not None:
                coverage.sample(layer.stages, layer.regs)
                sampled += 1
    if args.traces:
        print(f"sampled {sampled} layers from {len(find_traces(*args.traces))} traces")
    print(coverage.report())
    if args.export:
        coverage.export(args.export)
    return 0
