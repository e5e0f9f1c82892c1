"""`nvdla-verif report`: the regression's reports after the fact.

    nvdla-verif report merge DIR... [--out DIR] [--html]   merge the results folders of `regress --shard i/n`
    nvdla-verif report html DIR                            (re)build DIR/report.html from DIR/allure-results

A merged report is the report one unsharded run with the same plan, level and seed would have written:
the same tests, verdicts, triage buckets, sign-off and coverage (only times and shard numbers differ).
Shards of different runs (plan, level, seed, implementations) are refused; a missing shard is named.
Exit status of merge: 0 when nothing failed or errored, 1 otherwise, 2 for unusable folders.
"""

from __future__ import annotations

import json
from pathlib import Path

from ci.ownership import owned
from ci.regression import html
from ci.regression.folder import RESULTS
from ci.regression.merge import merge_into
from ci.regression.plan import PlanError
from ci.regression.results import verdict

NAME = "report"
HELP = "merge the results of regress shards into one report (report merge DIR...), build the HTML report"


def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    merge = sub.add_parser("merge", help="merge shard result folders into one report")
    merge.add_argument("dirs", nargs="+", metavar="DIR", help="the --out folders of the shards")
    merge.add_argument("--out", default="regress-merged", metavar="DIR",
                       help="where the merged report goes (default regress-merged)")
    merge.add_argument("--html", action="store_true", help="build the Allure 3 HTML report OUT/report.html")
    page = sub.add_parser("html", help="build DIR/report.html from DIR/allure-results")
    page.add_argument("dir", metavar="DIR", help="a results folder of regress or report merge (its --out)")


def run(args) -> int:
    if args.action == "html":
        folder = Path(args.dir)
        meta = json.loads((folder / "results.json").read_text())["meta"] if (folder / "results.json").is_file() else {}
        page = html.build_run(folder, _title(meta), new_run=False)
        print(f"report: HTML report {page}")
        return 0
    return merge(args)


def _title(meta: dict) -> str:
    return f"nvdla-verif {meta.get('level', '')} seed {meta.get('seed', '')}".strip()


def merge(args) -> int:
    out = Path(args.out).resolve()
    inputs = [folder for folder in args.dirs if Path(folder).resolve() == out]
    if inputs:
        raise PlanError(f"--out {args.out} is one of the folders to merge ({inputs[0]}): merging would overwrite "
                        "it; choose another --out")
    with owned(out, layout=RESULTS):
        return _merge(args, out)


def _merge(args, out: Path) -> int:
    report = merge_into(out, [Path(folder) for folder in args.dirs])
    missing = report["meta"]["plan_items"] - report["counts"]["total"]
    if missing > 0:
        print(f"report: warning: {missing} of the plan's {report['meta']['plan_items']} tests are in no folder "
              "given (a shard missing, or runs with --test)")
    print((out / "summary.txt").read_text(), end="")
    if args.html:
        page = html.build_run(out, _title(report["meta"]))
        print(f"report: HTML report {page}")
    code, last = verdict(report, command="report merge")
    print(last)
    return code
