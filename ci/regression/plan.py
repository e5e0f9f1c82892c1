"""The testplan (suites/testplan.hjson): testpoints with a stage, the tests that cover them, expanded into the
items one level of the regression runs.

    load_plan(path) -> Plan                   checks every field; a bad plan is one PlanError naming the entry
    plan.items(level, seed, data_root) -> [Item]   sorted by id, one per distinct layer (or mutant)
    shard(items, "i/n") -> [Item]             the i-th of n deterministic parts

An item's id names what it plays, not the test that listed it ("nvidia/nv_small/sdp_1x1x1_pass_through_int8",
"random_sdp/s123_2l", "mutant/FX_BUG_WSTRB"), so a layer two tests list runs once, for both testpoints.
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
DEFAULT_PLAN = Path(__file__).resolve().parents[2] / "suites" / "testplan.hjson"
FIXTURE_SOURCES = Path(__file__).resolve().parents[2] / "rtl" / "fixture"
GENERATED_PROFILE = "nv_small"


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

    def testpoints_for(self, level: str) -> list[dict]:
        rank = LEVELS.index(level)
        return [tp for tp in self.testpoints if LEVELS.index(tp["stage"]) <= rank]

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
                for item in _expand(test, level, seed, data_root, target or GENERATED_PROFILE):
                    old = merged.get(item.id)
                    tests = tuple(sorted({*(old.tests if old else ()), test_name}))
                    points = tuple(sorted({*(old.testpoints if old else ()), testpoint["name"]}))
                    params = {**item.params, **(old.params if old else {})}
                    merged[item.id] = Item(item.id, item.kind, params, tests, points)
        return [merged[key] for key in sorted(merged)]


def load_plan(path: str | Path = DEFAULT_PLAN) -> Plan:
    try:
        import hjson
    except ModuleNotFoundError:
        raise PlanError("reading the testplan needs the hjson package: bash ci/setup.sh --test") from None
    path = Path(path)
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
        for key in ("name", "stage", "desc", "tests"):
            if key not in entry:
                raise PlanError(f"{path}: testpoint {name}: missing {key!r}")
        if entry["stage"] not in LEVELS:
            raise PlanError(f"{path}: testpoint {name}: stage {entry['stage']!r} is none of {', '.join(LEVELS)}")
        for test in entry["tests"]:
            if test not in tests:
                raise PlanError(f"{path}: testpoint {name}: test {test!r} is not defined under tests")
        points.append({**entry, "covers": list(entry.get("covers", []))})
    if not points:
        raise PlanError(f"{path}: the testplan has no testpoints")
    return Plan(data.get("name", path.stem), path, points, tests)


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
