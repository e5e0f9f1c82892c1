"""`nvdla-verif fuzz`: register configurations fuzzed.

Without --impl: legal and illegal layers through the golden model, checking the rule registry (stimulus/fuzz.py).
With --impl I: the coverage-directed loop on an implementation (ci/fuzzing/campaign.py), its state, corpus,
findings and report in --out; `--directed` runs only candidates the golden model finds new, otherwise the same
budget of plain generated layers (the baseline).
"""

from __future__ import annotations

from pathlib import Path

from ci.cli import invocation
from ci.fuzzing import CHOICES
from ci.options import (
    add_implementation_options,
    count,
    families_for,
    positive,
    resolve,
    rtl_arguments,
    rtl_profile,
    settings_from,
)
from golden.config import get_profile
from stimulus.families import names as family_names
from stimulus.fuzz import fuzz

NAME = "fuzz"
HELP = ("without --impl: random legal and illegal layers through the golden model, reporting every layer rejected "
        "without reason, accepted against a rule, rejected for another rule, or crashing; with --impl: the "
        "coverage-directed fuzzing loop on that implementation (--directed, --runs, --out)")


def add_arguments(parser) -> None:
    parser.add_argument("--profile", help="hardware profile (default nv_small; for --impl rtl: the RTL's "
                                          "--rtl-profile when given)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the drawn layers: the same seed, profile and options draw the same cases "
                             "(default 0)")
    parser.add_argument("-n", type=positive, default=100, help="without --impl: cases per unit family (and as many "
                                                             "illegal ones; default 100)")
    parser.add_argument("--unit", action="append", choices=family_names(),
                        help="unit family (repeatable; default all the profile has; the fixture RTL: sdp_reg)")
    add_implementation_options(parser)
    parser.set_defaults(impl=None)  # no --impl: the golden-model rule check above
    loop = parser.add_argument_group("the fuzzing loop (with --impl)")
    loop.add_argument("--directed", action="store_true",
                      help="run only candidates whose golden-model run adds a covergroup bin, a register-field value "
                           "class or transition, or a rule-boundary distance not seen yet (default: plain random "
                           "generated layers, the baseline)")
    loop.add_argument("--runs", type=positive, default=100, metavar="N", help="budget of implementation runs "
                      "(default 100; a campaign continued in the same --out counts its earlier runs)")
    loop.add_argument("--time", type=float, metavar="MINUTES", help="stop after this much wall time (all sessions)")
    loop.add_argument("--patience", type=positive, metavar="N", help="stop after N runs without new coverage")
    loop.add_argument("--choices", type=positive, default=CHOICES, metavar="N",
                      help=f"with --directed: candidates with golden-side novelty weighed per run, the one worth most "
                           f"runs (default {CHOICES}; each is a golden-model run)")
    loop.add_argument("--out", default="fuzz-out", metavar="DIR",
                      help="the campaign's folder (default fuzz-out); a campaign there is continued")
    loop.add_argument("--shrink", type=count, default=40, metavar="N",
                      help="shrink the first finding of each triage bucket, at most N attempts (default 40; 0: no)")
    loop.add_argument("--compare", metavar="OTHER_OUT", help="report this campaign against another (e.g. directed "
                      "against random with the same budget)")
    loop.add_argument("--report", action="store_true", help="only write the report of --out (and --compare)")


def continues(args) -> str | None:
    """What a campaign stopped by a full disk keeps, and how it goes on (ci/cli.py prints it)."""
    if args.impl is None or args.report:
        return None
    return f"the finished runs are kept in {args.out}; once there is space, the same command continues the campaign"


def run(args) -> int:
    if args.report:  # a campaign's report needs no implementation: the campaign's folder says which it ran
        from ci.fuzzing.report import write_report

        print(write_report(Path(args.out), Path(args.compare) if args.compare else None), end="")
        return 0
    if args.impl is None:
        return _rule_check(args)
    return _campaign(args)


def _rule_check(args) -> int:
    profile = get_profile(args.profile or "nv_small")
    report = fuzz(profile, args.seed, args.n, families_for(profile, args.unit) if args.unit else None)
    for finding in report.findings:
        print(f"{finding.kind:24} {finding.case}: {finding.detail}")
    print(f"{report.legal} legal and {report.illegal} illegal layers, {len(report.findings)} findings")
    return 1 if report.findings else 0


def _campaign(args) -> int:
    from ci.fuzzing.campaign import CAMPAIGN, Campaign, FuzzError, Options, campaign_families
    from ci.fuzzing.report import write_report
    from ci.implementations.command import absolute_spec
    from ci.ownership import check, owned

    decided = settings_from(args)
    rtl = args.impl.partition(":")[0] == "rtl"
    profile = get_profile(args.profile or (rtl and rtl_profile(args)) or "nv_small")
    fixture = rtl and not args.rtl_filelist
    families = campaign_families(profile, args.unit, fixture)
    out = Path(args.out).resolve()
    if out.exists() and not out.is_dir():
        raise FuzzError(f"{out}: not a folder")
    check(out, CAMPAIGN)  # before the RTL is built (owned() claims it)
    # a bad --impl/--ref is one error before any run; the RTL is built as the runs use it (with code coverage)
    resolve(args.impl, args.ref, decided.with_rtl(coverage=str(out / "work" / "coverage")) if rtl else decided)
    options = Options(impl=absolute_spec(args.impl), ref=absolute_spec(args.ref) if args.ref else None,
                      directed=args.directed, seed=args.seed, profile=profile.name, families=families,
                      runs=args.runs, minutes=args.time, patience=args.patience, choices=args.choices,
                      shrink=args.shrink,
                      rtl=rtl_arguments(args), axi_pause=decided.rtl.axi_pause, command=invocation(), decided=decided)
    # two processes continuing one campaign would replay the same runs and clear each other's work
    with owned(out, layout=CAMPAIGN):
        campaign = Campaign(out, options, profile)
        campaign.run()
    print(write_report(Path(args.out), Path(args.compare) if args.compare else None), end="")
    return 1 if campaign.findings else 0
