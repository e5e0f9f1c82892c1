"""The hardware's limitation rules as one registry: what validation enforces and what stimulus obeys or breaks.

A rule has an id (UNIT-WHAT), the unit, the document and section it comes from, the register fields it
involves, a sentence, and a predicate over a decoded configuration: `check(cfg, facts)` (facts: the register
values, the profile, and what earlier layers left in the CBUF) returns None when the layer keeps the rule (or
the rule does not apply to it) and otherwise the message for this layer. An advisory rule is one NVIDIA's own
traces break with a defined result: validation warns unless strict (stimulus legality). A unit's validation is
`enforce(unit, cfg, facts)`: the first rule broken, in checking order, raises a
ConfigurationError whose `rule` starts with the rule's id and whose `fields` are the rule's fields (then
the ids and fields of any further rule the layer breaks).
Stimulus (stimulus/illegal.py) has one generator per rule that breaks exactly that rule.

Which rules a unit has, and their order, come from its declaration (golden/units/declaration.py: Unit.rules, a list of
modules): a unit's rules are checked module by module in that order, each module's in the order it defines
them, however the modules happen to be imported. A rule defined in a module its unit does not declare is a
DeclarationError (all_rules), never a rule silently left unchecked.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import golden.units
from golden.errors import ConfigurationError, DeclarationError, NvdlaVerifError

if TYPE_CHECKING:
    from golden.config import Profile
    from golden.regs.values import RegisterValues
    from golden.units.conv.cbuf import Left


@dataclass(frozen=True)
class Facts:
    """What a predicate may read besides the decoded configuration."""
    regs: RegisterValues | None = None
    profile: Profile | None = None
    #: What the layers before left in the convolution buffer (golden.units.conv.cbuf.Left); None: the layer
    #: runs alone, and the rules over what earlier layers left do not apply.
    cbuf: Left | None = None

    @property
    def atom(self) -> int:
        assert self.profile is not None, "the rules that read the atom are judged with a profile"
        return self.profile.memory_atomic_size


@dataclass(frozen=True)
class Rule:
    id: str
    unit: str
    source: str
    fields: tuple[str, ...]
    text: str
    check: Callable
    advisory: bool = False
    #: The module that defines it (one of its unit's declared rule modules).
    module: str = ""

    @property
    def label(self) -> str:
        """What a ConfigurationError's `rule` says: the id, then the document and section."""
        return f"{self.id} ({self.source})"

    def error(self, message: str) -> ConfigurationError:
        return ConfigurationError(message, fields=self.fields, rule=self.label)


REGISTRY: dict[str, Rule] = {}


def rule(id: str, unit: str, source: str, fields: tuple[str, ...], text: str, advisory: bool = False):
    """Register the decorated predicate as a rule (ids are unique) of the module that calls this."""
    module = sys._getframe(1).f_globals["__name__"]

    def register(check: Callable) -> Callable:
        if id in REGISTRY:
            raise ValueError(f"rule {id} registered twice")
        REGISTRY[id] = Rule(id, unit, source, tuple(fields), text, check, advisory, module)
        return check
    return register


def _modules(unit: str) -> tuple[str, ...]:
    """The unit's declared rule modules, imported (importing one registers its rules)."""
    modules = golden.units.unit(unit).rules
    for module in modules:
        importlib.import_module(module)
    return modules


def rules(unit: str) -> list[Rule]:
    """The unit's rules in checking order: by declared module, then as each module defines them."""
    modules = _modules(unit)
    rank = {module: index for index, module in enumerate(modules)}
    return sorted((r for r in REGISTRY.values() if r.unit == unit and r.module in rank),
                  key=lambda r: rank[r.module])


def all_rules() -> list[Rule]:
    """Every unit's rules, unit by unit in registry order (golden/units/__init__.py), each in checking order."""
    listed = [r for unit in golden.units.declared() for r in rules(unit.stage)]
    strays = [r for r in REGISTRY.values() if r not in listed]
    if strays:
        raise DeclarationError("rules outside their unit's declared rule modules (Unit.rules): "
                               + ", ".join(f"{r.id} ({r.module}, unit {r.unit})" for r in strays), where="rules")
    return listed


def find(rule_id: str) -> Rule:
    """A rule by id, every unit's rule modules imported first (a module's rules register when it is imported: a
    plugin unit's only once something asks for them)."""
    if rule_id not in REGISTRY:
        all_rules()
    if rule_id not in REGISTRY:
        raise NvdlaVerifError(f"no rule {rule_id} in the registry", where="rules")
    return REGISTRY[rule_id]


def violations(unit: str, cfg, facts: Facts) -> list[tuple[Rule, str]]:
    """Every rule of the unit the layer breaks, with its message (advisory ones included)."""
    found = []
    for r in rules(unit):
        message = r.check(cfg, facts)
        if message is not None:
            found.append((r, message))
    return found


def violated(stage: str, regs, profile, cbuf=None) -> list[str]:
    """The ids of the rules of a unit (its stage) that the layer in `regs` breaks, in checking order (advisory ones
    included), decoded as the unit declares; `cbuf` as for check."""
    cfg = golden.units.unit(stage).decode(regs, profile)
    return [r.id for r, _ in violations(stage, cfg, Facts(regs, profile, cbuf))]


def check(stage: str, regs, profile, strict: bool = False, cbuf=None):
    """Decode the layer of a unit in `regs` (golden.regs.values.RegisterValues) and validate it as the unit
    declares (golden/units/declaration.py: Unit.validate, else its rules alone); returns the configuration.
    `cbuf`: what earlier layers left in the convolution buffer (None: the layer alone)."""
    unit = golden.units.unit(stage)
    cfg = unit.decode(regs, profile)
    facts = Facts(regs, profile, cbuf)
    if unit.validate is None:
        enforce(stage, cfg, facts, strict)
    else:
        unit.validate(cfg, facts, strict)
    return cfg


class LimitationWarning(UserWarning):
    """A documented limitation that NVIDIA's own traces break with a defined, modelled result (an advisory rule
    broken outside strict mode)."""


def enforce(unit: str, cfg, facts: Facts, strict: bool = True) -> None:
    """Raise for the first rule broken; its `rule` also names every other rule the layer breaks.

    Some rules depend on each other (the PDP split widths: with the sums fixed, a first, mid or last width
    cannot be wrong alone), so a layer can break several; the error says so rather than hiding them.
    Unless `strict`, an advisory rule broken is a LimitationWarning and the model computes the defined result.
    """
    broken = violations(unit, cfg, facts)
    if not strict:
        for r, message in broken:
            if r.advisory:  # reported where the unit's run() called its validate()
                warnings.warn(f"{', '.join(r.fields)}: {message} [rule: {r.label}]", LimitationWarning,
                              stacklevel=3)
        broken = [(r, message) for r, message in broken if not r.advisory]
    if not broken:
        return
    (first, message), others = broken[0], broken[1:]
    label = first.label + "".join(f"; also {r.id}" for r, _ in others)
    fields = tuple(dict.fromkeys(first.fields + tuple(f for r, _ in others for f in r.fields)))
    raise ConfigurationError(message, fields=fields, rule=label)
