"""golden.numerics.fp, exhaustively over the 65536 fp16 (and 131072 fp17) patterns.

The reference here is independent of the code under test: numpy's IEEE float16/float32 conversions (round
to nearest even, denormals) and float64 arithmetic, plus the documented NVDLA rules
(in-memory-data-formats "FP16 Supporting" / "Rounding"):
overflow clips to the largest finite value and INF is never output; fp17/fp32 hold no denormals;
INF inputs take the per-module values of the INF table; NaN propagates with its sign.
Facts taken from the C model (nvdla/hw cmod/hls/include/nvdla_float.h) are marked "cmod".
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from golden.errors import ConfigurationError
from golden.numerics import fp

ALL16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
ALL17 = np.arange(1 << 17, dtype=np.uint32)
F16 = ALL16.view(np.float16)
FINITE16 = np.isfinite(F16)
INF16 = np.isinf(F16)
NAN16 = np.isnan(F16)
SIGN16 = (ALL16 >> 15).astype(np.uint32)
MANT16 = (ALL16 & 0x3FF).astype(np.uint32)
FLT_MAX_BITS = int(np.array(np.finfo(np.float32).max, dtype=np.float32).view(np.uint32))


# ---- independent references ------------------------------------------------------------------------------

def ref_fp16_out(values32: np.ndarray) -> np.ndarray:
    """float32 values -> fp16 patterns: numpy IEEE RNE, then INF -> +/-65504 (never INF out)."""
    with np.errstate(over="ignore"):
        h = values32.astype(np.float16)
    bits = h.view(np.uint16).copy()
    bits[np.isinf(h)] = np.where(np.signbit(h[np.isinf(h)]), 0xFBFF, 0x7BFF)
    return bits


def ref_round_fp17(v: np.ndarray) -> np.ndarray:
    """float64 values -> float64 values on the fp17 grid: RNE, clip at max, flush results below 2**-30."""
    a = np.abs(v)
    _, ex = np.frexp(a)
    q_exp = np.maximum(ex - 1, -30) - 10
    r = np.round(np.ldexp(a, -q_exp))  # numpy rounds half to even; the scaling is exact
    r = np.ldexp(r, q_exp)
    r = np.where(r > 4292870144.0, 4292870144.0, r)
    r = np.where(r < 2.0**-30, 0.0, r)
    return np.copysign(r, v)


def ref_encode_fp17(v: np.ndarray) -> np.ndarray:
    """Exact float64 values on the fp17 normal grid (or zero) -> fp17 patterns."""
    sign = np.signbit(v).astype(np.uint32) << 16
    a = np.abs(v)
    mant, ex = np.frexp(a)
    e = ex - 1 + 31
    m = (mant * 2 - 1) * 1024
    assert np.all(m == np.round(m))
    bits = (e.astype(np.uint32) << 10) | m.astype(np.uint32)
    return sign | np.where(a == 0, 0, bits).astype(np.uint32)


def ref_decode_fp17(x: np.ndarray) -> np.ndarray:
    """fp17 patterns with exponent 1..62 -> float64 values."""
    s = (x >> 16) & 1
    e = ((x >> 10) & 0x3F).astype(np.int64)
    m = (x & 0x3FF).astype(np.float64)
    return np.where(s == 1, -1.0, 1.0) * np.ldexp(1 + m / 1024, e - 31)


# ---- fp16 -> fp32 ----------------------------------------------------------------------------------------

def test_fp16_to_fp32_exhaustive():
    got = fp.fp16_to_fp32(ALL16)
    assert got.dtype == np.uint32
    expected = F16.astype(np.float32).view(np.uint32)
    np.testing.assert_array_equal(got[FINITE16], expected[FINITE16])  # incl. denormals and +/-0
    np.testing.assert_array_equal(got[INF16], (SIGN16[INF16] << 31) | FLT_MAX_BITS)
    # NaN: NaN with the same sign; cmod keeps the 10-bit payload in the LOW mantissa bits
    got_nan = got[NAN16]
    assert np.isnan(got_nan.view(np.float32)).all()
    np.testing.assert_array_equal(got_nan >> 31, SIGN16[NAN16])
    np.testing.assert_array_equal(got_nan & 0x7FFFFF, MANT16[NAN16])


def test_fp16_to_float32_values_and_sdp_inf_mapping():
    v = fp.fp16_to_float32(ALL16)
    np.testing.assert_array_equal(v[FINITE16], F16[FINITE16].astype(np.float32))
    assert (np.abs(v[INF16]) == np.float32(fp.INF_MAPPING["sdp"])).all()
    assert fp.INF_MAPPING["sdp"] == pytest.approx(3.40282e38, rel=1e-5)  # the document's 6 digits


# ---- fp16 <-> fp17 ---------------------------------------------------------------------------------------

def test_fp16_to_fp17_exhaustive():
    got = fp.fp16_to_fp17(ALL16)
    assert got.dtype == np.uint32 and int(got.max()) < (1 << 17)
    expected = ref_encode_fp17(F16[FINITE16].astype(np.float64))
    np.testing.assert_array_equal(got[FINITE16], expected)  # fp16 denormals become fp17 normals
    e = (got >> 10) & 0x3F
    assert not ((e == 0) & ((got & 0x3FF) != 0)).any(), "fp17 must hold no denormals"
    # INF -> largest finite fp17, the CDP / PDP-average value of the INF table
    np.testing.assert_array_equal(got[INF16], (SIGN16[INF16] << 16) | 0xFBFF)
    assert ref_decode_fp17(np.array([0xFBFF]))[0] == fp.INF_MAPPING["cdp"] == fp.INF_MAPPING["pdp_average"]
    np.testing.assert_array_equal(got[NAN16], (SIGN16[NAN16] << 16) | (0x3F << 10) | MANT16[NAN16])


def test_fp17_to_fp16_exhaustive():
    got = fp.fp17_to_fp16(ALL17)
    assert got.dtype == np.uint16
    e = (ALL17 >> 10) & 0x3F
    m = ALL17 & 0x3FF
    s = (ALL17 >> 16) & 1
    normal = (e >= 1) & (e <= 62)
    expected = ref_fp16_out(ref_decode_fp17(ALL17[normal]).astype(np.float32))  # fp17 -> fp32 is exact
    np.testing.assert_array_equal(got[normal], expected)
    zero = (e == 0) & (m == 0)
    np.testing.assert_array_equal(got[zero], (s[zero] << 15).astype(np.uint16))
    inf = (e == 63) & (m == 0)
    np.testing.assert_array_equal(got[inf], np.where(s[inf] == 1, 0xFBFF, 0x7BFF))
    nan = (e == 63) & (m != 0)
    np.testing.assert_array_equal(got[nan], (s[nan] << 15) | 0x7C00 | m[nan])
    assert not ((got & 0x7FFF) == 0x7C00).any(), "INF is never output"


def test_fp16_fp17_fp32_round_trips_exhaustive():
    for back in (
        fp.fp17_to_fp16(fp.fp16_to_fp17(ALL16)),
        fp.fp32_to_fp16(fp.fp16_to_fp32(ALL16)),
        fp.fp32_to_fp16(fp.fp17_to_fp32(fp.fp16_to_fp17(ALL16))),
        fp.fp17_to_fp16(fp.fp32_to_fp17(fp.fp16_to_fp32(ALL16))),
    ):
        np.testing.assert_array_equal(back[FINITE16], ALL16[FINITE16])
        np.testing.assert_array_equal(back[NAN16], ALL16[NAN16])  # cmod: NaN pattern survives
        np.testing.assert_array_equal(back[INF16], np.where(SIGN16[INF16] == 1, 0xFBFF, 0x7BFF))


# ---- fp17 -> fp32 ----------------------------------------------------------------------------------------

def test_fp17_to_fp32_exhaustive():
    got = fp.fp17_to_fp32(ALL17)
    e = (ALL17 >> 10) & 0x3F
    m = ALL17 & 0x3FF
    s = (ALL17 >> 16) & 1
    normal = (e >= 1) & (e <= 62)
    expected = ref_decode_fp17(ALL17[normal]).astype(np.float32)
    np.testing.assert_array_equal(got[normal].view(np.float32), expected)
    zero = (e == 0) & (m == 0)
    np.testing.assert_array_equal(got[zero], s[zero] << 31)
    inf = (e == 63) & (m == 0)
    np.testing.assert_array_equal(got[inf], (s[inf] << 31) | FLT_MAX_BITS)
    nan = (e == 63) & (m != 0)
    np.testing.assert_array_equal(got[nan], (s[nan] << 31) | 0x7F800000 | m[nan])
    # cmod: an fp17 denormal pattern (never produced) reads as 1.m * 2**-31
    odd = (e == 0) & (m != 0)
    np.testing.assert_array_equal(
        np.abs(got[odd].view(np.float32)), np.ldexp(1 + m[odd] / 1024, -31).astype(np.float32)
    )


# ---- fp32 -> fp16 / fp17 ---------------------------------------------------------------------------------

def _fp32_probe_values() -> np.ndarray:
    """Every fp16 value, the exact midpoints to its neighbour (ties) and the float32 values either side."""
    pos = np.arange(0, 0x7C00, dtype=np.uint16).view(np.float16).astype(np.float32)
    nxt = np.append(pos[1:], np.float32(65536.0))
    mids = (pos + nxt) / np.float32(2)  # exact: 12 significant bits at most
    below, above = np.nextafter(mids, np.float32(0)), np.nextafter(mids, np.float32(np.inf))
    probes = np.concatenate([pos, mids, below, above])
    rng = np.random.default_rng(1234)
    rand = rng.integers(0, 1 << 32, size=300_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    extra = np.array([1e10, 3.4e38, np.inf, 2.0**-25, 2.0**-26, 2.0**-149, 2.0**-126, 65519.0, 65520.0],
                     dtype=np.float32)
    allpos = np.concatenate([probes, extra])
    return np.concatenate([allpos, -allpos, rand])


def test_fp32_to_fp16_against_numpy_plus_rules():
    v = _fp32_probe_values()
    got = fp.fp32_to_fp16(v)  # float32 arrays are accepted directly
    np.testing.assert_array_equal(fp.fp32_to_fp16(v.view(np.uint32)), got)
    notnan = ~np.isnan(v)
    np.testing.assert_array_equal(got[notnan], ref_fp16_out(v[notnan]))
    assert np.isnan(got[~notnan].view(np.float16)).all()
    np.testing.assert_array_equal(got[~notnan] >> 15, np.signbit(v[~notnan]).astype(np.uint16))


def test_fp32_to_fp16_explicit_values():
    v = np.array([65504.0, 65519.0, 65520.0, 1e6, np.inf, -np.inf, 2.0**-24, 2.0**-25, 1.5 * 2.0**-25,
                  1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11, -0.0], dtype=np.float32)
    expected = [0x7BFF, 0x7BFF, 0x7BFF, 0x7BFF, 0x7BFF, 0xFBFF,
                0x0001, 0x0000, 0x0001, 0x3C00, 0x3C02, 0x8000]
    assert fp.fp32_to_fp16(v).tolist() == expected


def test_fp32_to_fp17_against_float64_reference():
    v = _fp32_probe_values()
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = np.concatenate([v] + [v * np.float32(2.0**k) for k in (-10, 16, -40)])
    scaled = np.concatenate([scaled, np.ldexp(np.float32(1), np.arange(-45, -25)).astype(np.float32)])
    got = fp.fp32_to_fp17(scaled)
    finite = np.isfinite(scaled)
    expected = ref_encode_fp17(ref_round_fp17(scaled[finite].astype(np.float64)))
    np.testing.assert_array_equal(got[finite], expected)
    inf = np.isinf(scaled)
    np.testing.assert_array_equal(got[inf], (np.signbit(scaled[inf]).astype(np.uint32) << 16) | 0xFBFF)
    e = (got >> 10) & 0x3F
    assert not ((e == 0) & ((got & 0x3FF) != 0)).any(), "fp17 must hold no denormals"


def test_fp32_to_fp17_denormal_flush_explicit():
    # 2**-31 would be an fp17 denormal: flushed; 2**-30 (smallest normal) kept; just below rounds up to it
    v = np.array([2.0**-31, -(2.0**-31), 2.0**-30, 2.0**-30 * (1 - 2.0**-12)], dtype=np.float32)
    assert fp.fp32_to_fp17(v).tolist() == [0, 1 << 16, 0x400, 0x400]


# ---- NaN -------------------------------------------------------------------------------------------------

def test_nan_count_and_flush_exhaustive():
    assert fp.nan_count(ALL16) == 2 * 1023
    flushed, count = fp.flush_nan(ALL16)
    assert count == 2 * 1023
    np.testing.assert_array_equal(flushed[NAN16], 0)
    np.testing.assert_array_equal(flushed[~NAN16], ALL16[~NAN16])
    assert fp.nan_count(flushed) == 0
    assert fp.nan_count(fp.fp16_to_fp17(ALL16), "fp17") == 2 * 1023
    assert fp.nan_count(fp.fp16_to_fp32(ALL16), "fp32") == 2 * 1023
    flushed32, count32 = fp.flush_nan(fp.fp16_to_float32(ALL16), "fp32")
    assert count32 == 2 * 1023 and not np.isnan(fp.fp32_values(flushed32)).any()


def test_nan_propagates_even_without_low_payload():
    # numpy's default NaN 0x7FC00000 has no low payload; NVDLA must still output NaN, never INF
    out = fp.fp32_to_fp16(np.array([np.nan, -np.nan], dtype=np.float32))
    assert np.isnan(out.view(np.float16)).all()
    assert (out >> 15).tolist() == [0, 1]


def test_quieted_nan_from_float32_arithmetic_keeps_payload():
    h = np.array([0x7C01, 0xFD55], dtype=np.uint16)
    with np.errstate(invalid="ignore"):
        v = fp.fp16_to_float32(h) + np.float32(1.0)  # hardware float32 add quiets the NaN
    np.testing.assert_array_equal(fp.fp32_to_fp16(v), h | 0x0000)  # payload low bits survive


# ---- INF mapping table -----------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "module, value",
    [("conv_dc", 65536.0), ("conv_image", 65536.0), ("conv_winograd", 65504.0),
     ("sdp", 3.4028234663852886e38), ("cdp", 4292870144.0), ("pdp_average", 4292870144.0),
     ("pdp_max", np.inf), ("pdp_min", np.inf)],
)
def test_inf_mapping_table(module, value):
    got = fp.fp16_to_float64_mapped(np.array([0x7C00, 0xFC00, 0x3C00, 0x7E00], dtype=np.uint16), module)
    assert got[0] == value and got[1] == -value and got[2] == 1.0 and np.isnan(got[3])


def test_inf_mapping_unknown_module():
    with pytest.raises(ConfigurationError):
        fp.fp16_to_float64_mapped(np.array([0], dtype=np.uint16), "rubik")


# ---- integers <-> fp16 -----------------------------------------------------------------------------------

def test_int_to_fp16_exhaustive_int17():
    x = np.arange(-(1 << 16), 1 << 16, dtype=np.int64)
    np.testing.assert_array_equal(fp.int_to_fp16(x), ref_fp16_out(x.astype(np.float32)))
    big = np.array([65519, 65520, 65536, -65536])
    assert fp.int_to_fp16(big).tolist() == [0x7BFF, 0x7BFF, 0x7BFF, 0xFBFF]
    assert fp.int_to_fp16(np.array([2049, 2051, 2053])).tolist() == [0x6800, 0x6802, 0x6802]  # ties to even


def test_fp16_to_int16_exhaustive():
    y, count = fp.fp16_to_int(ALL16, 16)
    ref = []
    sat = 0
    for f in F16.astype(np.float64).tolist():
        if f != f:
            ref.append(-32768)
            continue
        if abs(f) == float("inf"):
            r = int(np.sign(f)) * 65536
        else:
            q = int(abs(f) + 0.5)  # exact: half away from zero on the magnitude
            r = q if f >= 0 else -q
        clipped = min(max(r, -32768), 32767)
        sat += clipped != r
        ref.append(clipped)
    assert y.tolist() == ref and count == sat
    halves = np.array([0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.25, -0.75], dtype=np.float16).view(np.uint16)
    assert fp.fp16_to_int(halves)[0].tolist() == [1, -1, 2, -2, 3, -3, 0, -1]


@given(
    st.lists(st.integers(0, (1 << 16) - 1), min_size=1, max_size=40),
    st.integers(-(1 << 15), (1 << 15) - 1),
    st.integers(-(1 << 15), (1 << 15) - 1),
    st.integers(0, 63),
)
@settings(max_examples=60, deadline=None)
def test_pixel_to_fp16_matches_reference(values, offset, scale, trunc):
    got, count = fp.pixel_to_fp16(np.array(values), offset, scale, trunc)
    ints = []
    for v in values:
        t = (v - offset) * scale
        q, r = divmod(abs(t), 1 << trunc)
        q += trunc > 0 and 2 * r >= 1 << trunc
        q = q if t >= 0 else -q
        ints.append(min(max(q, -(1 << 16)), (1 << 16) - 1))
    expected = ref_fp16_out(np.array(ints, dtype=np.float32))
    assert got.tolist() == expected.tolist()
    assert count == sum(abs(i) >= 65504 for i in ints)


# ---- representation and errors ---------------------------------------------------------------------------

def test_scalars_and_shapes_are_kept():
    assert int(fp.fp16_to_fp32(np.uint16(0x3C00))) == 0x3F800000
    assert int(fp.fp16_to_fp32(np.uint16(0xFC00))) == 0xFF7FFFFF
    assert int(fp.fp32_to_fp16(np.float32(np.nan))) & 0x7C00 == 0x7C00
    assert int(fp.fp32_to_fp17(np.float32(-(2.0**-31)))) == 1 << 16
    assert fp.fp16_to_fp17(np.uint16(0x7C00)).shape == ()
    cube = ALL16[:24].reshape(2, 3, 4)
    assert fp.fp16_to_fp17(cube).shape == (2, 3, 4)
    assert fp.fp32_to_fp16(fp.fp16_to_float32(cube)).shape == (2, 3, 4)


def test_float64_input_is_refused():
    with pytest.raises(ConfigurationError):
        fp.fp32_to_fp16(np.array([1.0]))
    with pytest.raises(ConfigurationError):
        fp.is_nan(np.array([1], dtype=np.uint16), "bf16")


def test_fp16_saturation_count():
    out = fp.fp32_to_fp16(np.array([65504.0, -1e9, 70000.0, 65472.0, np.inf, 1.0], dtype=np.float32))
    assert fp.fp16_saturation_count(out) == 4


def test_fast_fp16_to_float32_is_the_bit_level_widening():
    """All 65536 patterns: fp16_to_float32 is the float32 view of fp16_to_fp32, bit for bit."""
    np.testing.assert_array_equal(fp.fp16_to_float32(ALL16).view(np.uint32), fp.fp16_to_fp32(ALL16))


def test_fast_fp32_to_fp16_is_the_bit_level_narrowing():
    """numpy's cast plus the INF/NaN patch equals the bit-level narrowing on a sweep of every fp32
    exponent (mantissas stepped by 4095, so every rounding position and tie pattern recurs) and on
    random patterns."""
    from golden.numerics.fp import _narrow_from_fp32
    sweep = np.arange(0, 1 << 32, 4095, dtype=np.uint64).astype(np.uint32)
    rand = np.random.default_rng(7).integers(0, 1 << 32, size=1_000_000, dtype=np.uint64).astype(np.uint32)
    ties = (np.arange(0, 1 << 19, dtype=np.uint32) << 13) | np.uint32(0x1000)  # exact halfway cases
    for bits in (sweep, rand, ties, ties ^ np.uint32(0x80000000)):
        expected = _narrow_from_fp32(bits, 5, keep_denormals=True).astype(np.uint16)
        np.testing.assert_array_equal(fp.fp32_to_fp16(bits), expected)


def test_fp32_patterns_to_float64_keep_nan_quietly():
    # 0x7f800001: a signalling NaN (quiet bit 22 clear); 0x3fc00000 = 1.5; 0xff800000 = -inf (IEEE 754 binary32)
    bits = np.array([0x7F800001, 0x3FC00000, 0xFF800000], dtype=np.uint32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        values = fp.fp32_to_float64(bits)
    assert np.isnan(values[0]) and values[1] == 1.5 and values[2] == -np.inf and values.dtype == np.float64
