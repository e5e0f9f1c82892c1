"""`nvdla-verif generate`: random legal layers written as NVIDIA .cfg traces with the golden model's CRCs."""

from __future__ import annotations

from golden.config import get_profile
from stimulus.families import GENERATORS, write_generated

NAME = "generate"
HELP = "write random legal layers of a unit family as .cfg traces (OUT/<profile>/<test>/) that conform replays"


def add_arguments(parser) -> None:
    parser.add_argument("--unit", required=True, choices=sorted(GENERATORS), help="unit family")
    parser.add_argument("--profile", default="nv_small", help="hardware profile (default nv_small)")
    parser.add_argument("--seed", type=int, default=0, help="seed: the same seed and profile give the same bytes")
    parser.add_argument("-n", type=int, default=1, help="number of traces")
    parser.add_argument("--layers", type=int, default=1, help="back-to-back layers per trace (register groups 0/1)")
    parser.add_argument("--out", required=True, help="output folder")


def run(args) -> int:
    profile = get_profile(args.profile)
    for index in range(args.n):
        print(write_generated(args.unit, profile, args.seed, index, args.out, args.layers))
    return 0
