"""A hardware layer as stimulus: register field values per unit plus the memory images it reads.

A `Layer` is what one launch of a pipeline needs and nothing else: the fields it programs, keyed
"UNIT.REGISTER.FIELD" and encoded through the register map (golden/regs/values.py), the bytes it reads
(input cubes, operands, and the destination's filler, so a byte the hardware fails to write shows), the
regions a check compares afterwards, and the unit whose done interrupt ends it. The register group
(S_POINTER) is chosen when layers are written one after another (stimulus/export.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import golden.units
from golden.errors import RegisterError
from golden.regs.regmap import RegisterMap
from golden.regs.values import RegisterValues


@dataclass(frozen=True)
class Image:
    """Bytes a layer expects in memory before it starts."""
    memory: str  # "pri_mem" or "sec_mem" (CV-SRAM)
    base: int
    data: bytes
    label: str


@dataclass(frozen=True)
class Region:
    """Bytes a check compares once the layer is done."""
    memory: str
    base: int
    size: int
    label: str


@dataclass
class Layer:
    family: str  # sdp, pdp, cdp, conv, ...
    #: "UNIT.REGISTER.FIELD" -> a number or the field's enum name (D_OP_ENABLE and S_POINTER excluded).
    fields: dict[str, int | str]
    images: list[Image]
    checks: list[Region]
    interrupt: str  # the unit whose done interrupt ends the layer: SDP, PDP, CDP, ...
    enable: tuple[str, ...]  # units whose D_OP_ENABLE starts it
    #: What the generator chose, in words (precision, modes, size classes): for names and coverage.
    choices: dict = field(default_factory=dict)
    #: Raw (unit, register, value) writes in order before the fields: a LUT's table contents.
    writes: list = field(default_factory=list)
    #: (unit, register, mask) read from the layer's own group once it is done, expecting the golden model's
    #: value (SDP's EQL result in D_STATUS): the layer is awaited before the next one is programmed.
    reads: list = field(default_factory=list)
    #: The layer reads what earlier layers of its trace write (a deconvolution's phases): the trace waits for
    #: their done interrupts before loading and programming it.
    waits: bool = False
    #: Layers its trace runs before it: an illegal layer breaking a rule over what they left in the CBUF
    #: (stimulus/conv/illegal_sequence.py).
    follows: list = field(default_factory=list)

    def units(self) -> list[str]:
        seen: dict[str, None] = {}
        for key in self.fields:
            seen.setdefault(key.split(".", 1)[0], None)
        for unit in self.enable:
            seen.setdefault(unit, None)
        return list(seen)

    def values(self, regmap: RegisterMap, units: tuple[str, ...] | None = None) -> RegisterValues:
        """The register values as the unit models read them (unwritten registers at reset); `units`: only
        theirs."""
        return RegisterValues.encode(regmap, {key: _number(regmap, key, value) for key, value in self.fields.items()
                                              if units is None or key.split(".", 1)[0] in units})

    def register_writes(self, regmap: RegisterMap) -> list[tuple[str, str, int]]:
        """(unit, register, value) in the order the fields were first named."""
        values = self.values(regmap).written()
        order: dict[tuple[str, str], None] = {}
        for key in self.fields:
            unit, register, _ = key.split(".")
            reg = regmap.lookup(f"{unit}.{register}")
            order.setdefault((reg.unit, reg.name), None)
        return [(unit, register, values[unit, register]) for unit, register in order]

    def enable_order(self) -> list[str]:
        """Its enabled groups in the order software sets D_OP_ENABLE: consumers first (golden.units.enable_order)."""
        order = golden.units.enable_order()
        return sorted(self.enable, key=lambda unit: order.index(unit) if unit in order else len(order))


def _number(regmap: RegisterMap, key: str, value: int | str) -> int:
    if not isinstance(value, str):
        return int(value)
    unit, register, name = key.split(".")
    fld = regmap.lookup(f"{unit}.{register}").field(name)
    if not fld.enum or value not in fld.enum:
        raise RegisterError(f"{value!r} is not one of {fld.enum}", register=key)
    return fld.enum[value]


def random_bytes(rng: np.random.Generator, size: int) -> bytes:
    return rng.integers(0, 256, size, dtype=np.uint8).tobytes()
