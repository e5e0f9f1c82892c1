"""The testplan (ci/regression/testplan.hjson): testpoints with a milestone, the tests that cover them, expanded
into the items one level of the regression runs.

    load_plan(path) -> Plan                   checks every field; a bad plan is one PlanError naming the entry
    plan.items(level, seed, data_root) -> [Item]   sorted by id, one per distinct layer (or mutant)
    shard(items, "i/n") -> [Item]             the i-th of n deterministic parts

An item's id names what it plays, not the test that listed it ("nvidia/nv_small/sdp_1x1x1_pass_through_int8",
"random_sdp/s123_2l", "mutant/FX_BUG_WSTRB"), so a layer two tests list runs once, for both testpoints.

A generated test that says `directed` (true, or the levels where it holds) is coverage-directed there
(stimulus/directed.py): of one stream of traces (its seed derived from the run's), only those that hit a bin not
hit before are kept, up to the level's count (its budget), until the covergroups the draws reach are closed or
`patience` draws in a row add nothing. A profile's directed tests draw one after another, in the plan's order,
on one coverage, so each closes what the earlier ones left; a test that also says `corners: true` draws
corner-aimed layers (stimulus/corner_data.py) directed by the arithmetic corner covergroup (stimulus/corners.py),
the profile's corner tests on one such coverage. `plan.directed(level, seed, target)` says what each kept and left
(the manifest records it). The same plan, level, seed and target give the same items everywhere.
"""

from __future__ import annotations

import fnmatch
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from golden.config import get_profile, infer_profile_name
from golden.errors import NvdlaVerifError

LEVELS = ("smoke", "nightly", "weekly")
KINDS = ("nvidia_traces", "random_sdp", "mutants", "generated", "illegal")
DEFAULT_PLAN = Path(__file__).resolve().with_name("testplan.hjson")
#: Where the testplan lived before it moved into the package: a --plan naming it, now missing, reads DEFAULT_PLAN.
OLD_PLAN = ("suites", "testplan.hjson")
FIXTURE_SOURCES = Path(__file__).resolve().parents[2] / "rtl" / "fixture"
GENERATED_PROFILE = "nv_small"
#: Draws in a row that close nothing before a directed test stops (stimulus/directed.py), unless it says `patience`.
DIRECTED_PATIENCE = 200


class PlanError(NvdlaVerifError):
    """A testplan that cannot be read or names something that does not exist."""


@dataclass(frozen=True)
class Item:
    id: str
    kind: str
    params: dict = field(compare=False, hash=False)  # path, profile, seed, layers, switch, expected_invalid
    tests: tuple[str, ...] = ()
    testpoints: tuple[str, ...] = ()

    def as_dict(self) -> dict:
        return {"id": self.id, "kind": self.kind, "params": self.params, "tests": list(self.tests),
                "testpoints": list(self.testpoints)}

    @classmethod
    def from_dict(cls, data: dict) -> Item:
        return cls(data["id"], data["kind"], data["params"], tuple(data["tests"]), tuple(data["testpoints"]))


@dataclass
class Plan:
    name: str
    path: Path
    testpoints: list[dict]
    tests: dict[str, dict]
    _directed_cache: dict = field(default_factory=dict, repr=False)

    def testpoints_for(self, level: str) -> list[dict]:
        rank = LEVELS.index(level)
        return [tp for tp in self.testpoints if LEVELS.index(tp["milestone"]) <= rank]

    def unavailable(self, level: str) -> list[str]:
        """Tests of the level that cannot run yet (generated and illegal families of the stimulus issue)."""
        names = {t for tp in self.testpoints_for(level) for t in tp["tests"]}
        return sorted(n for n in names if not self.tests[n].get("available", True))

    def items(self, level: str, seed: int, data_root: Path, target: str | None = None) -> list[Item]:
        """The level's items; `target` (a profile name or .spec path: the RTL's declared profile) is the profile
        generated and illegal tests that name none draw for (default nv_small)."""
        if level not in LEVELS:
            raise PlanError(f"unknown level {level!r}; levels: {', '.join(LEVELS)}")
        merged: dict[str, Item] = {}
        for testpoint in self.testpoints_for(level):
            for test_name in testpoint["tests"]:
                test = self.tests[test_name]
                if not test.get("available", True):
                    continue
                expanded = (self._directed_items(test, level, seed, target or GENERATED_PROFILE)
                            if directed_at(test, level) else
                            _expand(test, level, seed, data_root, target or GENERATED_PROFILE))
                for item in expanded:
                    old = merged.get(item.id)
                    tests = tuple(sorted({*(old.tests if old else ()), test_name}))
                    points = tuple(sorted({*(old.testpoints if old else ()), testpoint["name"]}))
                    params = {**item.params, **(old.params if old else {})}
                    merged[item.id] = Item(item.id, item.kind, params, tests, points)
        return [merged[key] for key in sorted(merged)]

    def directed(self, level: str, seed: int, target: str | None = None) -> dict[str, dict]:
        """{test: what its directed drawing kept and left} for the level's directed tests (see the module)."""
        return {name: {k: v for k, v in found.items() if k != "indices"}
                for name, found in self._directed_runs(level, seed, target or GENERATED_PROFILE).items()}

    def _directed_items(self, test: dict, level: str, seed: int, target: str) -> list[Item]:
        found = self._directed_runs(level, seed, target)[test["name"]]
        family, layers, suffix = found["family"], found["layers"], _layers_suffix(found["layers"])
        aimed = {"corners": True} if found["corners"] else {}
        return [Item(f"gen/{found['profile']}/{family}/{'corners_' if aimed else ''}s{found['seed']}_{index}{suffix}",
                     "generated", {"family": family, "profile": found["profile_arg"], "seed": found["seed"],
                                   "index": index, "layers": layers, "directed": test["name"], **aimed})
                for index in found["indices"]]

    def _directed_runs(self, level: str, seed: int, target: str) -> dict[str, dict]:
        """Every directed test of the level, drawn once per (level, seed, target) in this process."""
        names = [name for name, test in self.tests.items() if test["kind"] == "generated"
                 and test.get("available", True) and directed_at(test, level)
                 and name in {t for tp in self.testpoints_for(level) for t in tp["tests"]}]
        key = (level, seed, target, tuple(names))
        if key not in self._directed_cache:
            self._directed_cache[key] = _draw_directed([self.tests[n] for n in names], level, seed, target)
        return self._directed_cache[key]


def plan_file(path: str | Path) -> Path:
    """The testplan a --plan value names: the packaged one for the old suites/testplan.hjson when it is gone."""
    path = Path(path)
    if path.parts[-2:] == OLD_PLAN and not path.exists():
        return DEFAULT_PLAN
    return path


def load_plan(path: str | Path = DEFAULT_PLAN) -> Plan:
    try:
        import hjson
    except ModuleNotFoundError:
        raise PlanError("reading the testplan needs the hjson package: bash ci/setup.sh --test") from None
    path = plan_file(path)
    try:
        data = hjson.loads(path.read_text())
    except OSError as exc:
        raise PlanError(f"{path}: cannot read the testplan: {exc.strerror}") from None
    except hjson.HjsonDecodeError as exc:
        raise PlanError(f"{path}:{exc.lineno}: not valid hjson: {exc.msg}") from None
    tests = {}
    for entry in data.get("tests", []):
        _check_test(path, entry)
        tests[entry["name"]] = dict(entry)
    points = []
    for entry in data.get("testpoints", []):
        name = entry.get("name", "?")
        entry = _milestone(path, name, dict(entry))
        for key in ("name", "milestone", "desc", "tests"):
            if key not in entry:
                raise PlanError(f"{path}: testpoint {name}: missing {key!r}")
        if entry["milestone"] not in LEVELS:
            raise PlanError(f"{path}: testpoint {name}: milestone {entry['milestone']!r} is none of "
                            f"{', '.join(LEVELS)}")
        for test in entry["tests"]:
            if test not in tests:
                raise PlanError(f"{path}: testpoint {name}: test {test!r} is not defined under tests")
        points.append({**entry, "covers": list(entry.get("covers", []))})
    if not points:
        raise PlanError(f"{path}: the testplan has no testpoints")
    return Plan(data.get("name", path.stem), path, points, tests)


def _milestone(path: Path, name: str, entry: dict) -> dict:
    """A testpoint's level: `milestone` (plans before it was renamed say `stage`, read the same way)."""
    if "stage" in entry:
        if "milestone" in entry:
            raise PlanError(f"{path}: testpoint {name}: both 'milestone' and its old name 'stage'")
        entry["milestone"] = entry.pop("stage")
    return entry


def _check_test(path: Path, entry: dict) -> None:
    name = entry.get("name", "?")
    kind = entry.get("kind")
    if kind not in KINDS:
        raise PlanError(f"{path}: test {name}: kind {kind!r} is none of {', '.join(KINDS)}")
    required = {"nvidia_traces": ("glob",), "random_sdp": ("layers", "seeds"), "mutants": ("switches",),
                "generated": ("family", "seeds"), "illegal": ("seeds",)}
    for key in required.get(kind, ()):
        if key not in entry:
            raise PlanError(f"{path}: test {name}: a {kind} test needs {key!r}")
    if kind in ("random_sdp", "generated", "illegal"):
        if entry["seeds"] not in ("fixed", "per_run"):
            raise PlanError(f"{path}: test {name}: seeds must be 'fixed' or 'per_run'")
        if entry["seeds"] == "fixed" and not entry.get("fixed_seeds"):
            raise PlanError(f"{path}: test {name}: seeds 'fixed' needs a fixed_seeds list")
    if kind in ("generated", "illegal") and entry.get("available", True):
        _check_generated(path, name, entry)
    if "directed" in entry:
        _check_directed(path, name, entry)


def _check_generated(path: Path, name: str, entry: dict) -> None:
    """A generated family or the illegal layers: the family exists and the profile has it."""
    from stimulus.families import available

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
        from stimulus.corner_data import AIMERS

        if entry["kind"] != "generated" or not isinstance(entry["corners"], bool):
            raise PlanError(f"{path}: test {name}: corners must be true or false, on a generated test")
        if entry["corners"] and entry["family"] not in AIMERS:
            raise PlanError(f"{path}: test {name}: family {entry['family']!r} has no corner aimer "
                            f"(stimulus/corner_data.py: {', '.join(sorted(AIMERS))})")

def _check_directed(path: Path, name: str, entry: dict) -> None:
    from stimulus.directed import GROUPS

    wanted = entry["directed"]
    if entry["kind"] != "generated" or not (wanted is True or wanted is False or (
            isinstance(wanted, list) and set(wanted) <= set(LEVELS))):
        raise PlanError(f"{path}: test {name}: directed must be true, false or a list of levels, on a generated test")
    if wanted and entry["family"] not in GROUPS:
        raise PlanError(f"{path}: test {name}: family {entry['family']!r} has no covergroup to direct by")
    if entry.get("seeds") != "per_run":
        raise PlanError(f"{path}: test {name}: a directed test draws per run (seeds: per_run)")
    if entry.get("corners") not in (None, True, False) or (entry.get("corners") and not wanted):
        raise PlanError(f"{path}: test {name}: corners must be true or false, on a directed test")
    patience = entry.get("patience", DIRECTED_PATIENCE)
    if not isinstance(patience, int) or isinstance(patience, bool) or patience < 1:
        raise PlanError(f"{path}: test {name}: patience must be a positive number of draws")


#: Bug switches one test builds for itself, not mutants of the nightly: FX_BUG_CVT_OFFSET16 is the rare-value
#: mutant the fuzzing loop's test finds and random layers miss (suites/rtl/test_fuzz_loop_rtl.py).
OWN_TEST_SWITCHES = ("FX_BUG_CVT_OFFSET16",)


def fixture_bug_switches(folder: Path = FIXTURE_SOURCES) -> list[str]:
    """The fixture's bug switches (`ifdef FX_BUG_...` in its Verilog), read from the source so that the plan
    needs neither the RTL packages nor a list to keep in step with rtl/build.py (OWN_TEST_SWITCHES left out)."""
    found = set()
    for source in sorted(folder.glob("*.v")):
        found.update(re.findall(r"`ifn?def\s+(FX_BUG_\w+)", source.read_text()))
    return sorted(found - set(OWN_TEST_SWITCHES))


def derived_seed(base: int, test: str, index: int) -> int:
    """The seed of the index-th layer of a per-run test: the same on every machine for the same base seed."""
    digest = hashlib.sha256(f"{base}:{test}:{index}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def directed_at(test: dict, level: str) -> bool:
    wanted = test.get("directed", False)
    return wanted is True or (isinstance(wanted, list) and level in wanted)


def _layers_suffix(layers: int) -> str:
    return f"_{layers}l" if layers > 1 else ""


def _draw_directed(tests: list[dict], level: str, base: int, target: str) -> dict[str, dict]:
    """The directed tests' draws, a profile's tests on one coverage in the plan's order (stimulus/directed.py)."""
    from stimulus.directed import directed, new_corner_coverage, new_coverage

    coverages, corner_coverages, runs = {}, {}, {}
    for test in tests:
        profile_arg = test.get("profile", target)
        profile = get_profile(profile_arg)
        coverage = coverages.setdefault(profile.name, new_coverage(profile, f"plan_{level}_{base}"))
        seed = derived_seed(base, f"{test['name']}:directed", 0)
        budget, patience, layers = _count_for(test, level), test.get("patience", DIRECTED_PATIENCE), test.get(
            "layers", 1)
        if not budget:
            found = None
        elif test.get("corners"):  # the corner covergroup, over corner-aimed draws run on the golden model
            if profile.name not in corner_coverages:
                corner_coverages[profile.name] = new_corner_coverage(profile, f"plan_corners_{level}_{base}")
            shared = corner_coverages[profile.name]
            found = directed(test["family"], profile, seed, budget, patience, layers, corners=True, coverage=shared)
        else:
            found = directed(test["family"], profile, seed, budget, patience, layers, touched=True, coverage=coverage)
        runs[test["name"]] = {
            "family": test["family"], "corners": bool(test.get("corners")), "profile": profile.name,
            "profile_arg": profile_arg, "layers": layers,
            "seed": seed, "budget": budget, "patience": patience, "indices": found.indices if found else [],
            "traces": len(found.indices) if found else 0, "draws": found.draws if found else 0,
            "groups": found.groups if found else [], "holes_left": found.holes if found else None,
            "open_bins": found.open_bins() if found else {}}
    return runs


def _expand(test: dict, level: str, seed: int, data_root: Path, target: str) -> list[Item]:
    kind = test["kind"]
    if kind == "nvidia_traces":
        globs = [test["glob"]] if isinstance(test["glob"], str) else test["glob"]
        paths = sorted({p for pattern in globs for p in data_root.glob(pattern) if p.is_file()})
        invalid = test.get("expected_invalid", {})
        items = []
        for p in paths:
            name = p.parent.name if p.suffix == ".txn" else p.stem
            profile = infer_profile_name(p) or "unknown"
            params = {"path": str(p.resolve()), "profile": profile, "name": name}
            if name in invalid:
                params["expected_invalid"] = invalid[name]
            items.append(Item(f"nvidia/{profile}/{name}", kind, params))
        return items
    if kind == "random_sdp":
        layers = int(test["layers"])
        seeds = _seeds(test, level, seed, test["name"])
        return [Item(f"random_sdp/s{s}_{layers}l", kind, {"seed": s, "layers": layers, "profile": "nv_small"})
                for s in seeds]
    if kind == "mutants":
        switches = [s for s in fixture_bug_switches() if fnmatch.fnmatchcase(s, test["switches"])]
        return [Item(f"mutant/{s}", kind, {"switch": s, "profile": "nv_small"}) for s in switches]
    if kind == "generated":
        profile, family, layers = test.get("profile", target), test["family"], int(test.get("layers", 1))
        suffix, name = f"_{layers}l" if layers > 1 else "", get_profile(profile).name
        corners = {"corners": True} if test.get("corners") else {}
        aimed = "_corners" if corners else ""
        return [Item(f"gen/{name}/{family}/s{s}{aimed}{suffix}", kind,
                     {"family": family, "profile": profile, "seed": s, "layers": layers, **corners})
                for s in _seeds(test, level, seed, test["name"])]
    if kind == "illegal":
        return _illegal_items(test, level, seed, test.get("profile", target))
    return []


def _seeds(test: dict, level: str, base: int, stream: str) -> list[int]:
    if test["seeds"] == "fixed":
        return [int(s) for s in test["fixed_seeds"]]
    return [derived_seed(base, stream, i) for i in range(_count_for(test, level))]


def _illegal_items(test: dict, level: str, base: int, profile_text: str) -> list[Item]:
    """`count` draws per rule of the registry (golden/rules.py) that `rules` selects and the profile can break;
    a rule without an illegal generator is an item too, skipped with that reason, so the gap shows."""
    from golden import rules
    from stimulus import illegal

    profile = get_profile(profile_text)
    pattern = test.get("rules", "*")
    items = []
    for rule in rules.all_rules():
        if not fnmatch.fnmatchcase(rule.id, pattern):
            continue
        if rule.id in illegal.BREAKERS and not illegal.reachable(rule.id, profile):
            continue  # the profile lacks what breaking it needs (e.g. a unit or a precision)
        for s in _seeds(test, level, base, f"{test['name']}:{rule.id}"):
            params = {"rule": rule.id, "unit": rule.unit, "profile": profile_text, "seed": s}
            if rule.id not in illegal.BREAKERS:
                params["no_generator"] = True
            items.append(Item(f"illegal/{profile.name}/{rule.id}/s{s}", "illegal", params))
    return items


def _count_for(test: dict, level: str) -> int:
    counts = test.get("count", {})
    rank = LEVELS.index(level)
    # The count of the highest level at or below this one that names one (a weekly count never shrinks a nightly).
    for name in reversed(LEVELS[:rank + 1]):
        if name in counts:
            return int(counts[name])
    return 0


def parse_shard(text: str) -> tuple[int, int]:
    try:
        index, total = (int(part) for part in text.split("/"))
    except ValueError:
        raise PlanError(f"--shard {text!r}: expected i/n, e.g. 2/4") from None
    if total < 1 or not 1 <= index <= total:
        raise PlanError(f"--shard {text!r}: i must be between 1 and n")
    return index, total


def shard(items: list[Item], index: int, total: int) -> list[Item]:
    """Round robin over the items sorted by id: the same partition on every machine, sizes within one."""
    ordered = sorted(items, key=lambda item: item.id)
    return [item for position, item in enumerate(ordered) if position % total == index - 1]
