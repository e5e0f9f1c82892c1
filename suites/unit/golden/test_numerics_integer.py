"""golden.numerics.integer against a pure-Python integer reference written here.

Reference rules (precision-preservation.md): round half away from zero after a right shift, then
saturate; overflow counted on the rounded value.  Python ints never overflow, so the reference is exact.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from golden.errors import ConfigurationError
from golden.numerics import integer

SETTINGS = settings(max_examples=60, deadline=None)


def ref_shift_round(v: int, s: int) -> int:
    if s == 0:
        return v
    q, r = divmod(abs(v), 1 << s)
    if 2 * r >= 1 << s:
        q += 1
    return q if v >= 0 else -q


def ref_sat(v: int, bits: int) -> tuple[int, bool]:
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return min(max(v, lo), hi), not lo <= v <= hi


def ref_many(values, fn):
    outs = [fn(v) for v in values]
    return [o[0] for o in outs], sum(o[1] for o in outs)


bits_st = st.sampled_from([8, 16, 32])
int32_st = st.integers(-(1 << 31), (1 << 31) - 1)


# ---- explicit halves: round half away from zero ---------------------------------------------------------

@pytest.mark.parametrize(
    "x, shift, expected",
    [
        (1, 1, 1), (-1, 1, -1),        # +/-0.5 -> +/-1
        (3, 1, 2), (-3, 1, -2),        # +/-1.5 -> +/-2
        (5, 1, 3), (-5, 1, -3),        # +/-2.5 -> +/-3 (not to even)
        (7, 1, 4), (-7, 1, -4),        # +/-3.5
        (2, 2, 1), (-2, 2, -1),        # +/-0.5 with shift 2
        (6, 2, 2), (-6, 2, -2),        # +/-1.5
        (1, 2, 0), (-1, 2, 0),         # +/-0.25 -> 0
        (3, 2, 1), (-3, 2, -1),        # +/-0.75 -> +/-1
        (1 << 30, 31, 1), (-(1 << 30), 31, -1),
        ((1 << 30) - 1, 31, 0), (-(1 << 30) + 1, 31, 0),
        (12345, 0, 12345), (-12345, 0, -12345),
    ],
)
def test_shift_right_round_halves(x, shift, expected):
    assert integer.shift_right_round(np.array([x]), shift)[0] == expected
    assert integer.shift_right_round(np.array([x]), np.array([shift]))[0] == expected


def test_convertor_halves_explicit():
    # (x - 0) * 1 >> 1 on odd x gives exact halves: -1.5 -> -2, -0.5 -> -1, 0.5 -> 1, 1.5 -> 2;
    # 127.5 -> 128 overflows int8 (counted), -127.5 -> -128 is in range (not counted)
    y, count = integer.convertor(np.array([-3, -1, 1, 3, 255, -255]), 0, 1, 1, 8)
    assert y.tolist() == [-2, -1, 1, 2, 127, -128]
    assert count == 1
    # with an offset: (x - 1) * 3 >> 2 = 0.75*(x-1); x=3 -> 1.5 -> 2, x=-1 -> -1.5 -> -2
    y, _ = integer.convertor(np.array([3, -1]), 1, 3, 2, 16)
    assert y.tolist() == [2, -2]


@given(st.lists(st.integers(-(1 << 61), (1 << 61) - 1), min_size=1, max_size=40), st.integers(0, 70))
@SETTINGS
def test_shift_right_round_matches_reference(values, shift):
    got = integer.shift_right_round(np.array(values, dtype=np.int64), shift)
    assert got.tolist() == [ref_shift_round(v, shift) for v in values]


@given(st.lists(st.tuples(st.integers(-(1 << 50), 1 << 50), st.integers(0, 63)), min_size=1, max_size=40))
@SETTINGS
def test_shift_right_round_array_shift(pairs):
    x = np.array([p[0] for p in pairs], dtype=np.int64)
    s = np.array([p[1] for p in pairs], dtype=np.int64)
    assert integer.shift_right_round(x, s).tolist() == [ref_shift_round(v, k) for v, k in pairs]


@given(st.lists(st.integers(-(1 << 62), (1 << 62) - 1), min_size=1, max_size=40), bits_st)
@SETTINGS
def test_saturate_matches_reference(values, bits):
    y, count = integer.saturate(np.array(values, dtype=np.int64), bits)
    exp, exp_count = ref_many(values, lambda v: ref_sat(v, bits))
    assert y.tolist() == exp and count == exp_count


@given(
    st.lists(int32_st, min_size=1, max_size=40),
    int32_st,
    st.integers(-(1 << 15), (1 << 15) - 1),
    st.integers(0, 31),
    bits_st,
)
@SETTINGS
def test_convertor_matches_reference(values, offset, scale, shift, bits):
    y, count = integer.convertor(np.array(values, dtype=np.int64), offset, scale, shift, bits)
    exp, exp_count = ref_many(values, lambda v: ref_sat(ref_shift_round((v - offset) * scale, shift), bits))
    assert y.tolist() == exp and count == exp_count


@given(st.lists(int32_st, min_size=4, max_size=4), st.lists(int32_st, min_size=4, max_size=4))
@SETTINGS
def test_convertor_per_channel_operands(values, offsets):
    x = np.array(values, dtype=np.int64)
    scales = np.array([1, -1, 3, -32768])
    y, count = integer.convertor(x, np.array(offsets), scales, 2, 16)
    exp, exp_count = ref_many(
        range(4), lambda i: ref_sat(ref_shift_round((values[i] - offsets[i]) * int(scales[i]), 2), 16)
    )
    assert y.tolist() == exp and count == exp_count


def test_convertor_extremes_do_not_overflow_int64():
    x = np.array([(1 << 31) - 1, -(1 << 31)], dtype=np.int64)
    y, count = integer.convertor(x, -(1 << 31), -(1 << 15), 0, 32)
    assert y.tolist() == [-(1 << 31), 0] and count == 1  # (2**32 - 1) * -2**15 saturates; 0 * scale = 0
    y, count = integer.convertor(x, (1 << 31) - 1, -(1 << 15), 31, 32)
    raw = [(v - ((1 << 31) - 1)) * -(1 << 15) for v in x.tolist()]
    assert y.tolist() == [ref_sat(ref_shift_round(r, 31), 32)[0] for r in raw]


@given(st.lists(st.integers(-(1 << 48), 1 << 48), min_size=1, max_size=40), st.integers(0, 63), bits_st)
@SETTINGS
def test_truncate_matches_reference(values, lsb, bits):
    y, count = integer.truncate(np.array(values, dtype=np.int64), lsb, bits)
    exp, exp_count = ref_many(values, lambda v: ref_sat(ref_shift_round(v, lsb), bits))
    assert y.tolist() == exp and count == exp_count


def test_truncate_halves_explicit():
    # lsb=4: x = 8 is +0.5, 24 is +1.5, -8 is -0.5, -24 is -1.5
    y, count = integer.truncate(np.array([8, 24, -8, -24, 7, -7]), 4, 8)
    assert y.tolist() == [1, 2, -1, -2, 0, 0] and count == 0


@given(st.lists(st.integers(-(1 << 40), 1 << 40), min_size=1, max_size=40), st.integers(0, 63), bits_st)
@SETTINGS
def test_shift_left_saturate_matches_reference(values, shift, bits):
    y, count = integer.shift_left_saturate(np.array(values, dtype=np.int64), shift, bits)
    exp, exp_count = ref_many(values, lambda v: ref_sat(v << shift, bits))
    assert y.tolist() == exp and count == exp_count


@given(
    st.lists(st.integers(0, (1 << 16) - 1), min_size=1, max_size=40),
    st.integers(-(1 << 15), (1 << 15) - 1),
    st.integers(-(1 << 15), (1 << 15) - 1),
    st.integers(0, 63),
    st.sampled_from([8, 16]),
)
@SETTINGS
def test_pixel_to_int_matches_reference(values, offset, scale, trunc, bits):
    y, count = integer.pixel_to_int(np.array(values, dtype=np.uint16), offset, scale, trunc, bits)
    exp, exp_count = ref_many(values, lambda v: ref_sat(ref_shift_round((v - offset) * scale, trunc), bits))
    assert y.tolist() == exp and count == exp_count


def test_int8_int16_convert_both_ways():
    x16 = np.array([-32768, -300, -1, 0, 1, 300, 32767])
    y, count = integer.int8_int16_convert(x16, 0, 1, 2, 8)
    exp, exp_count = ref_many(x16.tolist(), lambda v: ref_sat(ref_shift_round(v, 2), 8))
    assert y.tolist() == exp and count == exp_count
    x8 = np.arange(-128, 128)
    y, count = integer.int8_int16_convert(x8, -5, 300, 0, 16)
    exp, exp_count = ref_many(x8.tolist(), lambda v: ref_sat((v + 5) * 300, 16))
    assert y.tolist() == exp and count == exp_count


@pytest.mark.parametrize(
    "call",
    [
        lambda: integer.convertor(np.arange(3), 1 << 31, 1, 0, 8),
        lambda: integer.convertor(np.arange(3), 0, 1 << 15, 0, 8),
        lambda: integer.convertor(np.arange(3), 0, 1, 32, 8),
        lambda: integer.convertor(np.arange(3), 0, 1, -1, 8),
        lambda: integer.convertor(np.arange(3.0), 0, 1, 0, 8),
        lambda: integer.convertor(np.arange(3), 0.5, 1, 0, 8),
        lambda: integer.saturate(np.arange(3), 1),
        lambda: integer.shift_left_saturate(np.arange(3), 64, 16),
        lambda: integer.shift_right_round(np.arange(3), -1),
        lambda: integer.pixel_to_int(np.arange(3), 1 << 15, 1, 0, 8),
        lambda: integer.pixel_to_int(np.arange(3), 0, 1, 64, 8),
        lambda: integer.pixel_to_int(np.arange(3), 0, 1, 0, 32),
        lambda: integer.int8_int16_convert(np.array([200]), 0, 1, 0, 16),
    ],
)
def test_out_of_encoding_parameters_raise_configuration_error(call):
    with pytest.raises(ConfigurationError):
        call()


def test_configuration_error_names_field_and_rule():
    with pytest.raises(ConfigurationError) as info:
        integer.pixel_to_int(np.arange(3), 0, 1, 64, 8)
    assert "CVT_TRUNCATE" in str(info.value) and "Equations 1 and 3" in str(info.value)


@pytest.mark.parametrize("bits", [8, 16, 32])
def test_shift_left_saturate_edges(bits):
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    x = np.array([-1, 1, -1, 1, lo, hi, 0, -1])
    shifts = np.array([bits - 1, bits - 1, bits, bits, 1, 1, 63, 63])
    y, count = integer.shift_left_saturate(x, shifts, bits)
    exp, exp_count = ref_many(range(8), lambda i: ref_sat(int(x[i]) << int(shifts[i]), bits))
    assert y.tolist() == exp and count == exp_count == 6


def test_convertor_register_widths_and_field_names():
    fields = ("SDP.D_CVT_OFFSET.CVT_OFFSET", "SDP.D_CVT_SCALE.CVT_SCALE", "SDP.D_CVT_SHIFT.CVT_SHIFT")
    y, _ = integer.convertor(np.array([1 << 40]), 0, 1, 40, 16, shift_bits=6, fields=fields)
    assert y.tolist() == [1]
    with pytest.raises(ConfigurationError) as info:
        integer.convertor(np.array([1]), 0, 1, 40, 16, fields=fields)  # document default: UINT5
    assert info.value.fields == ("SDP.D_CVT_SHIFT.CVT_SHIFT",)
    with pytest.raises(ConfigurationError):
        integer.convertor(np.array([1]), 1 << 15, 1, 0, 16, offset_bits=16)


def test_cmod_saturation_flag_ignores_rounding_only_overflow():
    # int8: 255 >> 1 = 127.5 rounds to 128 -> clipped to 127; floor is 127: not flagged by the cmod
    # 300 >> 1 = 150 -> 127 flagged; -257 >> 1 = -128.5 -> -129 -> -128, floor -129: not flagged
    flags = integer.cmod_shift_saturation_flag(np.array([255, 300, -257, -300, 10]), 1, 8)
    assert flags.tolist() == [False, True, False, True, False]
    assert integer.convertor(np.array([255, 300, -257, -300, 10]), 0, 1, 1, 8)[1] == 4


# ---- as_signed: the one two's-complement reader ------------------------------------------------------------
@pytest.mark.parametrize("bits", [5, 8, 16, 25, 32, 38])
def test_as_signed_reads_the_low_bits_as_twos_complement(bits):
    edges = [0, 1, (1 << (bits - 1)) - 1, 1 << (bits - 1), (1 << bits) - 1, (1 << bits) + 3, -1, -(1 << (bits - 1))]
    # reference: Python's own signed decoding of the low `bits` bits, from bytes
    nbytes = (bits + 7) // 8
    expected = []
    for value in edges:
        low = value & ((1 << bits) - 1)
        wide = int.from_bytes((low << (8 * nbytes - bits)).to_bytes(nbytes, "big"), "big", signed=True)
        expected.append(wide >> (8 * nbytes - bits))
    assert [integer.as_signed(value, bits) for value in edges] == expected
    assert all(type(integer.as_signed(value, bits)) is int for value in edges)
    array = integer.as_signed(np.array(edges, np.int64), bits)
    assert array.dtype == np.int64 and array.tolist() == expected


@pytest.mark.parametrize("x", [2**62, -(2**62), 2**63 - 1, -(2**63 - 1), 2**62 + 2**61, 3 * 2**40 + 1, -5, 0])
def test_shift_right_round_is_exact_to_the_int64_range(x):
    # Python's unbounded integers as the reference: round half away from zero of x / 2**s. The campaign against
    # NVIDIA's C model found x = 2**62 (SDP EW: (-2**31) * (-2**31)) with EW_TRUNCATE 125 giving -1, not 0.
    for s in (0, 1, 2, 30, 61, 62, 63, 64, 65, 125, 255):
        expected = (abs(x) + (1 << s >> 1)) >> s
        expected = -expected if x < 0 else expected
        assert int(integer.shift_right_round(np.array([x], dtype=np.int64), s)[0]) == expected, (x, s)
        assert int(integer.shift_right_round(np.array([x], dtype=np.int64), np.array([s]))[0]) == expected, (x, s)
