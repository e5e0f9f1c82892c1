"""`nvdla-verif verify PKG [--suite DIR]`: check a certification package against its suite without running
anything (ci/suite/verify.py), and print one verdict line ("conformant: ...", "not conformant: N failed, ...",
"invalid package: REASON") followed by its reasons.

Exit status 0 only for a conformant package; 1 for not conformant or invalid; 2 for a wrong option.
"""

from __future__ import annotations

from ci.suite.verify import verify

NAME = "verify"
HELP = "check a certification package (nvdla-verif certify) against the suite's mustpass list and hashes"


def add_arguments(parser) -> None:
    parser.add_argument("package", metavar="PKG", help="the package folder certify wrote")
    parser.add_argument("--suite", metavar="DIR",
                        help="the suite folder to check against (default: the package's copy of its suite.json and "
                             "mustpass.txt, themselves checked against the statement)")


def run(args) -> int:
    verdict = verify(args.package, args.suite)
    print(verdict.line)
    for reason in verdict.reasons:
        print(f"  {reason}")
    return 0 if verdict.conformant else 1
