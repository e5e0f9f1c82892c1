"""Breakers: for a rule of the registry (golden/rules.py), a change of a legal layer that breaks it.

A breaker is declared once, as a Breaker: the rule, its `change`, the `draw` that gives the change a legal layer
and builds the illegal one, what a profile needs for it to find one, and the rules it cannot help breaking along
(its companions: with the sums of the PDP split widths fixed, a first, mid or last width cannot be wrong alone).
Every change has one signature:

    change(legal, seen, choose, profile) -> the changed `legal`, or None

`legal` is a copy of what the draw lets it change (a layer's fields; PDP's spec, before it is built; BDMA's
writes; the fields of a pair of convolution layers), `seen` what the rules see in it (the family's unit decoded by
its declaration's `decode`; a DMA's surface; BDMA's operations; the pair's two configurations; nothing for PDP's
spec); None when this legal layer cannot be changed that way (stimulus/illegal.py draws another).

A draw is `draw(breaker, choose, profile) -> Layer | None`. `Fields` draws any family whose layers are register
fields; PDP, BDMA and the CBUF sequences have their own beside their breakers. Each stimulus/<family>/illegal.py
lists its breakers as BREAKERS and its family declares the module (stimulus/families.py: Family.breakers);
stimulus/illegal.py gathers them into one registry keyed by rule id.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import partial

import golden.units
from golden import rules
from golden.config import Profile
from golden.regs.regmap import RegisterMap
from golden.units.conv.cbuf import left_by
from stimulus.bdma.layers import bdma_group
from stimulus.families import family as declared_family
from stimulus.layer import Layer


def every_profile(profile: Profile) -> bool:
    return True


@dataclass(frozen=True)
class Breaker:
    rule: str
    #: change(legal, seen, choose, profile) -> the changed legal, or None (module docstring)
    change: Callable
    #: draw(breaker, choose, profile) -> the illegal layer, or None
    draw: Callable
    #: requires(profile) -> whether the profile has what the change needs (a precision, a feature, a unit);
    #: the rule's unit's own profile switch is checked besides (stimulus/illegal.py: reachable).
    requires: Callable[[Profile], bool] = every_profile
    #: Rules the change necessarily breaks with its own.
    companions: frozenset[str] = frozenset()

    def candidate(self, choose, profile: Profile) -> Layer | None:
        return self.draw(self, choose, profile)


def declare(changes: Mapping[str, Callable], draw: Callable, requires: Callable[[str, Profile], bool] | None = None,
            companions: Mapping[str, set[str]] | None = None) -> tuple[Breaker, ...]:
    """A Breaker per rule of `changes` (rule id -> change), all drawn by `draw`; `requires(rule_id, profile)`."""
    companions = companions or {}
    return tuple(Breaker(rule_id, change, draw, every_profile if requires is None else partial(requires, rule_id),
                         frozenset(companions.get(rule_id, ()))) for rule_id, change in changes.items())


@dataclass(frozen=True)
class Fields:
    """The draw of a family whose layers are register fields: a legal layer from the family's generator (slot 0),
    the family's first unit decoded by its declaration, the fields changed, the layer rebuilt with them."""

    family: str
    #: seen(decoded, regs, profile) -> what the change sees instead of the decoded configuration (None: this layer
    #: cannot be broken so); None: the decoded configuration itself.
    seen: Callable | None = None
    #: shared(rule_id, choose, profile) -> keywords for the generator (drawn before the layer); None: none.
    shared: Callable | None = None
    #: finish(legal, layer, profile) -> the illegal layer, or None (a change with consequences elsewhere).
    finish: Callable | None = None

    def __call__(self, breaker: Breaker, choose, profile: Profile) -> Layer | None:
        family = declared_family(self.family)
        keywords = self.shared(breaker.rule, choose, profile) if self.shared else {}
        legal = family.generator(choose, profile, 0, **keywords)
        regs = legal.values(RegisterMap.for_profile(profile))
        seen = golden.units.unit(family.units[0]).decode(regs, profile)
        if self.seen is not None:
            seen = self.seen(seen, regs, profile)
            if seen is None:
                return None
        fields = breaker.change(dict(legal.fields), seen, choose, profile)
        if fields is None:
            return None
        layer = replace(legal, fields=fields, choices=dict(legal.choices))
        return layer if self.finish is None else self.finish(legal, layer, profile)


def broken_rules(layer: Layer, profile: Profile, unit: str) -> set[str]:
    """The ids of the registry's rules of `unit` the layer breaks (advisory ones included)."""
    regmap = RegisterMap.for_profile(profile)
    if unit == "BDMA":  # every operation the layer caches
        return {r.id for r, _ in rules.violations(unit, bdma_group(layer, regmap), rules.Facts(profile=profile))}
    left = None
    if unit == "CONV" and layer.follows:
        decode = golden.units.unit("CONV").decode
        left = left_by(decode(earlier.values(regmap), profile) for earlier in layer.follows if "CDMA" in earlier.enable)
    return set(rules.violated(unit, layer.values(regmap), profile, left))
