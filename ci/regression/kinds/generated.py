"""kind: generated. Layers of a stimulus family (stimulus/families.py; aimed at arithmetic corners,
stimulus/corner_data.py, for a test that says `corners`), written as traces with the golden model's CRCs and
played like any trace; a layer the golden model does not run is an error of the generator or model.

A test that says `directed` (true, or the levels where it holds) is coverage-directed there (stimulus/directed.py):
of one stream of traces (its seed derived from the run's), only those that hit a bin not hit before are kept, up
to the level's count (its budget), until the covergroups the draws reach are closed or `patience` draws in a row
add nothing. A profile's directed tests draw one after another, in the plan's order, on one coverage, so each
closes what the earlier ones left; a test that also says `corners: true` draws corner-aimed layers directed by the
arithmetic corner covergroup (stimulus/corners.py), the profile's corner tests on one such coverage.
"""

from __future__ import annotations

from pathlib import Path

from ci import shell
from ci.regression import engine
from ci.regression.engine import Run, Settings
from ci.regression.item import Item
from ci.regression.kinds.base import Expansion, TestKind
from ci.regression.planning import LEVELS, PlanError, count_for, derived_seed, seeds
from ci.regression.signature import normalise
from golden.config import get_profile
from golden.errors import NvdlaVerifError
from golden.status import RecordStatus, Verdict

#: The profile generated and illegal tests that name none draw for when the RTL declares none.
GENERATED_PROFILE = "nv_small"
#: Draws in a row that close nothing before a directed test stops (stimulus/directed.py), unless it says `patience`.
DIRECTED_PATIENCE = 200


def check_drawn(path: Path, name: str, entry: dict) -> None:
    """A test that draws layers (generated, illegal): the profile exists, has the family, and layers is 1 or 2."""
    from stimulus.families import available

    if not entry.get("available", True):
        return
    try:
        profile = get_profile(entry.get("profile", GENERATED_PROFILE))
    except NvdlaVerifError as exc:
        raise PlanError(f"{path}: test {name}: {exc}") from None
    if entry["kind"] == "generated" and entry["family"] not in available(profile):
        raise PlanError(f"{path}: test {name}: family {entry['family']!r} is none of {profile.name}'s: "
                        f"{', '.join(available(profile))}")
    layers = entry.get("layers", 1)
    if not isinstance(layers, int) or not 1 <= layers <= 2:
        raise PlanError(f"{path}: test {name}: layers must be 1 or 2 (register groups 0 and 1)")
    if "corners" in entry:
        from stimulus.families import aimable

        if entry["kind"] != "generated" or not isinstance(entry["corners"], bool):
            raise PlanError(f"{path}: test {name}: corners must be true or false, on a generated test")
        if entry["corners"] and entry["family"] not in aimable():
            raise PlanError(f"{path}: test {name}: family {entry['family']!r} has no corner aimer "
                            f"(stimulus/families.py Family.aim: {', '.join(aimable())})")


def directed_at(test: dict, level: str) -> bool:
    wanted = test.get("directed", False)
    return wanted is True or (isinstance(wanted, list) and level in wanted)


def _layers_suffix(layers: int) -> str:
    return f"_{layers}l" if layers > 1 else ""


def _directed_id(profile: str, family: str, corners: bool, seed: int, index: int, layers: int) -> str:
    return f"gen/{profile}/{family}/{'corners_' if corners else ''}s{seed}_{index}{_layers_suffix(layers)}"


class Generated(TestKind):
    name = "generated"
    required = ("family", "seeds")
    optional = ("profile", "layers", "fixed_seeds", "count", "directed", "corners", "patience")
    seeded = True
    shrinkable = True

    def check(self, path: Path, name: str, entry: dict) -> None:
        check_drawn(path, name, entry)

    def check_directed(self, path: Path, name: str, entry: dict) -> None:
        from stimulus.families import covergroups

        wanted = entry["directed"]
        if not (wanted is True or wanted is False or (isinstance(wanted, list) and set(wanted) <= set(LEVELS))):
            super().check_directed(path, name, entry)
        if wanted and entry["family"] not in covergroups():
            raise PlanError(f"{path}: test {name}: family {entry['family']!r} has no covergroup to direct by")
        if entry.get("seeds") != "per_run":
            raise PlanError(f"{path}: test {name}: a directed test draws per run (seeds: per_run)")
        if entry.get("corners") not in (None, True, False) or (entry.get("corners") and not wanted):
            raise PlanError(f"{path}: test {name}: corners must be true or false, on a directed test")
        patience = entry.get("patience", DIRECTED_PATIENCE)
        if not isinstance(patience, int) or isinstance(patience, bool) or patience < 1:
            raise PlanError(f"{path}: test {name}: patience must be a positive number of draws")

    def directed_at(self, test: dict, level: str) -> bool:
        return directed_at(test, level)

    def expand(self, test: dict, expansion: Expansion) -> list[Item]:
        if self.directed_at(test, expansion.level):
            return self._directed_items(test, expansion)
        profile, family, layers = test.get("profile", expansion.target), test["family"], int(test.get("layers", 1))
        suffix, name = _layers_suffix(layers), get_profile(profile).name
        corners = {"corners": True} if test.get("corners") else {}
        aimed = "_corners" if corners else ""
        return [Item(f"gen/{name}/{family}/s{s}{aimed}{suffix}", self.name,
                     {"family": family, "profile": profile, "seed": s, "layers": layers, **corners})
                for s in seeds(test, expansion.level, expansion.seed, test["name"])]

    def _directed_items(self, test: dict, expansion: Expansion) -> list[Item]:
        found = expansion.directed(test)
        aimed = {"corners": True} if found["corners"] else {}
        return [Item(_directed_id(found["profile"], found["family"], found["corners"], found["seed"], index,
                                  found["layers"]),
                     self.name, {"family": found["family"], "profile": found["profile_arg"], "seed": found["seed"],
                                 "index": index, "layers": found["layers"], "directed": test["name"], **aimed})
                for index in found["indices"]]

    def possible_ids(self, test: dict, expansion: Expansion) -> list[str] | None:
        """A directed test's items are some of its drawing's indices: every id they can have, without drawing."""
        if not self.directed_at(test, expansion.level):
            return None
        from stimulus.directed import most_draws

        profile = get_profile(test.get("profile", expansion.target)).name
        seed = derived_seed(expansion.seed, f"{test['name']}:directed", 0)
        draws = most_draws(count_for(test, expansion.level), test.get("patience", DIRECTED_PATIENCE))
        return [_directed_id(profile, test["family"], bool(test.get("corners")), seed, index, test.get("layers", 1))
                for index in range(draws)]

    def drawn_together(self, test: dict, target: str) -> tuple[str, bool]:
        """A profile's directed tests share one coverage, its corner tests another (directed_runs)."""
        return get_profile(test.get("profile", target)).name, bool(test.get("corners"))

    def directed_runs(self, tests: list[dict], level: str, base: int, target: str) -> dict[str, dict]:
        """The directed tests' draws, a profile's tests on one coverage in the plan's order (stimulus/directed.py)."""
        from stimulus.directed import directed, new_corner_coverage, new_coverage

        coverages, corner_coverages, runs = {}, {}, {}
        for test in tests:
            profile_arg = test.get("profile", target)
            profile = get_profile(profile_arg)
            if profile.name not in coverages:
                coverages[profile.name] = new_coverage(profile, f"plan_{level}_{base}")
            coverage = coverages[profile.name]
            seed = derived_seed(base, f"{test['name']}:directed", 0)
            budget, patience, layers = count_for(test, level), test.get("patience", DIRECTED_PATIENCE), test.get(
                "layers", 1)
            if not budget:
                found = None
            elif test.get("corners"):  # the corner covergroup, over corner-aimed draws run on the golden model
                if profile.name not in corner_coverages:
                    corner_coverages[profile.name] = new_corner_coverage(profile, f"plan_corners_{level}_{base}")
                shared = corner_coverages[profile.name]
                found = directed(test["family"], profile, seed, budget, patience, layers, corners=True,
                                 coverage=shared)
            else:
                found = directed(test["family"], profile, seed, budget, patience, layers, touched=True,
                                 coverage=coverage)
            runs[test["name"]] = {
                "family": test["family"], "corners": bool(test.get("corners")), "profile": profile.name,
                "profile_arg": profile_arg, "layers": layers,
                "seed": seed, "budget": budget, "patience": patience, "indices": found.indices if found else [],
                "traces": len(found.indices) if found else 0, "draws": found.draws if found else 0,
                "groups": found.groups if found else [], "holes_left": found.holes if found else None,
                "open_bins": found.open_bins() if found else {}}
        return runs

    def not_applicable(self, item: Item, settings: Settings) -> str:
        """As any item's, and the family is one of the profile's."""
        from stimulus.families import available

        reason = super().not_applicable(item, settings)
        text = settings.profile or item.params.get("profile")
        if not reason and text:
            profile = get_profile(text)
            if item.params["family"] not in available(profile):
                reason = (f"family {item.params['family']} is none of {profile.name}'s "
                          f"({', '.join(available(profile))})")
        return reason

    def run(self, item: Item, settings: Settings) -> Run:
        """The layer written as a .cfg trace with the golden model's CRCs, then played like any trace."""
        from stimulus.corner_data import write_aimed
        from stimulus.export import GenerationError
        from stimulus.families import write_generated

        p = item.params
        write = write_aimed if p.get("corners") else write_generated
        try:
            path = write(p["family"], get_profile(p["profile"]), p["seed"], p.get("index", 0),
                         settings.work / "generated", p["layers"])
        except GenerationError as exc:
            detail = f"the golden model rejects its own generated layer: {exc}"
            signature = {"unit": p["family"].upper(), "implementation": "golden", "check": "generation",
                         "pattern": normalise(str(exc))}
            return Run(self.record(item, settings, RecordStatus.ERROR, Verdict.ERROR, detail, signature=signature))
        return self.play_trace(item, path, settings, p.get("profile"))

    def reproduce(self, item: Item, settings: Settings) -> str:
        """`generate` the same layer, then `conform` it."""
        p, folder = item.params, f"repro-{item.id.replace('/', '-')}"
        generate = [*settings.command, "generate", "--unit", p["family"], *shell.option("--profile", p["profile"]),
                    "--seed", str(p["seed"]), *(["--index", str(p["index"])] if p.get("index") else []),
                    "-n", "1", "--layers", str(p["layers"]), *(["--corners"] if p.get("corners") else []),
                    *shell.option("--out", folder)]
        conform = [*settings.command, "conform", shell.positional(folder), *engine.implementation_arguments(settings)]
        return shell.chain(shell.line(generate), shell.line(conform))
