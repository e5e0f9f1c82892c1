"""The fuzzing loop's cheap feedback: what a candidate's golden-model run shows that no earlier run showed.

A feedback source turns one golden run (`GoldenRun`: the hardware layers the golden model completed, with their
register values, and the bench settings of the run) into named features; a feature no earlier run had is
novelty. The loop runs a candidate on the implementation under test only when it brings novelty (`--directed`).

    SOURCES                          the sources in use: covergroup bins, register-field value classes,
                                     field transitions between consecutive layers, rule-boundary distances,
                                     bench settings, arithmetic corners (the stages x classes the golden run met),
                                     the CBUF banks a convolution fills
    add_source(source)               one more source (anything with `name` and `features(run) -> set[str]`)
    Seen                             the features seen so far, per source (saved in the campaign's state)
    worth(new)                       what a candidate's novelty is worth (WEIGHTS), to pick among candidates
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import golden.units
from golden import rules
from golden.config import Profile
from golden.errors import NvdlaVerifError
from golden.regs.regmap import Field


@dataclass
class GoldenRun:
    """What a source may read about one candidate: the golden model's completed layers (golden.hardware.
    HardwareLayer, `regs` set), the profile, the golden outcome (its intermediate results) and the bench's
    settings for the run (AXI back-pressure)."""
    profile: Profile
    layers: list
    outcome: object = None
    axi_pause: float = 0.0
    family: str = ""
    #: golden.numerics.corners.Corners observed over the golden run (None: not observed)
    corners: object = None


class FeedbackSource(Protocol):
    name: str

    def features(self, run: GoldenRun) -> set[str]: ...


# -- value classes --------------------------------------------------------------------------------------------
def value_class(value: int, fld: Field) -> str:
    """An enum's name; else 0, 1, all ones, the top bit alone, or the power of two of the magnitude, with values
    whose top bit is set read as two's complement ("-2^k"): how far a field is from its ends."""
    if fld.enum:
        return fld.enum_name(value) or str(value)
    width = fld.width
    top = 1 << (width - 1)
    if value in (0, 1) or width == 1:
        return str(value)
    if value == (1 << width) - 1:
        return "ones"
    if value == top:
        return "top"
    if value & top:
        return f"-2^{((1 << width) - value).bit_length() - 1}"
    return f"2^{value.bit_length() - 1}"


def all_classes(fld: Field) -> list[str]:
    """Every class value_class can give the field (an enum: its names)."""
    if fld.enum:
        return sorted(fld.enum)
    if fld.width == 1:
        return ["0", "1"]
    width = fld.width
    powers = [f"2^{k}" for k in range(1, width - 1)] + [f"-2^{k}" for k in range(0, width - 1)]
    return ["0", "1", "ones", "top", *powers]


def field_classes(regs) -> dict[str, str]:
    """{"UNIT.REGISTER.FIELD": class} of every field of every register the layer wrote."""
    out = {}
    for (unit, name), value in regs.written().items():
        register = regs.regmap.get(unit, name)
        held = register.held(value)
        for fld in register.fields:
            if "w" in fld.sw:
                out[f"{unit}.{name}.{fld.name}"] = value_class(fld.decode(held), fld)
    return out


class CoverBins:
    """The stimulus covergroups' bins (stimulus/coverage.py) the layers hit, as the regression samples them."""
    name = "bins"

    def features(self, run: GoldenRun) -> set[str]:
        from ci.regression.coverage import layer_hits

        try:
            hits, _ = layer_hits(run.profile, run.layers)
        except NvdlaVerifError:  # cocotb-coverage missing: the other sources still work
            return set()
        return {f"{item}={bin_}" for item, bins in hits.items() for bin_ in bins}


class FieldClasses:
    """Each written register field's value class (value_class)."""
    name = "fields"

    def features(self, run: GoldenRun) -> set[str]:
        return {f"{key}={cls}" for layer in run.layers if layer.regs is not None
                for key, cls in field_classes(layer.regs).items()}


class FieldTransitions:
    """A field whose class changes from one layer to the next (a register group reprogrammed between layers)."""
    name = "transitions"

    def features(self, run: GoldenRun) -> set[str]:
        found = set()
        programmed = [field_classes(layer.regs) for layer in run.layers if layer.regs is not None]
        for before, after in zip(programmed, programmed[1:], strict=False):
            found |= {f"{key}:{before[key]}->{cls}" for key, cls in after.items()
                      if key in before and before[key] != cls}
        return found


def stages_enabled(groups) -> list[str]:
    """The units (their stages: CONV, SDP, ...) a layer's enabled register groups belong to (golden/units
    declarations: Unit.groups); a generated layer enables CDMA, not CONV."""
    return [u.stage for u in golden.units.declared() if set(u.groups) & set(groups)]


#: The steps a field is moved by to find the nearest bound of a rule: a rule broken one step away is at
#: distance 0, two steps 1, within eight "few", else "far".
PROBES = ((1, "0"), (2, "1"), (8, "few"))


def _moved(regs, key: str, step: int):
    unit, name, field_name = key.split(".")
    register = regs.regmap.get(unit, name)
    fld = register.field(field_name)
    value = fld.decode(regs.value(unit, name)) + step
    if not 0 <= value < 1 << fld.width:
        return None
    return regs.with_values({(unit, name): (regs.value(unit, name) & ~fld.mask) | (value << fld.lsb)})


def rule_distances(regs, unit: str, profile: Profile) -> dict[str, str]:
    """{"RULE-ID/UNIT.REGISTER.FIELD": 0, 1, few or far}: how far each field a rule names is from where the rule
    breaks (the field moved by PROBES steps either way, the rest of the layer kept), for the rules the layer
    keeps. A move the field's width does not allow is no bound of a rule."""
    decode = golden.units.unit(unit).decode
    facts = rules.Facts(regs, profile)
    decoded: dict[tuple[str, int], tuple | None] = {}  # rules naming the same field probe the same moved layers

    def moved_layer(key: str, step: int) -> tuple | None:
        """(decoded config, facts) of the layer with the field moved by step; None: no such layer, or one the
        decoder cannot read (no bound found that way)."""
        if (key, step) not in decoded:
            moved = _moved(regs, key, step)
            try:
                decoded[key, step] = None if moved is None else (decode(moved, profile), rules.Facts(moved, profile))
            except Exception:
                decoded[key, step] = None
        return decoded[key, step]

    try:
        config = decode(regs, profile)
    except Exception:  # a layer the decoder cannot read keeps no rule
        config = None
    out = {}
    rules.all_rules()
    for rule in rules.rules(unit):
        for key in rule.fields:
            unit_name, name, _ = key.split(".")
            if (unit_name, name) not in regs.written():
                continue
            distance = "far"
            for step, label in PROBES:
                if distance != "far":
                    break
                for sign in (1, -1):
                    layer = moved_layer(key, sign * step)
                    if layer is None:
                        continue
                    try:
                        if rule.check(*layer) is not None:
                            distance = label
                            break
                    except Exception:  # a moved value the rule cannot judge: no bound found that way
                        continue
            try:
                kept = config is not None and rule.check(config, facts) is None
            except Exception:
                kept = False
            if kept:
                out[f"{rule.id}/{key}"] = distance
    return out


class RuleDistances:
    """rule_distances of every unit of every layer."""
    name = "rule-distance"

    def features(self, run: GoldenRun) -> set[str]:
        found = set()
        for layer in run.layers:
            if layer.regs is None:
                continue
            for unit in set(layer.stages):
                try:
                    found |= {f"{k}={v}" for k, v in rule_distances(layer.regs, unit, run.profile).items()}
                except Exception:  # feedback must never stop the loop: a layer the decoder cannot read adds none
                    continue
        return found


class BenchSettings:
    """The bench's AXI back-pressure with each unit family (only the RTL bench uses it)."""
    name = "bench"

    def features(self, run: GoldenRun) -> set[str]:
        return {f"axi-pause={run.axi_pause:g}", f"axi-pause={run.axi_pause:g}/{run.family}"}


class ArithmeticCorners:
    """The arithmetic corners the golden model's run met: "stage=class" of every rounding, truncating and
    saturating stage (golden/numerics/corners.py: exact ties, one LSB either side, zero, bounds met or passed)."""
    name = "corners"

    def features(self, run: GoldenRun) -> set[str]:
        seen = run.corners
        return set() if seen is None else {f"{stage}={cls}" for stage in seen.stages() for cls in seen.hit(stage)}


class CbufBanks:
    """The CBUF banks a convolution's input and weights fill: data from bank 0 (entries x lines x batches), weights
    from bank DATA_BANK on (nvdla/hw NV_NVDLA_CDMA_wt.v: weight_bank_end_w = weight_bank_w + data_bank_w). A bank
    no run filled is RAM (and its read and write paths) no run exercised: on NVIDIA's nv_small RTL the one layer
    that filled 30 banks with data added 40,000 toggle points at once."""
    name = "cbuf"

    def features(self, run: GoldenRun) -> set[str]:
        from golden.units.conv.config import decode
        from golden.units.conv.rules import data_banks_needed

        bank_bytes = run.profile.cbuf_bank_bytes
        found = set()
        for layer in run.layers:
            if layer.regs is None or "CONV" not in layer.stages:
                continue
            try:
                cfg = decode(layer.regs)
            except Exception:  # feedback must never stop the loop
                continue
            data = min(cfg.data_bank, data_banks_needed(cfg, run.profile))
            weights = min(cfg.weight_bank, -(-cfg.weight_bytes // bank_bytes))
            found |= {f"data/bank={bank}" for bank in range(data)}
            found |= {f"weight/bank={cfg.data_bank + bank}" for bank in range(weights)}
        return found


SOURCES: list[FeedbackSource] = [CoverBins(), FieldClasses(), FieldTransitions(), RuleDistances(), BenchSettings(),
                                 ArithmeticCorners(), CbufBanks()]
#: What one new feature of a source is worth when a directed step picks among candidates with novelty: a
#: covergroup bin or a CBUF bank stands for RTL logic or memory no run reached; a register field's new value
#: class or transition comes cheap (nearly every mutated layer has one) and seldom reaches new RTL. A source not
#: listed counts 1.
WEIGHTS = {"bins": 4.0, "cbuf": 4.0, "corners": 2.0, "rule-distance": 1.0, "bench": 1.0, "fields": 0.25,
           "transitions": 0.25}


def worth(new: dict[str, set[str]]) -> float:
    """The weighted count of new features (Seen.new's result)."""
    return sum(WEIGHTS.get(name, 1.0) * len(items) for name, items in new.items())


def add_source(source: FeedbackSource) -> None:
    """Plug in one more golden-side source (its `name` must be new)."""
    if any(s.name == source.name for s in SOURCES):
        raise ValueError(f"a feedback source named {source.name} is already in use")
    SOURCES.append(source)


def features(run: GoldenRun, sources: list[FeedbackSource] | None = None) -> dict[str, set[str]]:
    return {source.name: set(source.features(run)) for source in (sources or SOURCES)}


@dataclass
class Seen:
    """The features seen so far, per source."""
    by_source: dict[str, set[str]] = field(default_factory=dict)

    def new(self, found: dict[str, set[str]]) -> dict[str, set[str]]:
        """What of `found` was not seen yet (sources without anything new left out)."""
        fresh = {name: items - self.by_source.get(name, set()) for name, items in found.items()}
        return {name: items for name, items in fresh.items() if items}

    def add(self, found: dict[str, set[str]]) -> None:
        for name, items in found.items():
            self.by_source.setdefault(name, set()).update(items)

    def counts(self) -> dict[str, int]:
        return {name: len(items) for name, items in sorted(self.by_source.items())}

    def as_dict(self) -> dict:
        return {name: sorted(items) for name, items in sorted(self.by_source.items())}

    @classmethod
    def from_dict(cls, data: dict) -> Seen:
        return cls({name: set(items) for name, items in data.items()})
