"""The registry of test kinds: the testplan's `kind:` values, one module each (ci/regression/kinds/base.py says
what a kind declares).

    names() -> [str]        every kind: the project's, in this order, then the plugins', sorted
    get(name) -> TestKind   the kind a testplan test names (PlanError for none)
    having(attribute) -> {str}   the kinds that declare a TestKind flag (shrinkable, mutant_runs) true

A plugin package adds kinds through the entry-point group `nvdla_verif.test_kinds`, as implementations are added:

    [project.entry-points."nvdla_verif.test_kinds"]
    my_kind = "my_package.kinds:MyKind"     # a TestKind subclass whose name is my_kind

register(MyKind) adds one in this process (a test, a script that drives the regression itself).
"""

from __future__ import annotations

from importlib.metadata import entry_points

from ci.regression.kinds.base import TestKind
from ci.regression.kinds.fuzz import Fuzz
from ci.regression.kinds.generated import Generated
from ci.regression.kinds.illegal import Illegal
from ci.regression.kinds.mutants import Mutants
from ci.regression.kinds.nvidia_traces import NvidiaTraces
from ci.regression.kinds.random_sdp import RandomSdp
from ci.regression.planning import PlanError

GROUP = "nvdla_verif.test_kinds"
PROJECT = (NvidiaTraces, RandomSdp, Mutants, Generated, Illegal, Fuzz)
_added: dict[str, type[TestKind]] = {}


def register(kind: type[TestKind]) -> type[TestKind]:
    """Add a kind in this process (usable as a class decorator)."""
    _check(kind, kind.__qualname__)
    _added[kind.name] = kind
    return kind


def unregister(name: str) -> None:
    _added.pop(name, None)


def _check(kind, where: str) -> None:
    if not (isinstance(kind, type) and issubclass(kind, TestKind) and kind.name):
        raise PlanError(f"test kind {where} is no TestKind subclass with a name (ci/regression/kinds/base.py)")


def _plugins() -> dict[str, type[TestKind]]:
    found = {}
    for point in entry_points(group=GROUP):
        try:
            kind = point.load()
        except ImportError as exc:
            raise PlanError(f"test kind {point.name!r} ({point.value}) cannot be loaded: {exc}") from None
        _check(kind, f"{point.name!r} ({point.value})")
        if kind.name != point.name:
            raise PlanError(f"test kind {point.name!r} ({point.value}) says its name is {kind.name!r}")
        found[point.name] = kind
    return found


def _registered() -> dict[str, type[TestKind]]:
    own = {kind.name: kind for kind in PROJECT}
    others = {**_plugins(), **_added}
    return {**own, **{name: others[name] for name in sorted(others) if name not in own}}


def names() -> list[str]:
    return list(_registered())


def get(name: str) -> TestKind:
    registered = _registered()
    if name not in registered:
        raise PlanError(f"unknown test kind {name!r}; kinds: {', '.join(registered)}")
    return registered[name]()


def having(attribute: str) -> set[str]:
    """The names of the registered kinds whose class declares `attribute` (a TestKind flag) true; a record of a
    kind not registered in this process (its plugin gone) has TestKind's defaults."""
    return {name for name, kind in _registered().items() if getattr(kind, attribute)}
