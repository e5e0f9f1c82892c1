"""The NVDLA two-level hybrid look-up table (LE and LO tables), shared by SDP (Y) and CDP.

Documents: precision-preservation "LUT" (the [100, 300] / 257-entry matching example) and
programming-guide "Limitation / LUT".  The bit behaviour the documents leave open was read from nvdla/hw
cmod/hls/sdp/sdp_y_idx.cpp, sdp_y_inp.cpp and cmod/hls_wrapper/sdp_hls_wrapper.cpp:

* Two tables: LE (65 entries, EXPONENT or LINEAR index) and LO (257 entries, always LINEAR).  Entries
  are 16 bits: int16 for the INT8/INT16 pipelines, fp16 bit patterns for FP16.
* LINEAR index: d = x - START; idx = d >> INDEX_SELECT (signed: a negative select shifts left), the
  remainder is a 35-bit fraction.  EXPONENT index: idx = floor(log2(d)) - INDEX_OFFSET, the bits below
  the leading one are the fraction.  x <= START (d <= 0 for fp) is an underflow, idx >= depth-1 an
  overflow.
* Both tables are indexed; UFLOW/OFLOW/HYBRID_PRIORITY pick the table (both underflow / both overflow
  / otherwise both hit or both miss); when exactly one hits, it is used.
* A hit interpolates y0 * (1 - f) + y1 * f (int: exact, then rounded half away from zero by 35 bits and
  saturated to int32; fp: fp17 arithmetic).  A miss extrapolates y0 + (x - (START|END) - bias) * SCALE
  >> SHIFT with y0 the first (underflow) or last (overflow) entry, SHIFT a signed 5-bit field and
  bias = 2**INDEX_OFFSET for an exponent-table underflow.
* Counters (D_PERF_LUT_*): UFLOW / OFLOW of the chosen table, LE_HIT / LO_HIT per table, HYBRID when
  the chosen table hit.

API for unit models (SDP Y and CDP):

    params = LutParams.from_regs(regs, "SDP")          # the S_LUT_* registers of the unit
    tables = ctx_tables(ctx, "SDP")                     # LE/LO contents (LutTables)
    check_limits(params, precision, "SDP")              # programming-guide Limitation/LUT
    check_index_ranges(params, precision, "CDP")       # the index ranges alone (CDP)
    result = lookup(x, params, tables, precision)       # x: int64 (int pipes) or float32 (fp16 pipe)
    result.y, result.counters                           # int64 / float32, {"D_PERF_LUT_UFLOW": n, ...}

`LutRam` replays S_LUT_ACCESS_CFG / S_LUT_ACCESS_DATA register writes into LutTables (the tables are
written through that register port, not through the double-buffered register groups).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from golden.errors import ConfigurationError, NotModelledError
from golden.numerics import corners
from golden.numerics.fp import fp16_to_fp17, fp17_to_fp32, fp32_to_fp17, fp32_values
from golden.numerics.fp_arith import fp_add, fp_mul, fp_sub
from golden.numerics.integer import as_signed, saturate, shift_left_saturate, shift_right_round

LE_DEPTH = 65
LO_DEPTH = 257
FRACTION_BITS = 35
INDEX_MAX = 511  # the 9-bit index saturates
RULE = "programming-guide: Limitation/LUT"


def is_parameter(register: str) -> bool:
    """A S_LUT_* register the datapath reads live (start, end, slopes, index, priorities): single, shared by both
    register groups (NVIDIA RTL NV_NVDLA_CDP_REG_single.v, NV_NVDLA_SDP_REG_single.v); not the table's port."""
    return register.startswith("S_LUT_") and not register.startswith("S_LUT_ACCESS")


@dataclass(frozen=True)
class LutParams:
    """S_LUT_* register fields of one unit; starts/ends are raw bits (int32 or fp32 patterns)."""

    le_function: str = "LINEAR"
    le_start: int = 0
    le_end: int = 0
    lo_start: int = 0
    lo_end: int = 0
    le_index_offset: int = 0
    le_index_select: int = 0
    lo_index_select: int = 0
    uflow_priority: str = "LE"
    oflow_priority: str = "LE"
    hybrid_priority: str = "LE"
    le_uflow_scale: int = 0
    le_oflow_scale: int = 0
    lo_uflow_scale: int = 0
    lo_oflow_scale: int = 0
    le_uflow_shift: int = 0
    le_oflow_shift: int = 0
    lo_uflow_shift: int = 0
    lo_oflow_shift: int = 0

    @classmethod
    def from_regs(cls, regs, unit: str = "SDP") -> LutParams:
        """Decode the unit's S_LUT_* registers (CDP's 38-bit START/END use their LOW/HIGH pairs)."""
        def bound(name):
            if unit == "CDP":
                return as_signed(regs.address(unit, f"S_LUT_{name}_HIGH", f"S_LUT_{name}_LOW"), 38)
            return regs.value(unit, f"S_LUT_{name}")

        def s(reg, fld, bits):
            return as_signed(regs.field(unit, reg, fld), bits)

        return cls(
            le_function=regs.enum(unit, "S_LUT_CFG", "LUT_LE_FUNCTION"),
            le_start=bound("LE_START"), le_end=bound("LE_END"),
            lo_start=bound("LO_START"), lo_end=bound("LO_END"),
            le_index_offset=s("S_LUT_INFO", "LUT_LE_INDEX_OFFSET", 8),
            le_index_select=s("S_LUT_INFO", "LUT_LE_INDEX_SELECT", 8),
            lo_index_select=s("S_LUT_INFO", "LUT_LO_INDEX_SELECT", 8),
            uflow_priority=regs.enum(unit, "S_LUT_CFG", "LUT_UFLOW_PRIORITY"),
            oflow_priority=regs.enum(unit, "S_LUT_CFG", "LUT_OFLOW_PRIORITY"),
            hybrid_priority=regs.enum(unit, "S_LUT_CFG", "LUT_HYBRID_PRIORITY"),
            le_uflow_scale=s("S_LUT_LE_SLOPE_SCALE", "LUT_LE_SLOPE_UFLOW_SCALE", 16),
            le_oflow_scale=s("S_LUT_LE_SLOPE_SCALE", "LUT_LE_SLOPE_OFLOW_SCALE", 16),
            lo_uflow_scale=s("S_LUT_LO_SLOPE_SCALE", "LUT_LO_SLOPE_UFLOW_SCALE", 16),
            lo_oflow_scale=s("S_LUT_LO_SLOPE_SCALE", "LUT_LO_SLOPE_OFLOW_SCALE", 16),
            le_uflow_shift=s("S_LUT_LE_SLOPE_SHIFT", "LUT_LE_SLOPE_UFLOW_SHIFT", 5),
            le_oflow_shift=s("S_LUT_LE_SLOPE_SHIFT", "LUT_LE_SLOPE_OFLOW_SHIFT", 5),
            lo_uflow_shift=s("S_LUT_LO_SLOPE_SHIFT", "LUT_LO_SLOPE_UFLOW_SHIFT", 5),
            lo_oflow_shift=s("S_LUT_LO_SLOPE_SHIFT", "LUT_LO_SLOPE_OFLOW_SHIFT", 5),
        )


@dataclass
class LutTables:
    """LE (65) and LO (257) entries as uint16 bit patterns (int16 or fp16 by pipeline)."""

    le: np.ndarray = field(default_factory=lambda: np.zeros(LE_DEPTH, np.uint16))
    lo: np.ndarray = field(default_factory=lambda: np.zeros(LO_DEPTH, np.uint16))

    def __post_init__(self):
        self.le = np.asarray(self.le).astype(np.uint16).copy()
        self.lo = np.asarray(self.lo).astype(np.uint16).copy()
        if self.le.shape != (LE_DEPTH,) or self.lo.shape != (LO_DEPTH,):
            raise ConfigurationError(f"LUT tables must have {LE_DEPTH} (LE) and {LO_DEPTH} (LO) entries",
                                     rule="precision-preservation: LUT", fields=("S_LUT_ACCESS_CFG.LUT_ADDR",))


class LutRam:
    """Replays S_LUT_ACCESS_CFG / S_LUT_ACCESS_DATA writes of one unit into LutTables.

    A CFG write sets the table (LUT_TABLE_ID), the address (LUT_ADDR) and the access type; each DATA
    write with ACCESS_TYPE=WRITE stores LUT_DATA and moves to the next address (as the traces do:
    one CFG write followed by 65 or 257 DATA writes).
    """

    def __init__(self, unit: str = "SDP"):
        self.unit = unit
        self.tables = LutTables()
        self._table = "le"
        self._addr = 0
        self._write = False
        self._filled = False

    def write(self, register: str, value: int) -> bool:
        """Feed one register write (name "S_LUT_ACCESS_CFG" etc.); returns whether it was a LUT access."""
        if register == "S_LUT_ACCESS_CFG":
            self._addr = value & 0x3FF
            self._table = "lo" if (value >> 16) & 1 else "le"
            self._write = bool((value >> 17) & 1)
            self._filled = False
            return True
        if register == "S_LUT_ACCESS_DATA":
            if self._write:
                table = getattr(self.tables, self._table)
                if self._addr >= table.size:
                    raise ConfigurationError(
                        f"{self.unit} LUT {self._table.upper()} address {self._addr} beyond "
                        f"{table.size} entries", fields=(f"{self.unit}.S_LUT_ACCESS_CFG.LUT_ADDR",),
                        rule="register map: S_LUT_ACCESS_CFG")
                table[self._addr] = value & 0xFFFF
                self._filled = self._addr == table.size - 1  # NVIDIA's address stays on the last entry (lut_end)
            self._addr += 1
            return True
        return False

    def read(self) -> int:
        """A CSB read of S_LUT_ACCESS_DATA as NVIDIA's CDP answers it: the entry at the port's address, 16 bits
        zero-extended (vmod NV_NVDLA_CDP_DP_lut.v raw_out / density_out, entry 0 for an address beyond the table;
        NV_NVDLA_CDP_REG_single.v s_lut_access_data_0_out); with ACCESS_TYPE READ the address then moves on, and
        stays on the table's last entry, where the writes that filled the table left it too (NV_NVDLA_CDP_reg.v
        reg2dp_lut_data_rd_trigger, lut_end)."""
        table = getattr(self.tables, self._table)
        last = table.size - 1
        addr = last if self._filled and self._addr == table.size else self._addr
        value = int(table[addr]) if addr <= last else int(table[0])
        if not self._write and addr != last:
            addr = (addr + 1) & 0x3FF
        self._addr = addr
        return value


def ctx_tables(ctx, unit: str) -> LutTables:
    """The LUT contents of `unit` handed to a unit model (LayerContext.luts[unit])."""
    luts = getattr(ctx, "luts", None) or {}
    if unit not in luts:
        raise NotModelledError(f"{unit} LUT contents were not provided to the model (LayerContext.luts)",
                               unit=unit)
    tables = luts[unit]
    return tables.tables if isinstance(tables, LutRam) else tables


@dataclass
class LutResult:
    y: np.ndarray
    counters: dict[str, int]


# ---- limits ------------------------------------------------------------------------------------------------

#: programming-guide Limitation/LUT: the linear (LE, LO) INDEX_SELECT ranges per unit and precision.
SELECT_LIMITS = {
    ("SDP", "int8"): ((-6, 25), (-8, 23)), ("SDP", "int16"): ((-6, 25), (-8, 23)),
    ("CDP", "int8"): ((-6, 15), (-8, 13)), ("CDP", "int16"): ((-6, 31), (-8, 29)),
    ("SDP", "fp16"): ((-128, 121), (-128, 119)), ("CDP", "fp16"): ((-128, 121), (-128, 119)),
}
#: programming-guide Limitation/LUT: the exponent LE_INDEX_OFFSET range per unit and precision.
OFFSET_LIMITS = {("SDP", "int8"): (-64, 31), ("SDP", "int16"): (-64, 31), ("CDP", "int8"): (-64, 20),
                 ("CDP", "int16"): (-64, 36), ("SDP", "fp16"): (-126, 127), ("CDP", "fp16"): (-126, 127)}


def _fp32(bits: int) -> float:
    return float(np.array([bits & 0xFFFFFFFF], np.uint32).view(np.float32)[0])


def index_problems(params: LutParams, precision: str, unit: str) -> dict[str, str]:
    """programming-guide Limitation/LUT: "LE" / "LO" (a linear table's INDEX_SELECT) or "OFFSET" (an exponent
    LE table's INDEX_OFFSET) -> the message, for each one out of its range."""
    le_sel, lo_sel = SELECT_LIMITS[unit, precision]
    checks = [("LO", params.lo_index_select, lo_sel)]
    if params.le_function == "LINEAR":
        checks.append(("LE", params.le_index_select, le_sel))
    problems = {name: f"linear {name}_INDEX_SELECT {value} outside [{lo}, {hi}] for {unit} {precision}"
                for name, value, (lo, hi) in checks if not lo <= value <= hi}
    lo, hi = OFFSET_LIMITS[unit, precision]
    if params.le_function != "LINEAR" and not lo <= params.le_index_offset <= hi:
        problems["OFFSET"] = (f"exponent LE_INDEX_OFFSET {params.le_index_offset} outside [{lo}, {hi}] for {unit} "
                              f"{precision}")
    return problems


def span_problem(params: LutParams, precision: str, table: str) -> str | None:
    """programming-guide Limitation/LUT: SDP's table END - START equals the span its index configuration covers
    (fp16: fp32 START/END, the sum clipped at FP32_MAX; int: 32-bit, clipped at INT32_MAX)."""
    if table == "LO":
        start, end, span = params.lo_start, params.lo_end, 2.0 ** (params.lo_index_select + 8)
    elif params.le_function == "LINEAR":
        start, end, span = params.le_start, params.le_end, 2.0 ** (params.le_index_select + 6)
    else:
        start, end, span = params.le_start, params.le_end, 2.0 ** (params.le_index_offset + 64)
    if precision == "fp16":
        s, e = _fp32(start), _fp32(end)
        expected = np.float32(min(np.float64(s) + span, float(np.finfo(np.float32).max)))
        ok = np.float32(e) == expected
    else:
        s, e = as_signed(start, 32), as_signed(end, 32)
        ok = e - s == min(span, 2.0**31 - 1) or (e == 2**31 - 1 and s + span > e)
    return None if ok else f"{table}_END - {table}_START must equal {span:g} for this index configuration"


def check_index_ranges(params: LutParams, precision: str, unit: str) -> None:
    """ConfigurationError for the first index_problems (the LO select first)."""
    f = f"{unit}.S_LUT_INFO.LUT_"
    fields = {"LO": f"{f}LO_INDEX_SELECT", "LE": f"{f}LE_INDEX_SELECT", "OFFSET": f"{f}LE_INDEX_OFFSET"}
    for name, message in index_problems(params, precision, unit).items():
        raise ConfigurationError(message, fields=(fields[name],), rule=RULE)


def check_limits(params: LutParams, precision: str, unit: str = "SDP") -> None:
    """ConfigurationError for the first index or span problem (golden/units/sdp/lut_rules.py registers the same
    checks as rules; CDP's 38-bit spans are golden/units/cdp/rules.py's)."""
    check_index_ranges(params, precision, unit)
    for table in ("LO", "LE"):
        message = span_problem(params, precision, table)
        if message is not None:
            raise ConfigurationError(message, fields=(f"{unit}.S_LUT_{table}_START", f"{unit}.S_LUT_{table}_END"),
                                     rule=RULE)


# ---- index -------------------------------------------------------------------------------------------------

def _index_linear_int(x, start, select, depth):
    d = x - start
    under = x <= start
    d = np.where(under, 0, d)
    if select >= 0:
        idx = d >> min(select, 40)  # d < 2**32
        low = d & ((1 << min(select, 40)) - 1)
        frac = low << (FRACTION_BITS - select) if select <= FRACTION_BITS else low >> (select - FRACTION_BITS)
    else:
        idx = d << min(-select, 10)  # any d >= 1 shifted by 10 already exceeds the 9-bit index
        frac = np.zeros_like(d)
    idx = np.minimum(idx, INDEX_MAX)
    return _flags(under, idx, frac, depth)


def _index_exponent_int(x, start, offset, depth):
    d = x - start
    under = x <= start
    d = np.where(under, 1, d)
    log2 = np.frexp(d.astype(np.float64))[1].astype(np.int64) - 1  # exact for d < 2**53
    fraction_bits = d - np.left_shift(np.int64(1), log2)
    under |= log2 < offset
    idx = np.where(under, 0, log2 - offset)
    frac = fraction_bits << (FRACTION_BITS - log2)
    return _flags(under, idx, frac, depth)


def _flags(under, idx, frac, depth):
    over = ~under & (idx >= depth - 1)
    idx = np.where(under, 0, np.where(over, depth - 1, idx))
    frac = np.where(under | over, 0, frac)
    return under, over, idx, frac


def _fp_difference(x, start_bits):
    d = fp32_values(fp_sub(x, np.uint32(start_bits & 0xFFFFFFFF), "fp32"))
    under = np.isnan(d) | (d <= 0)
    return np.where(under, np.float32(1), d).astype(np.float64), under


def _index_linear_fp(x, start_bits, select, depth):
    d, under = _fp_difference(x, start_bits)
    scaled = np.ldexp(d, -select)
    integer = np.floor(scaled)
    frac = np.floor((scaled - integer) * 2.0**FRACTION_BITS).astype(np.int64)
    idx = np.minimum(integer, INDEX_MAX).astype(np.int64)
    return _flags(under, idx, frac, depth)


def _index_exponent_fp(x, start_bits, offset, depth):
    d, under = _fp_difference(x, start_bits)
    bits = d.astype(np.float32).view(np.uint32).astype(np.int64)
    exponent = ((bits >> 23) & 0xFF) - 127
    under |= exponent < offset
    idx = np.where(under, 0, exponent - offset)
    frac = (bits & 0x7FFFFF) << (FRACTION_BITS - 23)
    return _flags(under, idx, frac, depth)


def _choose(le, lo, params):
    """Pick LE or LO per element by the priorities; returns (use_lo, under, over, idx, frac)."""
    le_under, le_over, _, _ = le
    lo_under, lo_over, _, _ = lo
    le_hit = ~(le_under | le_over)
    lo_hit = ~(lo_under | lo_over)
    both_under = le_under & lo_under
    both_over = le_over & lo_over
    hybrid = ~both_under & ~both_over & (le_hit == lo_hit)
    use_lo = ((both_under & (params.uflow_priority == "LO")) | (both_over & (params.oflow_priority == "LO"))
              | (hybrid & (params.hybrid_priority == "LO")) | (lo_hit & ~le_hit))
    chosen = [np.where(use_lo, b, a) for a, b in zip(le, lo, strict=True)]
    return use_lo, chosen, le_hit, lo_hit


# ---- output ------------------------------------------------------------------------------------------------

def _entries(tables, use_lo, idx, precision):
    le = tables.le.view(np.int16) if precision != "fp16" else tables.le
    lo = tables.lo.view(np.int16) if precision != "fp16" else tables.lo
    le_i = np.minimum(idx, LE_DEPTH - 1)
    y0 = np.where(use_lo, lo[idx], le[le_i])
    y1 = np.where(use_lo, lo[np.minimum(idx + 1, LO_DEPTH - 1)], le[np.minimum(le_i + 1, LE_DEPTH - 1)])
    return y0, y1


def _flow_operands(params, use_lo, over, under, precision):
    """Per element (offset, scale, shift, bias) of the extrapolation."""
    def pick(le_u, le_o, lo_u, lo_o):
        return np.where(use_lo, np.where(over, lo_o, lo_u), np.where(over, le_o, le_u))

    offset = pick(params.le_start, params.le_end, params.lo_start, params.lo_end)
    scale = pick(params.le_uflow_scale, params.le_oflow_scale, params.lo_uflow_scale, params.lo_oflow_scale)
    shift = pick(params.le_uflow_shift, params.le_oflow_shift, params.lo_uflow_shift, params.lo_oflow_shift)
    exp_under = (~use_lo) & under & (params.le_function == "EXPONENT")
    if precision == "fp16":
        bias = np.where(exp_under, np.float32(2.0**params.le_index_offset), np.float32(0))
    else:
        bias = np.where(exp_under & (params.le_index_offset > 0), 1 << max(params.le_index_offset, 0), 0)
    return offset, scale, shift, bias


def _fp17_bits(values) -> np.ndarray:
    """float64 values exactly representable in fp32 -> fp17 patterns (RNE, no denormals, clipped)."""
    return fp32_to_fp17(np.asarray(values, np.float64).astype(np.float32))


def _fp16_as_fp17(h) -> np.ndarray:
    return fp16_to_fp17(np.asarray(h, np.int64).astype(np.uint16))


def _fraction_to_fp17(frac) -> np.ndarray:
    """cmod FpFractionToFloat: a 35-bit fraction to fp17, RNE; values below 2**-30 become 0."""
    v = frac.astype(np.float64) * 2.0**-FRACTION_BITS
    mant, exp = np.frexp(v)
    rounded = np.ldexp(np.rint(np.ldexp(mant, 11)), exp - 11)
    keep = (exp >= -29) | ((exp == -30) & (rounded >= 2.0**-30))
    return np.where(keep & (frac != 0), rounded, 0.0)


def _interpolate_int(y0, y1, frac):
    acc = y0.astype(np.int64) * ((1 << FRACTION_BITS) - frac) + y1.astype(np.int64) * frac
    corners.rounding("sdp.lut.interp.round", acc, FRACTION_BITS)
    return saturate(shift_right_round(acc, FRACTION_BITS), 32)[0]


def _extrapolate_int(x, y0, offset, scale, shift, bias):
    product = (x - (bias + as_signed(offset, 32))) * scale
    corners.rounding("sdp.lut.extrap.round", product, np.maximum(shift, 0))
    right = saturate(shift_right_round(product, np.maximum(shift, 0)), 32)[0]
    left = shift_left_saturate(np.where(shift < 0, product, 0), np.maximum(-shift, 0), 32)[0]
    c = np.where(shift < 0, left, right)
    corners.saturation("sdp.lut.extrap.saturate", y0.astype(np.int64) + c, 32)
    return saturate(y0.astype(np.int64) + c, 32)[0]


def _interpolate_fp(y0, y1, frac):
    """fp17: (1 - f) * y0 + f * y1, the weights from the 35-bit fraction (1.0 when f is 0)."""
    a0 = _fp17_bits(np.where(frac == 0, 1.0, _fraction_to_fp17((1 << FRACTION_BITS) - frac)))
    a1 = _fp17_bits(_fraction_to_fp17(frac))
    b0 = fp_mul(a0, _fp16_as_fp17(y0), "fp17")
    b1 = fp_mul(a1, _fp16_as_fp17(y1), "fp17")
    return fp17_to_fp32(fp_add(b0, b1, "fp17"))


def _extrapolate_fp(x, y0, offset, scale, bias):
    """fp32 x - (START|END + bias), then fp17: y0 + that * slope scale."""
    ob = fp_add(np.asarray(offset, np.int64).astype(np.uint32), bias, "fp32")
    a = fp32_to_fp17(fp_sub(x, ob, "fp32"))
    b = fp_mul(a, _fp16_as_fp17(np.asarray(scale, np.int64).astype(np.uint16)), "fp17")
    return fp17_to_fp32(fp_add(_fp16_as_fp17(y0), b, "fp17"))


def lookup(x, params: LutParams, tables: LutTables, precision: str) -> LutResult:
    """Run the hybrid LUT over x (int pipes: int64 within int32; fp16 pipe: float32 values)."""
    with np.errstate(invalid="ignore", over="ignore"):  # NaN inputs propagate, overflow is clipped
        return _lookup(x, params, tables, precision)


def _lookup(x, params, tables, precision):
    if precision == "fp16":
        x = np.asarray(x, np.float32)
        le = (_index_exponent_fp(x, params.le_start, params.le_index_offset, LE_DEPTH)
              if params.le_function == "EXPONENT" else
              _index_linear_fp(x, params.le_start, params.le_index_select, LE_DEPTH))
        lo = _index_linear_fp(x, params.lo_start, params.lo_index_select, LO_DEPTH)
    else:
        x = np.asarray(x, np.int64)
        le_start, lo_start = as_signed(params.le_start, 32), as_signed(params.lo_start, 32)
        le = (_index_exponent_int(x, le_start, params.le_index_offset, LE_DEPTH)
              if params.le_function == "EXPONENT" else
              _index_linear_int(x, le_start, params.le_index_select, LE_DEPTH))
        lo = _index_linear_int(x, lo_start, params.lo_index_select, LO_DEPTH)
    use_lo, (under, over, idx, frac), le_hit, lo_hit = _choose(le, lo, params)
    y0, y1 = _entries(tables, use_lo, idx, precision)
    flow = under | over
    offset, scale, shift, bias = _flow_operands(params, use_lo, over, under, precision)
    if precision == "fp16":
        hit_y = _interpolate_fp(y0, y1, frac)
        flow_y = _extrapolate_fp(x, y0, offset, scale, bias)
        y = fp32_values(np.where(flow, flow_y, hit_y).astype(np.uint32))
    else:
        flow_y = _extrapolate_int(x, y0, offset, scale, shift, bias)
        y = np.where(flow, flow_y, _interpolate_int(y0, y1, frac))
    counters = {
        "D_PERF_LUT_UFLOW": int(np.count_nonzero(under)),
        "D_PERF_LUT_OFLOW": int(np.count_nonzero(over)),
        "D_PERF_LUT_HYBRID": int(np.count_nonzero(~flow)),
        "D_PERF_LUT_LE_HIT": int(np.count_nonzero(le_hit)),
        "D_PERF_LUT_LO_HIT": int(np.count_nonzero(lo_hit)),
    }
    return LutResult(y=y, counters=counters)
