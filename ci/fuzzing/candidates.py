"""Candidates of the fuzzing loop: generated layers, and mutations of the corpus's layers.

A candidate is a recipe, replayable from its JSON: a stimulus family's layers drawn from a seed
(stimulus/families.py: `layers(family, profile, seed, 0, count)`, one layer or two back to back, which share a
unit's LUT or, for convolutions, what the first leaves in the CBUF), then register-field edits on top, and the
bench's AXI back-pressure. Kinds:

    generated    a fresh layer of a family (the baseline draws only these)
    pair         two fresh back-to-back layers of a family
    corners      one or two fresh layers of a family aimed at arithmetic corners (stimulus/corner_data.py:
                 registers and data put ties, one LSB either side and bounds at the rounding and saturating stages)
    mutated      a corpus entry with one to three register fields moved (towards a value class of the field not
                 seen yet: its ends, its top bit, a power of two it never reached)
    transition   a corpus entry followed by a second layer programmed like its first, with one or two fields moved:
                 the register group's fields change between consecutive layers
    axi          a corpus entry with other AXI back-pressure (the probability a memory channel stalls per cycle)

Only fields that change no memory footprint are moved (operands, shifts, algorithms, bypasses, convertors:
`mutable`); the rule registry then decides (golden/rules.py predicates, `rules.violated`): a mutated layer that
breaks a rule is dropped, never run.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

import numpy as np

from ci.fuzzing.feedback import all_classes, value_class
from golden.config import Profile
from golden.regs.regmap import RegisterMap
from stimulus.corner_data import aimed_layers
from stimulus.families import layers as draw_layers

#: Field names whose value sizes or places what a layer reads or writes (or which unit it feeds): never moved.
FOOTPRINT = re.compile(r"ADDR|STRIDE|WIDTH|HEIGHT|CHANNEL|PRECISION|RAM_TYPE|FLYING|BATCH|DISABLE|DATA_|SPLIT|"
                       r"KERNEL|OUTPUT_DST|WINOGRAD|MODE|SIZE|NUMBER|ENTRY|BANK|FORMAT|REUSE|RELEASE|SKIP|LINE|"
                       r"SURF|EXT|PIXEL|ATOMIC|DILATION|PERF|BYTES|GRAIN|RSV|CYA|_SRC$|PAD_(LEFT|RIGHT|TOP|BOTTOM)|DMA|PROC|"
                       r"LUT_(INDEX|ADDR|DATA|ACCESS|TABLE)")
#: Back-pressure settings an `axi` candidate picks from (ci/mutation.py NIGHTLY_AXI_PAUSE is 0.3).
AXI_PAUSES = (0.0, 0.1, 0.3, 0.6, 0.9)


@dataclass
class Candidate:
    id: str
    kind: str
    family: str
    seed: int
    layers: int = 1
    #: [layer index, "UNIT.REGISTER.FIELD", value] applied in order after drawing
    edits: list = field(default_factory=list)
    axi_pause: float = 0.0
    parent: str | None = None
    corners: bool = False  # the layers are stimulus.corner_data.aimed_layers (a corners candidate and its children)

    def draw(self, profile: Profile) -> list:
        drawn = (aimed_layers if self.corners else draw_layers)(self.family, profile, self.seed, 0, self.layers)
        return apply_edits(drawn, self.edits)

    def params(self, profile: Profile) -> dict:
        """What ci/regression/shrink.py redraws the layers from (seed [seed, 0], as draw does; `corners`: it
        cannot, it redraws plain layers)."""
        return {"family": self.family, "layers": self.layers, "profile": profile.name, "seed": self.seed,
                **({"corners": True} if self.corners else {})}

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Candidate:
        return cls(**data)


def apply_edits(layers: list, edits: list) -> list:
    """The layers with the edits set (an edit of a layer the list does not have is left out: a shrunk trace)."""
    for index, key, value in edits:
        if index < len(layers):
            layers[index].fields[key] = value
    return layers


def mutable(layer, regmap: RegisterMap) -> list[str]:
    """The layer's fields a mutation may move."""
    keys = []
    for key in layer.fields:
        unit, register, name = key.split(".")
        fld = regmap.lookup(f"{unit}.{register}").field(name)
        if "w" in fld.sw and not FOOTPRINT.search(name) and not FOOTPRINT.search(register):
            keys.append(key)
    return keys


def _number(regmap: RegisterMap, key: str, value) -> int:
    unit, register, name = key.split(".")
    fld = regmap.lookup(f"{unit}.{register}").field(name)
    return fld.enum[value] if isinstance(value, str) else int(value)


def value_in(cls: str, fld, rng: np.random.Generator) -> int:
    """A value of the field in the class (feedback.value_class names it)."""
    width = fld.width
    if fld.enum:
        return fld.enum[cls]
    if cls in ("0", "1"):
        return int(cls)
    if cls == "ones":
        return (1 << width) - 1
    if cls == "top":
        return 1 << (width - 1)
    power = int(cls.split("^")[1])
    magnitude = int(rng.integers(1 << power, 1 << (power + 1)))
    return (1 << width) - magnitude if cls.startswith("-") else magnitude


class Mutator:
    """Moves fields towards classes not seen yet: a field is picked with a weight of one plus the classes of it
    no run has shown, then a class (unseen ones four times out of five) and a value in it."""

    def __init__(self, profile: Profile, seen_fields: set[str]):
        self.regmap = RegisterMap.for_profile(profile)
        self.seen: dict[str, set[str]] = {}
        for feature in seen_fields:
            key, _, cls = feature.partition("=")
            self.seen.setdefault(key, set()).add(cls)

    def _field(self, key: str):
        unit, register, name = key.split(".")
        return self.regmap.lookup(f"{unit}.{register}").field(name)

    def unseen(self, key: str) -> list[str]:
        return [c for c in all_classes(self._field(key)) if c not in self.seen.get(key, set())]

    def edit(self, layer, index: int, rng: np.random.Generator) -> list | None:
        """One [index, key, value] edit of the layer, or None when it has no field to move."""
        keys = mutable(layer, self.regmap)
        if not keys:
            return None
        weights = np.array([1.0 + len(self.unseen(k)) for k in keys])
        key = keys[int(rng.choice(len(keys), p=weights / weights.sum()))]
        fld = self._field(key)
        current = value_class(_number(self.regmap, key, layer.fields[key]), fld)
        unseen = [c for c in self.unseen(key) if c != current]
        choices = unseen if unseen and rng.random() < 0.8 else [c for c in all_classes(fld) if c != current]
        if not choices:
            return None
        return [index, key, value_in(str(rng.choice(choices)), fld, rng)]


def fresh_seed(rng: np.random.Generator) -> int:
    return int(rng.integers(0, 2**31))


def generated(number: int, families: list[str], rng: np.random.Generator, axi_pause: float,
              pair: bool = False) -> Candidate:
    family = str(rng.choice(families))
    return Candidate(f"c{number:06d}", "pair" if pair else "generated", family, fresh_seed(rng), 2 if pair else 1,
                     axi_pause=axi_pause)


def aimed(number: int, families: list[str], rng: np.random.Generator, axi_pause: float) -> Candidate:
    family = str(rng.choice(families))
    count = 2 if rng.random() < 0.25 else 1
    return Candidate(f"c{number:06d}", "corners", family, fresh_seed(rng), count, axi_pause=axi_pause, corners=True)


def derived(number: int, parent: Candidate, profile: Profile, mutator: Mutator, rng: np.random.Generator,
            with_axi: bool) -> Candidate | None:
    """A mutated, transition or axi candidate from a corpus entry (None when its layers have nothing to move)."""
    roll = rng.random()
    child = Candidate(f"c{number:06d}", "mutated", parent.family, parent.seed, parent.layers, list(parent.edits),
                      parent.axi_pause, parent.id, parent.corners)
    if with_axi and roll >= 0.85:
        child.kind = "axi"
        child.axi_pause = float(rng.choice([p for p in AXI_PAUSES if p != parent.axi_pause]))
        return child
    if roll >= 0.6:  # a transition: the second layer programmed like the first, then moved
        child.kind, child.layers = "transition", 2
        layers = child.draw(profile)
        if len(layers) < 2:
            return None
        keys = [k for k in mutable(layers[0], mutator.regmap) if k in layers[1].fields]
        child.edits += [[1, key, layers[0].fields[key]] for key in keys]
        layers = apply_edits(layers, [[1, key, layers[0].fields[key]] for key in keys])
        targets = [1]
    else:
        layers = child.draw(profile)
        targets = list(range(len(layers)))
    for _ in range(int(rng.integers(1, 3 if child.kind == "transition" else 4))):
        index = int(rng.choice(targets))
        edit = mutator.edit(layers[index], index, rng)
        if edit is None:
            return None
        edits = shared_edits(edit, layers, mutator.regmap)
        child.edits += edits
        apply_edits(layers, edits)
    return child


def shared_edits(edit: list, layers: list, regmap: RegisterMap) -> list[list]:
    """The edit, in every layer that programs the field when its register is a single (S_) register: both
    groups share it, and a trace giving consecutive layers different values races with the running layer
    (golden.hardware.SharedRegisterRace)."""
    index, key, value = edit
    unit, register, _ = key.split(".")
    if regmap.lookup(f"{unit}.{register}").is_double_buffered:
        return [edit]
    return [[i, key, value] for i, layer in enumerate(layers) if key in layer.fields]
