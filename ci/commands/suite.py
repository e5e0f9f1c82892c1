"""`nvdla-verif suite build`: write a frozen, versioned conformance suite for a hardware profile (ci/suite/).

    nvdla-verif suite build --profile nv_small --version 2026.1 --out suite-nv_small-2026.1

The same version, options and project give a byte-identical folder on any machine. `certify` runs it on an
implementation and `verify` checks the package that writes.
"""

from __future__ import annotations

from ci.commands.regress import DEFAULT_DATA
from ci.options import count, positive, workers
from ci.ownership import owned
from ci.suite import MANIFEST
from ci.suite.build import PATIENCE, build
from golden.config import get_profile
from golden.settings import nvdla_data

NAME = "suite"
HELP = "build a frozen, versioned conformance suite for a profile (suite build), for certify and verify"


def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    make = sub.add_parser("build", help="write a suite: NVIDIA's traces of the profile and coverage-directed "
                                        "generated layers with the golden model's results, mustpass.txt, suite.json")
    make.add_argument("--profile", required=True, help="hardware profile (nvdla-verif profiles lists them)")
    make.add_argument("--version", default="1", help="the suite's version; generated layers' seeds derive from it "
                                                     "(default 1)")
    make.add_argument("--out", required=True, metavar="DIR", help="a new or empty folder")
    make.add_argument("--nvdla-data", default=nvdla_data(str(DEFAULT_DATA)), metavar="DIR",
                      help="NVIDIA's traces (default: ../shared/nvdla or $NVDLA_DATA)")
    make.add_argument("--max-layers", type=count, default=40, metavar="N",
                      help="at most N generated traces per family and trace length (default 40; 0: none)")
    make.add_argument("--patience", type=positive, default=PATIENCE, metavar="N",
                      help=f"stop a family's drawing after N draws that close no coverage hole (default {PATIENCE})")
    make.add_argument("--family", action="append", metavar="F",
                      help="generate only these stimulus families (repeatable; default: every one the profile has)")
    make.add_argument("--nvidia", action="append", metavar="GLOB",
                      help="take only NVIDIA tests whose name matches (repeatable; default: all of the profile)")
    make.add_argument("-j", type=positive, default=1, metavar="N",
                      help="play the traces on the golden model in N processes (default 1)")


def continues(args) -> str:
    """What a build stopped by a full disk leaves (ci/cli.py prints it)."""
    return (f"{args.out} holds an unfinished suite (no {MANIFEST}: certify refuses it); once there is space, build "
            "again into an empty folder")


def run(args) -> int:
    profile = get_profile(args.profile)
    with owned(args.out, "file"):
        manifest = build(profile, args.version, args.out, args.nvdla_data, max_layers=args.max_layers,
                         patience=args.patience, families=args.family, nvidia=args.nvidia, jobs=workers(args.j))
    size = manifest["size"]
    print(f"suite {manifest['profile']} {manifest['suite_version']}: {size['tests']} tests "
          f"({manifest['nvidia']['traces']} NVIDIA, {size['tests'] - manifest['nvidia']['traces']} generated), "
          f"{size['files']} files, {size['bytes']} bytes; {len(manifest['excluded'])} NVIDIA traces excluded "
          f"(suite.json lists why) -> {args.out}")
    return 0
