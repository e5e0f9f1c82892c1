"""kind: fuzz. The coverage-directed fuzzing loop (ci/fuzzing/) against plain constrained-random layers with the
same budget of implementation runs (`runs` per level), on the implementation under test, `families` (default:
the profile's; the fixture RTL's: sdp_reg). Every run is judged against the reference as in `fuzz --impl`; the
test fails on a finding of either campaign. Its page carries both summaries, the coverage plot (over runs and
over wall time) and the RTL lines no run reached; its record the comparison (runs the directed campaign needed
to reach the random one's final coverage)."""

from __future__ import annotations

from pathlib import Path

from ci import shell
from ci.regression.engine import Run, Settings, implementation_arguments
from ci.regression.item import Item
from ci.regression.kinds.base import Expansion, TestKind
from ci.regression.planning import PlanError, count_for, seeds
from ci.regression.record import Finding
from golden.status import RecordStatus

MODES = ("directed", "random")


class Fuzz(TestKind):
    name = "fuzz"
    required = ("runs", "seeds")
    optional = ("families", "profile", "fixed_seeds", "count")
    seeded = True
    rtl_coverage = False  # each campaign merges its own runs' coverage (OUT/fuzz/ID/MODE/rtl-coverage.N.dat.gz)

    def check(self, path: Path, name: str, entry: dict) -> None:
        runs = entry["runs"]
        if not isinstance(runs, dict) or not all(isinstance(n, int) and n > 0 for n in runs.values()):
            raise PlanError(f"{path}: test {name}: runs must map levels to a positive number of runs per campaign")
        families = entry.get("families")
        if families is not None and (not isinstance(families, list) or not families):
            raise PlanError(f"{path}: test {name}: families must be a non-empty list of stimulus families")

    def expand(self, test: dict, expansion: Expansion) -> list[Item]:
        runs = count_for({"count": test["runs"]}, expansion.level)  # like `count`: a weekly budget is no nightly's
        if not runs:
            return []
        profile = test.get("profile", expansion.target)
        return [Item(f"fuzz/{profile}/s{s}_{runs}r", self.name,
                     {"seed": s, "runs": runs, "profile": profile, "families": test.get("families")})
                for s in seeds(test, expansion.level, expansion.seed, test["name"])]

    def budget_s(self, item: Item, settings: Settings) -> float:
        # two campaigns, each run a layer or two plus the golden model's look at the candidates it skips
        return 2 * 3 * int(item.params["runs"]) * super().budget_s(item, settings)

    def reproduce(self, item: Item, settings: Settings) -> str:
        p = item.params
        base = [*settings.command, "fuzz", *shell.option("--profile", p["profile"]), "--seed", str(p["seed"]),
                "--runs", str(p["runs"]), *(word for f in p["families"] or () for word in shell.option("--unit", f)),
                *implementation_arguments(settings)]
        return shell.chain(shell.line([*base, "--out", "fuzz-random"]),
                           shell.line([*base, "--directed", "--out", "fuzz-directed", "--compare", "fuzz-random"]))

    def run(self, item: Item, settings: Settings) -> Run:
        from ci.fuzzing.campaign import Campaign, Options, campaign_families
        from ci.fuzzing.report import load, write
        from golden.config import get_profile

        p = item.params
        profile = get_profile(p["profile"])
        fixture = settings.impl.partition(":")[0] == "rtl" and not settings.rtl
        families = campaign_families(profile, p["families"], fixture)
        out = settings.work.parent / "fuzz" / item.id.replace("/", "_")
        for mode in reversed(MODES):  # random first: the directed report compares against it
            options = Options(impl=settings.impl, ref=settings.ref, directed=mode == "directed", seed=p["seed"],
                              profile=profile.name, families=families, runs=int(p["runs"]), rtl=list(settings.rtl),
                              command=settings.command, axi_pause=settings.decided.rtl.axi_pause,
                              decided=settings.decided)
            Campaign(out / mode, options, profile, say=_quiet).run()
        campaigns = {mode: load(out / mode) for mode in MODES}
        write(campaigns["random"])
        _, c = write(campaigns["directed"], campaigns["random"])
        findings = [f for mode in MODES for f in campaigns[mode]["findings"]]
        detail = (f"{c.get('measure', 'coverage')}: directed {c.get('a_final')} after {c.get('a_runs')} runs, "
                  f"random {c.get('b_final')} after {c.get('b_runs')}; directed reached random's final after "
                  f"{c.get('a_runs_to_b_final') or 'never'} runs; findings: directed {c.get('a_findings')}, random "
                  f"{c.get('b_findings')}")
        if findings:
            detail += "; first: " + findings[0]["detail"][:300]
        status = RecordStatus.FAILED if findings else RecordStatus.PASSED
        record = self.record(item, settings, status, Finding.FINDINGS if findings else Finding.AGREED, detail,
                             path=str(out), profile=profile.name, fuzz=c,
                             signature=findings[0]["signature"] if findings else None)
        attachments = [(f"{mode} campaign", out / mode / "summary.txt") for mode in MODES]
        attachments += [("coverage over runs and wall time", out / "directed" / "coverage.png"),
                        ("RTL lines not reached (directed)", out / "directed" / "uncovered.txt")]
        return Run(record, attachments=[(name, path) for name, path in attachments if path.is_file()])


def _quiet(*args, **kwargs) -> None:
    """The campaigns' progress lines stay out of the pytest session's output (their reports are attached)."""
