"""The NVDLA register map: units, registers, fields, reset values, access types and enums.

Loaded from nvdla_regs.json, which golden/regs/generate.py elaborates from
NVIDIA's SystemRDL. Unit names drop the `NVDLA_` prefix and register names
the `_0` suffix that trace files add (`NVDLA_SDP.D_DATA_CUBE_WIDTH_0` is
register D_DATA_CUBE_WIDTH of unit SDP). Two unit address layouts exist:
nvdlav1's (traceplayer traces, nv_full) and master's (all other profiles);
offsets inside a unit are the same in both.

Where a layout's RTL implements a field otherwise than the RDL says (hardware_fields.json: nvdlav1 keeps only
bits 31:5 of its addresses and strides, 31:7 of WEIGHT_BYTES, 27:7 of WMB_BYTES, 11:0 of ENTRIES and 3:0 of the
bank counts), the map of that layout holds the hardware's field: a write keeps the stored bits only and a read
returns them, so the golden model computes with what the hardware holds. The file also lists nvdlav1's other
reset values (SDP_RDMA's *RDMA_DISABLE and SDP's bypass bits reset to 0); those are not applied: with them
NVIDIA's own googlenet_conv2_3x3_int16, which leaves SDP_RDMA unwritten, would wait for an SDP_RDMA launch
it never gets, so how nvdlav1 launches an SDP whose unwritten RDMA reads as enabled is still to be measured.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path

import golden.units
from golden.errors import DeclarationError, RegisterError

TABLE = Path(__file__).with_name("nvdla_regs.json")
HARDWARE = Path(__file__).with_name("hardware_fields.json")
_TRACE_NAME = re.compile(r"^(?:NVDLA_)?(\w+?)\.(\w+?)(?:_0)?$")


@dataclass(frozen=True)
class Field:
    name: str
    lsb: int
    msb: int
    reset: int
    sw: str
    hw: str
    enum: dict[str, int] | None
    #: the bits (lsb, msb) the hardware's register file keeps, where fewer than the RDL field's
    stored: tuple[int, int] | None = None

    @cached_property
    def width(self) -> int:
        return self.msb - self.lsb + 1

    @cached_property
    def mask(self) -> int:
        return ((1 << self.width) - 1) << self.lsb

    @cached_property
    def stored_mask(self) -> int:
        if self.stored is None:
            return self.mask
        low, high = self.stored
        return ((1 << (high - low + 1)) - 1) << low

    def decode(self, value: int) -> int:
        """The field's value as the hardware holds it (bits it does not store read as 0)."""
        return ((value & self.stored_mask) >> self.lsb) & ((1 << self.width) - 1)

    def enum_name(self, value: int) -> str | None:
        if self.enum:
            for name, number in self.enum.items():
                if number == value:
                    return name
        return None


@dataclass(frozen=True)
class Register:
    unit: str
    name: str
    offset: int
    fields: tuple[Field, ...]

    @property
    def trace_name(self) -> str:
        return f"NVDLA_{self.unit}.{self.name}_0"

    @property
    def qualified(self) -> str:
        return f"{self.unit}.{self.name}"

    @cached_property
    def reset(self) -> int:
        return sum(f.reset << f.lsb for f in self.fields)

    @cached_property
    def writable_mask(self) -> int:
        return sum(f.stored_mask for f in self.fields if "w" in f.sw)

    @cached_property
    def _dropped(self) -> int:
        """The bits of fields the hardware does not keep (hardware_fields.json); 0 for most registers."""
        return sum(f.mask & ~f.stored_mask for f in self.fields)

    def held(self, value: int) -> int:
        """A register value as the hardware holds it: the bits of narrowed fields it does not store are 0."""
        return value & ~self._dropped

    @cached_property
    def readable_mask(self) -> int:
        return sum(f.stored_mask for f in self.fields if "r" in f.sw)

    @cached_property
    def is_double_buffered(self) -> bool:
        """D_ registers exist once per ping-pong group; S_ registers once per unit."""
        return self.name.startswith("D_")

    @cached_property
    def _named(self) -> dict[str, Field]:
        return {fld.name: fld for fld in self.fields}

    def field(self, name: str) -> Field:
        found = self._named.get(name)
        if found is not None:
            return found
        raise RegisterError(
            f"register {self.qualified} has no field {name}; fields: {', '.join(f.name for f in self.fields)}",
            register=f"{self.qualified}.{name}")

    def decode(self, value: int) -> dict[str, int]:
        return {f.name: f.decode(value) for f in self.fields}

    def encode(self, **fields: int) -> int:
        """Pack field values into a register value; other fields take their reset values."""
        value = self.reset
        for name, number in fields.items():
            fld = self.field(name)
            number = int(number)
            if not 0 <= number < 1 << fld.width:
                raise RegisterError(
                    f"value {number:#x} does not fit the {fld.width}-bit field",
                    register=f"{self.qualified}.{name}", rule="register map (NVIDIA SystemRDL)")
            value = (value & ~fld.mask) | (number << fld.lsb)
        return value


class RegisterMap:
    """All registers of one address layout, looked up by name or address."""

    def __init__(self, layout: str = "master", table: Path = TABLE, hardware: Path | None = HARDWARE,
                 extra: tuple[str, ...] = ()):
        """`extra`: register tables of units the NVIDIA map lacks (golden.units.declaration.Unit.registers)."""
        if layout not in ("master", "nvdlav1"):
            raise RegisterError(f"unknown register layout {layout!r}")
        data = json.loads(Path(table).read_text())
        units, entries = dict(data["units"]), list(data["registers"])
        for path in extra:
            _add_table(json.loads(Path(path).read_text()), units, entries, str(path))
        self.layout = layout
        self.bases = {unit: bases[layout] for unit, bases in units.items() if bases[layout] is not None}
        self._by_name: dict[tuple[str, str], Register] = {}
        self._by_address: dict[int, Register] = {}
        self._looked_up: dict[str, Register] = {}
        self._field_keys: dict[str, tuple[tuple[str, str], str]] = {}
        self._of_unit: dict[str, list[Register]] = {}
        changes = hardware_fields(layout, hardware) if hardware else {}
        for entry in entries:
            fields = (Field(**{**f, **changes.get((entry["unit"], entry["name"], f["name"]), {})})
                      for f in entry["fields"])
            reg = Register(entry["unit"], entry["name"], entry["offset"], tuple(fields))
            self._by_name[reg.unit, reg.name] = reg
            if reg.unit in self.bases:
                self._by_address[self.bases[reg.unit] + reg.offset] = reg

    @classmethod
    def for_layout(cls, layout: str) -> RegisterMap:
        """The layout's map, with the register tables the declared units bring."""
        return cls._built(layout, golden.units.register_tables())

    @classmethod
    @cache
    def _built(cls, layout: str, extra: tuple[str, ...]) -> RegisterMap:
        return cls(layout, extra=extra)

    @classmethod
    def for_profile(cls, profile) -> RegisterMap:
        return cls.for_layout(profile.layout)

    def __iter__(self):
        return iter(self._by_name.values())

    def units(self) -> list[str]:
        return list(self.bases)

    def registers(self, unit: str) -> list[Register]:
        found = self._of_unit.get(unit)
        if found is None:
            found = self._of_unit[unit] = [reg for (u, _), reg in self._by_name.items() if u == unit]
        return list(found)

    def get(self, unit: str, name: str) -> Register:
        try:
            return self._by_name[unit, name]
        except KeyError:
            known = "" if any(u == unit for u, _ in self._by_name) else " (unknown unit)"
            raise RegisterError(f"no register {unit}.{name} in the register map{known}",
                                register=f"{unit}.{name}") from None

    def lookup(self, text: str) -> Register:
        """A register by trace name (`NVDLA_SDP.D_DATA_CUBE_WIDTH_0`) or `SDP.D_DATA_CUBE_WIDTH`."""
        found = self._looked_up.get(text)
        if found is None:
            found = self._looked_up[text] = self._lookup(text)
        return found

    def field_key(self, key: str) -> tuple[tuple[str, str], str]:
        """((unit, register), field) of a key "UNIT.REGISTER.FIELD" whose register `lookup` finds."""
        found = self._field_keys.get(key)
        if found is None:
            if key.count(".") != 2:
                raise RegisterError(f"expected UNIT.REGISTER.FIELD, got {key!r}", register=key)
            register, _, name = key.rpartition(".")
            reg = self.lookup(register)
            found = self._field_keys[key] = ((reg.unit, reg.name), name)
        return found

    def _lookup(self, text: str) -> Register:
        match = _TRACE_NAME.match(text.strip())
        if not match:
            raise RegisterError(f"not a register name: {text!r}", register=text)
        unit, name = match.groups()
        if (unit, name) not in self._by_name and (unit, f"{name}_0") in self._by_name:
            name = f"{name}_0"
        return self.get(unit, name)

    def at(self, byte_address: int) -> Register:
        try:
            return self._by_address[byte_address]
        except KeyError:
            raise RegisterError(f"no register at byte address {byte_address:#x} in the {self.layout} layout",
                                register=f"@{byte_address:#x}") from None

    def address(self, reg: Register) -> int:
        if reg.unit not in self.bases:
            raise RegisterError(f"unit {reg.unit} has no base address in the {self.layout} layout",
                                register=reg.qualified)
        return self.bases[reg.unit] + reg.offset


#: A unit's address range in either layout: CSB addresses of one unit lie within 4 KiB of its base.
UNIT_SPAN = 0x1000
#: GLB's interrupt registers and the word of each a done source's field takes: MASK, SET, STATUS.
INTERRUPT_REGISTERS = {"S_INTR_MASK": ("MASK", "rw"), "S_INTR_SET": ("SET", "w"), "S_INTR_STATUS": ("STATUS", "rw")}


def _add_table(table: dict, units: dict, entries: list, where: str) -> None:
    """Merge a unit's register table (nvdla_regs.json's form plus "interrupts": done source -> group-0 bit) into
    the map's units and registers: new groups at free 4 KiB ranges, done bits at free bits of GLB's interrupt
    registers (group 1's one above group 0's), or a DeclarationError naming the table."""
    for unit, bases in table.get("units", {}).items():
        if unit in units:
            raise DeclarationError(f"register group {unit} is already in the register map", where=where)
        for layout in ("master", "nvdlav1"):
            base = bases.get(layout)
            taken = [u for u, other in units.items() if base is not None and other[layout] is not None
                     and abs(other[layout] - base) < UNIT_SPAN]
            if taken:
                raise DeclarationError(f"{unit} at {base:#x} overlaps {taken[0]} in the {layout} layout", where=where)
        units[unit] = {"master": bases.get("master"), "nvdlav1": bases.get("nvdlav1")}
    for entry in table.get("registers", []):
        if entry["unit"] not in table.get("units", {}):
            raise DeclarationError(f"register {entry['unit']}.{entry['name']} is not of the table's groups",
                                   where=where)
        entries.append(entry)
    glb = {entry["name"]: i for i, entry in enumerate(entries) if entry["unit"] == "GLB"}
    for source, lsb in table.get("interrupts", {}).items():
        for name, (word, sw) in INTERRUPT_REGISTERS.items():
            entry = entries[glb[name]]
            used = {bit for f in entry["fields"] for bit in range(f["lsb"], f["msb"] + 1)}
            if not 0 <= lsb < 31 or {lsb, lsb + 1} & used:
                raise DeclarationError(f"done interrupt {source} at bit {lsb} is not free in GLB.{name}", where=where)
            added = [{"name": f"{source}_DONE_{word}{group}", "lsb": lsb + group, "msb": lsb + group, "reset": 0,
                      "sw": sw, "hw": "rw", "enum": None} for group in (0, 1)]
            entries[glb[name]] = {**entry, "fields": [*entry["fields"], *added]}


def hardware_fields(layout: str, path: Path = HARDWARE) -> dict[tuple[str, str, str], dict]:
    """{(unit, register, field): the Field attributes the layout's hardware has otherwise than the RDL}."""
    data = json.loads(Path(path).read_text())[layout]
    changes: dict[tuple[str, str, str], dict] = {}
    for entry in data["fields"]:
        unit, register = entry["register"].split(".")
        changes[unit, register, entry["field"]] = {"stored": tuple(entry["stored"])}
    return changes
