"""The hardware's limitation rules as one registry: what validation enforces and what stimulus obeys or breaks.

A rule has an id (UNIT-WHAT), the unit, the document and section it comes from, the register fields it
involves, a sentence, and a predicate over a decoded configuration: `check(cfg, regs)` returns None when
the layer keeps the rule (or the rule does not apply to it) and otherwise the message for this layer. A
unit's validation is `enforce(unit, cfg, regs)`: the first rule broken, in registration order, raises a
ConfigurationError whose `rule` starts with the rule's id and whose `fields` are the rule's fields (then
the ids and fields of any further rule the layer breaks).
Stimulus (stimulus/illegal.py) has one generator per rule that breaks exactly that rule.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from golden.errors import ConfigurationError

#: Modules that register rules (imported by all_rules, so that a listing holds every unit's rules).
MODULES = ("golden.units.pdp.rules",)


@dataclass(frozen=True)
class Rule:
    id: str
    unit: str
    source: str
    fields: tuple[str, ...]
    text: str
    check: Callable

    @property
    def label(self) -> str:
        """What a ConfigurationError's `rule` says: the id, then the document and section."""
        return f"{self.id} ({self.source})"

    def error(self, message: str) -> ConfigurationError:
        return ConfigurationError(message, fields=self.fields, rule=self.label)


REGISTRY: dict[str, Rule] = {}


def rule(id: str, unit: str, source: str, fields: tuple[str, ...], text: str):
    """Register the decorated predicate as a rule (ids are unique)."""
    def register(check: Callable) -> Callable:
        if id in REGISTRY:
            raise ValueError(f"rule {id} registered twice")
        REGISTRY[id] = Rule(id, unit, source, tuple(fields), text, check)
        return check
    return register


def rules(unit: str) -> list[Rule]:
    return [r for r in REGISTRY.values() if r.unit == unit]


def all_rules() -> list[Rule]:
    for module in MODULES:
        importlib.import_module(module)
    return list(REGISTRY.values())


def violations(unit: str, cfg, regs) -> list[tuple[Rule, str]]:
    """Every rule of the unit the layer breaks, with its message."""
    found = []
    for r in rules(unit):
        message = r.check(cfg, regs)
        if message is not None:
            found.append((r, message))
    return found


def enforce(unit: str, cfg, regs) -> None:
    """Raise for the first rule broken; its `rule` also names every other rule the layer breaks.

    Some rules depend on each other (the PDP split widths: with the sums fixed, a first, mid or last width
    cannot be wrong alone), so a layer can break several; the error says so rather than hiding them.
    """
    broken = violations(unit, cfg, regs)
    if not broken:
        return
    (first, message), others = broken[0], broken[1:]
    label = first.label + "".join(f"; also {r.id}" for r, _ in others)
    fields = tuple(dict.fromkeys(first.fields + tuple(f for r, _ in others for f in r.fields)))
    raise ConfigurationError(message, fields=fields, rule=label)
