"""`nvdla-verif verify PKG [--suite DIR]`: check a certification package against its suite without running
anything (ci/suite/verify.py), and print one verdict line ("conformant: ...", "not conformant: N failed, ...",
"invalid package: REASON") followed by its reasons. The line ends with the package's signature: "; unsigned",
"; signed by key FP (not checked: give --key)", or with --key PUBLIC "; signed by key FP (checked)"; with --key
an unsigned package or a signature that does not check makes it invalid.

Exit status 0 only for a conformant package; 1 for not conformant or invalid; 2 for a wrong option or key file.
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
    parser.add_argument("--key", metavar="PUBLIC",
                        help="check the package's signature with this Ed25519 public key (PEM); without it the "
                             "verdict line only says whether the package is signed and by which key's fingerprint")


def run(args) -> int:
    verdict = verify(args.package, args.suite, args.key)
    print(verdict.line)
    for reason in verdict.further():
        print(f"  {reason}")
    return 0 if verdict.conformant else 1
