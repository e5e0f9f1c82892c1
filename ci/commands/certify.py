"""`nvdla-verif certify --suite DIR --impl I --out PKG`: run every test of a conformance suite on an
implementation and write the submission package (ci/suite/certify.py) that `nvdla-verif verify` checks.

`--sign KEY` adds signature.json, an Ed25519 signature over the statement and every file's hash
(ci/suite/signature.py).

Exit status 0 when the results are conformant (every mustpass test passed, not supported or waived), 1 otherwise,
2 for a wrong option, suite, waiver or key file; the last line says the verdict and why (ci/final.py). The terminal
and certify.log name each test's result by its status word (golden/status.py), as conform does; the package's
results.json keeps its own words (pass, fail, error, waived, not supported).
"""

from __future__ import annotations

from pathlib import Path

from ci import shell
from ci.cli import invocation
from ci.final import final_line
from ci.options import REF_DEFAULT_HELP, add_rtl_options, positive, settings_from, workers
from ci.ownership import owned
from ci.suite.certify import certify
from ci.suite.signature import SIGNATURE, fingerprint, load_private_key
from ci.suite.verify import RULE

NAME = "certify"
HELP = "run a conformance suite on an implementation and write a submission package (statement, results, summary)"


def add_arguments(parser) -> None:
    parser.add_argument("--suite", required=True, metavar="DIR", help="the suite folder (nvdla-verif suite build)")
    parser.add_argument("--impl", required=True, metavar="NAME[:ARG]",
                        help="the implementation under test, e.g. 'command:./my_model --fast' (protocol 2)")
    parser.add_argument("--impl-version", metavar="TEXT", help="the implementation's version, for the statement")
    parser.add_argument("--ref", metavar="NAME[:ARG]",
                        help=f"the reference it is compared with ({REF_DEFAULT_HELP})")
    parser.add_argument("--waivers", metavar="FILE",
                        help="JSON or hjson: {\"waivers\": [{\"test\": ID, \"reason\": TEXT}, ...]} or {ID: REASON}")
    parser.add_argument("--out", required=True, metavar="PKG", help="the package folder (new or empty)")
    parser.add_argument("-j", type=positive, default=1, metavar="N",
                        help="run N tests in parallel processes (default 1)")
    parser.add_argument("--resume", action="store_true",
                        help="continue a stopped run into the same --out: keep its journal's results, run the rest")
    parser.add_argument("--coverage", action="store_true",
                        help="write the functional coverage of the tests that passed into the package (coverage.txt)")
    parser.add_argument("--sign", metavar="KEY",
                        help="sign the package with this Ed25519 private key (PEM, e.g. from `nvdla-verif keygen` or "
                             "`openssl genpkey -algorithm ed25519`): signature.json, checked by verify --key")
    add_rtl_options(parser)


def continues(args) -> str:
    """What a run stopped by a full disk keeps, and how it goes on (ci/cli.py prints it)."""
    return (f"the tests that finished are kept in {Path(args.out) / 'certify.journal'}; once there is space, the "
            "same command with --resume runs the rest")


def run(args) -> int:
    signing_key = load_private_key(args.sign, "--sign") if args.sign else None  # a bad key before the run
    settings = settings_from(args).keeping_runs_in(str(Path(args.out).absolute()) + ".kept")  # outside the package
    with owned(args.out, "file"):
        verdict = certify(args.suite, args.impl, args.ref, args.waivers, args.out, jobs=workers(args.j),
                          impl_version=args.impl_version, resume=args.resume,
                          coverage=args.coverage, signing_key=signing_key, settings=settings)
    if signing_key is not None:
        print(f"signed by key {fingerprint(signing_key.public_key())} ({SIGNATURE}; verify it with --key)")
    check = shell.line([*invocation(), "verify", str(Path(args.out).absolute()),
                        "--suite", str(Path(args.suite).absolute())])
    print(f"package: {args.out} (check it: {check})")
    code = 0 if verdict.conformant else 1
    print(final_line("certify", code, verdict.line, RULE[verdict.conformant]))
    return code
