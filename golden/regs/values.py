"""Register values of one hardware layer, decoded field by field.

This is what a unit model reads: the active register group of every unit,
as the register file (golden/regs/regfile.py) hands it over on op-enable, or
as a test or a stimulus generator builds it directly with `RegisterValues.encode`.
Registers never written read as their reset values.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Iterable, Mapping

from golden.errors import RegisterError
from golden.numerics.integer import as_signed
from golden.regs.regmap import Register, RegisterMap


class RegisterValues:
    """Read-only view of 32-bit register values keyed by (unit, register)."""

    def __init__(self, regmap: RegisterMap, values: Mapping[tuple[str, str], int] | None = None):
        self.regmap = regmap
        self._values = dict(values or {})

    @classmethod
    def encode(cls, regmap: RegisterMap, fields: Mapping[str, int]) -> RegisterValues:
        """Build from field values keyed "UNIT.REGISTER.FIELD" (e.g. "SDP.D_DATA_CUBE_WIDTH.WIDTH")."""
        grouped: dict[tuple[str, str], dict[str, int]] = {}
        for key, number in fields.items():
            register, name = regmap.field_key(key)
            grouped.setdefault(register, {})[name] = number
        return cls(regmap, {register: regmap.get(*register).encode(**named) for register, named in grouped.items()})

    @classmethod
    def from_writes(cls, regmap: RegisterMap, writes: Iterable[tuple[str, int]]) -> RegisterValues:
        """Build from (register name as in traces, value) pairs, later writes winning."""
        values = {}
        for name, value in writes:
            reg = regmap.lookup(name)
            values[reg.unit, reg.name] = value & 0xFFFFFFFF
        return cls(regmap, values)

    def register(self, unit: str, name: str) -> Register:
        return self.regmap.get(unit, name)

    def value(self, unit: str, name: str) -> int:
        """The register as the hardware holds it (golden/regs/hardware_fields.json: bits it does not keep are 0)."""
        reg = self.regmap.get(unit, name)
        return reg.held(self._values.get((unit, name), reg.reset))

    def field(self, unit: str, name: str, field: str) -> int:
        reg = self.regmap.get(unit, name)
        return reg.field(field).decode(reg.held(self._values.get((unit, name), reg.reset)))

    def signed(self, unit: str, name: str, field: str) -> int:
        """The field read as two's complement (offsets, scales and operands are signed)."""
        fld = self.regmap.get(unit, name).field(field)
        return as_signed(fld.decode(self.value(unit, name)), fld.width)

    def enum(self, unit: str, name: str, field: str) -> str:
        """The field's enum name (e.g. "INT8"); RegisterError for a value outside the enum."""
        fld = self.regmap.get(unit, name).field(field)
        raw = fld.decode(self.value(unit, name))
        label = fld.enum_name(raw)
        if label is None:
            raise RegisterError(f"value {raw} is not one of {fld.enum}", register=f"{unit}.{name}.{field}",
                                rule="register map (NVIDIA SystemRDL)")
        return label

    def address(self, unit: str, high: str, low: str) -> int:
        """A 64-bit address from a *_HIGH / *_LOW register pair."""
        return (self.value(unit, high) << 32) | self.value(unit, low)

    def written(self) -> dict[tuple[str, str], int]:
        return dict(self._values)

    def with_values(self, values: Mapping[tuple[str, str], int]) -> RegisterValues:
        merged = dict(self._values)
        merged.update(values)
        return RegisterValues(self.regmap, merged)



def decoded_once(decode: Callable) -> Callable:
    """A unit's decode(regs, profile=None) run once per RegisterValues object: a layer's values are read-only,
    so the run, follows_input, reads_memory and passed_on of one layer share one decoded configuration (kept
    while the values live). Values that cannot be weakly referenced are decoded on every call."""
    decoded: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    @functools.wraps(decode)
    def once(regs, profile=None):
        try:
            return decoded[regs]
        except (KeyError, TypeError):
            pass
        config = decode(regs, profile)
        try:
            decoded[regs] = config
        except TypeError:
            pass
        return config

    return once
