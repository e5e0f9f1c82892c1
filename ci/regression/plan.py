"""The testplan (ci/regression/testplan.hjson): testpoints with a milestone, the tests that cover them, expanded
into the items one level of the regression runs.

    load_plan(path) -> Plan                   checks every field; a bad plan is one PlanError naming the entry
    plan.items(level, seed, data_root, target, select) -> [Item]   sorted by id, one per distinct layer (or mutant);
                                              `select`: regress --test's patterns, drawing only what they keep
    shard(items, "i/n") -> [Item]             the i-th of n deterministic parts

A test's kind (ci/regression/kinds/: nvidia_traces, random_sdp, mutants, generated, illegal, and the plugins')
checks its entry and expands it into items. An item's id names what it plays, not the test that listed it
("nvidia/nv_small/sdp_1x1x1_pass_through_int8", "random_sdp/s123_2l", "mutant/FX_BUG_WSTRB"), so a layer two tests
list runs once, for both testpoints.

A kind's directed tests (ci/regression/kinds/generated.py: coverage-directed drawing) are drawn once per level,
seed and target, all of the level's at once in the plan's order; `plan.directed(level, seed, target)` says what
each kept and left (the manifest records it). The same plan, level, seed and target give the same items
everywhere.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ci.regression import kinds
from ci.regression.item import Item
from ci.regression.kinds.base import Expansion
from ci.regression.kinds.generated import GENERATED_PROFILE
from ci.regression.planning import LEVELS, PlanError

__all__ = ["DEFAULT_PLAN", "LEVELS", "Item", "Plan", "PlanError", "load_plan", "parse_shard", "plan_file", "selects",
           "shard"]

DEFAULT_PLAN = Path(__file__).resolve().with_name("testplan.hjson")
#: Where the testplan lived before it moved into the package: a --plan naming it, now missing, reads DEFAULT_PLAN.
OLD_PLAN = ("suites", "testplan.hjson")


@dataclass
class Plan:
    name: str
    path: Path
    testpoints: list[dict]
    tests: dict[str, dict]
    _directed_cache: dict = field(default_factory=dict, repr=False)
    _selectable_cache: dict = field(default_factory=dict, repr=False)

    def testpoints_for(self, level: str) -> list[dict]:
        rank = LEVELS.index(level)
        return [tp for tp in self.testpoints if LEVELS.index(tp["milestone"]) <= rank]

    def unavailable(self, level: str) -> list[str]:
        """Tests of the level that cannot run yet (generated and illegal families of the stimulus issue)."""
        names = {t for tp in self.testpoints_for(level) for t in tp["tests"]}
        return sorted(n for n in names if not self.tests[n].get("available", True))

    def items(self, level: str, seed: int, data_root: Path, target: str | None = None,
              select: Sequence[str] = ()) -> list[Item]:
        """The level's items; `target` (a profile name or .spec path: the RTL's declared profile) is the profile
        generated and illegal tests that name none draw for (default nv_small). `select` (regress --test: shell
        patterns of item ids) keeps the items one matches, and only the directed tests that can have such an item
        are drawn (with the ones they draw after): the items kept are the same as without it."""
        if level not in LEVELS:
            raise PlanError(f"unknown level {level!r}; levels: {', '.join(LEVELS)}")
        expansion = Expansion(level, seed, data_root, target or GENERATED_PROFILE, self, tuple(select))
        merged: dict[str, Item] = {}
        for testpoint in self.testpoints_for(level):
            for test_name in testpoint["tests"]:
                test = self.tests[test_name]
                if not test.get("available", True) or not self._may_select(test, expansion):
                    continue
                for item in kinds.get(test["kind"]).expand(test, expansion):
                    if select and not selects(select, item.id):
                        continue
                    old = merged.get(item.id)
                    tests = tuple(sorted({*(old.tests if old else ()), test_name}))
                    points = tuple(sorted({*(old.testpoints if old else ()), testpoint["name"]}))
                    params = {**item.params, **(old.params if old else {})}
                    merged[item.id] = Item(item.id, item.kind, params, tests, points)
        return [merged[key] for key in sorted(merged)]

    def directed(self, level: str, seed: int, target: str | None = None,
                 select: Sequence[str] = ()) -> dict[str, dict]:
        """{test: what its directed drawing kept and left} for the level's directed tests (those `select` can
        have items of)."""
        expansion = Expansion(level, seed, Path(), target or GENERATED_PROFILE, self, tuple(select))
        return {name: {k: v for k, v in found.items() if k != "indices"}
                for name, found in self._directed_runs(expansion).items()
                if self._may_select(self.tests[name], expansion)}

    def directed_run(self, test: str, expansion: Expansion) -> dict:
        """What the directed drawing of one test kept (its indices included)."""
        return self._directed_runs(expansion)[test]

    def _may_select(self, test: dict, expansion: Expansion) -> bool:
        """Whether `expansion.select` can keep an item of the test (always without a selection)."""
        if not expansion.select:
            return True
        key = (test["name"], expansion.level, expansion.seed, expansion.target, expansion.select)
        if key not in self._selectable_cache:  # asked per listing and per directed drawing: ids made once
            ids = kinds.get(test["kind"]).possible_ids(test, expansion)
            self._selectable_cache[key] = ids is None or any(fnmatch.filter(ids, p) for p in expansion.select)
        return self._selectable_cache[key]

    def _directed_runs(self, expansion: Expansion) -> dict[str, dict]:
        """The level's directed tests the selection needs, drawn once per (level, seed, target) in this process,
        each kind's together in the plan's order: a wanted test and every test drawn before it on its coverage."""
        level = expansion.level
        listed = {t for tp in self.testpoints_for(level) for t in tp["tests"]}
        names = [name for name, test in self.tests.items() if test.get("available", True) and name in listed
                 and kinds.get(test["kind"]).directed_at(test, level)]
        together = {n: (self.tests[n]["kind"], kinds.get(self.tests[n]["kind"]).drawn_together(
            self.tests[n], expansion.target)) for n in names}
        last = {together[n]: position for position, n in enumerate(names)
                if self._may_select(self.tests[n], expansion)}
        needed = [n for position, n in enumerate(names) if position <= last.get(together[n], -1)]
        key = (level, expansion.seed, expansion.target, tuple(needed))
        if key not in self._directed_cache:
            runs = {}
            for kind in dict.fromkeys(self.tests[n]["kind"] for n in needed):
                chosen = [self.tests[n] for n in needed if self.tests[n]["kind"] == kind]
                runs.update(kinds.get(kind).directed_runs(chosen, level, expansion.seed, expansion.target))
            self._directed_cache[key] = runs
        return self._directed_cache[key]


def selects(patterns: Sequence[str], item_id: str) -> bool:
    """Whether one of regress --test's shell patterns matches the item id."""
    return any(fnmatch.fnmatchcase(item_id, pattern) for pattern in patterns)


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
    known = kinds.names()
    if kind not in known:
        raise PlanError(f"{path}: test {name}: kind {kind!r} is none of {', '.join(known)}")
    kinds.get(kind).validate(path, entry)


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
