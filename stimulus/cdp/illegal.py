"""Breakers of the CDP's rules (golden/units/cdp/rules.py): each changes a legal CDP layer's fields.

A change (stimulus/breakers.py) takes the legal layer's fields (a copy), its decoded CdpConfig, the chooser and the
profile, and returns the changed fields or None when this layer cannot be changed that way (another legal layer is
drawn). An index select moved out of its
range leaves the table's span as it was: the span rule does not judge a table whose select is out of range.
"""

from __future__ import annotations

from golden.numerics.integer import as_signed
from golden.units.cdp.rules import INT8_START_BITS as START_BITS
from golden.units.lut import OFFSET_LIMITS, SELECT_LIMITS
from stimulus.breakers import Fields, declare

INFO = "CDP.S_LUT_INFO"


def _precision(fields: dict) -> str:
    return str(fields["CDP.D_DATA_FORMAT.INPUT_DATA_TYPE"]).lower()


def _linear(fields: dict) -> bool:
    return fields.get("CDP.S_LUT_CFG.LUT_LE_FUNCTION") == "LINEAR"


def _rdma_precision(fields, cfg, choose, profile):
    fields["CDP_RDMA.D_DATA_FORMAT.INPUT_DATA"] = "INT16" if _precision(fields) == "int8" else "INT8"
    return fields


def _select(table: str):
    def breaker(fields, cfg, choose, profile):
        if table == "LE" and not _linear(fields):
            return None
        low, high = SELECT_LIMITS["CDP", _precision(fields)][0 if table == "LE" else 1]
        fields[f"{INFO}.LUT_{table}_INDEX_SELECT"] = choose.choice((low - 1, high + 1)) & 0xFF
        return fields
    return breaker


def _offset(fields, cfg, choose, profile):
    if _linear(fields):
        return None
    low, high = OFFSET_LIMITS["CDP", _precision(fields)]
    fields[f"{INFO}.LUT_LE_INDEX_OFFSET"] = choose.choice((low - 1, high + 1)) & 0xFF
    return fields


def _bound_keys(table: str, end: str) -> tuple[str, str]:
    return tuple(f"CDP.S_LUT_{table}_{end}_{half}.LUT_{table}_{end}_{half}" for half in ("LOW", "HIGH"))


def _get38(fields: dict, keys: tuple[str, str]) -> int:
    return as_signed(fields[keys[1]] << 32 | fields[keys[0]], 38)


def _set38(fields: dict, keys: tuple[str, str], value: int) -> None:
    raw = value & ((1 << 38) - 1)
    fields[keys[0]], fields[keys[1]] = raw & 0xFFFFFFFF, raw >> 32


def _span(table: str):
    def breaker(fields, cfg, choose, profile):
        if table == "LE" and not _linear(fields):
            return None
        keys = _bound_keys(table, "END")
        _set38(fields, keys, _get38(fields, keys) + choose.choice((-1, 1)))
        return fields
    return breaker


def _start_int8(fields, cfg, choose, profile):
    """START just outside 22 bits, END moved with it so that a linear table keeps its span."""
    if _precision(fields) != "int8":
        return None
    table = choose.choice(("LE", "LO"))
    start_keys, end_keys = _bound_keys(table, "START"), _bound_keys(table, "END")
    start = choose.choice((-(1 << (START_BITS - 1)) - 1, 1 << (START_BITS - 1)))
    delta = start - _get38(fields, start_keys)
    _set38(fields, start_keys, start)
    _set38(fields, end_keys, _get38(fields, end_keys) + delta)
    return fields


CHANGES = {
    "CDP-RDMA-PRECISION": _rdma_precision,
    "CDP-LUT-LE-SELECT": _select("LE"),
    "CDP-LUT-LO-SELECT": _select("LO"),
    "CDP-LUT-LE-OFFSET": _offset,
    "CDP-LUT-LE-SPAN": _span("LE"),
    "CDP-LUT-LO-SPAN": _span("LO"),
    "CDP-LUT-START-INT8": _start_int8,
}

BREAKERS = declare(CHANGES, Fields("cdp"))
