"""Random SDP Y-stage LUTs: LE linear or exponential and LO linear tables with random contents and ranges.

The LUT is one per unit (S_LUT_* registers and the LE/LO RAMs written through S_LUT_ACCESS_CFG/DATA are not
double-buffered), so the SDP layers of a trace share one: `random_lut` draws it and the layers whose pipeline
precision is the LUT's use it (stimulus/families.py SHARED). Legality, programming-guide "Limitation/LUT"
(the rules golden.units.lut.check_limits enforces): index selects and the exponent offset inside the table
of their unit and precision, END - START = 2**(LE_INDEX_SELECT+6) / 2**(LO_INDEX_SELECT+8) for linear tables
and 2**(LE_INDEX_OFFSET+64) for the exponent table, clipped to INT32_MAX / FP32_MAX; for FP16 the bounds are
fp32 patterns with START < 2**(SELECT+30) (LE) and 2**(SELECT+32) (LO), so that END > START.

Each table's range is placed against a magnitude 2**k the data may have: around it (hits), far above it
(every element underflows: an empty range for the data) or far below it (every element overflows), so the
hit / underflow / overflow outcomes and both tables' priorities come up on purpose.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from golden.config import Profile
from golden.units.lut import LE_DEPTH, LO_DEPTH, OFFSET_LIMITS, SELECT_LIMITS
from stimulus import data

INT32_MAX = (1 << 31) - 1
FLT_MAX = float(np.finfo(np.float32).max)
PLACEMENTS = ("around", "above", "below")


@dataclass(frozen=True)
class SdpLut:
    precision: str  # the pipeline precision the tables and bounds are written for
    fields: dict
    writes: tuple  # (unit, register, value): the table contents through S_LUT_ACCESS_CFG/DATA
    choices: dict


def _clip(value: int, bounds: tuple[int, int]) -> int:
    return min(max(value, bounds[0]), bounds[1])


def _f32_bits(value: float) -> int:
    return int(np.array([value], np.float32).view(np.uint32)[0])


def _int_range(c, placement: str, k: int, extra: int, selects: tuple[int, int]) -> tuple[int, int, int]:
    """(start, end, select) of a linear int table of 2**(select + extra) entries' span."""
    if placement == "around":
        select = _clip(k + 1 - extra + c.integer(-2, 2), selects)
        start = c.choice((0, -(1 << k), -(1 << max(k - 1, 0)), c.integer(-(1 << k), 1 << k)))
    elif placement == "above":
        select = _clip(c.integer(selects[0], 29 - extra), selects)
        start = 1 << 30
    else:
        select = selects[0]
        start = -(1 << 31)
    return start, _int_end(start, select + extra), select


def _int_end(start: int, bits: int) -> int:
    """START + 2**bits, the span and the end each clipped to INT32_MAX (Limitation/LUT)."""
    return min(start + min(1 << max(bits, 0), INT32_MAX), INT32_MAX)


def fp_range(c, placement: str, k: int, extra: int, selects: tuple[int, int]) -> tuple[int, int, int]:
    """(START bits, END bits, select) of a linear fp16-pipeline table: fp32 bounds, END = START + 2**(select+extra)."""
    select = _clip(k + 1 - extra + c.integer(-2, 2), selects)
    if placement == "around":
        start = c.choice((0.0, -(2.0 ** k), -(2.0 ** (k - 1)), 2.0 ** (k - 3)))
    else:
        start = (1.0 if placement == "above" else -1.0) * 2.0 ** (select + extra + c.integer(4, 20))
    end = np.float32(min(np.float64(np.float32(start)) + 2.0 ** (select + extra), FLT_MAX))
    return _f32_bits(start), _f32_bits(float(end)), select


def exponent(c, placement: str, k: int, precision: str, unit: str = "SDP") -> tuple[int, int, int]:
    """(START, END, LE_INDEX_OFFSET) of an exponent LE table (int32 values or fp32 bits; CDP: fp16 only)."""
    lo, hi = OFFSET_LIMITS[unit, precision]
    fp = precision == "fp16"
    if placement == "around":
        offset, start = _clip(k - c.integer(0, 24), (lo, hi)), c.choice((0, -(1 << max(k - 2, 0))) if not fp
                                                                      else (0.0, -(2.0 ** (k - 2))))
    elif placement == "above":
        offset, start = _clip(k + c.integer(1, 8), (lo, hi)), 0 if not fp else 0.0  # 2**offset above the data
    else:
        offset = _clip(c.integer(lo, lo + 20) if not fp else k - 64 - c.integer(1, 8), (lo, hi))
        start = -(1 << 20) if not fp else -(2.0 ** (k + 1))
    if fp:
        end = np.float32(min(np.float64(np.float32(start)) + 2.0 ** (offset + 64), FLT_MAX))
        if end == np.float32(start):  # the span vanishes next to START: start at 0 instead
            start, end = 0.0, np.float32(min(2.0 ** (offset + 64), FLT_MAX))
        return _f32_bits(start), _f32_bits(float(end)), offset
    return start, _int_end(start, offset + 64), offset


def lut_cfg(c, unit: str, linear: bool) -> dict:
    """S_LUT_CFG: the LE function and the table each outcome prefers."""
    cfg = f"{unit}.S_LUT_CFG.LUT_"
    return {f"{cfg}LE_FUNCTION": "LINEAR" if linear else "EXPONENT",
            **{f"{cfg}{which}_PRIORITY": c.choice(("LE", "LO")) for which in ("UFLOW", "OFLOW", "HYBRID")}}


def random_lut(choose, profile: Profile) -> SdpLut | None:
    """A LUT for the trace's SDP layers, or None when the profile has no SDP LUT (or no Y stage to hold it)."""
    if not (profile.has("SDP_LUT") and profile.has("SDP_EW")):
        return None
    c = choose
    precision = c.choice(sorted(profile.feature_types))
    fp = precision == "fp16"
    (le_sel, lo_sel) = SELECT_LIMITS["SDP", precision]
    linear = c.flag()
    placements = {"LE": c.choice(PLACEMENTS), "LO": c.choice(PLACEMENTS)}
    k = c.integer(-12, 16) if fp else c.size(0, 28)
    if linear:
        le_start, le_end, le_select = (fp_range if fp else _int_range)(c, placements["LE"], k, 6, le_sel)
        offset = 0
    else:
        le_start, le_end, offset = exponent(c, placements["LE"], k, precision)
        le_select = 0
    lo_start, lo_end, lo_select = (fp_range if fp else _int_range)(c, placements["LO"], k, 8, lo_sel)
    f = "SDP.S_LUT_"
    fields = {**lut_cfg(c, "SDP", linear),
              f"{f}INFO.LUT_LE_INDEX_OFFSET": offset & 0xFF, f"{f}INFO.LUT_LE_INDEX_SELECT": le_select & 0xFF,
              f"{f}INFO.LUT_LO_INDEX_SELECT": lo_select & 0xFF,
              f"{f}LE_START.LUT_LE_START": le_start & 0xFFFFFFFF, f"{f}LE_END.LUT_LE_END": le_end & 0xFFFFFFFF,
              f"{f}LO_START.LUT_LO_START": lo_start & 0xFFFFFFFF, f"{f}LO_END.LUT_LO_END": lo_end & 0xFFFFFFFF}
    rng = c.data()
    for table in ("LE", "LO"):
        for flow in ("UFLOW", "OFLOW"):
            if fp:  # the slope is an fp16 value, no shift
                scale = int(data.values(rng, "fp16", (1,), edges=0.0, scale=2.0).view(np.uint16)[0])
                shift = 0
            else:
                scale, shift = c.size(-(1 << 15), (1 << 15) - 1) & 0xFFFF, c.integer(-16, 15) & 0x1F
            fields[f"{f}{table}_SLOPE_SCALE.LUT_{table}_SLOPE_{flow}_SCALE"] = scale
            fields[f"{f}{table}_SLOPE_SHIFT.LUT_{table}_SLOPE_{flow}_SHIFT"] = shift
    writes = []
    for table_id, depth in ((0, LE_DEPTH), (1, LO_DEPTH)):
        writes.append(("SDP", "S_LUT_ACCESS_CFG", (1 << 17) | (table_id << 16)))
        if fp:
            entries = data.values(rng, "fp16", (depth,), edges=0.0, scale=c.choice((1.0, 64.0))).view(np.uint16)
        elif c.flag(0.8):
            entries = rng.integers(-(1 << 15), 1 << 15, depth)
        else:
            entries = np.full(depth, rng.integers(-9, 9))
        writes += [("SDP", "S_LUT_ACCESS_DATA", int(v) & 0xFFFF) for v in entries]
    if c.flag(0.3):  # the port left set up to read a table back (ACCESS_TYPE READ): no data moves, no entry changes
        writes.append(("SDP", "S_LUT_ACCESS_CFG", c.choice((0, 1)) << 16))
    choices = {"precision": precision, "le_function": "LINEAR" if linear else "EXPONENT", "placements": placements,
               "magnitude": k}
    return SdpLut(precision, fields, tuple(writes), choices)
