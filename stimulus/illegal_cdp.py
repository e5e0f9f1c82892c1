"""Breakers of the CDP's rules (golden/units/cdp/rules.py): each changes a legal CDP layer's fields.

A change (stimulus/breakers.py) takes the legal layer's fields (a copy), its decoded CdpConfig, the chooser and the
profile, and returns the changed fields or None when this layer cannot be changed that way (another legal layer is
drawn). An index select moved out of its
range leaves the table's span as it was: the span rule does not judge a table whose select is out of range.
"""

from __future__ import annotations

from golden.numerics.integer import as_signed
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


def _span(table: str):
    def breaker(fields, cfg, choose, profile):
        if table == "LE" and not _linear(fields):
            return None
        low_key, high_key = (f"CDP.S_LUT_{table}_END_{half}.LUT_{table}_END_{half}" for half in ("LOW", "HIGH"))
        end = as_signed(fields[high_key] << 32 | fields[low_key], 38) + choose.choice((-1, 1))
        raw = end & ((1 << 38) - 1)
        fields[low_key], fields[high_key] = raw & 0xFFFFFFFF, raw >> 32
        return fields
    return breaker


CHANGES = {
    "CDP-RDMA-PRECISION": _rdma_precision,
    "CDP-LUT-LE-SELECT": _select("LE"),
    "CDP-LUT-LO-SELECT": _select("LO"),
    "CDP-LUT-LE-OFFSET": _offset,
    "CDP-LUT-LE-SPAN": _span("LE"),
    "CDP-LUT-LO-SPAN": _span("LO"),
}

BREAKERS = declare(CHANGES, Fields("cdp"))
