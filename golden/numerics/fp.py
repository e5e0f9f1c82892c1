"""NVDLA floating point: fp16 in/out, internal fp17 and fp32, INF mapping, NaN propagation/flush/counting.

Representation (all vectorised, any shape):

* fp16  -> ``np.uint16`` bit patterns (IEEE half: 1 sign, 5 exponent bias 15, 10 mantissa).
* fp17  -> ``np.uint32`` bit patterns using the low 17 bits (1 sign at bit 16, 6 exponent bias 31,
  10 mantissa).  NVDLA never holds an fp17 denormal (in-memory-data-formats "Denormalized value").
* fp32  -> ``np.uint32`` bit patterns.  ``fp32_bits(values)`` / ``fp32_values(bits)`` switch to and from
  ``np.float32`` by a view, which is exact (it keeps NaN payloads), so a unit model may do its
  arithmetic on float32 values and hand the result to ``fp32_to_fp16``; every function taking fp32
  also accepts a float32 array directly.

Rules, from nvdla-in-memory-data-formats.md "FP16 Supporting" and "Rounding", with the bit behaviour the
document leaves open taken from nvdla/hw cmod/hls/include/nvdla_float.h (Fp16ToFp32, Fp32ToFp16,
Fp16ToFp17, Fp17ToFp16, Fp17ToFp32, Fp32ToFp17, FpIntToFloat, FpFloatToInt):

* Narrowing (fp32->fp16, fp32->fp17, fp17->fp16, int->fp16) rounds to nearest, ties to even.  A result
  beyond the largest finite value is clipped to it (+/-65504 for fp16, +/-4292870144 for fp17):
  "If the result is exceeding maximal normal value, it will be clipped"; INF is never output.
* fp16 denormals are kept on input and produced on output (IEEE rounding); fp17 has none: fp32->fp17
  rounds at denormal precision and flushes a denormal result to (signed) zero.
* INF inputs widen to the largest finite value of the wider format: fp16 INF -> fp32 +/-3.40282e+38
  (SDP row of the INF table) and -> fp17 +/-4292870144 (CDP / PDP-average rows).
* NaN propagates with its sign.  The cmod keeps an fp16 NaN's 10-bit payload in the LOW mantissa bits of
  fp17/fp32 (not shifted) and narrows a NaN by keeping the low 10 mantissa bits, so fp16 -> fp32/fp17
  -> fp16 returns the same NaN pattern.  The document calls the payload undefined.

Arithmetic: numpy float32 add/mul agree with NVDLA only for results in the normal range (NVDLA flushes
denormal results, clips overflow, and signs an exact-zero sum after its larger operand); the bit-exact
fp17/fp32 add/sub/mul and max/min are in golden.numerics.fp_arith.
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigurationError
from golden.numerics.integer import (
    as_int64,
    cdma_cvt,
    int_range,
    saturate,
)

FP16_RULE = "in-memory-data-formats: FP16 Supporting"

FP16_MAX_BITS = 0x7BFF  # 65504
FP17_MAX_BITS = 0xFBFF  # exponent 62, mantissa all ones: 2**31 * (2 - 2**-10) = 4292870144
FP32_MAX_BITS = 0x7F7FFFFF  # 3.4028234663852886e+38
FP16_MAX = 65504.0
FP17_MAX = 4292870144.0
FP32_MAX = float(np.finfo(np.float32).max)

#: "FP16 Supporting / Infinity": the finite value each sub-module uses for an INF input (None: INF kept).
INF_MAPPING: dict[str, float | None] = {
    "conv_dc": 65536.0,
    "conv_image": 65536.0,
    "conv_winograd": 65504.0,
    "sdp": FP32_MAX,
    "cdp": FP17_MAX,
    "pdp_average": FP17_MAX,
    "pdp_max": None,
    "pdp_min": None,
}


# ---- representation helpers ------------------------------------------------------------------------------

def fp16_bits(values) -> np.ndarray:
    """uint16 patterns of float16 values (or of an integer array of patterns)."""
    arr = np.asarray(values)
    if arr.dtype == np.float16:
        return arr.view(np.uint16)
    return arr.astype(np.uint16)


def fp32_bits(values) -> np.ndarray:
    """uint32 patterns: float32 arrays are viewed, integer arrays taken as patterns."""
    arr = np.asarray(values)
    if arr.dtype == np.float32:
        return arr.view(np.uint32)
    if arr.dtype.kind == "f":
        raise ConfigurationError(f"fp32 data must be float32 or uint32 bits, not {arr.dtype}", rule=FP16_RULE,
                                 fields=())
    return arr.astype(np.uint32)


def fp32_values(bits) -> np.ndarray:
    """float32 view of uint32 patterns (exact, NaN payloads kept)."""
    return np.ascontiguousarray(fp32_bits(bits)).view(np.float32)


def fp32_to_float64(bits) -> np.ndarray:
    """float64 values of fp32 patterns. A signalling NaN (quiet bit clear, as fp17 -> fp32 gives) is quieted by
    the cast, which raises the processor's invalid flag: numpy's "invalid value encountered in cast", not an
    error here."""
    with np.errstate(invalid="ignore"):
        return fp32_values(bits).astype(np.float64)


def _fields(bits: np.ndarray, exp_bits: int, mant_bits: int):
    b = bits.astype(np.int64)
    return b >> (exp_bits + mant_bits), (b >> mant_bits) & ((1 << exp_bits) - 1), b & ((1 << mant_bits) - 1)


# ---- NaN -------------------------------------------------------------------------------------------------

_LAYOUT = {"fp16": (5, 10), "fp17": (6, 10), "fp32": (8, 23)}


def _layout(fmt: str) -> tuple[int, int]:
    if fmt not in _LAYOUT:
        raise ConfigurationError(f"unknown float format {fmt!r} (fp16, fp17, fp32)", rule=FP16_RULE, fields=())
    return _LAYOUT[fmt]


def is_nan(bits, fmt: str = "fp16") -> np.ndarray:
    """Boolean mask of NaN patterns (exponent all ones, mantissa non-zero)."""
    e_bits, m_bits = _layout(fmt)
    bits = fp32_bits(bits) if fmt == "fp32" else np.asarray(bits)
    _, e, m = _fields(bits, e_bits, m_bits)
    return (e == (1 << e_bits) - 1) & (m != 0)


def nan_count(bits, fmt: str = "fp16") -> int:
    """NaN counting register value: number of NaN elements (FP16 Supporting / NaN)."""
    return int(np.count_nonzero(is_nan(bits, fmt)))


def flush_nan(bits, fmt: str = "fp16") -> tuple[np.ndarray, int]:
    """NaN flush-to-zero: every NaN becomes +0 ("all input NaNs are treated as zero value"); (bits, count).

    The document does not give the zero's sign; the cmod (hls/sdp/sdp_x.cpp, sdp_y_cvt.cpp) clears sign,
    exponent and mantissa, i.e. +0.
    """
    arr = fp32_bits(bits) if fmt == "fp32" else np.asarray(bits)
    mask = is_nan(arr, fmt)
    return np.where(mask, arr.dtype.type(0), arr), int(np.count_nonzero(mask))


def fp16_saturation_count(h) -> int:
    """FP16 output saturation count: outputs of magnitude 65504 (precision-preservation overflow
    definition fabs(x) >= 65504, evaluated on the output as the cmod's SDP wrapper does)."""
    return int(np.count_nonzero((np.asarray(h).astype(np.uint16) & 0x7FFF) == FP16_MAX_BITS))


# ---- widening --------------------------------------------------------------------------------------------

def fp16_to_fp32(h) -> np.ndarray:
    """fp16 patterns -> fp32 patterns (cmod Fp16ToFp32): exact, denormals normalised, INF -> +/-FLT_MAX.

    The sign and 15 magnitude bits move up to the float32 fields, then a multiply by 2**112 rebiases
    the exponent (and normalises a denormal) exactly. Exponent 31 is patched: INF -> +/-FLT_MAX, NaN keeps
    its 10-bit payload in the low mantissa bits.
    """
    shape = np.shape(h)
    h = np.asarray(h).astype(np.uint16, copy=False).reshape(-1)
    wide = h.view(np.int16).astype(np.int32)  # sign extended: bit 31 is the sign
    wide <<= 13
    wide &= np.int32(-0x70002000)  # 0x8FFFE000: the sign and the 15 magnitude bits
    wide.view(np.float32)[...] *= np.float32(2.0**112)
    out = wide.view(np.uint32)
    special = (h & np.uint16(0x7C00)) == np.uint16(0x7C00)
    if special.any():
        payload = (h[special] & np.uint16(0x3FF)).astype(np.uint32)
        sign = (h[special] & np.uint16(0x8000)).astype(np.uint32) << 16
        out[special] = sign | np.where(payload == 0, np.uint32(FP32_MAX_BITS), np.uint32(0x7F800000) | payload)
    return out.reshape(shape)


def fp16_to_float32(h) -> np.ndarray:
    """fp16 patterns -> float32 values with NVDLA's rules (the SDP INF mapping)."""
    return fp16_to_fp32(h).view(np.float32)


def fp17_to_fp32(x) -> np.ndarray:
    """fp17 patterns -> fp32 patterns (cmod Fp17ToFp32): exact; INF -> +/-FLT_MAX; NaN payload kept low.

    An fp17 pattern with exponent 0 and non-zero mantissa (never produced by NVDLA) is read as
    1.m * 2**-31 as the cmod does.
    """
    s, e, m = _fields(np.asarray(x), 6, 10)
    out = np.where((e == 0) & (m == 0), 0, ((e + 96) << 23) | (m << 13))
    out = np.where(e == 63, np.where(m == 0, FP32_MAX_BITS, 0x7F800000 | m), out)
    return ((s << 31) | out).astype(np.uint32)


# ---- narrowing -------------------------------------------------------------------------------------------

def _narrow_from_fp32(bits, exp_bits: int, keep_denormals: bool) -> np.ndarray:
    """fp32 -> (1, exp_bits, 10) float: RNE, clip to max finite, NaN keeps the low 10 mantissa bits."""
    shape = np.shape(bits)
    b = fp32_bits(bits).reshape(-1)
    a = b & np.uint32(0x7FFFFFFF)
    bias_delta = 127 - ((1 << (exp_bits - 1)) - 1)
    # normal results: round the magnitude's low 13 bits to nearest even; a mantissa carry ripples into
    # the exponent, then the exponent is rebiased (wraps for small a, which the denormal branch replaces)
    mag = ((a + ((a >> 13) & 1) + np.uint32(0xFFF)) >> 13) - np.uint32(bias_delta << 10)
    # results below the smallest normal 2**emin: the float32 add of 2**(emin + 13), whose ulp is the
    # denormal step 2**(emin - 10), rounds |x| to that grid to nearest even in a single rounding
    emin = 1 - ((1 << (exp_bits - 1)) - 1)
    magic = np.float32(2.0 ** (emin + 13))
    small = a < np.uint32((bias_delta + 1) << 23)
    with np.errstate(invalid="ignore"):  # NaN lanes are replaced below
        grid = (a.view(np.float32) + magic).view(np.uint32) - magic.view(np.uint32)
    if not keep_denormals:
        grid = np.where(grid < 0x400, np.uint32(0), grid)  # fp17: a denormal result is flushed to zero
    mag = np.where(small, grid, mag)
    mag = np.minimum(mag, np.uint32(((1 << exp_bits) - 2) << 10 | 0x3FF))  # never INF: clip to max finite
    nan = a > np.uint32(0x7F800000)
    if nan.any():
        # cmod keeps the low 10 mantissa bits; a NaN whose low bits are zero would narrow to INF there,
        # kept a NaN here since INF is never output (see module docstring)
        payload = a[nan] & 0x3FF
        mag[nan] = np.uint32(((1 << exp_bits) - 1) << 10) | np.where(payload == 0, np.uint32(0x200), payload)
    return (mag | ((b >> 31) << (exp_bits + 10))).reshape(shape)


def fp32_to_fp16(x) -> np.ndarray:
    """fp32 patterns or float32 values -> fp16 patterns (cmod Fp32ToFp16), NVDLA output rules.

    numpy's IEEE cast rounds the same way (to nearest even, into denormals); it differs only where it
    gives INF or NaN (overflow clipping, NaN payloads), and those elements take the bit-level path.
    """
    shape = np.shape(x)
    values = fp32_values(x).reshape(-1)
    with np.errstate(over="ignore", invalid="ignore"):
        out = values.astype(np.float16).view(np.uint16)
    special = (out & np.uint16(0x7C00)) == np.uint16(0x7C00)
    if special.any():
        out[special] = _narrow_from_fp32(values[special], 5, keep_denormals=True)
    return out.reshape(shape)


def fp32_to_fp17(x) -> np.ndarray:
    """fp32 patterns or float32 values -> fp17 patterns (cmod Fp32ToFp17): RNE, no denormals, clip."""
    return _narrow_from_fp32(x, 6, keep_denormals=False).astype(np.uint32)


def fp16_to_fp17(h) -> np.ndarray:
    """fp16 -> fp17 (cmod Fp16ToFp17): exact (denormals normalised), INF -> +/-4292870144, NaN kept."""
    return fp32_to_fp17(fp16_to_fp32(h))  # both steps are exact for every finite fp16


def fp17_to_fp16(x) -> np.ndarray:
    """fp17 -> fp16 (cmod Fp17ToFp16): RNE into denormals, clip to +/-65504, NaN payload kept."""
    return fp32_to_fp16(fp17_to_fp32(x))  # fp17 -> fp32 is exact, so this rounds once


# ---- integer <-> fp16 ------------------------------------------------------------------------------------

def int_to_fp16(x) -> np.ndarray:
    """Integers (|x| < 2**24, e.g. int16/int17) -> fp16 patterns (cmod FpIntToFloat): RNE, clip 65504."""
    x = as_int64(x)
    if x.size and (int(x.min()) <= -(1 << 24) or int(x.max()) >= 1 << 24):
        raise ConfigurationError("int_to_fp16 accepts |x| < 2**24", rule=FP16_RULE, fields=())
    return fp32_to_fp16(x.astype(np.float32))  # exact below 2**24, so a single rounding


def fp16_to_int(h, bits: int = 16) -> tuple[np.ndarray, int]:
    """fp16 patterns -> signed `bits` ints (cmod FpFloatToInt): round half away from zero, saturate.

    NaN gives the most negative value (cmod); INF saturates.  count = saturated non-NaN elements.
    """
    h = np.asarray(h)
    nan = is_nan(h, "fp16")
    v = np.where(nan, 0, h.astype(np.uint16).view(np.float16)).astype(np.float64)
    v = np.where(np.isinf(v), np.copysign(65536.0, v), v)
    r = np.trunc(v + np.copysign(0.5, v))  # exact: fp16 values are multiples of 2**-24
    y, count = saturate(np.where(nan, 0, r).astype(np.int64), bits)
    return np.where(nan, int_range(bits)[0], y), count


def pixel_to_fp16(pixel, offset, scale, truncate_bits) -> tuple[np.ndarray, int]:
    """Equation 1, fp16 output: int2fp((pixel - offset) * SF) via the CDMA datapath (cmod cdma_cvt).

    (pixel - offset) * scale is rounded half away from zero by CVT_TRUNCATE bits, saturated to int17,
    then converted with RNE and clipping.  count follows the FP16 overflow definition fabs(x) >= 65504.
    """
    v = cdma_cvt(pixel, offset, scale, truncate_bits)
    return int_to_fp16(v), int(np.count_nonzero(np.abs(v) >= 65504))


# ---- INF mapping -----------------------------------------------------------------------------------------

def fp16_to_float64_mapped(h, module: str) -> np.ndarray:
    """fp16 patterns -> float64 values with `module`'s INF mapping from INF_MAPPING (NaN stays NaN)."""
    if module not in INF_MAPPING:
        raise ConfigurationError(f"unknown module {module!r} for INF mapping ({sorted(INF_MAPPING)})",
                                 rule=FP16_RULE, fields=())
    h = np.asarray(h).astype(np.uint16)
    v = h.view(np.float16).astype(np.float64)
    inf_value = INF_MAPPING[module]
    if inf_value is not None:
        v = np.where(np.isinf(v), np.copysign(inf_value, v), v)
    return v
