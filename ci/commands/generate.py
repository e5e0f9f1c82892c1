"""`nvdla-verif generate`: random legal layers written as NVIDIA .cfg traces with the golden model's CRCs."""

from __future__ import annotations

from ci.options import families_for, positive
from golden.config import get_profile
from stimulus.corner_data import write_aimed
from stimulus.corners import GROUP as CORNERS
from stimulus.directed import directed
from stimulus.families import covergroups, write_generated
from stimulus.families import names as family_names

NAME = "generate"
HELP = "write random legal layers of a unit family as .cfg traces (OUT/<profile>/<test>/) that conform replays"


def add_arguments(parser) -> None:
    parser.add_argument("--unit", required=True, choices=family_names(), help="unit family")
    parser.add_argument("--profile", default="nv_small", help="hardware profile (default nv_small)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed: the same seed and profile give the same bytes (default 0)")
    parser.add_argument("-n", type=positive, default=1,
                        help="number of traces (default 1; with --coverage-directed: at most)")
    parser.add_argument("--index", type=int, default=0,
                        help="the first trace's index in the seed's stream (default 0; a coverage-directed regression "
                             "test's)")
    parser.add_argument("--layers", type=positive, default=1,
                        help="back-to-back layers per trace (register groups 0/1; default 1)")
    parser.add_argument("--out", required=True, help="output folder")
    parser.add_argument("--coverage-directed", action="store_true",
                        help="draw until the unit's coverage holes stop shrinking; write only the traces that "
                             "closed a hole")
    parser.add_argument("--corners", action="store_true",
                        help="corner-aimed draws (stimulus/corner_data.py); with --coverage-directed, directed by the "
                             "arithmetic corner covergroup (stimulus/corners.py) instead of the unit's")
    parser.add_argument("--patience", type=int, default=300,
                        help="with --coverage-directed: stop after this many draws without a hole closed (default 300)")


def run(args) -> int:
    profile = get_profile(args.profile)
    families_for(profile, [args.unit])
    if args.coverage_directed:
        if args.unit not in covergroups() and not args.corners:
            print(f"no covergroup for {args.unit} yet; known: {', '.join(sorted(covergroups()))}")
            return 2
        return _directed(args, profile)
    write = write_aimed if args.corners else write_generated
    for index in range(args.index, args.index + args.n):
        print(write(args.unit, profile, args.seed, index, args.out, args.layers))
    return 0


def _directed(args, profile) -> int:
    found = directed(args.unit, profile, args.seed, args.n, args.patience, args.layers, corners=args.corners)
    write = write_aimed if args.corners else write_generated
    for index in found.indices:
        print(write(args.unit, profile, args.seed, index, args.out, args.layers))
    print(f"{len(found.indices)} traces written after {found.draws} draws; {found.holes} holes left")
    print(found.coverage.report([CORNERS if args.corners else covergroups()[args.unit]]))
    return 0
