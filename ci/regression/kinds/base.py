"""A test kind: what a testplan test of that kind says, how it expands into items and how an item runs.

A kind is a subclass of TestKind in a module of its own (this package's, or a plugin's registered under the
entry-point group `nvdla_verif.test_kinds`, ci/regression/kinds/__init__.py) that declares

    name       the testplan's `kind:` value
    required   the fields a test of the kind must have; optional: the ones it may have (for the plan's readers)
    seeded     whether it takes seeds: "fixed" (with fixed_seeds) or "per_run" (count: {level: N})

and implements expand(test, expansion) -> [Item] and run(item, settings) -> Run. validate() checks a test's
entry and raises one PlanError naming the plan file, the test and the field; a kind adds its own checks in
check(). The rest has defaults a kind may replace: its layers' time budget, when it is not applicable to the
implementation under test, its reproduce command, whether the RTL's code coverage is collected for it, and
what the report and record code ask of a kind (shrinkable, mutant_runs) instead of testing its name.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from ci.options import ProfileNotInferredError, profile_for
from ci.regression import engine
from ci.regression.engine import Run, Settings
from ci.regression.item import Item
from ci.regression.planning import PlanError
from ci.regression.record import Finding, Record
from ci.regression.signature import result_signature
from golden.status import FAILING, RecordStatus


@dataclass(frozen=True)
class Expansion:
    """What a test expands against: the level, the run's base seed, NVIDIA's data, the profile generated layers
    draw for (the RTL's declared one, else nv_small), the plan (its directed draws, shared by its tests) and the
    run's selection."""

    level: str
    seed: int
    data_root: Path
    target: str
    plan: Any = None
    select: tuple[str, ...] = ()  # regress --test's patterns: the items wanted (none: all)

    def directed(self, test: dict) -> dict:
        """What the directed drawing of `test` kept (ci/regression/plan.py draws a level's directed tests once)."""
        return self.plan.directed_run(test["name"], self)


class TestKind:
    __test__ = False  # not a pytest test class

    name: ClassVar[str] = ""
    required: ClassVar[tuple[str, ...]] = ()
    optional: ClassVar[tuple[str, ...]] = ()
    seeded: ClassVar[bool] = False
    #: Whether --rtl-coverage collects the RTL's code coverage of its simulations.
    rtl_coverage: ClassVar[bool] = True
    #: Whether `regress --shrink` shrinks its failing items (ci/regression/shrink.py replays their params: a
    #: family's generated draw) and the report shows a bucket's smallest one shrunk.
    shrinkable: ClassVar[bool] = False
    #: Whether its records are runs of the fixture's mutants (caught or not), the report's mutant table.
    mutant_runs: ClassVar[bool] = False

    # --- the testplan ---

    def validate(self, path: Path, entry: dict) -> None:
        name = entry.get("name", "?")
        for key in self.required:
            if key not in entry:
                raise PlanError(f"{path}: test {name}: a {self.name} test needs {key!r}")
        if self.seeded:
            if entry["seeds"] not in ("fixed", "per_run"):
                raise PlanError(f"{path}: test {name}: seeds must be 'fixed' or 'per_run'")
            if entry["seeds"] == "fixed" and not entry.get("fixed_seeds"):
                raise PlanError(f"{path}: test {name}: seeds 'fixed' needs a fixed_seeds list")
        self.check(path, name, entry)
        if "directed" in entry:
            self.check_directed(path, name, entry)

    def check(self, path: Path, name: str, entry: dict) -> None:
        """The kind's own checks of a test's entry (after its required fields and seeds)."""

    def check_directed(self, path: Path, name: str, entry: dict) -> None:
        raise PlanError(f"{path}: test {name}: directed must be true, false or a list of levels, on a generated test")

    def directed_at(self, test: dict, level: str) -> bool:
        """Whether the test draws coverage-directed at the level (its items come from directed_runs)."""
        return False

    def directed_runs(self, tests: list[dict], level: str, seed: int, target: str) -> dict[str, dict]:
        """{test: what its directed drawing kept and left} for the kind's directed tests of the level, in the
        plan's order."""
        return {}

    def drawn_together(self, test: dict, target: str) -> object:
        """What the test's directed drawing shares with the kind's other directed tests of a level: those with the
        same value draw one after another in the plan's order, so drawing one needs the ones before it drawn."""
        return test["name"]

    def possible_ids(self, test: dict, expansion: Expansion) -> list[str] | None:
        """Every id the test's items can have when that is known without expanding it (a directed test's, before
        drawing); None: expand it to know (cheap for a test that draws nothing to expand)."""
        return None

    def expand(self, test: dict, expansion: Expansion) -> list[Item]:
        raise NotImplementedError(f"test kind {self.name} expands into no item")

    # --- an item ---

    def run(self, item: Item, settings: Settings) -> Run:
        raise NotImplementedError(f"test kind {self.name} cannot run an item")

    def not_applicable(self, item: Item, settings: Settings) -> str:
        """Why the item does not apply to the implementation under test ('' when it does)."""
        return engine.lacking(item, settings)

    def budget_s(self, item: Item, settings: Settings) -> float:
        """The longest the item may take (a batch shard's time limit is the sum over its tests): its layers, at
        the floor of the implementation's budget."""
        return int(item.params.get("layers", 1)) * engine.budget_s(settings.impl, 0, settings.timeout_scale)

    def reproduce(self, item: Item, settings: Settings) -> str:
        """A command that reproduces the item's result pasted into a shell in any folder."""
        return engine.regress_command(item, settings)

    def record(self, item: Item, settings: Settings, status: RecordStatus | str, verdict: str, detail: str,
               **fields) -> Record:
        return Record.of(item, settings, status, verdict, detail, self.reproduce(item, settings), **fields)

    def play_trace(self, item: Item, path: Path, settings: Settings, profile_name: str | None = None) -> Run:
        """A trace through the implementation and the scoreboards, as the item's record (the profile: --profile,
        else `profile_name`, else the one the trace's folder names)."""
        try:
            profile = profile_for(path, settings.fixed_profile(), profile_name)
        except ProfileNotInferredError:
            return Run(self.record(item, settings, RecordStatus.SKIPPED, Finding.NOT_RUN,
                                   f"cannot infer the profile of {path}; use --profile"))
        ran: list = []
        result = engine.play_layer(path, profile, settings.impl, settings.reference_spec(), settings.timeout_scale,
                                   ran=ran, settings=settings.decided)
        if not result.layers:  # another implementation's: the report decodes the golden model's registers
            result.layers = list(ran)
        status, note = engine.trace_status(result, item.params.get("expected_invalid"))
        record = self.record(item, settings, status, result.status, note or result.detail,
                             size_bytes=engine.layer_bytes(path), path=engine.shown_path(path, settings),
                             profile=profile.name, cycles=result.cycles, **engine.coverage_fields(profile, ran))
        if status in FAILING:
            record.signature = result_signature(result)
        return Run(record, [result], [path])

