"""The unit models: one package each, declaring itself once (golden/units/declaration.py: Unit), listed here.

PACKAGES is the registry, in hardware order (the order the hardware looks for pipelines and the rule registry
lists units); a plugin adds a unit through the entry-point group "nvdla_verif.units" (name = a module or
package whose UNIT is the declaration). `model(stage)` gives the run function of a stage (its declaration's), or
NotModelledError (the conformance runner's "unsupported", never passed); MODELS overrides it by module name. A unit
whose register groups NVIDIA's map lacks brings them as its register table (Unit.registers; golden/regs/regmap.py
merges `register_tables()`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache
from importlib.metadata import entry_points
from typing import TYPE_CHECKING

from golden.errors import DeclarationError, NotModelledError
from golden.units.declaration import Unit

if TYPE_CHECKING:
    from golden.units.declaration import Unit

PACKAGES = ("golden.units.conv", "golden.units.sdp", "golden.units.pdp", "golden.units.cdp", "golden.units.bdma",
            "golden.units.rubik")
#: The entry-point group through which another distribution adds units.
ENTRY_POINTS = "nvdla_verif.units"
#: stage -> the name of a module whose run() stands in for the declared model (tests, experiments).
MODELS: dict[str, str] = {}


@cache
def _declared() -> tuple[tuple[Unit, str], ...]:
    """(Unit, module name) of every unit: the project's packages, then the plugins' (by entry-point name)."""
    names = list(PACKAGES) + [ep.value for ep in sorted(entry_points(group=ENTRY_POINTS), key=lambda e: e.name)]
    found: list[tuple[Unit, str]] = []
    stages: dict[str, str] = {}
    for name in names:
        module = importlib.import_module(name)
        unit = getattr(module, "UNIT", None)
        if not isinstance(unit, Unit):
            raise DeclarationError("declares no UNIT (golden.units.declaration.Unit)", where=name)
        if unit.stage in stages:
            raise DeclarationError(f"stage {unit.stage} is declared twice ({stages[unit.stage]})", where=name)
        stages[unit.stage] = name
        found.append((unit, name))
    return tuple(found)


def declared() -> tuple[Unit, ...]:
    """Every unit's declaration (golden.units.declaration.Unit), in registry order."""
    return tuple(unit for unit, _ in _declared())


def unit(stage: str) -> Unit:
    """The declaration of a stage (CONV, SDP, PDP, CDP, BDMA, RUBIK, or a plugin's), or NotModelledError."""
    for declaration in declared():
        if declaration.stage == stage:
            return declaration
    raise NotModelledError(f"no model for stage {stage}", unit=stage)


def owner(group: str):
    """The declaration of the unit a register group belongs to, or NotModelledError."""
    for declaration in declared():
        if group in declaration.groups:
            return declaration
    raise NotModelledError(f"no model has register group {group}", unit=group)


def model(stage: str) -> Callable:
    """run(ctx, upstream) of a stage: its declaration's, or that of the module MODELS names; NotModelledError."""
    name = MODELS.get(stage)
    if name is None:
        return unit(stage).run
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        raise NotModelledError(f"the {stage} unit is not modelled yet", unit=stage) from None
    if not hasattr(module, "run"):
        raise NotModelledError(f"the {stage} unit model has no run()", unit=stage)
    return module.run


# -- what the declarations give the rest of the project ----------------------------------------------------------
def interrupts() -> dict[str, tuple[str, ...]]:
    """group -> GLB interrupt sources raised when it completes (RDL: GLB.S_INTR_STATUS)."""
    return {group: sources for u in declared() for group, sources in u.interrupts.items()}


def switches() -> dict[str, str]:
    """group -> the .spec switch of a unit a profile may lack entirely."""
    return {group: u.switch for u in declared() if u.switch for group in u.groups}


def lut_groups() -> tuple[str, ...]:
    return tuple(group for u in declared() for group in u.luts)


def lut_ports() -> tuple[str, ...]:
    """The LUT groups whose S_LUT_ACCESS_DATA reads answer with the LUT RAM's words."""
    return tuple(group for u in declared() for group in u.lut_port)


def comparators() -> dict[str, str]:
    """FP16 threshold rule (Tolerance.rule) -> the comparator that judges it (declaration.COMPARATORS)."""
    return {rule: kind for u in declared() for rule, kind in u.thresholds.items()}


def enable_order() -> tuple[str, ...]:
    """Every group in the order software sets D_OP_ENABLE within a layer: consumers first. A unit's groups come
    after those of the units it feeds on the fly (Unit.feeds, followed to the end), in its declared order; units
    equally far from the end of their chain in registry order."""
    stages = {u.stage: u for u in declared()}

    def downstream(u, seen=()) -> int:
        fed = [stages[s] for s in u.feeds if s in stages and s not in seen]
        return max((1 + downstream(f, (*seen, u.stage)) for f in fed), default=0)

    ranked = sorted(declared(), key=downstream)
    return tuple(group for u in ranked for group in u.enables)


def output_groups() -> dict[str, str]:
    """stage -> the group its output surfaces are named after."""
    return {u.stage: u.output for u in declared()}


def register_tables() -> tuple[str, ...]:
    """The register tables units bring for groups the NVIDIA register map lacks (golden/regs/regmap.py)."""
    return tuple(str(u.registers) for u in declared() if u.registers is not None)
