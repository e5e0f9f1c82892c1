"""`nvdla-verif fuzz`: legal and illegal register configurations through the golden model."""

from __future__ import annotations

from ci.options import families_for, positive
from golden.config import get_profile
from stimulus.families import GENERATORS
from stimulus.fuzz import fuzz

NAME = "fuzz"
HELP = ("run random legal and illegal layers through the golden model and report every layer rejected without "
        "reason, accepted against a rule, rejected for another rule, or crashing")


def add_arguments(parser) -> None:
    parser.add_argument("--profile", default="nv_small", help="hardware profile (default nv_small)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("-n", type=positive, default=100, help="cases per unit family (and as many illegal ones)")
    parser.add_argument("--unit", action="append", choices=sorted(GENERATORS),
                        help="unit family (repeatable; default all)")


def run(args) -> int:
    profile = get_profile(args.profile)
    report = fuzz(profile, args.seed, args.n, families_for(profile, args.unit) if args.unit else None)
    for finding in report.findings:
        print(f"{finding.kind:24} {finding.case}: {finding.detail}")
    print(f"{report.legal} legal and {report.illegal} illegal layers, {len(report.findings)} findings")
    return 1 if report.findings else 0
