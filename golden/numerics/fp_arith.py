"""NVDLA's internal fp17/fp32 arithmetic (add, sub, mul, max, min) on bit patterns, vectorised.

NVDLA's floating point datapath is not IEEE 754 (in-memory-data-formats "FP16 Supporting": fp17/fp32 hold
no denormals, no INF is produced, "Rounding": round to nearest except on overflow, which clips to the
largest finite value).  The exact algorithm was read from nvdla/hw cmod/hls/include/nvdla_float.h
(FpAdd, FpMul, FpCmp) and re-derived here on integers:

* add/sub: the smaller operand is aligned into a (2M+3)-bit window, the exact sum is normalised, a
  result below the smallest normal becomes a zero, then the mantissa is rounded to nearest even; an
  exponent overflow clips to the largest finite value.  For normal operands this equals the exactly
  rounded sum with denormal results flushed; an exact zero result takes the sign of the operand with
  the larger (exponent, mantissa), the first operand on a tie (so 1 + -1 = +0 but -1 + 1 = -0).
* mul: exact product rounded to nearest even; a result under the smallest normal becomes a zero of
  sign a^b; overflow clips.
* NaN: if the first operand is a NaN the result is that NaN pattern, else the second operand's.
* Operands NVDLA never holds internally (denormals, INF) are treated literally as the cmod does: a
  denormal gets an implied leading one, INF behaves as a number with the top exponent.

Formats: "fp32" (uint32 patterns or float32 values, as golden.numerics.fp) and "fp17" (uint32 patterns
of 17 bits).  max/min also accept "fp16" (uint16 patterns).  Results are patterns of the same format.
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigurationError
from golden.numerics.fp import FP16_RULE, fp32_bits

_LAYOUT = {"fp16": (5, 10), "fp17": (6, 10), "fp32": (8, 23)}
_DTYPE = {"fp16": np.uint16, "fp17": np.uint32, "fp32": np.uint32}


def _operands(a, b, fmt: str, allowed=("fp17", "fp32")):
    if fmt not in allowed:
        raise ConfigurationError(f"format {fmt!r} not supported here ({', '.join(allowed)})", rule=FP16_RULE, fields=())
    conv = fp32_bits if fmt == "fp32" else np.asarray
    a, b = np.broadcast_arrays(conv(a).astype(np.int64), conv(b).astype(np.int64))
    return a, b, _LAYOUT[fmt]


def _split(x, e_bits: int, m_bits: int):
    return x >> (e_bits + m_bits), (x >> m_bits) & ((1 << e_bits) - 1), x & ((1 << m_bits) - 1)


def _bit_length(v: np.ndarray) -> np.ndarray:
    """Bit length of non-negative int64 values below 2**53 (exact through float64)."""
    return np.frexp(v.astype(np.float64))[1].astype(np.int64)


def _round_keep(v: np.ndarray, drop: int) -> np.ndarray:
    """Round v / 2**drop to nearest even (drop >= 2)."""
    q = v >> drop
    guard = (v >> (drop - 1)) & 1
    sticky = (v & ((1 << (drop - 1)) - 1)) != 0
    return q + (guard & (sticky | (q & 1)))


def _finish(a, b, sign, expo, mant, inf, zero, e_bits, m_bits, fmt):
    """Pack, clip INF to max finite, zeros, then NaN propagation (first operand wins)."""
    max_mag = ((1 << e_bits) - 2) << m_bits | ((1 << m_bits) - 1)
    mag = np.where(inf, max_mag, (expo << m_bits) | mant)
    mag = np.where(zero, 0, mag)
    out = (sign << (e_bits + m_bits)) | mag
    _, ea, ma = _split(a, e_bits, m_bits)
    _, eb, mb = _split(b, e_bits, m_bits)
    top = (1 << e_bits) - 1
    out = np.where((eb == top) & (mb != 0), b, out)
    out = np.where((ea == top) & (ma != 0), a, out)
    return out.astype(_DTYPE[fmt])


def fp_add(a, b, fmt: str = "fp32") -> np.ndarray:
    """a + b on NVDLA fp17/fp32 patterns (cmod FpAdd)."""
    a, b, (e_bits, m_bits) = _operands(a, b, fmt)
    sa, ea, ma = _split(a, e_bits, m_bits)
    sb, eb, mb = _split(b, e_bits, m_bits)
    window = 2 * m_bits + 3
    extra = m_bits + 2
    pa = np.where((ea == 0) & (ma == 0), 0, ma | (1 << m_bits))
    pb = np.where((eb == 0) & (mb == 0), 0, mb | (1 << m_bits))
    a_first = (ea > eb) | ((ea == eb) & (ma >= mb))
    expo = np.where(a_first, ea, eb)
    sign = np.where(a_first, sa, sb)
    big = np.where(a_first, pa, pb) << extra
    small = np.where(a_first, pb, pa)
    align = extra - np.abs(ea - eb)  # left shift of the smaller operand; negative drops its low bits
    small = np.where(align >= 0, small << np.maximum(align, 0), small >> np.minimum(-align, 63))
    total = np.where(sa == sb, big + small, big - small)
    carry = (total >> window) == 1
    top = (1 << e_bits) - 1
    inf = carry & (expo >= top - 1)
    lead_zeros = window - _bit_length(total)
    zero = ~carry & ((expo <= lead_zeros) | (total == 0))
    norm_shift = np.where(carry | zero, 0, lead_zeros)
    mant = np.where(carry, total >> 1, total << norm_shift)
    expo = np.where(carry, expo + 1, expo - norm_shift)
    q = _round_keep(mant, window - m_bits - 1)
    overflow = (q >> (m_bits + 1)) == 1
    inf |= overflow & (expo >= top - 1)
    expo = expo + overflow
    return _finish(a, b, sign, expo, q & ((1 << m_bits) - 1), inf, zero, e_bits, m_bits, fmt)


def fp_sub(a, b, fmt: str = "fp32") -> np.ndarray:
    """a - b (cmod FpSub: flip b's sign, then FpAdd; a NaN b keeps its flipped sign)."""
    e_bits, m_bits = _LAYOUT.get(fmt, (8, 23))
    conv = fp32_bits if fmt == "fp32" else np.asarray
    flipped = conv(b).astype(np.int64) ^ (1 << (e_bits + m_bits))
    return fp_add(a, flipped.astype(np.uint32), fmt)


def fp_mul(a, b, fmt: str = "fp32") -> np.ndarray:
    """a * b on NVDLA fp17/fp32 patterns (cmod FpMul)."""
    a, b, (e_bits, m_bits) = _operands(a, b, fmt)
    sa, ea, ma = _split(a, e_bits, m_bits)
    sb, eb, mb = _split(b, e_bits, m_bits)
    bias = (1 << (e_bits - 1)) - 1
    top = (1 << e_bits) - 1
    za = (ea == 0) & (ma == 0)
    zb = (eb == 0) & (mb == 0)
    prod = np.where(za, 0, ma | (1 << m_bits)) * np.where(zb, 0, mb | (1 << m_bits))
    zero = za | zb | (ea + eb < bias)
    inf = ~zero & (ea + eb >= top + bias)
    expo = ea + eb - bias
    twice = (prod >> (2 * m_bits + 1)) == 1  # product of mantissas >= 2
    inf |= ~zero & twice & (expo >= top - 1)
    expo = expo + twice
    frac_bits = 2 * m_bits + 1
    frac = np.where(twice, prod, prod << 1) & ((1 << frac_bits) - 1)
    q = _round_keep(frac | (1 << frac_bits), m_bits + 1)
    overflow = (q >> (m_bits + 1)) == 1
    expo = expo + overflow
    inf |= ~zero & (expo >= top)
    zero |= ~inf & (expo <= 0)
    return _finish(a, b, sa ^ sb, np.clip(expo, 0, top), q & ((1 << m_bits) - 1), inf, zero, e_bits, m_bits, fmt)


def _compare(a, b, fmt: str, want_max: bool) -> np.ndarray:
    a, b, (e_bits, m_bits) = _operands(a, b, fmt, allowed=("fp16", "fp17", "fp32"))
    sa, ea, ma = _split(a, e_bits, m_bits)
    sb, eb, mb = _split(b, e_bits, m_bits)
    abs_a_greater = (ea > eb) | ((ea == eb) & (ma > mb))
    a_greater = np.where(sa == 0, (sb == 1) | abs_a_greater, (sb == 1) & ~abs_a_greater)
    out = np.where(a_greater == want_max, a, b)
    top = (1 << e_bits) - 1
    out = np.where((eb == top) & (mb != 0), b, out)
    out = np.where((ea == top) & (ma != 0), a, out)
    return out.astype(_DTYPE[fmt])


def fp_max(a, b, fmt: str = "fp16") -> np.ndarray:
    """Larger of a and b (cmod FpCmp/FpMax): sign-magnitude compare, first NaN operand wins."""
    return _compare(a, b, fmt, True)


def fp_min(a, b, fmt: str = "fp16") -> np.ndarray:
    """Smaller of a and b (cmod FpCmp/FpMin)."""
    return _compare(a, b, fmt, False)
