"""golden/units/lut.py against a reference written here from the documented LUT semantics.

The reference works element by element on exact fractions: index = (x - START) / 2**SELECT (linear)
or log2(x - START) - OFFSET (exponential), hit -> y0 + (y1 - y0) * fraction, miss -> first/last entry
plus the slope, priorities as in S_LUT_CFG.  Floating point rounding (fp32 subtraction, fp17 products
and sums) is done with an IEEE round-to-nearest-even written in this file.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from golden.errors import ConfigurationError, NotModelledError
from golden.numerics.integer import as_signed
from golden.units import lut

FP17_MAX = Fraction((1 << 11) - 1) * 2 ** 21
FLT_MAX = Fraction((1 << 24) - 1) * 2 ** 104


# ---- reference arithmetic -----------------------------------------------------------------------------------

def rne(q: Fraction, man_bits: int, emin: int) -> Fraction:
    """IEEE round to nearest even with `man_bits` fraction bits and gradual underflow below 2**emin."""
    num, den = abs(q.numerator), q.denominator
    if num == 0:
        return Fraction(0)
    e = num.bit_length() - den.bit_length()
    if (num << max(-e, 0)) < (den << max(e, 0)):
        e -= 1
    k = max(e, emin) - man_bits  # the unit in the last place is 2**k
    whole, rest = divmod(num << max(-k, 0), den << max(k, 0))
    doubled = 2 * rest
    limit = den << max(k, 0)
    if doubled > limit or (doubled == limit and whole & 1):
        whole += 1
    value = Fraction(whole << k) if k >= 0 else Fraction(whole, 1 << -k)
    return value if q > 0 else -value


def fp17(q: Fraction) -> Fraction:
    """fp17 (6-bit exponent, 10-bit mantissa): RNE, no denormals (flushed), clipped, never INF."""
    r = rne(q, 10, -30)
    if abs(r) < Fraction(2) ** -30:
        return Fraction(0)
    return max(min(r, FP17_MAX), -FP17_MAX)


def fp32(q: Fraction) -> Fraction:
    return max(min(rne(q, 23, -126), FLT_MAX), -FLT_MAX)


def round_half_away(q: Fraction) -> int:
    return int(math.floor(q + Fraction(1, 2))) if q >= 0 else -int(math.floor(-q + Fraction(1, 2)))


def sat32(v: int) -> int:
    return max(min(v, 2**31 - 1), -2**31)


def index_of(d: Fraction, params, table: str):
    """(under, over, index, fraction) of one table for d = x - START (None when x <= START)."""
    depth = lut.LE_DEPTH if table == "le" else lut.LO_DEPTH
    if d is None or d <= 0:
        return True, False, 0, Fraction(0)
    if table == "le" and params.le_function == "EXPONENT":
        e = d.numerator.bit_length() - d.denominator.bit_length()
        if Fraction(2) ** e > d:
            e -= 1
        if e < params.le_index_offset:
            return True, False, 0, Fraction(0)
        index, fraction = e - params.le_index_offset, d / Fraction(2) ** e - 1
    else:
        select = params.le_index_select if table == "le" else params.lo_index_select
        v = d / Fraction(2) ** select
        index = math.floor(v)
        fraction = Fraction(math.floor((v - index) * 2**35), 2**35)
    if index >= depth - 1:
        return False, True, depth - 1, Fraction(0)
    return False, False, index, fraction


def choose(le, lo, params):
    le_hit, lo_hit = not (le[0] or le[1]), not (lo[0] or lo[1])
    if le[0] and lo[0]:
        use_lo = params.uflow_priority == "LO"
    elif le[1] and lo[1]:
        use_lo = params.oflow_priority == "LO"
    elif le_hit == lo_hit:
        use_lo = params.hybrid_priority == "LO"
    else:
        use_lo = lo_hit
    return use_lo, (lo if use_lo else le), le_hit, lo_hit


def slope(params, use_lo, over):
    name = ("lo" if use_lo else "le") + ("_oflow" if over else "_uflow")
    return getattr(params, name + "_scale"), getattr(params, name + "_shift")


def ref_int(x: int, params, tables):
    start = {t: as_signed(getattr(params, f"{t}_start"), 32) for t in ("le", "lo")}
    le = index_of(Fraction(x - start["le"]) if x > start["le"] else None, params, "le")
    lo = index_of(Fraction(x - start["lo"]) if x > start["lo"] else None, params, "lo")
    use_lo, (under, over, index, fraction), le_hit, lo_hit = choose(le, lo, params)
    table = (tables.lo if use_lo else tables.le).view(np.int16)
    if not (under or over):
        y0, y1 = int(table[index]), int(table[index + 1])
        return sat32(round_half_away(y0 + (y1 - y0) * fraction)), (under, over, le_hit, lo_hit)
    scale, shift = slope(params, use_lo, over)
    origin = as_signed(getattr(params, ("lo" if use_lo else "le") + ("_end" if over else "_start")), 32)
    bias = 2 ** params.le_index_offset if (not use_lo and under and params.le_function == "EXPONENT"
                                           and params.le_index_offset > 0) else 0
    c = sat32(round_half_away(Fraction((x - origin - bias) * scale) / Fraction(2) ** shift))
    return sat32(int(table[0 if under else -1]) + c), (under, over, le_hit, lo_hit)


def f32(bits: int) -> Fraction:
    return Fraction(float(np.array([bits], np.uint32).view(np.float32)[0]))


def f16(bits: int) -> Fraction:
    value = np.array([bits], np.uint16).view(np.float16)[0]
    return FLT_MAX * (1 if value > 0 else -1) if np.isinf(value) else Fraction(float(value))


def ref_fp(x: Fraction, params, tables):
    """x: exact value (None for NaN); returns an exact value or None (NaN)."""
    if x is None:
        return None
    d = {t: fp32(x - f32(getattr(params, f"{t}_start"))) for t in ("le", "lo")}
    le = index_of(d["le"], params, "le")
    lo = index_of(d["lo"], params, "lo")
    use_lo, (under, over, index, fraction), _, _ = choose(le, lo, params)
    table = tables.lo if use_lo else tables.le
    if not (under or over):
        a0 = fp17(1 - fraction) if fraction else Fraction(1)
        a1 = fp17(fraction)
        return fp17(fp17(a0 * f16(int(table[index]))) + fp17(a1 * f16(int(table[index + 1]))))
    scale, _ = slope(params, use_lo, over)
    origin = f32(getattr(params, ("lo" if use_lo else "le") + ("_end" if over else "_start")))
    bias = Fraction(2) ** params.le_index_offset if (not use_lo and under and params.le_function == "EXPONENT") \
        else Fraction(0)
    a = fp17(fp32(x - fp32(origin + bias)))
    return fp17(f16(int(table[0 if under else -1])) + fp17(a * f16(scale & 0xFFFF)))


def bits32(value: float) -> int:
    return int(np.array([value], np.float32).view(np.uint32)[0])


# ---- fixtures ------------------------------------------------------------------------------------------------

def int_tables(seed=1):
    rng = np.random.default_rng(seed)
    return lut.LutTables(le=rng.integers(-32768, 32768, lut.LE_DEPTH).astype(np.int16).view(np.uint16),
                         lo=rng.integers(-32768, 32768, lut.LO_DEPTH).astype(np.int16).view(np.uint16))


def fp_tables(seed=2):
    rng = np.random.default_rng(seed)
    le = rng.uniform(-4, 4, lut.LE_DEPTH).astype(np.float16)
    lo = rng.uniform(-4, 4, lut.LO_DEPTH).astype(np.float16)
    return lut.LutTables(le=le.view(np.uint16), lo=lo.view(np.uint16))


INT_CASES = {
    "linear_le_priority": lut.LutParams(
        le_function="LINEAR", le_start=-20000, le_end=-20000 + 64 * 2**7, lo_start=-30000 & 0xFFFFFFFF,
        lo_end=-30000 + 256 * 2**8, le_index_select=7, lo_index_select=8, uflow_priority="LO",
        oflow_priority="LE", hybrid_priority="LE", le_uflow_scale=-3, le_oflow_scale=7, lo_uflow_scale=5,
        lo_oflow_scale=-11, le_uflow_shift=2, le_oflow_shift=-3, lo_uflow_shift=0, lo_oflow_shift=4),
    "exponent_lo_priority": lut.LutParams(
        le_function="EXPONENT", le_start=-1000 & 0xFFFFFFFF, le_end=0x7FFFFFFF, lo_start=-5000 & 0xFFFFFFFF,
        lo_end=-5000 + 256 * 2**5, le_index_offset=3, lo_index_select=5, uflow_priority="LE",
        oflow_priority="LO", hybrid_priority="LO", le_uflow_scale=9, le_oflow_scale=-2, lo_uflow_scale=-7,
        lo_oflow_scale=3, le_uflow_shift=1, le_oflow_shift=0, lo_uflow_shift=-2, lo_oflow_shift=3),
    "negative_select": lut.LutParams(
        le_function="LINEAR", le_start=100, le_end=116, lo_start=-40, lo_end=24, le_index_select=-2,
        lo_index_select=-2, hybrid_priority="LO", le_uflow_scale=1, lo_oflow_scale=2, lo_oflow_shift=1),
}


@pytest.mark.parametrize("case", sorted(INT_CASES))
def test_int16_sweep_matches_reference(case):
    params, tables = INT_CASES[case], int_tables()
    x = np.arange(-32768, 32768, dtype=np.int64)
    result = lut.lookup(x, params, tables, "int16")
    expected = np.array([ref_int(int(v), params, tables)[0] for v in x], dtype=np.int64)
    assert np.array_equal(result.y, expected)
    flags = [ref_int(int(v), params, tables)[1] for v in x[::97]]
    assert lut.lookup(x[::97], params, tables, "int16").counters == {
        "D_PERF_LUT_UFLOW": sum(f[0] for f in flags), "D_PERF_LUT_OFLOW": sum(f[1] for f in flags),
        "D_PERF_LUT_HYBRID": sum(not (f[0] or f[1]) for f in flags),
        "D_PERF_LUT_LE_HIT": sum(f[2] for f in flags), "D_PERF_LUT_LO_HIT": sum(f[3] for f in flags)}


def test_int32_extremes_saturate():
    params, tables = INT_CASES["linear_le_priority"], int_tables()
    x = np.array([-2**31, -2**31 + 1, 2**31 - 1, 2**30], dtype=np.int64)
    expected = [ref_int(int(v), params, tables)[0] for v in x]
    assert lut.lookup(x, params, tables, "int16").y.tolist() == expected


FP_CASES = {
    "linear": lut.LutParams(
        le_function="LINEAR", le_start=bits32(-2.0), le_end=bits32(-2.0 + 64 * 2**-4), lo_start=bits32(-8.0),
        lo_end=bits32(-8.0 + 256 * 2**-5), le_index_select=-4, lo_index_select=-5, hybrid_priority="LE",
        uflow_priority="LO", oflow_priority="LE", le_uflow_scale=0x3C00, le_oflow_scale=0xB800,
        lo_uflow_scale=0x4200, lo_oflow_scale=0x3555),
    "exponential": lut.LutParams(
        le_function="EXPONENT", le_start=bits32(0.5), le_end=bits32(0.5 + 2.0**60), lo_start=bits32(-1.0),
        lo_end=bits32(-1.0 + 256 * 2**-6), le_index_offset=-4, lo_index_select=-6, hybrid_priority="LO",
        uflow_priority="LE", oflow_priority="LO", le_uflow_scale=0x3C00, le_oflow_scale=0x2E66,
        lo_uflow_scale=0xC000, lo_oflow_scale=0x3800),
}


@pytest.mark.parametrize("case", sorted(FP_CASES))
@pytest.mark.slow
def test_all_fp16_inputs_match_reference(case):
    params, tables = FP_CASES[case], fp_tables()
    h = np.arange(65536, dtype=np.uint32).astype(np.uint16)
    values = h.view(np.float16).astype(np.float32)
    values = np.where(np.isinf(values), np.copysign(np.finfo(np.float32).max, values), values)
    result = lut.lookup(values.astype(np.float32), params, tables, "fp16")
    with np.errstate(invalid="ignore"):  # signalling NaN patterns
        got = result.y.astype(np.float64)
    for bits, value in zip(h.tolist(), got.tolist(), strict=True):
        x = None if np.isnan(np.float16(np.array([bits], np.uint16).view(np.float16)[0])) else f16(bits)
        want = ref_fp(x, params, tables)
        if want is None:
            assert math.isnan(value), hex(bits)
        else:
            assert Fraction(value) == want, (hex(bits), value, float(want))
    assert sum(result.counters[k] for k in ("D_PERF_LUT_UFLOW", "D_PERF_LUT_OFLOW", "D_PERF_LUT_HYBRID")) == 65536


def test_precision_preservation_example_257_entries_over_100_300():
    """precision-preservation "LUT": LUT[i] = f(100 + 200 i / 256); input x' = (x - 100) * 256 / 200."""
    def f(x):
        return Fraction(x * x, 8)

    table = np.array([round_half_away(f(100 + Fraction(200 * i, 256))) for i in range(257)], np.int16)
    tables = lut.LutTables(lo=table.view(np.uint16))
    params = lut.LutParams(le_function="LINEAR", le_start=0x7FFFFFFE, le_end=0x7FFFFFFF, lo_start=0, lo_end=256,
                           lo_index_select=0, hybrid_priority="LO", oflow_priority="LO", uflow_priority="LO")
    x = np.arange(100, 301)
    x_prime = (x - 100) * 256 // 200  # integer part of the converted input
    y = lut.lookup(x_prime, params, tables, "int16").y
    assert np.array_equal(y, table[x_prime])
    exact = (x - 100) % 25 == 0  # x' is exact there, so the entry is f(x) itself
    assert np.array_equal(y[exact], [round_half_away(f(int(v))) for v in x[exact]])
    assert lut.lookup(np.array([-1, 257]), params, tables, "int16").counters["D_PERF_LUT_HYBRID"] == 0


def test_interpolates_between_entries():
    tables = lut.LutTables(lo=np.arange(257, dtype=np.int16) * 100)
    params = lut.LutParams(le_start=0x7FFFFFFE, le_end=0x7FFFFFFF, lo_index_select=2, hybrid_priority="LO")
    y = lut.lookup(np.array([4, 5, 6, 7, 8]), params, tables, "int16").y
    assert y.tolist() == [100, 125, 150, 175, 200]


def test_lut_ram_replays_access_port_writes():
    ram = lut.LutRam("SDP")
    assert ram.write("S_LUT_ACCESS_CFG", (1 << 17) | (1 << 16) | 5)
    for value in (7, 8, 0x1FFFF):
        ram.write("S_LUT_ACCESS_DATA", value)
    assert ram.tables.lo[5:8].tolist() == [7, 8, 0xFFFF]
    ram.write("S_LUT_ACCESS_CFG", 1 << 17)
    ram.write("S_LUT_ACCESS_DATA", 3)
    assert ram.tables.le[0] == 3
    assert not ram.write("D_OP_ENABLE", 1)
    ram.write("S_LUT_ACCESS_CFG", (1 << 17) | 65)
    with pytest.raises(ConfigurationError, match="beyond 65"):
        ram.write("S_LUT_ACCESS_DATA", 1)


def test_missing_tables_are_not_modelled():
    class Ctx:
        luts = {}

    with pytest.raises(NotModelledError):
        lut.ctx_tables(Ctx(), "SDP")


@pytest.mark.parametrize("change, field", [
    ({"le_index_select": 26}, "LUT_LE_INDEX_SELECT"),
    ({"lo_index_select": -9}, "LUT_LO_INDEX_SELECT"),
    ({"le_end": 63}, "S_LUT_LE_END"),
    ({"lo_end": 255}, "S_LUT_LO_END"),
])
def test_linear_limits(change, field):
    good = dict(le_function="LINEAR", le_start=0, le_end=64, lo_start=0, lo_end=256)
    lut.check_limits(lut.LutParams(**good), "int8", "SDP")
    with pytest.raises(ConfigurationError) as err:
        lut.check_limits(lut.LutParams(**{**good, **change}), "int8", "SDP")
    assert any(field in f for f in err.value.fields) and err.value.rule == lut.RULE


def test_exponent_limits_and_fp16_spans():
    params = lut.LutParams(le_function="EXPONENT", le_start=0, le_end=0x7FFFFFFF, le_index_offset=32,
                           lo_start=0, lo_end=256)
    with pytest.raises(ConfigurationError, match="LE_INDEX_OFFSET"):
        lut.check_limits(params, "int16", "SDP")
    lut.check_limits(lut.LutParams(**{**params.__dict__, "le_index_offset": -40, "le_end": 1 << 24}), "int16",
                     "SDP")
    lut.check_limits(FP_CASES["linear"], "fp16", "SDP")
    with pytest.raises(ConfigurationError, match="LE_END"):
        lut.check_limits(lut.LutParams(**{**FP_CASES["linear"].__dict__, "le_end": bits32(3.0)}), "fp16", "SDP")


# programming-guide Limitation/LUT, CDP column (the table, not the code): LE/LO linear INDEX_SELECT and
# exponent LE_INDEX_OFFSET ranges per precision.
CDP_RANGES = {"int8": ((-6, 15), (-8, 13), (-64, 20)), "int16": ((-6, 31), (-8, 29), (-64, 36)),
              "fp16": ((-128, 121), (-128, 119), (-126, 127))}


@pytest.mark.parametrize("precision", sorted(CDP_RANGES))
def test_cdp_index_ranges(precision):
    (le_lo, le_hi), (lo_lo, lo_hi), (off_lo, off_hi) = CDP_RANGES[precision]
    for le, lo in ((le_lo, lo_lo), (le_hi, lo_hi)):
        lut.check_index_ranges(lut.LutParams(le_index_select=le, lo_index_select=lo), precision, "CDP")
    for off in (off_lo, off_hi):
        lut.check_index_ranges(lut.LutParams(le_function="EXPONENT", le_index_offset=off), precision, "CDP")
    wrong = [(dict(le_index_select=le_hi + 1), "LUT_LE_INDEX_SELECT"),
             (dict(le_index_select=le_lo - 1), "LUT_LE_INDEX_SELECT"),
             (dict(lo_index_select=lo_hi + 1), "LUT_LO_INDEX_SELECT"),
             (dict(lo_index_select=lo_lo - 1), "LUT_LO_INDEX_SELECT"),
             (dict(le_function="EXPONENT", le_index_offset=off_hi + 1), "LUT_LE_INDEX_OFFSET"),
             (dict(le_function="EXPONENT", le_index_offset=off_lo - 1), "LUT_LE_INDEX_OFFSET")]
    for change, field in wrong:
        with pytest.raises(ConfigurationError) as err:
            lut.check_index_ranges(lut.LutParams(**change), precision, "CDP")
        assert any(field in f and f.startswith("CDP.") for f in err.value.fields) and err.value.rule == lut.RULE


def _filled_ram() -> lut.LutRam:
    """LE entry i = 1000 + i, LO entry i = 0xF000 + i (bit patterns), written as NVIDIA's traces write them."""
    ram = lut.LutRam("CDP")
    for table, depth, first in ((0, 65, 1000), (1, 257, 0xF000)):
        ram.write("S_LUT_ACCESS_CFG", (1 << 17) | (table << 16))
        for i in range(depth):
            ram.write("S_LUT_ACCESS_DATA", first + i)
    return ram


def test_cdp_lut_read_back_moves_on_and_stays_on_the_last_entry():
    ram = _filled_ram()
    # the writes left the port on the LO table's last entry (NVIDIA's address stays there: lut_end)
    assert [ram.read(), ram.read()] == [0xF000 + 256] * 2  # WRITE type: a read does not move the address
    ram.write("S_LUT_ACCESS_CFG", (1 << 16) | 254)  # READ, LO, entry 254
    assert [ram.read() for _ in range(4)] == [0xF000 + 254, 0xF000 + 255, 0xF000 + 256, 0xF000 + 256]
    ram.write("S_LUT_ACCESS_CFG", 3)  # READ, LE, entry 3
    assert [ram.read() for _ in range(2)] == [1003, 1004]
    ram.write("S_LUT_ACCESS_CFG", 100)  # beyond the LE table: entry 0 (the RTL's default case), moving on
    assert [ram.read(), ram.read()] == [1000, 1000]
