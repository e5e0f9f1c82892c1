"""The SDP datapath: X1 (BS), X2 (BN), Y (EW + LUT) and the output convertor, over whole cubes.

Bit behaviour the documents leave open was read from nvdla/hw cmod/hls/sdp (sdp_x.cpp, sdp_y*.cpp,
sdp_c.cpp, sdp.h) and cmod/hls_wrapper/sdp_hls_wrapper.cpp.  Integer pipes (INT8/INT16, int32 inside):

* X: operand (int16) << ALU_SHIFT saturated to int32; ALU (SUM/MAX/MIN) in 33 bits; MUL by an int16
  operand (49 bits); the result is rounded half away from zero by MUL_SHIFT and saturated to int32 --
  also when MUL is bypassed (the truncation stage sits after the MUL, cmod X_trt), but not for a
  PReLU-passed positive value; ReLU last.
* Y: memory operands (int16, one-byte data sign extended) go through their convertor
  ((e - offset) * scale rounded by TRUNCATE, saturated to int32) unless bypassed; register operands
  are 32 bits.  MUL comes first (int32 x int32 rounded by EW_TRUNCATE, saturated to int32), then the
  ALU (SUM/MAX/MIN saturated to int32; EQL gives 0 when equal, 1 otherwise), then the LUT.
* Output convertor: (x - CVT_OFFSET) * CVT_SCALE rounded by CVT_SHIFT and saturated to 17 bits, then
  to int16 / int8, or int17 -> fp16.

FP16 pipe (fp32 inside, fp17 in the LUT): fp16 operands widen to fp32 (INF -> +/-FLT_MAX), NaN
operands are flushed when NAN_TO_ZERO is set, the ALU shifters and truncations do not exist; additions
and products are the cmod's FpAdd/FpMul (golden.numerics.fp_arith: RNE, no denormals, clipped, never
INF), with an IEEE float32 fast path for the elements where both agree (normal operands and result).
"""

from __future__ import annotations

import numpy as np

from golden.formats.feature import element_bits
from golden.numerics import corners, fp, fp_arith
from golden.numerics.integer import shift_left_saturate, shift_right_round
from golden.units import lut

_FLT_MAX = np.float32(np.finfo(np.float32).max)
_FLT_MIN = np.float32(np.finfo(np.float32).tiny)


# ---- integer pipes -----------------------------------------------------------------------------------------

def int_x(x, stage, alu_op, mul_op, where: str = "sdp.x1"):
    """One X stage over int64 data in the int32 range; alu_op/mul_op: memory operands or None (REG); `where`
    names the stage for corner observation (sdp.x1 or sdp.x2)."""
    if stage.bypass:
        return x
    a = x
    if not stage.alu_bypass:
        operand = stage.alu_operand if alu_op is None else alu_op
        corners.shifter(f"{where}.alu_shift", operand, stage.alu_shift, 32)
        operand = shift_left_saturate(operand, stage.alu_shift, 32)[0]
        a = {"MAX": np.maximum, "MIN": np.minimum}.get(stage.alu_algo, np.add)(x, operand)
    shift = stage.mul_shift & 0x3F  # the datapath takes 6 bits of the 8-bit field (cmod X_trt)
    if stage.mul_bypass:
        corners.convertor(f"{where}.mul_shift", a, shift, 32)
        m = _clip(shift_right_round(a, shift), 32)
    else:
        operand = stage.mul_operand if mul_op is None else mul_op
        corners.convertor(f"{where}.mul_shift", a * operand, shift, 32)
        m = _clip(shift_right_round(a * operand, shift), 32)
        if stage.mul_prelu:
            # positive values pass untouched; the 33-bit ALU result is narrowed to 32 bits by wrapping
            m = np.where(a >= 0, _wrap32(a), m)
    return m if stage.relu_bypass else np.maximum(m, 0)


def _clip(v, bits):
    """Saturate to signed `bits` (no overflow count: only the output convertor's is reported)."""
    return np.clip(v, -(1 << (bits - 1)), (1 << (bits - 1)) - 1)


def _wrap32(v):
    return ((v + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


def int_ew_operand(data, src, operand, cvt, cvt_bypass, where: str = "sdp.y.cvt"):
    """An EW operand: the 32-bit register value, or memory data through its convertor."""
    if src == "REG" or data is None:
        return np.int64(operand)
    if cvt_bypass:
        return data
    corners.convertor(where, (data - cvt.offset) * cvt.scale, cvt.shift, 32)
    return _clip(shift_right_round((data - cvt.offset) * cvt.scale, cvt.shift), 32)


def int_y(x, y, alu_op, mul_op, lut_params, tables, precision):
    """The Y stage; returns (data, lut counters or None)."""
    if y.bypass:
        return x, None
    m = x
    if not y.mul_bypass:
        operand = int_ew_operand(mul_op, y.mul_src, y.mul_operand, y.mul_cvt, y.mul_cvt_bypass, "sdp.y.mul_cvt")
        corners.convertor("sdp.y.truncate", x * operand, y.truncate, 32)
        m = _clip(shift_right_round(x * operand, y.truncate), 32)
        if y.mul_prelu:
            m = np.where(x >= 0, x, m)
    a = m
    if not y.alu_bypass:
        operand = int_ew_operand(alu_op, y.alu_src, y.alu_operand, y.alu_cvt, y.alu_cvt_bypass, "sdp.y.alu_cvt")
        if y.alu_algo == "EQL":
            a = (m != operand).astype(np.int64)
        else:
            a = {"MAX": np.maximum, "MIN": np.minimum}.get(y.alu_algo, np.add)(m, operand)
            corners.saturation("sdp.y.alu.saturate", a, 32)
            a = _clip(a, 32)
    if y.lut_bypass:
        return a, None
    result = lut.lookup(a, lut_params, tables, precision)
    return result.y, result.counters


def int_output(x, cvt, out_precision):
    """Output convertor; returns (values: int64 or fp16 bit patterns, saturation count).

    The count is the cmod's: an element whose convertor result overflows 17 bits (IntShiftRightSat), or
    for FP16 output an element equal to +/-65504.  The final int8/int16 clipping is not counted.
    """
    product = (x - cvt.offset) * cvt.scale
    rounded = shift_right_round(product, cvt.shift)
    corners.rounding("sdp.cvt_out.round", product, cvt.shift)
    corners.saturation("sdp.cvt_out.saturate", rounded, 17)
    t = _clip(rounded, 17)
    # cmod IntShiftRightSat flags an element when the clipped value is more than 1 from the floor shift
    count = int(np.count_nonzero(np.abs((product >> cvt.shift) - t) > 1))
    if out_precision == "fp16":
        # the cmod counts an FP16 output as saturated when it is +/-65504 (sdp_hls_wrapper sdp_c)
        h = fp.int_to_fp16(t)
        corners.fp16_rounding("sdp.cvt_out.fp16_round", t, 0)
        corners.fp16_patterns("sdp.out.fp16", h)
        return h, int(np.count_nonzero((h & 0x7FFF) == 0x7BFF))
    corners.saturation("sdp.cvt_out.narrow", t, element_bits(out_precision))
    return _clip(t, element_bits(out_precision)), count


# ---- FP16 pipe ---------------------------------------------------------------------------------------------

def fp32_add(a, b) -> np.ndarray:
    """cmod FpAdd on float32 values.

    Where the sum is a normal number IEEE float32 addition (RNE) gives the same bits.  An exact zero
    takes the sign of the first operand (the cmod keeps the sign of the larger operand, the first on a
    tie); denormal, INF and NaN results are recomputed with golden.numerics.fp_arith.
    """
    a, b, odd_operands = _operands(a, b)
    with np.errstate(over="ignore", invalid="ignore"):
        out = a + b
    normal, has_zero = _scan(out)
    if has_zero:
        zero = out == 0
        out[zero] = np.copysign(np.float32(0), a[zero])
    if normal and not odd_operands:
        return out
    return _patch(out, a, b, fp_arith.fp_add, odd_operands)


def fp32_mul(a, b) -> np.ndarray:
    """cmod FpMul on float32 values (IEEE product where it is normal or an exact zero, fp_arith elsewhere)."""
    a, b, odd_operands = _operands(a, b)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        out = a * b
    if _scan(out)[0] and not odd_operands:
        return out
    return _patch(out, a, b, fp_arith.fp_mul, odd_operands)


def _operands(a, b):
    """Broadcast float32 operands.  Full-size operands are NVDLA-internal values (normal, zero or NaN, by
    construction); a small (register / per-channel) operand may be a denormal or INF fp32 register value,
    which the cmod treats literally: then every element goes through the exact check."""
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    size = max(a.size, b.size)
    odd = any(v.size < size and bool(_abnormal(v).any()) for v in (a, b))
    a, b = np.broadcast_arrays(a, b)
    return a, b, odd


def _patch(out, a, b, exact, odd_operands):
    odd = _abnormal(out)
    if odd_operands:
        odd |= _abnormal(a) | _abnormal(b)
    if odd.any():
        out = np.array(out, np.float32)
        out[odd] = fp.fp32_values(exact(a[odd], b[odd], "fp32"))
    return out


def _scan(out: np.ndarray) -> tuple[bool, bool]:
    """(every element is a normal float32 or an exact zero, some element is an exact zero): two
    reductions over the magnitudes instead of the per-element mask of _patch."""
    magnitude = np.ascontiguousarray(out).view(np.uint32) & np.uint32(0x7FFFFFFF)
    if magnitude.size == 0:
        return True, False
    if magnitude.max() > np.uint32(0x7F7FFFFF):  # INF or NaN
        return False, bool((magnitude == 0).any())
    magnitude -= np.uint32(1)  # an exact zero wraps to the top, a denormal stays below 0x7FFFFF
    return bool(magnitude.min() >= np.uint32(0x007FFFFF)), bool(magnitude.max() == np.uint32(0xFFFFFFFF))


def _abnormal(v) -> np.ndarray:
    """Denormal, INF or NaN fp32 values (exact zeros are not): where the cmod and IEEE float32 differ."""
    magnitude = np.ascontiguousarray(v, np.float32).view(np.uint32) & np.uint32(0x7FFFFFFF)
    return ((magnitude - np.uint32(0x00800000)) >= np.uint32(0x7F000000)) & (magnitude != 0)


def fp16_operand(bits, nan_to_zero):
    """fp16 patterns -> float32 values (cmod Fp16ToFp32 by golden.numerics.fp: exact, INF -> +/-FLT_MAX,
    NaN payload kept in the low mantissa bits; NaN flushed to +0 when NAN_TO_ZERO)."""
    bits = np.asarray(bits, np.uint16)
    corners.fp16_patterns("sdp.fp.in", bits)
    if nan_to_zero:
        bits = fp.flush_nan(bits, "fp16")[0]
    return fp.fp16_to_float32(bits)


def fp_alu(algo, a, b):
    """cmod FpAlu: SUM (FpAdd), MAX/MIN (FpCmp: sign-magnitude, -0 < +0, a NaN operand wins), EQL
    (0.0 for bit-identical operands, the fp32 pattern 1 otherwise)."""
    a, b = np.broadcast_arrays(np.asarray(a, np.float32), np.asarray(b, np.float32))
    if algo == "SUM":
        return fp32_add(a, b)
    if algo == "EQL":
        return (a.view(np.uint32) != b.view(np.uint32)).astype(np.uint32).view(np.float32)
    compare = fp_arith.fp_max if algo == "MAX" else fp_arith.fp_min
    return fp.fp32_values(compare(a, b, "fp32"))


def _fp_mul(a, b, prelu):
    product = fp32_mul(a, b)
    if prelu:
        return np.where(np.signbit(a), product, a).astype(np.float32)
    return product


def fp_x_operand(data, operand, nan_to_zero):
    """An X stage's fp16 operand as fp32: from memory (`data`) or its register value."""
    return fp16_operand(data if data is not None else np.uint16(operand & 0xFFFF), nan_to_zero)


def fp_x(x, stage, alu_op, mul_op, nan_to_zero):
    if stage.bypass:
        return x
    a = x
    if not stage.alu_bypass:
        a = fp_alu(stage.alu_algo, x, fp_x_operand(alu_op, stage.alu_operand, nan_to_zero))
    m = a
    if not stage.mul_bypass:
        m = _fp_mul(a, fp_x_operand(mul_op, stage.mul_operand, nan_to_zero), stage.mul_prelu)
    if stage.relu_bypass:
        return m
    return relu(m)


def relu(m):
    """cmod FpRelu: a negative value (also -0) becomes +0, a NaN passes with its pattern. numpy's
    maximum(m, +0) does exactly that (test_sdp pins it over every fp16-widened value)."""
    return np.maximum(m, np.float32(0))


def fp_ew_operand(data, src, operand, nan_to_zero):
    if src == "REG" or data is None:
        return fp.fp32_values(np.uint32(operand & 0xFFFFFFFF))
    return fp16_operand(data, nan_to_zero)


def fp_y(x, y, alu_op, mul_op, nan_to_zero, lut_params, tables):
    if y.bypass:
        return x, None
    m = x
    if not y.mul_bypass:
        m = _fp_mul(x, fp_ew_operand(mul_op, y.mul_src, y.mul_operand, nan_to_zero), y.mul_prelu)
    a = m
    if not y.alu_bypass:
        a = fp_alu(y.alu_algo, m, fp_ew_operand(alu_op, y.alu_src, y.alu_operand, nan_to_zero))
    if y.lut_bypass:
        return a, None
    result = lut.lookup(a, lut_params, tables, "fp16")
    return result.y, result.counters


def fp_output(x, out_precision):
    """fp32 -> fp16 (RNE, clip to 65504) or -> int16 through fp16; saturation counts |fp16| == 65504."""
    h = fp.fp32_to_fp16(np.asarray(x, np.float32))
    if corners.active():
        finite = np.where(np.isfinite(x), x, 0).astype(np.float64)
        corners.fp16_rounding("sdp.fp.out.round", finite, 23)
        corners.fp16_patterns("sdp.out.fp16", h)
    if out_precision == "int16":
        corners.fp16_to_int("sdp.fp.out.int16", h, 16)
        return fp.fp16_to_int(h, 16)[0], 0
    return h, int(np.count_nonzero((h & 0x7FFF) == 0x7BFF))
