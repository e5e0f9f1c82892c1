"""The unit models: one package each, declaring itself once (golden/units/declaration.py: Unit), listed here.

PACKAGES is the registry, in hardware order (the order the hardware looks for pipelines and the rule registry
lists units); a plugin adds a unit through the entry-point group "nvdla_verif.units" (name = a module or
package whose UNIT is the declaration). `load(stage)` gives the model module of a stage, or NotModelledError
(the conformance runner's "unsupported", never passed); MODELS overrides a stage's model module by name. A unit
whose register groups NVIDIA's map lacks brings them as its register table (Unit.registers; golden/regs/regmap.py
merges `register_tables()`).
"""

from __future__ import annotations

import importlib
from functools import cache
from importlib.metadata import entry_points
from types import ModuleType

from golden.errors import DeclarationError, NotModelledError
from golden.units.declaration import Unit

PACKAGES = ("golden.units.conv", "golden.units.sdp", "golden.units.pdp", "golden.units.cdp", "golden.units.bdma",
            "golden.units.rubik")
#: The entry-point group through which another distribution adds units.
ENTRY_POINTS = "nvdla_verif.units"
#: stage -> the name of a module whose run() stands in for the declared model (tests, experiments).
MODELS: dict[str, str] = {}


@cache
def _declared() -> tuple[tuple[object, str], ...]:
    """(Unit, module name) of every unit: the project's packages, then the plugins' (by entry-point name)."""
    names = list(PACKAGES) + [ep.value for ep in sorted(entry_points(group=ENTRY_POINTS), key=lambda e: e.name)]
    found, stages = [], {}
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


def declared() -> tuple:
    """Every unit's declaration (golden.units.declaration.Unit), in registry order."""
    return tuple(unit for unit, _ in _declared())


def unit(stage: str):
    """The declaration of a stage (CONV, SDP, PDP, CDP, BDMA, RUBIK, or a plugin's), or NotModelledError."""
    for declaration in declared():
        if declaration.stage == stage:
            return declaration
    raise NotModelledError(f"no model for stage {stage}", unit=stage)


def load(stage: str) -> ModuleType:
    """The model module of a stage (its package, or the MODELS override), or NotModelledError."""
    name = MODELS.get(stage) or next((module for u, module in _declared() if u.stage == stage), None)
    if name is None:
        raise NotModelledError(f"no model for stage {stage}", unit=stage)
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        raise NotModelledError(f"the {stage} unit is not modelled yet", unit=stage) from None
    if not hasattr(module, "run"):
        raise NotModelledError(f"the {stage} unit model has no run()", unit=stage)
    return module


# -- what the declarations give the rest of the project ----------------------------------------------------------
def interrupts() -> dict[str, tuple[str, ...]]:
    """group -> GLB interrupt sources raised when it completes (RDL: GLB.S_INTR_STATUS)."""
    return {group: sources for u in declared() for group, sources in u.interrupts.items()}


def switches() -> dict[str, str]:
    """group -> the .spec switch of a unit a profile may lack entirely."""
    return {group: u.switch for u in declared() if u.switch for group in u.groups}


def lut_groups() -> tuple[str, ...]:
    return tuple(group for u in declared() for group in u.luts)


def output_groups() -> dict[str, str]:
    """stage -> the group its output surfaces are named after."""
    return {u.stage: u.output for u in declared()}


def register_tables() -> tuple[str, ...]:
    """The register tables units bring for groups the NVIDIA register map lacks (golden/regs/regmap.py)."""
    return tuple(str(u.registers) for u in declared() if u.registers is not None)
