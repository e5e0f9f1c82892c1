"""A unit's declaration: `UNIT = Unit(...)` in its package golden/units/<name>/ (or a plugin's), listed by
golden/units/__init__.py. Apart from the model's contract (golden/units/base.py) so that the register map can read
the declarations' register tables without importing the models.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from golden.errors import DeclarationError

if TYPE_CHECKING:
    from golden.hardware import Hardware

#: A pipeline a launch runs: (register groups, stages).
Pipeline = tuple[list[str], list[str]]


def armed_together(device: Hardware, unit: Unit, armed: dict[str, int], found: list[Pipeline]) -> list[Pipeline]:
    """The default pipeline: every group of the unit, running the unit's stage alone (CDP_RDMA + CDP, RBK)."""
    if any(group in armed for group in unit.groups):
        return [(list(unit.groups), [unit.stage])]
    return []


_NAME = re.compile(r"[a-z][a-z0-9_]*")
#: The comparators a scoreboard has for an FP16 threshold (scoreboards/choice.py): "convolution" judges with max_exp,
#: taps and scale per element (precision-preservation's CC thresholds), "window" with max_value per element (the
#: pooling and square-sum window thresholds).
COMPARATORS = ("convolution", "window")
_UPPER = re.compile(r"[A-Z][A-Z0-9_]*")
_OPTIONAL_HOOKS = ("validate", "pipelines", "inputs", "passed_on", "input_patterns", "validate_group", "keeps")


@dataclass(frozen=True)
class Unit:
    """A unit declares itself once, in its package golden/units/<name>/ (or a plugin's), as `UNIT = Unit(...)`;
    golden/units/__init__.py lists the packages. The hardware's scheduling tables, the rule registry's order, the
    input surfaces, stimulus and reports read these fields instead of tables of their own.
    """

    #: The package word, lower case ("conv", "sdp", "rubik").
    name: str
    #: The pipeline stage the hardware runs (golden/hardware.py), rules and reports name: "CONV", "RUBIK".
    stage: str
    #: The CSB register groups a layer of the unit programs, in pipeline order (CDMA ... CACC; SDP_RDMA, SDP).
    groups: tuple[str, ...]
    #: run(ctx: LayerContext, upstream) -> UnitResult (module docstring above).
    run: Callable
    #: decode(regs, profile) -> the configuration the unit's rules judge.
    decode: Callable
    #: validate(cfg, facts: golden.rules.Facts, strict=False): raise for the first rule of the unit the decoded
    #: layer breaks (ConfigurationError; advisory rules only when strict, else a LimitationWarning), a feature
    #: its profile lacks (ProfileFeatureError) or what is not modelled (NotModelledError). None: the unit's
    #: rules of the registry alone (golden.rules.enforce). golden.rules.check decodes and validates a layer.
    validate: Callable | None = None
    #: Modules whose rules (golden/rules.py) the unit's validation checks, in checking order.
    rules: tuple[str, ...] = ()
    #: group -> the GLB.S_INTR_STATUS sources raised when that group completes, in the order they rise.
    interrupts: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: The group its output surfaces are named after in reports and scoreboards ("" : the stage).
    output: str = ""
    #: The profile's .spec switch a profile needs to have the unit at all; None: every profile has it.
    switch: str | None = None
    #: Groups with a LUT RAM written through S_LUT_ACCESS_CFG/DATA.
    luts: tuple[str, ...] = ()
    #: pipelines(device, unit, armed, found) -> [(groups, stages)] the armed groups launch (golden/hardware.py);
    #: `found`: the pipelines of the units listed before. None: not launched by D_OP_ENABLE (BDMA's CFG_LAUNCH).
    pipelines: Callable | None = armed_together
    #: inputs(regs, profile) -> [Surface] the layer reads through its read DMA; None: not described.
    inputs: Callable | None = None
    #: Trace-name prefixes of NVIDIA's tests of the unit (failure signatures: which unit a trace tests).
    prefixes: tuple[str, ...] = ()
    #: Module names in NVIDIA's RTL hierarchy (code coverage: which unit a covered instance belongs to).
    hdl: tuple[str, ...] = ()
    #: Groups among `luts` whose S_LUT_ACCESS_DATA reads answer with the LUT RAM's words (the others' read port is
    #: not modelled and reads the register).
    lut_port: tuple[str, ...] = ()
    #: The stages the unit hands its output to on the fly: software enables their groups before the unit's.
    feeds: tuple[str, ...] = ()
    #: Its groups in the order software sets their D_OP_ENABLE, consumers first (a producer must not run before its
    #: consumer); () : the groups in reverse.
    enables: tuple[str, ...] = ()
    #: FP16 threshold rules its results carry (Tolerance.rule) -> the comparator judging them (COMPARATORS).
    thresholds: Mapping[str, str] = field(default_factory=dict)
    #: passed_on(ctx, tolerance, own) -> the threshold of what the unit hands on, from its input's (`tolerance`)
    #: and its own (`own`, UnitResult.tolerance); None: its own, else its input's passes on (golden/hardware.py).
    passed_on: Callable | None = None
    #: input_patterns(ctx) -> a reader (MemorySystem -> the cube's uint16 patterns) of the fp16 input whose
    #: elements' thresholds passed_on receives, or None when that input comes on the fly (the stage before hands
    #: its threshold on); None: always on the fly. golden/provenance.py follows the elements through memory.
    input_patterns: Callable | None = None
    #: The unit moves bytes from memory to memory: each fp16 surface it writes keeps the thresholds its elements
    #: came with (golden/provenance.py runs the unit again on shadow memories to follow them).
    moves_bytes: bool = False
    #: validate_group(profile, [RegisterValues per operation], group): the rules over a launched group of queued
    #: operations, checked before they run (a unit whose operations queue in golden/regs/regfile.py).
    validate_group: Callable | None = None
    #: keeps() -> what the unit keeps from one layer to the next (the convolution buffer): the hardware makes one
    #: and hands it to each of the unit's layers as LayerContext.cbuf; None: nothing.
    keeps: Callable | None = None
    #: A register table of the unit's own groups, in golden/regs/nvdla_regs.json's form plus "interrupts" (done
    #: source -> its group-0 bit in GLB's interrupt registers): for a unit the NVIDIA register map lacks (a
    #: plugin's); None: its groups are the map's.
    registers: Path | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "groups", tuple(self.groups))
        object.__setattr__(self, "rules", tuple(self.rules))
        object.__setattr__(self, "luts", tuple(self.luts))
        object.__setattr__(self, "lut_port", tuple(self.lut_port))
        object.__setattr__(self, "feeds", tuple(self.feeds))
        object.__setattr__(self, "enables", tuple(self.enables) or tuple(reversed(self.groups)))
        object.__setattr__(self, "thresholds", MappingProxyType(dict(self.thresholds)))
        object.__setattr__(self, "interrupts", MappingProxyType({g: tuple(s) for g, s in self.interrupts.items()}))
        object.__setattr__(self, "output", self.output or self.stage)
        where = f"unit {self.name!r}"
        if not isinstance(self.name, str) or not _NAME.fullmatch(self.name):
            raise DeclarationError("a unit's name is a lower-case word", where=where)
        if not isinstance(self.stage, str) or not _UPPER.fullmatch(self.stage):
            raise DeclarationError(f"stage {self.stage!r} is not an upper-case word", where=where)
        if not self.groups or not all(isinstance(g, str) and _UPPER.fullmatch(g) for g in self.groups):
            raise DeclarationError(f"groups {self.groups!r} are not register group names", where=where)
        for what, names in (("interrupts", tuple(self.interrupts)), ("luts", self.luts)):
            strays = [g for g in names if g not in self.groups]
            if strays:
                raise DeclarationError(f"{what} name groups the unit does not have: {', '.join(strays)}", where=where)
        strays = [g for g in self.lut_port if g not in self.luts]
        if strays:
            raise DeclarationError(f"lut_port names groups without a LUT: {', '.join(strays)}", where=where)
        if sorted(self.enables) != sorted(self.groups):
            raise DeclarationError(f"enables {self.enables!r} is not an order of its groups", where=where)
        strays = [kind for kind in self.thresholds.values() if kind not in COMPARATORS]
        if strays:
            raise DeclarationError(f"thresholds name no comparator ({', '.join(COMPARATORS)}): {', '.join(strays)}",
                                   where=where)
        if self.output not in (*self.groups, self.stage):
            raise DeclarationError(f"output {self.output!r} is neither a group nor the stage", where=where)
        for what in ("run", "decode", *_OPTIONAL_HOOKS):
            hook = getattr(self, what)
            if not callable(hook) and not (hook is None and what in _OPTIONAL_HOOKS):
                raise DeclarationError(f"{what} is not callable", where=where)
        if self.registers is not None and not Path(self.registers).is_file():
            raise DeclarationError(f"register table {self.registers} is not a file", where=where)
        if not all(isinstance(m, str) for m in self.rules):
            raise DeclarationError("rules are module names", where=where)

    def launched(self, device: Hardware, armed: dict[str, int], found: list[Pipeline]) -> list[Pipeline]:
        """The pipelines this unit's armed groups form (none when something else launches it)."""
        return [] if self.pipelines is None else self.pipelines(device, self, armed, found)
