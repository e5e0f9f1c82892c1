"""The random layer generators by unit family, and a trace of them named the way NVIDIA names its tests.

A family declares itself once (Family: name, the units its layers run, generator, what a trace's layers share, the
modules of its illegal breakers, its covergroup and its runs' outcome covergroup, its corner aimer, the trace
lengths a suite draws and the covergroup it is measured by), in a module whose FAMILY or FAMILIES is the
declaration: the project's are stimulus/<family>/family.py, beside the family's layers, breakers, corner aimers
and covergroup, listed by MODULES; a plugin adds families through the entry-point group "nvdla_verif.families".
`declared()` is the one registry every listing reads (`family`, `names`, `available`,
`breaker_modules`, `aimable`, `drawn_by`, `covergroups`); the profile switches a family needs come from its units'
declarations (golden/units/declaration.py: Unit.switch).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import golden.units
from golden.config import Profile
from golden.errors import DeclarationError, NvdlaVerifError
from stimulus.choose import Chooser, Seeded
from stimulus.export import write_trace
from stimulus.layer import Layer

#: The entry-point group through which another distribution adds families.
ENTRY_POINTS = "nvdla_verif.families"
_NAME = re.compile(r"[a-z][a-z0-9_]*")


@dataclass(frozen=True)
class Family:
    name: str
    #: The stages its layers run (golden.units declarations): a profile lacking one of them cannot run the family.
    units: tuple[str, ...]
    #: generator(choose, profile, slot, **shared) -> Layer
    generator: Callable
    #: drawer(choose, profile) -> keywords every layer of one trace shares (a unit's LUT); None: nothing shared.
    shared: Callable | None = None
    #: Modules whose BREAKERS (stimulus.breakers.Breaker) break rules of the registry (stimulus/illegal.py).
    breakers: tuple[str, ...] = ()
    #: covergroup(coverage, group) -> sample(stages, regs, status): builds the points of covergroup `group` (its
    #: `covers`) through the Coverage object's `point` and `cross`, and samples every layer with the stages it
    #: ran, its register values and (a run layer's) reported status, or None (stimulus/coverage.py); or returns a
    #: stimulus.covergroups.Samplers (also a layer's programming writes, a launch's operations); None: none.
    covergroup: Callable | None = None
    #: outcomes(coverage, group) -> the same: the covergroup "<covers>_run" of what a run of a layer reported
    #: (LUT counters, EQL result), built after every family's covergroup by a Coverage with outcomes; None: none.
    outcomes: Callable | None = None
    #: aim(layer, profile, choose, slot=0) -> the drawn layer with its data rebuilt to land on arithmetic corners
    #: (stimulus/corner_data.py; applied to the drawn layers whose `family` is this name); None: not aimed.
    aim: Callable | None = None
    #: The trace lengths (layers per trace) a conformance suite generates of it (ci/suite/build.py): 2 besides 1
    #: where only two layers cover something (convolution's data/weight reuse and weight ring, BDMA's second
    #: launch register).
    lengths: tuple[int, ...] = (1,)
    #: The covergroup its draws are measured by (coverage-directed drawing, `coverage --unit`); "": its own
    #: covergroup's (named after the family), or none.
    covers: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "covers", self.covers or (self.name if self.covergroup is not None else ""))
        object.__setattr__(self, "units", tuple(self.units))
        object.__setattr__(self, "breakers", tuple(self.breakers))
        object.__setattr__(self, "lengths", tuple(self.lengths))
        where = f"family {self.name!r}"
        if not isinstance(self.name, str) or not _NAME.fullmatch(self.name):
            raise DeclarationError("a family's name is a lower-case word", where=where)
        if not self.units or not all(isinstance(stage, str) for stage in self.units):
            raise DeclarationError("units are the stages its layers run", where=where)
        for what in ("generator", "shared", "covergroup", "outcomes", "aim"):
            hook = getattr(self, what)
            if not callable(hook) and not (hook is None and what != "generator"):
                raise DeclarationError(f"{what} is not callable", where=where)
        if not all(isinstance(module, str) for module in self.breakers):
            raise DeclarationError("breakers are module names", where=where)
        if not self.lengths or not all(isinstance(n, int) and n >= 1 for n in self.lengths):
            raise DeclarationError("lengths are layer counts of 1 or more", where=where)

    def needs(self) -> tuple[str, ...]:
        """The profile switches of its units (none: every profile runs it)."""
        switches = (golden.units.unit(stage).switch for stage in self.units)
        return tuple(dict.fromkeys(switch for switch in switches if switch))

    def share(self, choose: Chooser, profile: Profile) -> dict[str, Any]:
        """What every layer of one trace shares, drawn first (keywords for the generator)."""
        return self.shared(choose, profile) if self.shared is not None else {}


#: The project's families, one package each (stimulus/<family>/, whose family.py declares FAMILY or FAMILIES), in
#: the order their covergroups are built and reported.
MODULES = ("stimulus.sdp.family", "stimulus.pdp.family", "stimulus.conv.family", "stimulus.cdp.family",
           "stimulus.sdp_reg.family", "stimulus.sdp_pdp.family", "stimulus.rubik.family", "stimulus.bdma.family",
           "stimulus.deconv.family")


def _declarations(name: str) -> tuple[Family, ...]:
    """The FAMILY or FAMILIES a module declares."""
    module = importlib.import_module(name)
    found = getattr(module, "FAMILIES", None) or (
        (module.FAMILY,) if isinstance(getattr(module, "FAMILY", None), Family) else ())
    if not found or not all(isinstance(f, Family) for f in found):
        raise DeclarationError("declares no FAMILY or FAMILIES (stimulus.families.Family)", where=name)
    return tuple(found)


@cache
def declared() -> tuple[Family, ...]:
    """Every family: the project's, then the plugins' (by entry-point name)."""
    where: dict[str, str] = {}
    found = []
    names = list(MODULES) + [p.value for p in sorted(entry_points(group=ENTRY_POINTS), key=lambda e: e.name)]
    for name in names:
        for f in _declarations(name):
            if f.name in where:
                raise DeclarationError(f"family {f.name} is declared twice ({where[f.name]})", where=name)
            where[f.name] = name
            found.append(f)
    stages = {u.stage for u in golden.units.declared()}
    for f in found:
        strays = [stage for stage in f.units if stage not in stages]
        if strays:
            raise DeclarationError(f"family {f.name} runs {', '.join(strays)}, which no unit declares",
                                   where=where[f.name])
    return tuple(found)


def family(name: str) -> Family:
    """The declaration of a family, or NvdlaVerifError naming the known ones."""
    for f in declared():
        if f.name == name:
            return f
    raise NvdlaVerifError(f"no stimulus family {name}; known: {', '.join(names())}")


def names() -> list[str]:
    """Every family's name, sorted (the command line's choices)."""
    return sorted(f.name for f in declared())


def available(profile: Profile) -> list[str]:
    """The families the profile can run."""
    return [f.name for f in sorted(declared(), key=lambda f: f.name) if all(profile.has(s) for s in f.needs())]


def breaker_modules() -> tuple[str, ...]:
    """The modules of every family's breakers, in registry order (stimulus/illegal.py gathers them)."""
    return tuple(dict.fromkeys(module for f in declared() for module in f.breakers))


def aimable() -> list[str]:
    """The families whose layers can be aimed at arithmetic corners (Family.aim), sorted."""
    return sorted(f.name for f in declared() if f.aim is not None)


def drawn_by(stage: str) -> str:
    """The family whose legal layers are the stage's own: the first declared whose first unit it is."""
    found = next((f.name for f in declared() if f.units[0] == stage), None)
    if found is None:
        raise NvdlaVerifError(f"no stimulus family draws {stage} layers")
    return found


def covergroups() -> dict[str, str]:
    """family -> the covergroup its draws are measured by; families without one cannot be directed."""
    return {f.name: f.covers for f in declared() if f.covers}


def draw_layers(name: str, profile: Profile, choose: Chooser, count: int = 1) -> list[Layer]:
    """`count` back-to-back layers of one trace, every decision from `choose` (stimulus/choose.py; the shrinker's
    recorder too), and the rest of a multi-layer sequence the last of them started (a deconvolution's phases and
    Rubik contract)."""
    declaration = family(name)
    shared = declaration.share(choose, profile)
    drawn = [declaration.generator(choose, profile, slot, **shared) for slot in range(count)]
    chain = shared.get("chain")
    while chain is not None and chain.queue:  # a started sequence ends in the trace: a deconvolution's Rubik
        drawn.append(declaration.generator(choose, profile, count, **shared))  # layer checks (it pops the queue)
    return drawn


def layers(name: str, profile: Profile, seed: int, index: int, count: int = 1) -> list[Layer]:
    """`count` back-to-back layers of trace `index` of `seed` (each trace has its own random stream), and the rest
    of a multi-layer sequence the last of them started."""
    return draw_layers(name, profile, Seeded([seed, index]), count)


def write_generated(family: str, profile: Profile, seed: int, index: int, out: str | Path, count: int = 1) -> Path:
    """out/<profile>/<name>/<name>.cfg, as in NVIDIA's trace_tests."""
    name = f"gen_{family}_s{seed}_{index}" + (f"_{count}l" if count > 1 else "")
    header = f"generated by nvdla-verif: {family} seed {seed} trace {index}, {count} layer(s), profile {profile.name}"
    return write_trace(layers(family, profile, seed, index, count), Path(out) / profile.name / name, name, profile,
                       header)
