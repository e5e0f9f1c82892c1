"""`nvdla-verif regress`: run one level of the testplan (ci/regression/testplan.hjson) under pytest + pytest-xdist.

The plan's tests for the level become one pytest test each (ci/regression/pytest_driver.py, run from the installed
package with its own configuration, ci/regression/pytest_driver.ini); every
layer runs through the implementation interface (--impl, --ref) and the scoreboards. A test that fails,
raises, hangs past its layer's time budget or whose implementation crashes is that test's failed/error
verdict: the run goes on. Writes OUT/junit.xml, OUT/allure-results/, OUT/results.json (triage buckets,
sign-off, history against the previous run in OUT) and OUT/summary.txt, and with --html the Allure 3
report OUT/report.html (ci/regression/html.py). Exit status 0 when nothing failed or errored, 1 otherwise,
2 for a bad option or plan; the last line says the verdict and why (ci/regression/results.py verdict).
"""

from __future__ import annotations

import importlib.util
import json
import secrets
import subprocess
import sys
import time
from contextlib import suppress
from dataclasses import replace
from pathlib import Path

from ci import shell
from ci.cli import invocation
from ci.implementations.command import absolute_spec, keep_folder
from ci.options import (
    REF_DEFAULT_HELP,
    add_rtl_options,
    positive,
    rtl_arguments,
    rtl_profile,
    settings_from,
    workers,
)
from ci.ownership import check, clear, owned
from ci.regression import html, kinds
from ci.regression.batch import shared_cache
from ci.regression.engine import Settings
from ci.regression.finish import finish
from ci.regression.folder import RESULTS
from ci.regression.launchers import LAUNCHERS
from ci.regression.plan import (
    DEFAULT_PLAN,
    LEVELS,
    Item,
    PlanError,
    load_plan,
    parse_shard,
    plan_file,
    selects,
    shard,
)
from ci.regression.progress import MANIFEST_OPTION
from ci.regression.results import PYTEST_JUNIT, collect_records, keep_history, record_file, verdict
from ci.signals import stop_group
from golden.config import get_profile
from golden.settings import Settings as Decided
from golden.settings import nvdla_data
from golden.status import FAILING

NAME = "regress"
HELP = "run a level of the testplan (smoke, nightly, weekly) under pytest-xdist and report: triage, history, Allure"
#: The pytest session's test file and configuration, inside the package: `regress` needs no source tree.
DRIVER = Path(__file__).resolve().parents[1] / "regression" / "pytest_driver.py"
DRIVER_CONFIG = DRIVER.with_suffix(".ini")
#: Where the package is (a checkout, or site-packages): the session's folder and root, so test ids read
#: ci/regression/pytest_driver.py::test_item[ID].
PACKAGES = DRIVER.parents[2]
DEFAULT_DATA = PACKAGES.parent / "shared" / "nvdla"


def add_arguments(parser) -> None:
    parser.add_argument("--level", choices=LEVELS, default="smoke",
                        help="the testplan milestone to run, with the ones before it (default smoke)")
    parser.add_argument("--impl", default="rtl", metavar="NAME[:ARG]",
                        help="the implementation under test (default: rtl, the fixture DUT; e.g. golden)")
    parser.add_argument("--ref", metavar="NAME[:ARG]",
                        help=f"the reference its outcome is compared with ({REF_DEFAULT_HELP})")
    parser.add_argument("--profile", help="a hardware profile for every layer (default: from the folder names)")
    add_rtl_options(parser)
    parser.add_argument("--seed", type=int, help="the base seed (default: a new one, printed)")
    parser.add_argument("--shard", metavar="i/n", help="run only the i-th of n deterministic parts of the tests")
    parser.add_argument("--out", default="regress-out", metavar="DIR",
                        help="results folder (default: regress-out); the previous run's report there is history")
    parser.add_argument("-j", type=positive, default=1, metavar="N", help="pytest-xdist workers (default 1)")
    parser.add_argument("--plan", default=str(DEFAULT_PLAN), metavar="FILE",
                        help="the testplan (hjson; default: the project's, ci/regression/testplan.hjson)")
    parser.add_argument("--nvdla-data", default=nvdla_data(str(DEFAULT_DATA)), metavar="DIR",
                        help="NVIDIA's traces (default: ../shared/nvdla or $NVDLA_DATA)")
    parser.add_argument("--test", action="append", default=[], metavar="ID",
                        help="run only tests whose id matches (glob, repeatable), e.g. 'random_sdp/*'")
    parser.add_argument("--timeout-scale", type=float, default=1.0, metavar="F",
                        help="multiply every layer's time budget (derived from its size) by F (default 1)")
    parser.add_argument("--shrink", type=int, default=40, metavar="N",
                        help="shrink the smallest failing generated layer of each triage bucket, at most N attempts "
                             "each (default 40; 0: no shrinking)")
    parser.add_argument("--rtl-coverage", action="store_true",
                        help="Verilator line and toggle coverage of the RTL runs (a coverage build of the DUT), "
                             "merged per unit into the sign-off (OUT/rtl-coverage.dat)")
    parser.add_argument("--html", action="store_true", help="build the Allure 3 HTML report OUT/report.html")
    parser.add_argument("--list", action="store_true", help="print the tests the options select and stop")
    parser.add_argument("--resume", action="store_true",
                        help="continue the run in --out that was stopped, with its own seed, options and tests "
                             "(its manifest.json): keep the tests that have a result, run the rest, report them all")
    batch = parser.add_argument_group(
        "where the tests run", "local: this host, -j workers (default). slurm or lsf: the tests in shards, one job "
        "array; each shard runs with --cpus-per-shard workers, is resubmitted when it ends unfinished, and the "
        "shards are merged into --out (docs/guides/regression/clusters.md). Settings may also come from "
        "--launcher-config FILE (JSON, the same names with underscores); the command line wins.")
    batch.add_argument("--on", choices=LAUNCHERS, default=None, help="local (default), slurm or lsf")
    batch.add_argument("--shards", type=positive, metavar="N", help="N shards (default 4)")
    batch.add_argument("--tests-per-shard", type=positive, metavar="N", help="as many shards as N tests each fill")
    batch.add_argument("--partition", "--queue", dest="queue", metavar="NAME",
                       help="Slurm partition or LSF queue (default: the scheduler's)")
    batch.add_argument("--cpus-per-shard", type=positive, metavar="N", help="CPUs, and workers, of a shard "
                       "(default: -j)")
    batch.add_argument("--mem-per-shard", metavar="SIZE", help="memory of a shard, e.g. 8G (default: 2G per CPU, "
                       "4G per CPU for --impl rtl)")
    batch.add_argument("--time-limit", metavar="MIN|H:MM", help="time limit of a shard (default: the sum of its "
                       "tests' time budgets over its CPUs, plus start-up and an RTL build)")
    batch.add_argument("--submit-arg", action="append", default=None, metavar="ARG",
                       help="an extra sbatch/bsub argument, as it is (repeatable), e.g. --submit-arg=--account=dv")
    batch.add_argument("--retries", type=int, metavar="N", help="submit a shard that ended unfinished (node "
                       "failure, preemption, time limit) again up to N times (default 2)")
    batch.add_argument("--poll", type=float, metavar="S", help="ask the scheduler every S seconds (default 15)")
    batch.add_argument("--launcher-config", metavar="FILE", help="the settings above from a JSON file")


def continues(args) -> str:
    """What a run stopped by a full disk keeps, and the command that goes on (ci/cli.py prints it)."""
    out = str(Path(args.out).absolute())
    resume = shell.line([*invocation(), "regress", "--resume", *shell.option("--out", out)])
    return (f"the tests that finished keep their results in {shell.line([out])}; once there is space, "
            f"`{resume}` runs the rest")


def run(args) -> int:
    args.launcher = _launcher(args)
    if args.resume:
        return _continue(args)
    return _regress(args)


#: Options a resumed run takes from the stopped run's manifest, with their defaults here: one given with another
#: value than the stopped run's is refused (the rest of the command line may be left out).
RESUMED = {"level": ("level", "smoke"), "impl": ("impl", "rtl"), "ref": ("ref", None), "profile": ("profile", None),
           "seed": ("seed", None), "shard": ("shard", None)}


def _continue(args) -> int:
    """--resume: the stopped run in --out, with its own seed, options, RTL selection and tests (its manifest)."""
    out = Path(args.out).resolve()
    if not (out / "manifest.json").is_file():
        raise PlanError(f"{args.out}: no run to resume (no manifest.json)")
    manifest = json.loads((out / "manifest.json").read_text())
    given = {"impl": absolute_spec(args.impl)}
    differs = [f"--{name} {given.get(name, getattr(args, name))}" for name, (key, default) in RESUMED.items()
               if getattr(args, name) not in (default, None)
               and given.get(name, getattr(args, name)) != manifest.get(key)]
    if args.test and args.test != manifest.get("test"):
        differs.append("--test")
    if rtl_arguments(args) and rtl_arguments(args) != manifest.get("settings", {}).get("rtl"):
        differs.append("--rtl-*")
    if _plan(args) != DEFAULT_PLAN and str(_plan(args)) != manifest.get(
            "settings", {}).get("plan"):
        differs.append("--plan")
    if differs:
        raise PlanError(f"{out}: the stopped run had other options ({', '.join(differs)} differ); resume it with "
                        "--resume --out alone, or with the same ones")
    if args.launcher is not None and any(manifest.get("launcher", {}).get(k) != v for k, v in args.launcher.items()):
        raise PlanError(f"{out}: resume a run with the launcher settings it had (--resume --out alone)")
    settings = _resumed_settings(out, manifest)
    items = [Item.from_dict(item) for item in manifest["items"]]
    data = Path(manifest.get("nvdla_data", args.nvdla_data))
    args.j = workers(args.j)
    with owned(out, layout=RESULTS):
        if manifest.get("launcher"):
            return _batch(args, out, manifest, items, settings)
        return _run(args, out, manifest, items, settings, data)


def _resumed_settings(out: Path, manifest: dict) -> Settings:
    """The stopped run's settings, with what it decided for the implementations and workers (its `decided`)."""
    stored = manifest.get("settings", {})
    if "decided" not in stored:  # a manifest of an earlier nvdla-verif, which kept the RTL selection elsewhere
        if manifest.get("rtl_environment"):
            raise PlanError(f"{out}: the stopped run was started by an earlier nvdla-verif, whose manifest this one "
                            "cannot resume with its RTL selection; start the run again")
        stored = {**stored, "decided": Decided.from_environment().keeping_runs_in(keep_folder(out)).to_json()}
    return Settings(**stored, work=out / "work")


def _regress(args) -> int:
    if args.profile:
        get_profile(args.profile)  # an unknown name is one error now, not one per test
    plan = load_plan(args.plan)
    data = Path(args.nvdla_data)
    if not data.is_dir():
        raise PlanError(f"NVIDIA's traces not found at {data} (use --nvdla-data DIR)")
    if not any(data.rglob("*.cfg")) and not any(data.rglob("input.txn")):
        raise PlanError(f"{data}: no NVIDIA trace (.cfg or input.txn) in it (use --nvdla-data DIR: nvdla/hw's "
                        "verif folder layout, trace_tests/<config>/<test>/ and traceplayer/<test>/)")
    seed = _seed(args)
    target = rtl_profile(args) if args.impl.partition(":")[0] == "rtl" else None
    items = plan.items(args.level, seed, data, target, select=args.test)  # draws only what --test keeps
    plan_items = len(items)
    for pattern in args.test:
        if not any(selects([pattern], i.id) for i in items):
            raise PlanError(f"--test {pattern!r} matches none of the tests of level {args.level} (--list shows them)")
    if args.shard and args.launcher:
        raise PlanError(f"--shard runs one part here; --on {args.launcher['on']} runs every part: give one of them")
    if args.shard:
        items = shard(items, *parse_shard(args.shard))
    if not items:
        raise PlanError(f"no test selected at level {args.level}" + (f" matching {args.test}" if args.test else ""))
    if args.list:
        for item in items:
            print(f"{item.id:60} {','.join(item.testpoints)}")
        return 0
    out = Path(args.out).resolve()
    if out.exists() and not out.is_dir():
        raise PlanError(f"--out {args.out}: a file, not a results folder")
    check(out, RESULTS)  # before the implementations are built (owned() claims it)
    args.j = workers(args.j)
    decided = settings_from(args).keeping_runs_in(keep_folder(out))
    if args.launcher and args.impl.partition(":")[0] == "rtl":
        decided = shared_cache(decided)
    settings = Settings(impl=absolute_spec(args.impl), ref=absolute_spec(args.ref) if args.ref else None,
                        profile=args.profile, level=args.level, seed=seed,
                        timeout_scale=args.timeout_scale, rtl_coverage=args.rtl_coverage, rtl=rtl_arguments(args),
                        command=invocation(), nvdla_data=str(data.resolve()),
                        plan=None if _plan(args) == DEFAULT_PLAN else str(_plan(args)), decided=decided)
    _check_implementations(settings)
    manifest = {"plan": plan.name, "level": args.level, "seed": seed, "impl": settings.impl,
                "ref": settings.reference_spec(), "profile": args.profile, "rtl_profile": target,
                "plan_items": plan_items,
                "shard": args.shard, "out": str(out), "items": [i.as_dict() for i in items],
                "testpoints": plan.testpoints_for(args.level), "unavailable": plan.unavailable(args.level),
                "directed": plan.directed(args.level, seed, target, select=args.test),
                "settings": settings.to_manifest(), "nvdla_data": str(data.resolve()), "test": list(args.test)}
    if args.launcher:  # a resumed run's shards keep their CPUs whatever -j it is given
        manifest["launcher"] = {**args.launcher, "cpus_per_shard": args.launcher.get("cpus_per_shard") or args.j}
    with owned(out, layout=RESULTS):
        if args.launcher:
            _prepare(out, manifest)
            return _batch(args, out, manifest, items, settings)
        return _run(args, out, manifest, items, settings, data)


def _launcher(args) -> dict | None:
    """The launcher settings of --on and its options over --launcher-config (None: a local run)."""
    from ci.regression.batch import load_config, memory_mb, minutes

    config = load_config(args.launcher_config)
    given = {"on": args.on, "shards": args.shards, "tests_per_shard": args.tests_per_shard, "queue": args.queue,
             "cpus_per_shard": args.cpus_per_shard, "mem_per_shard": args.mem_per_shard,
             "time_limit": args.time_limit, "submit_args": args.submit_arg, "retries": args.retries,
             "poll": args.poll}
    settings = {**config, **{k: v for k, v in given.items() if v is not None}}
    on = settings.get("on", "local")
    if on == "local":
        extra = sorted(k for k, v in given.items() if v is not None and k != "on")
        if extra:
            raise PlanError(f"--{extra[0].replace('_', '-')} is for a batch run: add --on slurm or --on lsf")
        return None
    if settings.get("retries", 0) < 0:
        raise PlanError("--retries: 0 or more")
    memory_mb(settings.get("mem_per_shard"))  # a bad size or time is one error before any work
    minutes(settings.get("time_limit"))
    return {"on": on, **{k: v for k, v in settings.items() if k != "on"}}


def _batch(args, out: Path, manifest: dict, items: list, settings: Settings) -> int:
    """--on slurm|lsf: the tests as shards of one job array, merged into OUT (ci/regression/batch.py)."""
    from ci.regression.batch import BatchOptions, memory_mb, minutes, run_batch

    chosen = manifest["launcher"]
    options = BatchOptions(on=chosen["on"], shards=chosen.get("shards"), tests_per_shard=chosen.get(
        "tests_per_shard"), queue=chosen.get("queue"), cpus=chosen.get("cpus_per_shard") or args.j,
        memory_mb=memory_mb(chosen.get("mem_per_shard")), minutes=minutes(chosen.get("time_limit")),
        submit_args=tuple(chosen.get("submit_args") or ()), retries=chosen.get("retries", 2),
        poll_s=chosen.get("poll", 15.0), shrink=args.shrink)
    started = time.perf_counter()
    report = run_batch(out, manifest, items, settings, options, settings.command, args.resume)
    return _conclude(args, out, manifest, report,
                     f"{len(items)} tests in {time.perf_counter() - started:.0f} s on {options.on}")


def _conclude(args, out: Path, manifest: dict, report: dict, line: str, pytest_exit: int | None = None) -> int:
    """Print the summary and `line`, build the HTML report when asked, end with the verdict; the exit status."""
    print((out / "summary.txt").read_text(), end="")
    print(f"regress: {line}")
    if args.html:
        page = html.build_run(out, f"nvdla-verif {manifest['level']} seed {manifest['seed']}")
        print(f"regress: HTML report {page}")
    code, last = verdict(report, pytest_exit)
    print(last)
    return code


def _run(args, out: Path, manifest: dict, items: list, settings: Settings, data: Path) -> int:
    pending = _unfinished(out, manifest) if args.resume else _prepare(out, manifest)
    if args.resume:
        print(f"regress: resuming {out}: {len(items) - len(pending['items'])} tests done before, "
              f"{len(pending['items'])} to run", flush=True)
    print(f"regress: {len(items)} tests of level {manifest['level']} ({manifest['plan']})"
          + (f", shard {manifest['shard']}" if manifest["shard"] else "")
          + f", {manifest['impl']} vs {manifest['ref'] or 'none'}, -j {args.j}; results in {out}", flush=True)
    started = time.perf_counter()
    try:
        code = _pytest(out, args.j, pending) if pending["items"] else 0
    except KeyboardInterrupt:
        _interrupted(out, manifest)
        raise
    wall = time.perf_counter() - started
    records = collect_records(out, manifest)
    shrinkable = kinds.having("shrinkable")
    if args.shrink > 0 and any(r["kind"] in shrinkable and r["status"] in FAILING for r in records):
        from ci.regression.shrink import shrink_buckets

        shrink_buckets(out, manifest, records, replace(settings, work=out / "work"), args.shrink, shrinkable)
    report = finish(out, manifest, records, {"shard": manifest["shard"], "wall_s": round(wall, 1), "jobs": args.j})
    return _conclude(args, out, manifest, report, f"{len(items)} tests in {wall:.0f} s (pytest exit {code})", code)


def _plan(args) -> Path:
    return plan_file(args.plan).resolve()


def _seed(args) -> int:
    """--seed, else a new one, printed (a resumed run has its manifest's: _continue)."""
    if args.seed is not None:
        return args.seed
    seed = secrets.randbelow(2**31)
    print(f"regress: base seed {seed} (rerun with --seed {seed})", flush=True)
    return seed


def _check_implementations(settings: Settings) -> None:
    """Create the implementations once here so that a bad --impl/--ref is one error, not a failure per test."""
    from ci.options import resolve

    resolve(settings.impl, settings.reference_spec() or "none", settings.decided)


def _unfinished(out: Path, manifest: dict) -> dict:
    """The part of a stopped run's manifest that has no result yet."""
    return {**manifest, "items": [i for i in manifest["items"] if not record_file(out, i["id"]).is_file()]}


def _prepare(out: Path, manifest: dict) -> dict:
    """The previous run's report to its history, the rest of the previous run's output gone (only what the
    folder's manifest lists: out was claimed), the new run's manifest."""
    keep_history(out, time.strftime("%Y%m%dT%H%M%S"))
    clear(out, ("results", "allure-results", "work", "shrunk", "rtl-coverage", "shards", "batch", "logs",
                "junit.xml", PYTEST_JUNIT, "summary.txt", "report.html", "rtl-coverage.dat"))
    (out / "results").mkdir()
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def _allure_options(out: Path) -> list[str]:
    if importlib.util.find_spec("allure_pytest") is None:
        print("regress: allure-pytest is not installed, no Allure results (bash ci/setup.sh --test)")
        return []
    return ["--alluredir", str(out / "allure-results")]


def _pytest(out: Path, jobs: int, manifest: dict) -> int:
    """The suite over the manifest's items (a resumed run: the ones without a record; junit.xml covers those).
    The session and its workers read everything from that manifest, named by the --regress-manifest option."""
    (out / "pending.json").write_text(json.dumps(manifest, indent=1) + "\n")
    command = [sys.executable, "-m", "pytest", str(DRIVER), "-c", str(DRIVER_CONFIG), "-q",
               "-p", "ci.regression.progress", f"{MANIFEST_OPTION}={out / 'pending.json'}",
               "-n", str(jobs if jobs > 1 else 0), "--junitxml", str(out / PYTEST_JUNIT),
               *_allure_options(out), "-o", f"cache_dir={out / '.pytest_cache'}",
               "--rootdir", str(PACKAGES), "-o", "junit_family=xunit2", "--tb=short"]
    with open(out / "pytest.log", "w") as log:
        # Its own session: a Ctrl-C at the terminal reaches this process alone, which stops the suite (workers,
        # simulators, external programs) in order instead of every process at once.
        process = subprocess.Popen(command, cwd=PACKAGES, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   text=True, bufsize=1, start_new_session=True)
        try:
            for line in process.stdout:
                log.write(line)
                if "regress: [" in line:
                    print(line[line.index("regress: ["):], end="", flush=True)
            return process.wait()
        except BaseException:  # Ctrl-C, SIGTERM, a full disk: the suite's group ends with this process
            printed = stop_group(process)  # tests end without a record, programs are killed
            with suppress(OSError):
                log.write(printed)
            raise


def _interrupted(out: Path, manifest: dict) -> None:
    """After an interruption: a test is done when it has both its record and its Allure result; drop whichever
    half an interrupted test left (--resume runs it again), and say how to continue."""
    done = {item["id"] for item in manifest["items"] if record_file(out, item["id"]).is_file()}
    reported = set()
    for result in (out / "allure-results").glob("*-result.json"):
        try:
            name = json.loads(result.read_text()).get("name")
        except (OSError, ValueError):
            result.unlink()
            continue
        if name in done:
            reported.add(name)
        else:
            result.unlink()
    if (out / "allure-results").is_dir():
        for item_id in done - reported:
            record_file(out, item_id).unlink()
        done &= reported
    resume = shell.line([*Settings(**manifest["settings"]).command, "regress", "--resume", "--out", str(out)])
    print(f"regress: interrupted: {len(done)} of {len(manifest['items'])} tests have a result in {out}; --resume "
          f"runs the rest: {resume}", file=sys.stderr, flush=True)

