"""Illegal layers: for each rule of the registry (golden/rules.py), a legal layer changed to break that rule.

The breakers (stimulus/breakers.py: one Breaker per rule, one signature) live beside their unit's generator, in
the modules the families declare (stimulus/families.py: Family.breakers, a plugin's families included); BREAKERS
is their registry by rule id, and UNBROKEN names each rule that has none, with
the reason (the one such list). `illegal_layer` keeps only a candidate whose broken rules, as the registry's own
predicates see them, are the rule plus its breaker's declared companions: rules that depend on each other cannot
be broken alone (with the sums of the PDP split widths fixed, a first, mid or last width cannot be wrong on its
own).
"""

from __future__ import annotations

import importlib

import golden.units
from golden import rules
from golden.config import Profile
from golden.errors import DeclarationError, NvdlaVerifError
from golden.memory import MemorySystem
from golden.player import Player
from golden.regs.regmap import RegisterMap
from golden.trace import load_trace
from golden.units import pdp as golden_pdp
from golden.units import sdp as golden_sdp
from golden.units.base import LayerContext
from stimulus.breakers import Breaker, broken_rules
from stimulus.export import write_unchecked
from stimulus.families import breaker_modules
from stimulus.layer import Layer

#: Rules of the registry with no breaker, each with the reason: none (every rule's illegal layer comes from a
#: generated legal one).
UNBROKEN: dict[str, str] = {}


class NoIllegalLayer(NvdlaVerifError):
    """No legal layer drawn could be changed to break the rule (alone, or with its declared companions)."""


def gather(modules: tuple[str, ...]) -> dict[str, Breaker]:
    """rule id -> its Breaker, from the modules' BREAKERS; a rule broken in two places is a DeclarationError."""
    found: dict[str, Breaker] = {}
    for name in modules:
        for breaker in importlib.import_module(name).BREAKERS:
            if breaker.rule in found:
                raise DeclarationError(f"rule {breaker.rule} has two breakers", where=name)
            found[breaker.rule] = breaker
    return found


BREAKERS = gather(breaker_modules())
#: Rules that the breaker of a rule necessarily breaks too.
COMPANIONS = {b.rule: set(b.companions) for b in BREAKERS.values() if b.companions}


def sequence(layer: Layer) -> list[Layer]:
    """The layers a trace of `layer` holds: those it follows, then itself."""
    return [*layer.follows, layer]


def reachable(rule_id: str, profile: Profile) -> bool:
    """Whether the rule has a breaker and the profile has what it needs: the rule's unit (its declared switch) and
    what the breaker requires (e.g. fp16 for an fp16 rule)."""
    if rule_id not in BREAKERS:
        return False
    switch = golden.units.unit(rules.find(rule_id).unit).switch
    if switch and not profile.has(switch):
        return False
    return BREAKERS[rule_id].requires(profile)


def illegal_layer(rule_id: str, choose, profile: Profile, attempts: int = 400) -> Layer:
    """A layer breaking `rule_id` (and only its declared companions besides)."""
    if rule_id not in BREAKERS:
        why = f": {UNBROKEN[rule_id]}" if rule_id in UNBROKEN else ""
        raise NoIllegalLayer(f"no illegal generator for rule {rule_id}{why}", where=rule_id)
    if not reachable(rule_id, profile):
        raise NoIllegalLayer(f"profile {profile.name} lacks what breaking {rule_id} needs", where=rule_id)
    breaker = BREAKERS[rule_id]
    unit = rules.find(rule_id).unit
    allowed = {rule_id} | breaker.companions
    for _ in range(attempts):
        layer = breaker.candidate(choose, profile)
        if layer is None:
            continue
        broken = broken_rules(layer, profile, unit)
        if rule_id in broken and broken <= allowed:
            layer.choices["illegal"] = rule_id
            return layer
    raise NoIllegalLayer(f"no legal layer of {attempts} on {profile.name} could be changed to break {rule_id}",
                         where=rule_id)


def run_on_golden(layer: Layer, profile: Profile, folder, name: str) -> None:
    """Run a layer on the golden model, raising what it raises: as a trace when it can launch on its own,
    else the unit itself (on-the-fly layers wait for a producer; an advisory rule is checked strictly)."""
    regs = layer.values(RegisterMap.for_profile(profile))
    rule_id = layer.choices.get("illegal")
    if rule_id and rules.find(rule_id).advisory:
        rules.check(rules.find(rule_id).unit, regs, profile, strict=True)
        return
    if layer.family == "pdp" and layer.fields.get("PDP.D_OPERATION_MODE_CFG.FLYING_MODE") == "ON_FLYING":
        golden_pdp.run(LayerContext(profile, regs, MemorySystem.for_profile(profile)))
        return
    if layer.family == "sdp" and (layer.fields.get("SDP.D_FEATURE_MODE_CFG.FLYING_MODE") == "ON"
                                  or profile.layout != "master"):
        memory = MemorySystem.for_profile(profile)
        for image in layer.images:
            memory.by_name(image.memory).write(image.base, image.data)
        golden_sdp.run(LayerContext(profile, regs, memory))
        return
    Player(load_trace(write_unchecked(sequence(layer), folder / name, name, profile)), profile).run()
