"""golden.numerics.fp_arith against exact rational arithmetic written here.

Reference rules (in-memory-data-formats "FP16 Supporting" / "Rounding"): the exact result rounded to
nearest even at the format's precision; a result below the smallest normal is a zero (no denormals in
fp17/fp32); a result above the largest finite value is clipped to it; NaN propagates.  Two facts are
the C model's (nvdla/hw cmod/hls/include/nvdla_float.h): an exact zero sum takes the sign of the operand
with the larger (exponent, mantissa), the first on a tie; the first NaN operand is returned unchanged.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from golden.errors import ConfigurationError
from golden.numerics import fp_arith

LAYOUT = {"fp17": (6, 10), "fp32": (8, 23)}


def decode(bits: int, e_bits: int, m_bits: int) -> Fraction:
    s, e, m = bits >> (e_bits + m_bits), (bits >> m_bits) & ((1 << e_bits) - 1), bits & ((1 << m_bits) - 1)
    if e == 0 and m == 0:
        return Fraction(0)
    bias = (1 << (e_bits - 1)) - 1
    v = Fraction((1 << m_bits) + m, 1 << m_bits) * Fraction(2) ** (e - bias)
    return -v if s else v


def encode(value: Fraction, zero_sign: int, e_bits: int, m_bits: int) -> int:
    bias = (1 << (e_bits - 1)) - 1
    if value == 0:
        return zero_sign << (e_bits + m_bits)
    sign = int(value < 0)
    v = abs(value)
    k = v.numerator.bit_length() - v.denominator.bit_length()
    if Fraction(2) ** k > v:
        k -= 1
    q = round(v / Fraction(2) ** (k - m_bits))  # Python rounds Fractions half to even
    if q == 1 << (m_bits + 1):
        q, k = q >> 1, k + 1
    if k + bias >= (1 << e_bits) - 1:  # clip, never INF
        return sign << (e_bits + m_bits) | (((1 << e_bits) - 2) << m_bits) | ((1 << m_bits) - 1)
    if k + bias <= 0:  # below the smallest normal: zero
        return sign << (e_bits + m_bits)
    return sign << (e_bits + m_bits) | ((k + bias) << m_bits) | (q - (1 << m_bits))


def ref_add(a: int, b: int, e_bits: int, m_bits: int) -> int:
    total = decode(a, e_bits, m_bits) + decode(b, e_bits, m_bits)
    mag_a, mag_b = a & ~(1 << (e_bits + m_bits)), b & ~(1 << (e_bits + m_bits))
    first = a if mag_a >= mag_b else b
    return encode(total, first >> (e_bits + m_bits), e_bits, m_bits)


def ref_mul(a: int, b: int, e_bits: int, m_bits: int) -> int:
    prod = decode(a, e_bits, m_bits) * decode(b, e_bits, m_bits)
    return encode(prod, (a ^ b) >> (e_bits + m_bits), e_bits, m_bits)


def normal_or_zero(fmt: str):
    e_bits, m_bits = LAYOUT[fmt]
    normal = st.builds(
        lambda s, e, m: s << (e_bits + m_bits) | e << m_bits | m,
        st.integers(0, 1), st.integers(1, (1 << e_bits) - 2), st.integers(0, (1 << m_bits) - 1),
    )
    return st.one_of(normal, st.sampled_from([0, 1 << (e_bits + m_bits)]))


def pairs(fmt: str):
    """Operand pairs, half of them close in exponent (cancellation, rounding ties)."""
    e_bits, m_bits = LAYOUT[fmt]
    near = st.tuples(normal_or_zero(fmt), st.integers(-(3 << m_bits), 3 << m_bits), st.integers(0, 1)).map(
        lambda t: (t[0], (t[0] + t[1]) % (1 << (e_bits + m_bits)) | t[2] << (e_bits + m_bits))
    )
    return st.lists(st.one_of(st.tuples(normal_or_zero(fmt), normal_or_zero(fmt)), near), min_size=1, max_size=60)


def _without_special(a: int, e_bits: int, m_bits: int) -> bool:
    e, m = (a >> m_bits) & ((1 << e_bits) - 1), a & ((1 << m_bits) - 1)
    return e != (1 << e_bits) - 1 and not (e == 0 and m != 0)


@pytest.mark.parametrize("fmt", ["fp17", "fp32"])
@pytest.mark.parametrize("op, ref", [(fp_arith.fp_add, ref_add), (fp_arith.fp_mul, ref_mul)])
def test_against_exact_reference(fmt, op, ref):
    e_bits, m_bits = LAYOUT[fmt]

    @given(pairs(fmt))
    @settings(max_examples=40, deadline=None)
    def check(ps):
        ps = [p for p in ps if _without_special(p[0], e_bits, m_bits) and _without_special(p[1], e_bits, m_bits)]
        if not ps:
            return
        a = np.array([p[0] for p in ps], dtype=np.uint32)
        b = np.array([p[1] for p in ps], dtype=np.uint32)
        assert op(a, b, fmt).tolist() == [ref(x, y, e_bits, m_bits) for x, y in ps]

    check()


@pytest.mark.parametrize("fmt", ["fp17", "fp32"])
def test_random_batch_against_exact_reference(fmt):
    e_bits, m_bits = LAYOUT[fmt]
    rng = np.random.default_rng(7)
    n = 4000
    sign = rng.integers(0, 2, n) << (e_bits + m_bits)
    ea = rng.integers(1, (1 << e_bits) - 1, n)
    eb = np.clip(ea + rng.integers(-(m_bits + 4), m_bits + 5, n), 1, (1 << e_bits) - 2)
    a = (sign | ea << m_bits | rng.integers(0, 1 << m_bits, n)).astype(np.uint32)
    b = (rng.integers(0, 2, n) << (e_bits + m_bits) | eb << m_bits | rng.integers(0, 1 << m_bits, n))
    b = b.astype(np.uint32)
    got_add = fp_arith.fp_add(a, b, fmt).tolist()
    got_mul = fp_arith.fp_mul(a, b, fmt).tolist()
    for i, (x, y) in enumerate(zip(a.tolist(), b.tolist(), strict=True)):
        assert got_add[i] == ref_add(x, y, e_bits, m_bits), (hex(x), hex(y))
        assert got_mul[i] == ref_mul(x, y, e_bits, m_bits), (hex(x), hex(y))


def test_fp32_matches_ieee_float32_in_the_normal_range():
    rng = np.random.default_rng(3)
    a = rng.standard_normal(200_000).astype(np.float32) * np.float32(1e3)
    b = rng.standard_normal(200_000).astype(np.float32)
    for op, ieee in ((fp_arith.fp_add, np.add), (fp_arith.fp_mul, np.multiply), (fp_arith.fp_sub, np.subtract)):
        expected = ieee(a, b)
        ok = (np.abs(expected) >= np.finfo(np.float32).tiny) & np.isfinite(expected)
        got = op(a, b, "fp32")
        np.testing.assert_array_equal(got[ok], expected[ok].view(np.uint32))


def test_explicit_cases_fp32():
    one, m_one = 0x3F800000, 0xBF800000
    fmax = 0x7F7FFFFF
    assert fp_arith.fp_add(one, m_one).tolist() == 0x00000000  # first operand positive
    assert fp_arith.fp_add(m_one, one).tolist() == 0x80000000  # cmod: sign of the first on a tie
    assert fp_arith.fp_add(fmax, fmax).tolist() == fmax  # overflow clips, never INF
    assert fp_arith.fp_mul(fmax, 0x40000000).tolist() == fmax
    assert fp_arith.fp_mul(0x00800000, 0x3F000000).tolist() == 0x00000000  # 2**-127 flushed
    assert fp_arith.fp_mul(0x80800000, 0x3F000000).tolist() == 0x80000000
    # 1.5 * 2**-126 - 2**-126 = 2**-127 is a denormal: flushed to zero
    assert fp_arith.fp_sub(0x00C00000, 0x00800000).tolist() == 0x00000000
    # significands 9539072 * 14753792 = 2**46 * (2 - 2**-24): a tie just under 2**-126 rounds up to it
    a = (0 << 23) | (1 << 23) | (9539072 - (1 << 23))  # exponent field 1
    b = (126 << 23) | (14753792 - (1 << 23))
    assert fp_arith.fp_mul(a, b).tolist() == 0x00800000
    assert ref_mul(a, b, 8, 23) == 0x00800000


def test_nan_propagation_first_operand_wins():
    nan_a, nan_b, one = 0x7F800123, 0xFF800456, 0x3F800000
    for op in (fp_arith.fp_add, fp_arith.fp_mul):
        assert op(nan_a, nan_b).tolist() == nan_a
        assert op(one, nan_b).tolist() == nan_b
        assert op(nan_a, one).tolist() == nan_a
    assert fp_arith.fp_sub(one, nan_b).tolist() == 0x7F800456  # cmod flips b's sign before adding
    h_nan = 0x7C01
    assert fp_arith.fp_max(0x3C00, h_nan).tolist() == h_nan
    assert fp_arith.fp_min(h_nan, 0xFC01).tolist() == h_nan


def ref_max_fp16(a: int, b: int) -> int:
    fa, fb = (np.array([a, b], dtype=np.uint16).view(np.float16)).astype(np.float64).tolist()
    if fa != fa:
        return a
    if fb != fb:
        return b
    if fa != fb:
        return a if fa > fb else b
    # equal values (incl. +0 / -0): the cmod picks a unless b is the positive one of a signed pair
    if a >> 15 and not b >> 15:
        return b
    return a


def test_fp16_max_min_exhaustive_against_order():
    rng = np.random.default_rng(11)
    a = rng.integers(0, 1 << 16, 100_000).astype(np.uint16)
    b = np.where(rng.random(100_000) < 0.1, a ^ 0x8000, rng.integers(0, 1 << 16, 100_000)).astype(np.uint16)
    got_max = fp_arith.fp_max(a, b, "fp16")
    fa, fb = a.view(np.float16).astype(np.float64), b.view(np.float16).astype(np.float64)
    clean = ~np.isnan(fa) & ~np.isnan(fb) & (fa != fb)
    np.testing.assert_array_equal(got_max[clean], np.where(fa > fb, a, b)[clean])
    got_min = fp_arith.fp_min(a, b, "fp16")
    np.testing.assert_array_equal(got_min[clean], np.where(fa < fb, a, b)[clean])
    sample = np.flatnonzero(~clean)[:2000]
    assert got_max[sample].tolist() == [ref_max_fp16(int(a[i]), int(b[i])) for i in sample]


def test_bad_format_is_a_configuration_error():
    with pytest.raises(ConfigurationError):
        fp_arith.fp_add(np.array([0], dtype=np.uint16), np.array([0], dtype=np.uint16), "fp16")
