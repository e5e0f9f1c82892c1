"""NVDLA integer precision mechanisms, vectorised over int64 numpy arrays.

Documents: nvdla-precision-preservation.md (convertor, truncate, shifter, overflow counters) and
nvdla-in-memory-data-formats.md "Precision Conversion" (Equations 1 and 3).  Bit behaviour the documents
leave open was read from nvdla/hw cmod/hls/include/nvdla_int.h and nvdla_common.h: every right shift goes
through an ac_fixed with AC_RND_INF (round half away from zero) and AC_SAT (saturate), i.e. the value is
rounded first and saturated second.

Conventions for every function here:

* data arrays: any integer dtype except uint64; they are converted to int64.  Intermediate values must
  stay below 2**62 in magnitude (NVDLA's widest datapath, int32 minus int32 times int16, needs 49 bits).
* results are int64 arrays of the same shape; functions that saturate return ``(y, count)`` where
  ``count`` (a Python int) is the number of elements that overflowed in the sense of
  precision-preservation "saturation counters": INTn overflow is ``x < -2**(n-1) or x > 2**(n-1)-1``,
  evaluated on the rounded value before clipping.
* register-like parameters (offset, scale, shift, lsb) may be Python ints or integer arrays that
  broadcast against the data (e.g. per-channel operands); values outside their hardware encoding raise
  golden.errors.ConfigurationError naming the encoding.
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigurationError

PRECISION_RULE = "precision-preservation: Convertor/Truncate/Shifter"
FORMATS_RULE = "in-memory-data-formats: Precision Conversion, Equations 1 and 3"
_MAX_MAGNITUDE = 1 << 62


def int_range(bits: int) -> tuple[int, int]:
    """(min, max) of a signed two's complement integer of `bits` bits."""
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


def as_signed(value, bits: int):
    """The low `bits` bits of `value` read as two's complement: a Python int for an int, else an int64 array."""
    if isinstance(value, (int, np.integer)):
        value = int(value) & ((1 << bits) - 1)
        return value - (1 << bits) if value >> (bits - 1) else value
    value = np.asarray(value, np.int64) & ((1 << bits) - 1)
    return np.where(value >> (bits - 1), value - (1 << bits), value)


def as_int64(x, name: str = "x") -> np.ndarray:
    """Data as an int64 array; refuses floats and uint64 (which int64 cannot hold exactly)."""
    arr = np.asarray(x)
    if arr.dtype == np.int64:
        return arr
    if arr.dtype.kind not in "iub" or arr.dtype == np.uint64:
        raise ConfigurationError(f"{name} must be an integer array, not {arr.dtype}", rule=PRECISION_RULE, fields=())
    return arr.astype(np.int64)


def check_encoding(value, name: str, lo: int, hi: int, encoding: str, rule: str = PRECISION_RULE):
    """Return `value` as a Python int or int64 array after checking lo <= value <= hi."""
    arr = np.asarray(value)
    if arr.dtype.kind not in "iub" or arr.dtype == np.uint64:
        raise ConfigurationError(
            f"{name} must be an integer ({encoding}), got {value!r}", fields=(name,), rule=rule
        )
    if arr.size and (int(arr.min()) < lo or int(arr.max()) > hi):
        raise ConfigurationError(
            f"{name} out of its {encoding} encoding [{lo}, {hi}]: got {value!r}", fields=(name,), rule=rule
        )
    return int(arr) if arr.ndim == 0 else arr.astype(np.int64)


def _check_bits(bits: int, name: str = "bits") -> int:
    if not isinstance(bits, (int, np.integer)) or not 2 <= int(bits) <= 63:
        raise ConfigurationError(f"{name} must be an integer in [2, 63], got {bits!r}", rule=PRECISION_RULE,
                                 fields=(name,))
    return int(bits)


def _check_magnitude(v: np.ndarray, what: str):
    if v.size and (int(v.min()) < -_MAX_MAGNITUDE or int(v.max()) >= _MAX_MAGNITUDE):
        raise ConfigurationError(f"{what} exceeds the supported range |v| < 2**62", rule=PRECISION_RULE, fields=())


def saturate(x, bits: int) -> tuple[np.ndarray, int]:
    """Clip to signed `bits`; count = elements outside [-2**(bits-1), 2**(bits-1)-1]."""
    lo, hi = int_range(_check_bits(bits))
    x = as_int64(x)
    y = np.clip(x, lo, hi)
    return y, int(np.count_nonzero(y != x))


def shift_right_round(x, shift) -> np.ndarray:
    """Arithmetic x / 2**shift rounded half away from zero (shift 0 = identity).

    `shift` is a non-negative int or int array broadcasting against x; exact for every |x| < 2**63 and any
    shift (the SDP's EW multiplier gives (-2**31) * (-2**31) = 2**62 exactly, with a 10-bit truncate: NVIDIA's
    C model shifts it exactly, hls/include/nvdla_int.h IntShiftRight). No saturation: see convertor/truncate.
    """
    x = as_int64(x)
    s = np.asarray(shift)
    if s.dtype.kind not in "iub" or (s.size and int(s.min()) < 0):
        raise ConfigurationError(f"shift must be a non-negative integer, got {shift!r}", rule=PRECISION_RULE,
                                 fields=("shift",))
    if s.ndim == 0 and int(s) < 63 and (not x.size or -_MAX_MAGNITUDE < int(x.min()) and int(x.max()) < _MAX_MAGNITUDE):
        # the common case, ten times faster: x + half cannot overflow. floor((x + half) / 2**s) rounds halves up;
        # one less for negatives rounds them down (away from 0)
        shift = int(s)
        return x.copy() if shift == 0 else (x + ((1 << (shift - 1)) - (x < 0))) >> shift
    s = s.astype(np.int64)
    magnitude = np.abs(x)
    # |x| >> s, plus one when the dropped part is at least a half: bit s-1 of |x| (a shift of 0 drops nothing);
    # shifts are capped at 63, past which |x| < 2**63 has no bit left
    kept = magnitude >> np.minimum(s, 63)
    half = np.where(s > 0, (magnitude >> np.clip(s - 1, 0, 63)) & 1, 0)
    return np.where(x < 0, -(kept + half), kept + half)


def convertor(
    x,
    offset,
    scale,
    shift,
    out_bits: int,
    *,
    offset_bits: int = 32,
    scale_bits: int = 16,
    shift_bits: int = 5,
    fields: tuple[str, str, str] = ("offset", "scale", "shift"),
) -> tuple[np.ndarray, int]:
    """NVDLA convertor y = saturate(round((x - offset) * scale >> shift)), count of overflows.

    Default encodings are the document's (precision-preservation, convertor parameter table, INT->INT):
    offset INT32, scale INT16, shift UINT5; rounding is round half away from zero.  Some register fields
    are wider or narrower than the table (SDP D_CVT_SHIFT and CDP DATOUT_SHIFTER are 6 bits, CDP
    DATIN_OFFSET 16 bits): pass offset_bits/scale_bits/shift_bits and the register names in `fields`
    ("UNIT.REGISTER.FIELD" for offset, scale, shift) so errors name them.  Requires |x| < 2**46 and
    offset_bits <= 32, scale_bits <= 16, shift_bits <= 6.
    """
    if offset_bits > 32 or scale_bits > 16 or shift_bits > 6:
        raise ConfigurationError("convertor encodings are at most INT32/INT16/UINT6", rule=PRECISION_RULE, fields=())
    lo, hi = int_range(offset_bits)
    offset = check_encoding(offset, fields[0], lo, hi, f"INT{offset_bits}")
    lo, hi = int_range(scale_bits)
    scale = check_encoding(scale, fields[1], lo, hi, f"INT{scale_bits}")
    shift = check_encoding(shift, fields[2], 0, (1 << shift_bits) - 1, f"UINT{shift_bits}")
    bits = _check_bits(out_bits, "out_bits")
    x = as_int64(x)
    if x.size and (int(x.min()) < -(1 << 46) or int(x.max()) >= 1 << 46):
        raise ConfigurationError("convertor input exceeds |x| < 2**46", rule=PRECISION_RULE, fields=())
    return saturate(shift_right_round((x - offset) * scale, shift), bits)


def cmod_shift_saturation_flag(x, shift, bits: int) -> np.ndarray:
    """Per-element saturation flag as the C model's IntShiftRightSat computes it (nvdla_int.h).

    The flag is set when the rounded, saturated result differs from the floor shift by more than one,
    so an overflow caused by rounding alone (floor in range, rounded value one past it) is not
    flagged.  The SDP output convertor's D_PERF_OUT_SATURATION sums this flag for 17-bit results
    (cmod hls/sdp/sdp_c.cpp); the document's definition is the `count` of `convertor`.
    """
    x = as_int64(x)
    _check_magnitude(x, "shift input")
    floor = np.right_shift(x, np.minimum(np.asarray(shift), 63))
    rounded, _ = saturate(shift_right_round(x, shift), bits)
    return np.abs(floor - rounded) > 1


def truncate(x, lsb, out_bits: int) -> tuple[np.ndarray, int]:
    """NVDLA truncation y = saturate_round(x[msb:lsb]), msb = lsb + out_bits, count of overflows.

    Drops `lsb` low bits with round half away from zero, then saturates to `out_bits` (same rounding
    as the convertor, precision-preservation "Truncate").  lsb >= 0 (int or array); the register
    width (e.g. CACC CLIP_TRUNCATE 5 bits, CDMA CVT_TRUNCATE 6 bits) is the caller's to check.
    """
    x = as_int64(x)
    _check_magnitude(x, "truncate input")
    return saturate(shift_right_round(x, lsb), _check_bits(out_bits, "out_bits"))


def shift_left_saturate(x, shift, bits: int) -> tuple[np.ndarray, int]:
    """NVDLA shifter y = saturate(x << shift) to signed `bits`, count of overflows.

    shift in [0, 63] (int or array); computed without int64 overflow for any shift.
    """
    lo, hi = int_range(_check_bits(bits))
    shift = check_encoding(shift, "shift", 0, 63, "UINT6")
    x = as_int64(x)
    _check_magnitude(x, "shifter input")
    hi_limit = np.right_shift(hi, shift)
    lo_limit = -np.right_shift(-lo, shift)  # smallest x with x << shift >= lo
    over = x > hi_limit
    under = x < lo_limit
    shifted = np.left_shift(np.where(over | under, 0, x), shift)
    y = np.where(over, hi, np.where(under, lo, shifted))
    return y, int(np.count_nonzero(over | under))


def cdma_cvt(pixel, offset, scale, truncate_bits) -> np.ndarray:
    """The CDMA convertor's 17-bit result for pixels: sat17(round((pixel - offset) * scale >> truncate)).

    Encodings from the CDMA registers D_CVT_OFFSET (signed 16), D_CVT_SCALE (signed 16) and
    D_CVT_CFG.CVT_TRUNCATE (6-bit unsigned bits dropped); the cmod (cdma_cvt) rounds half away from
    zero into 17 bits. Pixel inputs are unsigned up to 16 bits (or signed 16 for int16 formats).
    """
    lo16, hi16 = int_range(16)
    offset = check_encoding(offset, "CDMA.D_CVT_OFFSET.CVT_OFFSET", lo16, hi16, "INT16", FORMATS_RULE)
    scale = check_encoding(scale, "CDMA.D_CVT_SCALE.CVT_SCALE", lo16, hi16, "INT16", FORMATS_RULE)
    shift = check_encoding(truncate_bits, "CDMA.D_CVT_CFG.CVT_TRUNCATE", 0, 63, "UINT6", FORMATS_RULE)
    pixel = as_int64(pixel, "pixel")
    if pixel.size and (int(pixel.min()) < -(1 << 16) or int(pixel.max()) >= 1 << 16):
        raise ConfigurationError("pixel values must fit in 17 signed bits", rule=FORMATS_RULE, fields=())
    return saturate(shift_right_round((pixel - offset) * scale, shift), 17)[0]


def pixel_to_int(pixel, offset, scale, truncate_bits, out_bits: int) -> tuple[np.ndarray, int]:
    """Equation 1 (pixel -> int8/int16): truncate2intN((pixel - offset) * SF).

    The 17-bit cdma_cvt result saturated to the output width; saturating twice equals saturating once.
    """
    if out_bits not in (8, 16):
        raise ConfigurationError(f"pixel conversion outputs int8 or int16, got {out_bits}", rule=FORMATS_RULE,
                                 fields=())
    return saturate(cdma_cvt(pixel, offset, scale, truncate_bits), out_bits)


def int8_int16_convert(x, offset, scale, truncate_bits, out_bits: int) -> tuple[np.ndarray, int]:
    """Equation 3: int16 -> int8 (out_bits=8) or int8 -> int16 (out_bits=16), same datapath as Eq. 1."""
    in_bits = 16 if out_bits == 8 else 8
    x = as_int64(x)
    lo, hi = int_range(in_bits)
    if x.size and (int(x.min()) < lo or int(x.max()) > hi):
        raise ConfigurationError(f"input of an int{in_bits}->int{out_bits} conversion exceeds int{in_bits}",
                                 rule=FORMATS_RULE, fields=())
    return pixel_to_int(x, offset, scale, truncate_bits, out_bits)
