"""golden/units/sdp: each operator against a per-element reference written here.

Integer pipes: Python integers (round half away from zero, saturation) following the documented
X1/X2/Y/convertor formulas with the datapath widths of the C model (operand << shift saturated to int32,
33-bit ALU, MUL rounded by its shift and saturated to int32, Y MUL then ALU, 17-bit output convertor).
FP16 pipe: exact fractions rounded to nearest even (fp32 without denormals, clipped; fp16 output with
denormals, clipped to 65504).
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from golden.config import get_profile
from golden.formats import auxiliary, feature
from golden.memory import Memory, MemorySystem
from golden.regs.regmap import RegisterMap
from golden.regs.values import RegisterValues
from golden.rules import LimitationWarning
from golden.units import lut, sdp
from golden.units.base import LayerContext

FULL = get_profile("nv_full")
ATOM = FULL.memory_atomic_size
SRC, DST, OPS = 0x8000_0000, 0x8010_0000, {"B": 0x8020_0000, "N": 0x8030_0000, "E": 0x8040_0000}
PRECISION_CODE = {"int8": 0, "int16": 1, "fp16": 2}
DMA_NAME = {"B": "BS", "N": "BN", "E": "EW"}
FLT_MAX = Fraction((1 << 24) - 1) * 2 ** 104


# ---- layer builder ----------------------------------------------------------------------------------------------

def strides(shape, precision):
    c, h, w = shape
    return w * ATOM, w * h * ATOM


def base_fields(shape, in_p, out_p, proc=None):
    proc = proc or in_p
    c, h, w = shape
    line, surface = strides(shape, in_p)
    out_line, out_surface = strides(shape, out_p)
    f = {
        "SDP.D_DATA_CUBE_WIDTH.WIDTH": w - 1, "SDP.D_DATA_CUBE_HEIGHT.HEIGHT": h - 1,
        "SDP.D_DATA_CUBE_CHANNEL.CHANNEL": c - 1,
        "SDP_RDMA.D_DATA_CUBE_WIDTH.WIDTH": w - 1, "SDP_RDMA.D_DATA_CUBE_HEIGHT.HEIGHT": h - 1,
        "SDP_RDMA.D_DATA_CUBE_CHANNEL.CHANNEL": c - 1,
        "SDP_RDMA.D_SRC_BASE_ADDR_LOW.SRC_BASE_ADDR_LOW": SRC, "SDP_RDMA.D_SRC_LINE_STRIDE.SRC_LINE_STRIDE": line,
        "SDP_RDMA.D_SRC_SURFACE_STRIDE.SRC_SURFACE_STRIDE": surface, "SDP_RDMA.D_SRC_DMA_CFG.SRC_RAM_TYPE": 1,
        "SDP_RDMA.D_FEATURE_MODE_CFG.IN_PRECISION": PRECISION_CODE[in_p],
        "SDP_RDMA.D_FEATURE_MODE_CFG.PROC_PRECISION": PRECISION_CODE[proc],
        "SDP_RDMA.D_FEATURE_MODE_CFG.OUT_PRECISION": PRECISION_CODE[out_p],
        "SDP.D_DATA_FORMAT.PROC_PRECISION": PRECISION_CODE[proc],
        "SDP.D_DATA_FORMAT.OUT_PRECISION": PRECISION_CODE[out_p],
        "SDP.D_DST_BASE_ADDR_LOW.DST_BASE_ADDR_LOW": DST, "SDP.D_DST_LINE_STRIDE.DST_LINE_STRIDE": out_line,
        "SDP.D_DST_SURFACE_STRIDE.DST_SURFACE_STRIDE": out_surface, "SDP.D_DST_DMA_CFG.DST_RAM_TYPE": 1,
        "SDP.D_DP_BS_CFG.BS_BYPASS": 1, "SDP.D_DP_BN_CFG.BN_BYPASS": 1, "SDP.D_DP_EW_CFG.EW_BYPASS": 1,
        "SDP.D_CVT_SCALE.CVT_SCALE": 1, "SDP.D_PERF_ENABLE.PERF_SAT_EN": 1, "SDP.D_PERF_ENABLE.PERF_LUT_EN": 1,
        "SDP.D_PERF_ENABLE.PERF_NAN_INF_COUNT_EN": 1, "SDP_RDMA.D_PERF_ENABLE.PERF_NAN_INF_COUNT_EN": 1,
    }
    for letter in "BNE":
        f[f"SDP_RDMA.D_{letter}RDMA_CFG.{letter}RDMA_DISABLE"] = 1
    for p in ("BS", "BN", "EW"):  # every stage neutral (register resets enable PReLU, for instance)
        f.update({f"SDP.D_DP_{p}_CFG.{p}_ALU_BYPASS": 1, f"SDP.D_DP_{p}_CFG.{p}_MUL_BYPASS": 1,
                  f"SDP.D_DP_{p}_CFG.{p}_MUL_PRELU": 0, f"SDP.D_DP_{p}_CFG.{p}_ALU_ALGO": 0,
                  f"SDP.D_DP_{p}_ALU_CFG.{p}_ALU_SRC": 0, f"SDP.D_DP_{p}_MUL_CFG.{p}_MUL_SRC": 0})
        if p != "EW":
            f.update({f"SDP.D_DP_{p}_CFG.{p}_RELU_BYPASS": 1, f"SDP.D_DP_{p}_ALU_CFG.{p}_ALU_SHIFT_VALUE": 0,
                      f"SDP.D_DP_{p}_MUL_CFG.{p}_MUL_SHIFT_VALUE": 0})
    f.update({"SDP.D_DP_EW_CFG.EW_LUT_BYPASS": 1, "SDP.D_DP_EW_ALU_CFG.EW_ALU_CVT_BYPASS": 1,
              "SDP.D_DP_EW_MUL_CFG.EW_MUL_CVT_BYPASS": 1})
    return f


def enable_dma(fields, letter, use, mode, size, shape, proc):
    name = DMA_NAME[letter]
    per_atom = auxiliary.bytes_per_atom(proc, use, size, ATOM)
    c, h, w = shape
    fields.update({
        f"SDP_RDMA.D_{letter}RDMA_CFG.{letter}RDMA_DISABLE": 0,
        f"SDP_RDMA.D_{letter}RDMA_CFG.{letter}RDMA_DATA_USE": {"MUL": 0, "ALU": 1, "BOTH": 2}[use],
        f"SDP_RDMA.D_{letter}RDMA_CFG.{letter}RDMA_DATA_SIZE": {"ONE_BYTE": 0, "TWO_BYTE": 1}[size],
        f"SDP_RDMA.D_{letter}RDMA_CFG.{letter}RDMA_DATA_MODE": {"PER_KERNEL": 0, "PER_ELEMENT": 1}[mode],
        f"SDP_RDMA.D_{letter}RDMA_CFG.{letter}RDMA_RAM_TYPE": 1,
        f"SDP_RDMA.D_{name}_BASE_ADDR_LOW.{name}_BASE_ADDR_LOW": OPS[letter],
        f"SDP_RDMA.D_{name}_LINE_STRIDE.{name}_LINE_STRIDE": w * per_atom,
        f"SDP_RDMA.D_{name}_SURFACE_STRIDE.{name}_SURFACE_STRIDE": w * h * per_atom,
    })
    return w * per_atom, w * h * per_atom


def make_ctx(fields, memory=None, profile=FULL, luts=None):
    regs = RegisterValues.encode(RegisterMap.for_profile(profile), fields)
    ctx = LayerContext(profile, regs, memory or MemorySystem(Memory("pri_mem"), Memory("sec_mem")))
    if luts is not None:
        ctx.luts = {"SDP": luts}
    return ctx


def put_feature(ctx, cube, precision, base=SRC, out_precision=None):
    """Write the input with zero padding channels up to whole atoms of the input and output precisions
    (int16 -> int8 reads a whole int8 atom of channels: programming-guide Limitation/SDP/DC)."""
    line, surface = strides(cube.shape, precision)
    per_atom = max(ATOM // feature.element_bytes(p) for p in (precision, out_precision or precision))
    c = cube.shape[0]
    padded = np.zeros((-(-c // per_atom) * per_atom, *cube.shape[1:]), cube.dtype)
    padded[:c] = cube
    ctx.memory.pri.write(base, feature.pack_feature(padded, precision, line, surface, ATOM))


def put_operand(ctx, data, letter, proc, use, size, mode, line, surface):
    ctx.memory.pri.write(OPS[letter], auxiliary.pack_aux(data, proc, use, size, mode, line, surface, ATOM))


def get_output(ctx, shape, precision):
    line, surface = strides(shape, precision)
    span = feature.feature_span(shape, precision, line, surface, ATOM)
    return feature.unpack_feature(ctx.memory.pri.read(DST, span), 0, shape, precision, line, surface, ATOM)


# ---- integer reference ------------------------------------------------------------------------------------------

def sat(v, bits):
    return max(min(v, (1 << (bits - 1)) - 1), -(1 << (bits - 1)))


def rshift_round(v, s):
    if s == 0:
        return v
    q = Fraction(v, 1 << s)
    return int(math.floor(q + Fraction(1, 2))) if q >= 0 else -int(math.floor(-q + Fraction(1, 2)))


def wrap32(v):
    return ((v + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


def ref_x(x, s, alu_op, mul_op):
    if s["bypass"]:
        return x
    a = x
    if not s["alu_bypass"]:
        op = sat(alu_op << s["alu_shift"], 32)
        a = {"MAX": max(x, op), "MIN": min(x, op), "SUM": x + op}[s["algo"]]
    if s["mul_bypass"]:
        m = sat(rshift_round(a, s["mul_shift"]), 32)
    elif s["prelu"] and a >= 0:
        m = wrap32(a)
    else:
        m = sat(rshift_round(a * mul_op, s["mul_shift"]), 32)
    return m if s["relu_bypass"] else max(m, 0)


def ref_y(x, s, alu_op, mul_op):
    def operand(value, src, reg, cvt):
        if src == "REG":
            return reg
        if cvt is None:
            return value
        return sat(rshift_round((value - cvt[0]) * cvt[1], cvt[2]), 32)

    if s["bypass"]:
        return x
    m = x
    if not s["mul_bypass"]:
        op = operand(mul_op, s["mul_src"], s["mul_reg"], s["mul_cvt"])
        m = x if (s["prelu"] and x >= 0) else sat(rshift_round(x * op, s["truncate"]), 32)
    if s["alu_bypass"]:
        return m
    op = operand(alu_op, s["alu_src"], s["alu_reg"], s["alu_cvt"])
    return {"MAX": max(m, op), "MIN": min(m, op), "SUM": sat(m + op, 32), "EQL": int(m != op)}[s["algo"]]


def ref_out(x, cvt, out_p):
    t = sat(rshift_round((x - cvt[0]) * cvt[1], cvt[2]), 17)
    if out_p == "fp16":
        # float16() rounds to nearest even; NVDLA clips beyond 65504 instead of giving INF
        return int(np.float16(max(min(t, 65504), -65504)).view(np.uint16))
    return sat(t, 16 if out_p == "int16" else 8)


# ---- randomized integer layers ----------------------------------------------------------------------------------

ALGOS = ["MAX", "MIN", "SUM"]


@st.composite
def x_stage(draw, prefix):
    s = {
        "bypass": draw(st.booleans()), "alu_bypass": draw(st.booleans()), "algo": draw(st.sampled_from(ALGOS)),
        "alu_src": draw(st.sampled_from(["REG", "MEM"])), "alu_shift": draw(st.integers(0, 63)),
        "alu_reg": draw(st.integers(-32768, 32767)), "mul_bypass": draw(st.booleans()),
        "mul_src": draw(st.sampled_from(["REG", "MEM"])), "mul_shift": draw(st.integers(0, 63)),
        "mul_reg": draw(st.integers(-32768, 32767)), "relu_bypass": draw(st.booleans()),
        "prelu": draw(st.booleans()), "prefix": prefix,
    }
    if s["prelu"]:
        s["alu_bypass"] = True  # programming-guide Limitation/SDP: PReLU needs the ALU bypassed
    return s


@st.composite
def y_stage(draw):
    s = {
        "bypass": draw(st.booleans()), "alu_bypass": draw(st.booleans()),
        "algo": draw(st.sampled_from(ALGOS)), "alu_src": draw(st.sampled_from(["REG", "MEM"])),
        "alu_reg": draw(st.integers(-2**31, 2**31 - 1)), "mul_bypass": draw(st.booleans()),
        "mul_src": draw(st.sampled_from(["REG", "MEM"])), "mul_reg": draw(st.integers(-2**31, 2**31 - 1)),
        "prelu": draw(st.booleans()), "truncate": draw(st.integers(0, 1023)),
        "alu_cvt": draw(st.none() | st.tuples(st.integers(-2**31, 2**31 - 1), st.integers(-32768, 32767),
                                              st.integers(0, 63))),
        "mul_cvt": draw(st.none() | st.tuples(st.integers(-2**31, 2**31 - 1), st.integers(-32768, 32767),
                                              st.integers(0, 63))),
        "prefix": "EW",
    }
    if s["prelu"]:
        s["alu_bypass"] = True
    return s


def program_x(fields, s):
    p = s["prefix"]
    fields.update({
        f"SDP.D_DP_{p}_CFG.{p}_BYPASS": int(s["bypass"]), f"SDP.D_DP_{p}_CFG.{p}_ALU_BYPASS": int(s["alu_bypass"]),
        f"SDP.D_DP_{p}_CFG.{p}_ALU_ALGO": ALGOS.index(s["algo"]),
        f"SDP.D_DP_{p}_CFG.{p}_MUL_BYPASS": int(s["mul_bypass"]), f"SDP.D_DP_{p}_CFG.{p}_MUL_PRELU": int(s["prelu"]),
        f"SDP.D_DP_{p}_ALU_CFG.{p}_ALU_SRC": int(s["alu_src"] == "MEM"),
        f"SDP.D_DP_{p}_MUL_CFG.{p}_MUL_SRC": int(s["mul_src"] == "MEM"),
        f"SDP.D_DP_{p}_ALU_SRC_VALUE.{p}_ALU_OPERAND": s["alu_reg"] & 0xFFFF,
        f"SDP.D_DP_{p}_MUL_SRC_VALUE.{p}_MUL_OPERAND": s["mul_reg"] & 0xFFFF,
    })
    if p != "EW":
        fields[f"SDP.D_DP_{p}_CFG.{p}_RELU_BYPASS"] = int(s["relu_bypass"])
        fields[f"SDP.D_DP_{p}_ALU_CFG.{p}_ALU_SHIFT_VALUE"] = s["alu_shift"]
        fields[f"SDP.D_DP_{p}_MUL_CFG.{p}_MUL_SHIFT_VALUE"] = s["mul_shift"]
        return
    fields.update({
        "SDP.D_DP_EW_CFG.EW_LUT_BYPASS": 1, "SDP.D_DP_EW_ALU_SRC_VALUE.EW_ALU_OPERAND": s["alu_reg"] & 0xFFFFFFFF,
        "SDP.D_DP_EW_MUL_SRC_VALUE.EW_MUL_OPERAND": s["mul_reg"] & 0xFFFFFFFF,
        "SDP.D_DP_EW_TRUNCATE_VALUE.EW_TRUNCATE": s["truncate"],
    })
    for which in ("ALU", "MUL"):
        cvt = s[f"{which.lower()}_cvt"]
        fields[f"SDP.D_DP_EW_{which}_CFG.EW_{which}_CVT_BYPASS"] = int(cvt is None)
        if cvt is not None:
            fields[f"SDP.D_DP_EW_{which}_CVT_OFFSET_VALUE.EW_{which}_CVT_OFFSET"] = cvt[0] & 0xFFFFFFFF
            fields[f"SDP.D_DP_EW_{which}_CVT_SCALE_VALUE.EW_{which}_CVT_SCALE"] = cvt[1] & 0xFFFF
            fields[f"SDP.D_DP_EW_{which}_CVT_TRUNCATE_VALUE.EW_{which}_CVT_TRUNCATE"] = cvt[2]


def users(s):
    alu = not s["bypass"] and not s["alu_bypass"] and s["alu_src"] == "MEM"
    mul = not s["bypass"] and not s["mul_bypass"] and s["mul_src"] == "MEM"
    return alu, mul


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_integer_layer_matches_reference(data):
    in_p = data.draw(st.sampled_from(["int8", "int16"]), "in")
    # int16 -> int8 runs with PROC_PRECISION INT8 on the RTL (SDP-INT16-TO-INT8); this reference processes in the
    # input's precision
    out_p = data.draw(st.sampled_from(["int16", "fp16"] if in_p == "int16" else ["int8", "int16"]), "out")
    c, h, w = data.draw(st.tuples(st.integers(1, 40), st.integers(1, 3), st.integers(1, 3)), "shape")
    shape = (c, h, w)
    stages = {"B": data.draw(x_stage("BS"), "x1"), "N": data.draw(x_stage("BN"), "x2"), "E": data.draw(y_stage(), "y")}
    cvt = data.draw(st.tuples(st.integers(-2**31, 2**31 - 1), st.integers(-32768, 32767), st.integers(0, 63)), "cvt")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), "seed"))
    lo, hi = (-128, 128) if in_p == "int8" else (-32768, 32768)
    x = rng.integers(lo, hi, shape)
    fields = base_fields(shape, in_p, out_p)
    fields.update({"SDP.D_CVT_OFFSET.CVT_OFFSET": cvt[0] & 0xFFFFFFFF, "SDP.D_CVT_SCALE.CVT_SCALE": cvt[1] & 0xFFFF,
                   "SDP.D_CVT_SHIFT.CVT_SHIFT": cvt[2]})
    operands = {}
    for letter, s in stages.items():
        program_x(fields, s)
        alu, mul = users(s)
        if not (alu or mul):
            continue
        use = "BOTH" if alu and mul else ("ALU" if alu else "MUL")
        mode = data.draw(st.sampled_from(["PER_KERNEL", "PER_ELEMENT"]), f"{letter} mode")
        # a 16-bit pipeline reads two-byte operands only (SDP-xRDMA-INT16-SIZE)
        sizes = ["ONE_BYTE", "TWO_BYTE"] if in_p == "int8" else ["TWO_BYTE"]
        size = data.draw(st.sampled_from(sizes), f"{letter} size")
        line, surface = enable_dma(fields, letter, use, mode, size, shape, in_p)
        ncomp = 2 if use == "BOTH" else 1
        span = (-128, 128) if size == "ONE_BYTE" else (-32768, 32768)
        per_atom = max(ATOM // feature.element_bytes(p) for p in (in_p, out_p))
        cp = -(-c // per_atom) * per_atom
        spatial = (cp,) if mode == "PER_KERNEL" else (cp, h, w)
        values = rng.integers(*span, (*spatial, ncomp))
        operands[letter] = (values, use, mode)
        ctx_op = (values, letter, in_p, use, size, mode, line, surface)
        fields.setdefault("_ops", []).append(ctx_op)
    op_list = fields.pop("_ops", [])
    ctx = make_ctx(fields)
    put_feature(ctx, x.astype(feature.element_dtype(in_p)), in_p, out_precision=out_p)
    for values, letter, proc, use, size, mode, line, surface in op_list:
        put_operand(ctx, values, letter, proc, use, size, mode, line, surface)
    result = sdp.run(ctx)
    got = get_output(ctx, shape, out_p)
    got = got.view(np.uint16) if out_p == "fp16" else got

    def operand_at(letter, k, i, j):
        if letter not in operands:
            return None, None
        values, use, mode = operands[letter]
        v = values[k] if mode == "PER_KERNEL" else values[k, i, j]
        comps = [int(t) for t in v]
        if use == "BOTH":
            return comps[0], comps[1]
        return (comps[0], None) if use == "ALU" else (None, comps[0])

    saturated = 0
    for k in range(c):
        for i in range(h):
            for j in range(w):
                v = int(x[k, i, j])
                for letter in "BN":
                    alu_op, mul_op = operand_at(letter, k, i, j)
                    s = stages[letter]
                    v = ref_x(v, s, s["alu_reg"] if alu_op is None else alu_op,
                              s["mul_reg"] if mul_op is None else mul_op)
                alu_op, mul_op = operand_at("E", k, i, j)
                v = ref_y(v, stages["E"], alu_op, mul_op)
                product = (v - cvt[0]) * cvt[1]
                want = ref_out(v, cvt, out_p)
                if out_p == "fp16":  # the cmod counts +/-65504 outputs
                    saturated += (want & 0x7FFF) == 0x7BFF
                else:  # the cmod counts 17-bit overflows of the convertor (IntShiftRightSat)
                    saturated += abs((product >> cvt[2]) - sat(rshift_round(product, cvt[2]), 17)) > 1
                assert int(got[k, i, j]) == want, (k, i, j)
    if all(c % (ATOM // feature.element_bytes(p)) == 0 for p in (in_p, out_p)):  # no padding lanes in or out
        assert result.status["SDP", "D_PERF_OUT_SATURATION"] == saturated


# ---- explicit cases ---------------------------------------------------------------------------------------------

def run_int(shape, in_p, out_p, x, extra, operands=(), luts=None):
    fields = base_fields(shape, in_p, out_p)
    fields.update(extra)
    pending = []
    for letter, use, mode, size, values in operands:
        line, surface = enable_dma(fields, letter, use, mode, size, shape, in_p)
        pending.append((values, letter, in_p, use, size, mode, line, surface))
    ctx = make_ctx(fields, luts=luts)
    put_feature(ctx, np.asarray(x).astype(feature.element_dtype(in_p)), in_p, out_precision=out_p)
    for args in pending:
        put_operand(ctx, *args)
    return sdp.run(ctx), ctx


def test_bias_relu_cvt_example():
    x = np.arange(-16, 16).reshape(32, 1, 1)
    bias = np.arange(32) * 3 - 40
    extra = {"SDP.D_DP_BS_CFG.BS_BYPASS": 0, "SDP.D_DP_BS_CFG.BS_ALU_BYPASS": 0, "SDP.D_DP_BS_CFG.BS_ALU_ALGO": 2,
             "SDP.D_DP_BS_CFG.BS_RELU_BYPASS": 0,
             "SDP.D_DP_BS_ALU_CFG.BS_ALU_SRC": 1, "SDP.D_DP_BS_ALU_CFG.BS_ALU_SHIFT_VALUE": 1,
             "SDP.D_CVT_SCALE.CVT_SCALE": 3, "SDP.D_CVT_SHIFT.CVT_SHIFT": 2}
    result, ctx = run_int((32, 1, 1), "int8", "int8", x, extra, [("B", "ALU", "PER_KERNEL", "TWO_BYTE", bias)])
    want = [sat(rshift_round(max(int(v) + 2 * int(b), 0) * 3, 2), 8) for v, b in zip(x.ravel(), bias, strict=True)]
    assert get_output(ctx, (32, 1, 1), "int8").ravel().tolist() == want


def test_eql_mode_reports_difference_and_writes_nothing():
    shape = (16, 2, 2)
    rng = np.random.default_rng(3)
    a = rng.integers(-100, 100, shape)
    extra = {"SDP.D_DP_EW_CFG.EW_BYPASS": 0, "SDP.D_DP_EW_CFG.EW_ALU_BYPASS": 0, "SDP.D_DP_EW_CFG.EW_ALU_ALGO": 3,
             "SDP.D_DP_EW_CFG.EW_LUT_BYPASS": 1, "SDP.D_DP_EW_ALU_CFG.EW_ALU_SRC": 1,
             "SDP.D_DP_EW_ALU_CFG.EW_ALU_CVT_BYPASS": 1}
    for other, unequal in ((a, 0), (np.where(np.arange(a.size).reshape(shape) == 37, a + 1, a), 1)):
        ew = np.concatenate([other, np.zeros((16, 2, 2), int)])[:32].reshape(32, 2, 2)[..., None]
        result, ctx = run_int(shape, "int8", "int8", a, extra, [("E", "ALU", "PER_ELEMENT", "ONE_BYTE", ew)])
        assert result.status["SDP", "D_STATUS"] == unequal
        assert not ctx.memory.pri.is_written(DST, 16).any() and not result.surfaces


def test_output_to_pdp_is_returned_not_written():
    x = np.arange(64).reshape(16, 2, 2) - 30
    result, ctx = run_int((16, 2, 2), "int8", "int8", x, {"SDP.D_FEATURE_MODE_CFG.OUTPUT_DST": 1})
    assert result.output.shape == (32, 2, 2) and np.array_equal(result.output[:16], x)
    assert not ctx.memory.pri.is_written(DST, 16).any()


def test_padding_lanes_are_computed_and_written():
    """../shared/nvdla/README.md: sdp_1x1x1_pass_through_int8 writes all 8 lanes of its atom."""
    extra = {"SDP.D_CVT_OFFSET.CVT_OFFSET": 0x558FBB6E, "SDP.D_CVT_SCALE.CVT_SCALE": 0x16CC,
             "SDP.D_CVT_SHIFT.CVT_SHIFT": 10}
    result, ctx = run_int((1, 1, 1), "int8", "int8", np.array([[[5]]]), extra)
    assert ctx.memory.pri.read(DST, ATOM).view(np.int8).tolist() == [-128] * ATOM
    assert result.status["SDP", "D_PERF_OUT_SATURATION"] == ATOM


def test_precision_preservation_lut_example_on_the_sdp():
    """[100, 300] -> 257 LO entries; Y MUL by 1311 >> 10 and ALU -128 give x' = (x - 100) * 256 / 200."""
    def f(v):
        return v * v // 8

    table = np.array([f(100 + 200 * i // 256) for i in range(257)], np.int16)
    tables = lut.LutTables(lo=table.view(np.uint16))
    x = np.arange(100, 301, 25).reshape(9, 1, 1)
    extra = {"SDP.D_DP_EW_CFG.EW_BYPASS": 0, "SDP.D_DP_EW_CFG.EW_ALU_BYPASS": 0, "SDP.D_DP_EW_CFG.EW_ALU_ALGO": 2,
             "SDP.D_DP_EW_CFG.EW_MUL_BYPASS": 0, "SDP.D_DP_EW_CFG.EW_LUT_BYPASS": 0,
             "SDP.D_DP_EW_ALU_SRC_VALUE.EW_ALU_OPERAND": -128 & 0xFFFFFFFF,
             "SDP.D_DP_EW_MUL_SRC_VALUE.EW_MUL_OPERAND": 1311, "SDP.D_DP_EW_TRUNCATE_VALUE.EW_TRUNCATE": 10,
             "SDP.S_LUT_CFG.LUT_LE_FUNCTION": 1, "SDP.S_LUT_CFG.LUT_HYBRID_PRIORITY": 1,
             "SDP.S_LUT_CFG.LUT_UFLOW_PRIORITY": 1,
             "SDP.S_LUT_LE_START.LUT_LE_START": 32767, "SDP.S_LUT_LE_END.LUT_LE_END": 32767 + 64,
             "SDP.S_LUT_LO_END.LUT_LO_END": 256, "SDP.D_CVT_SCALE.CVT_SCALE": 1}
    result, ctx = run_int((9, 1, 1), "int16", "int16", x, extra, luts=tables)
    assert get_output(ctx, (9, 1, 1), "int16").ravel().tolist() == [f(int(v)) for v in x.ravel()]
    # x' = 32, ..., 224 hit LO; x' = 0 (= LO_START) underflows to LUT[0] + 0 * slope; 256 overflows to
    # LUT[256]; the 7 zero padding lanes (x' = -128) underflow
    assert result.status["SDP", "D_PERF_LUT_LO_HIT"] == 7 and result.status["SDP", "D_PERF_LUT_UFLOW"] == 8


# ---- FP16 pipe --------------------------------------------------------------------------------------------------

def rne(q, man_bits, emin):
    if q == 0:
        return Fraction(0)
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    ulp = Fraction(2) ** (max(e, emin) - man_bits)
    n = a / ulp
    f = math.floor(n)
    if n - f > Fraction(1, 2) or (n - f == Fraction(1, 2) and f % 2):
        f += 1
    return f * ulp if q > 0 else -f * ulp


def fp32_ref(q):
    r = rne(q, 23, -126)
    if abs(r) < Fraction(2) ** -126:
        return Fraction(0)
    return max(min(r, FLT_MAX), -FLT_MAX)


def fp16_out_ref(q):
    r = rne(q, 10, -14)
    return max(min(r, Fraction(65504)), Fraction(-65504))


def h2q(bits):
    v = np.array([bits], np.uint16).view(np.float16)[0]
    return FLT_MAX * (1 if v > 0 else -1) if np.isinf(v) else Fraction(float(v))


FP_OPS = {
    "sum": lambda a, b: fp32_ref(a + b),
    "max": max, "min": min,
    "mul": lambda a, b: fp32_ref(a * b),
}


def finite_fp16(n, rng):
    bits = rng.integers(0, 65536, n).astype(np.uint16)
    return np.where((bits & 0x7C00) == 0x7C00, bits & 0x83FF, bits).astype(np.uint16)


@pytest.mark.parametrize("op", sorted(FP_OPS))
@pytest.mark.parametrize("stage", ["BS", "BN"])
def test_fp16_x_operators(op, stage):
    shape = (16, 4, 4)
    rng = np.random.default_rng(7)
    x = finite_fp16(np.prod(shape), rng).reshape(shape)
    operand = finite_fp16(16 * 16, rng).reshape(16, 4, 4)
    p = stage
    extra = {f"SDP.D_DP_{p}_CFG.{p}_BYPASS": 0, f"SDP.D_DP_{p}_CFG.{p}_RELU_BYPASS": 1}
    if op == "mul":
        extra.update({f"SDP.D_DP_{p}_CFG.{p}_MUL_BYPASS": 0, f"SDP.D_DP_{p}_MUL_CFG.{p}_MUL_SRC": 1})
        use = "MUL"
    else:
        extra.update({f"SDP.D_DP_{p}_CFG.{p}_ALU_BYPASS": 0, f"SDP.D_DP_{p}_CFG.{p}_ALU_ALGO": ["max", "min", "sum"]
                      .index(op), f"SDP.D_DP_{p}_ALU_CFG.{p}_ALU_SRC": 1})
        use = "ALU"
    letter = "B" if stage == "BS" else "N"
    fields = base_fields(shape, "fp16", "fp16")
    fields.update(extra)
    line, surface = enable_dma(fields, letter, use, "PER_ELEMENT", "TWO_BYTE", shape, "fp16")
    ctx = make_ctx(fields)
    put_feature(ctx, x.view(np.float16), "fp16")
    put_operand(ctx, operand.view(np.float16), letter, "fp16", use, "TWO_BYTE", "PER_ELEMENT", line, surface)
    sdp.run(ctx)
    got = get_output(ctx, shape, "fp16").view(np.uint16)
    for idx in np.ndindex(shape):
        want = fp16_out_ref(FP_OPS[op](h2q(int(x[idx])), h2q(int(operand[idx]))))
        assert h2q(int(got[idx])) == want, (idx, hex(x[idx]), hex(operand[idx]))


def test_fp16_relu_prelu_and_y_chain():
    shape = (16, 2, 2)
    rng = np.random.default_rng(11)
    x = finite_fp16(64, rng).reshape(shape)
    slope = 0x3400  # 0.25
    y_mul = np.float32(1.5).view(np.uint32)
    y_alu = np.float32(-2.0).view(np.uint32)
    extra = {"SDP.D_DP_BS_CFG.BS_BYPASS": 0, "SDP.D_DP_BS_CFG.BS_MUL_BYPASS": 0, "SDP.D_DP_BS_CFG.BS_MUL_PRELU": 1,
             "SDP.D_DP_BS_MUL_SRC_VALUE.BS_MUL_OPERAND": slope,
             "SDP.D_DP_BN_CFG.BN_BYPASS": 0, "SDP.D_DP_BN_CFG.BN_RELU_BYPASS": 0,
             "SDP.D_DP_EW_CFG.EW_BYPASS": 0, "SDP.D_DP_EW_CFG.EW_ALU_BYPASS": 0, "SDP.D_DP_EW_CFG.EW_ALU_ALGO": 2,
             "SDP.D_DP_EW_CFG.EW_MUL_BYPASS": 0,
             "SDP.D_DP_EW_MUL_SRC_VALUE.EW_MUL_OPERAND": int(y_mul),
             "SDP.D_DP_EW_ALU_SRC_VALUE.EW_ALU_OPERAND": int(y_alu)}
    fields = base_fields(shape, "fp16", "fp16")
    fields.update(extra)
    ctx = make_ctx(fields)
    put_feature(ctx, x.view(np.float16), "fp16")
    sdp.run(ctx)
    got = get_output(ctx, shape, "fp16").view(np.uint16)
    for idx in np.ndindex(shape):
        v = h2q(int(x[idx]))
        v = v if v >= 0 and not (v == 0 and x[idx] & 0x8000) else fp32_ref(v * Fraction(1, 4))  # PReLU
        v = max(v, Fraction(0))  # ReLU (X2)
        v = fp32_ref(fp32_ref(v * Fraction(3, 2)) - 2)
        assert h2q(int(got[idx])) == fp16_out_ref(v), idx


def test_fp16_nan_inf_counters_flush_and_saturation():
    shape = (16, 1, 1)
    x = np.array([0x7E00, 0xFC00, 0x7C00, 0x3C00, 0x7BFF, 0xFBFF] + [0x0001] * 10, np.uint16).reshape(shape)
    fields = base_fields(shape, "fp16", "fp16")
    ctx = make_ctx(fields)
    put_feature(ctx, x.view(np.float16), "fp16")
    result = sdp.run(ctx)
    out = get_output(ctx, shape, "fp16").view(np.uint16).ravel()
    assert result.status["SDP_RDMA", "D_STATUS_NAN_INPUT_NUM"] == 1
    assert result.status["SDP_RDMA", "D_STATUS_INF_INPUT_NUM"] == 2
    assert result.status["SDP", "D_STATUS_NAN_OUTPUT_NUM"] == 1
    assert out[1:6].tolist() == [0xFBFF, 0x7BFF, 0x3C00, 0x7BFF, 0xFBFF]  # INF -> FLT_MAX -> clipped 65504
    assert result.status["SDP", "D_PERF_OUT_SATURATION"] == 4
    assert out[6] == 0x0001  # fp16 denormals pass (fp32 holds them as normals)
    fields["SDP.D_FEATURE_MODE_CFG.NAN_TO_ZERO"] = 1
    ctx = make_ctx(fields)
    put_feature(ctx, x.view(np.float16), "fp16")
    result = sdp.run(ctx)
    assert get_output(ctx, shape, "fp16").view(np.uint16).ravel()[0] == 0
    assert result.status["SDP", "D_STATUS_NAN_OUTPUT_NUM"] == 0


def test_fp16_to_int16_and_int16_to_fp16():
    shape = (16, 1, 1)
    x = np.array([1.5, -1.5, 2.5, 40000, -40000, 0.49, 7, -7] * 2, np.float16).reshape(shape)
    ctx = make_ctx(base_fields(shape, "fp16", "int16"))
    put_feature(ctx, x, "fp16")
    sdp.run(ctx)
    assert get_output(ctx, shape, "int16").ravel()[:8].tolist() == [2, -2, 3, 32767, -32768, 0, 7, -7]
    y = np.array([3, -3, 2049, 4097, -32768, 32767, 0, 1] * 2, np.int16).reshape(shape)
    fields = base_fields(shape, "int16", "fp16")
    fields.update({"SDP.D_CVT_SCALE.CVT_SCALE": 3})
    ctx = make_ctx(fields)
    put_feature(ctx, y, "int16")
    sdp.run(ctx)
    got = get_output(ctx, shape, "fp16").view(np.uint16).ravel()[:8].tolist()
    assert got == [ref_out(int(v), (0, 3, 0), "fp16") for v in y.ravel()[:8]]
    assert got[4:6] == [0xFBFF, 0x7BFF]


def test_multi_batch_on_the_fly_with_per_element_operand():
    shape = (32, 2, 2)
    rng = np.random.default_rng(5)
    upstream = rng.integers(-2**20, 2**20, (2, *shape))
    fields = base_fields(shape, "int16", "int16")
    for key in [k for k in fields if k.startswith("SDP_RDMA.D_SRC")]:
        del fields[key]
    line, surface = strides(shape, "int16")
    fields.update({"SDP.D_FEATURE_MODE_CFG.FLYING_MODE": 1, "SDP_RDMA.D_FEATURE_MODE_CFG.FLYING_MODE": 1,
                   "SDP.D_FEATURE_MODE_CFG.BATCH_NUMBER": 1, "SDP.D_DST_BATCH_STRIDE.DST_BATCH_STRIDE": 0x1000,
                   "SDP.D_DP_BS_CFG.BS_BYPASS": 0, "SDP.D_DP_BS_CFG.BS_ALU_BYPASS": 0, "SDP.D_DP_BS_CFG.BS_ALU_ALGO": 2,
                   "SDP.D_DP_BS_ALU_CFG.BS_ALU_SRC": 1,
                   "SDP.D_DP_BS_MUL_CFG.BS_MUL_SHIFT_VALUE": 4, "SDP_RDMA.D_BS_BATCH_STRIDE.BS_BATCH_STRIDE": 0x1000})
    enable_dma(fields, "B", "ALU", "PER_ELEMENT", "TWO_BYTE", shape, "int16")
    ctx = make_ctx(fields)
    bias = rng.integers(-32768, 32768, (2, *shape))
    for n in range(2):
        operand = auxiliary.pack_aux(bias[n], "int16", "ALU", "TWO_BYTE", "PER_ELEMENT", line, surface, ATOM)
        ctx.memory.pri.write(OPS["B"] + n * 0x1000, operand)
    result = sdp.run(ctx, upstream)
    for n in range(2):
        span = feature.feature_span(shape, "int16", line, surface, ATOM)
        got = feature.unpack_feature(ctx.memory.pri.read(DST + n * 0x1000, span), 0, shape, "int16", line, surface,
                                     ATOM)
        want = np.vectorize(lambda v, b: sat(sat(rshift_round(v + b, 4), 32), 16))(upstream[n], bias[n])
        assert np.array_equal(got, want)
    assert result.surfaces[0].batch_stride == 0x1000


@pytest.mark.parametrize("flags", range(32))
@pytest.mark.parametrize("algo", ALGOS)
def test_every_x_flag_combination(flags, algo):
    """X1 with BYPASS / ALU_BYPASS / MUL_BYPASS / MUL_PRELU / RELU_BYPASS in every combination (PReLU with
    the ALU on is advisory, and computed), per-element operands from memory, against ref_x."""
    shape = (32, 2, 2)
    bypass, alu_bypass, mul_bypass, prelu, relu_bypass = ((flags >> k) & 1 == 1 for k in range(5))
    s = {"bypass": bypass, "alu_bypass": alu_bypass, "algo": algo, "alu_src": "MEM", "alu_shift": 3,
         "alu_reg": 0, "mul_bypass": mul_bypass, "mul_src": "MEM", "mul_shift": 5, "mul_reg": 0,
         "relu_bypass": relu_bypass, "prelu": prelu, "prefix": "BS"}
    fields = base_fields(shape, "int16", "int16")
    program_x(fields, s)
    alu, mul = users(s)
    rng = np.random.default_rng(flags)
    x = rng.integers(-32768, 32768, shape)
    ops = rng.integers(-32768, 32768, (*shape, 2))
    pending = None
    if alu or mul:
        use = "BOTH" if alu and mul else ("ALU" if alu else "MUL")
        line, surface = enable_dma(fields, "B", use, "PER_ELEMENT", "TWO_BYTE", shape, "int16")
        data = ops if use == "BOTH" else ops[..., :1] if use == "ALU" else ops[..., 1:]
        pending = (data, "B", "int16", use, "TWO_BYTE", "PER_ELEMENT", line, surface)
    ctx = make_ctx(fields)
    put_feature(ctx, x.astype(np.int16), "int16")
    if pending:
        put_operand(ctx, *pending)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LimitationWarning)
        sdp.run(ctx)
    got = get_output(ctx, shape, "int16")
    want = np.vectorize(lambda v, a, m: sat(ref_x(int(v), s, int(a), int(m)), 16))(x, ops[..., 0], ops[..., 1])
    assert np.array_equal(got, want)


def test_fp16_lut_on_the_sdp():
    """Y LUT alone on the FP16 pipe: LO[i] = i (fp16), LO_START 0, select 0 -> the output is x itself
    between entries (linear interpolation), LUT[0] below 0 (slope 0), LUT[256] above 256."""
    shape = (16, 1, 1)
    x = np.array([0.5, 1, 2.25, 100, 200.5, 255.75, 17, 3, -5, 300, 256, 0.125, 64.5, 128, 9.5, 10],
                 np.float16).reshape(shape)
    tables = lut.LutTables(lo=np.arange(257).astype(np.float16).view(np.uint16))
    fields = base_fields(shape, "fp16", "fp16")
    fields.update({"SDP.D_DP_EW_CFG.EW_BYPASS": 0, "SDP.D_DP_EW_CFG.EW_LUT_BYPASS": 0,
                   "SDP.S_LUT_CFG.LUT_LE_FUNCTION": 1, "SDP.S_LUT_CFG.LUT_HYBRID_PRIORITY": 1,
                   "SDP.S_LUT_CFG.LUT_UFLOW_PRIORITY": 1, "SDP.S_LUT_CFG.LUT_OFLOW_PRIORITY": 1,
                   "SDP.S_LUT_LE_START.LUT_LE_START": int(np.float32(1e6).view(np.uint32)),
                   "SDP.S_LUT_LE_END.LUT_LE_END": int(np.float32(1e6 + 64).view(np.uint32)),
                   "SDP.S_LUT_LO_START.LUT_LO_START": 0,
                   "SDP.S_LUT_LO_END.LUT_LO_END": int(np.float32(256).view(np.uint32)),
                   "SDP.S_LUT_INFO.LUT_LO_INDEX_SELECT": 0, "SDP.S_LUT_INFO.LUT_LE_INDEX_SELECT": 0})
    ctx = make_ctx(fields, luts=tables)
    put_feature(ctx, x, "fp16")
    result = sdp.run(ctx)
    got = get_output(ctx, shape, "fp16").astype(np.float64).ravel()
    want = np.clip(x.astype(np.float64).ravel(), 0, 256)
    assert got.tolist() == want.tolist()
    assert result.status["SDP", "D_PERF_LUT_OFLOW"] == 2 and result.status["SDP", "D_PERF_LUT_UFLOW"] == 1


def test_fp32_fast_path_equals_cmod_arithmetic():
    """datapath.fp32_add/fp32_mul (IEEE float32 where it agrees) are bit-identical to the cmod algorithm
    (golden.numerics.fp_arith) on NVDLA-internal values: normals, signed zeros, NaN, ties, cancellations,
    overflow and underflow, and on denormal / INF register operands."""
    from golden.numerics import fp_arith
    from golden.units.sdp import datapath

    rng = np.random.default_rng(2024)
    n = 400_000
    bits = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    exponents = rng.choice(np.array([1, 2, 3, 100, 126, 127, 128, 150, 252, 253, 254], np.uint32), n)
    bits = np.where(rng.random(n) < 0.5, (bits & 0x807FFFFF) | (exponents << 23), bits)
    bits = np.where(rng.random(n) < 0.05, bits & 0x80000000, bits)  # signed zeros
    bits = np.where((bits >> 23) & 0xFF == 0, bits & 0x80000000, bits)  # no internal denormals
    bits = np.where((bits >> 23) & 0xFF == 0xFF, np.where(rng.random(n) < 0.5, 0x7FC00123, 0xFF812345), bits)
    a = bits.astype(np.uint32).view(np.float32)
    b = np.roll(a, 1)
    b = np.where(rng.random(n) < 0.1, -a, b).astype(np.float32)  # exact cancellations
    for fast, exact in ((datapath.fp32_add, fp_arith.fp_add), (datapath.fp32_mul, fp_arith.fp_mul)):
        assert np.array_equal(fast(a, b).view(np.uint32), exact(a, b, "fp32"))
        for register in (np.float32(1e-40), np.float32(np.inf), np.float32(-0.0), np.float32(3.0)):
            full = np.full(n, register, np.float32)
            assert np.array_equal(fast(a, register).view(np.uint32), exact(a, full, "fp32"))


@pytest.mark.parametrize("odd", ["none", "cancel", "tiny", "huge", "zero_operand", "nan"])
def test_fp32_whole_array_check_lets_only_clean_results_through(odd):
    """fp32_add/fp32_mul return the IEEE result untouched only when every element is normal (or, for a
    product, an exact zero); one odd element anywhere must send the array through the exact check."""
    from golden.numerics import fp_arith
    from golden.units.sdp import datapath

    rng = np.random.default_rng(5)
    n = 50_000
    a = (rng.standard_normal(n) * 1e3).astype(np.float32)
    b = (rng.standard_normal(n) * 1e3).astype(np.float32)
    where = int(rng.integers(n))
    tiny, huge = np.float32(2.0**-70), np.float32(2.0**70)
    a[where], b[where] = {"none": (a[where], b[where]), "cancel": (-3.0, 3.0), "tiny": (tiny, -tiny),
                          "huge": (huge, huge), "zero_operand": (-0.0, 5.0),
                          "nan": (np.uint32(0x7F812345).view(np.float32), 1.0)}[odd]
    if odd == "tiny":
        a[where + 1 - 2 * (where == n - 1)] = tiny * 2  # also a denormal sum next to it
    for fast, exact in ((datapath.fp32_add, fp_arith.fp_add), (datapath.fp32_mul, fp_arith.fp_mul)):
        np.testing.assert_array_equal(fast(a, b).view(np.uint32), exact(a, b, "fp32"))


def test_fp16_relu_over_every_widened_fp16_and_fp32_specials():
    """relu (numpy maximum with +0) against the cmod rule written out: negative and -0 -> +0, NaN kept."""
    from golden.numerics import fp
    from golden.units.sdp import datapath

    values = np.concatenate([fp.fp16_to_float32(np.arange(65536, dtype=np.uint32).astype(np.uint16)),
                             np.array([0x7F800001, 0xFF812345, 0x7FC00000, 0x80000001, 0x00000001,
                                       0x7F800000, 0xFF800000], np.uint32).view(np.float32)])
    expected = np.where(np.signbit(values) & ~np.isnan(values), np.uint32(0), values.view(np.uint32))
    np.testing.assert_array_equal(datapath.relu(values).view(np.uint32), expected)


@pytest.mark.parametrize("precision", ["fp16", "int16"])
@pytest.mark.parametrize("slice_elements", [15, 45])
def test_channel_slices_give_the_whole_cube_result(precision, slice_elements, monkeypatch):
    """The datapath run slice by slice (one channel; three channels with a short last slice) writes the
    same output and reports the same LUT and saturation counters as one run over the whole cube."""
    shape = (32, 3, 5)
    rng = np.random.default_rng(3)
    if precision == "fp16":
        x = (rng.standard_normal(shape) * 200).astype(np.float16)
        bias = rng.standard_normal(shape).astype(np.float16)
        table = (np.arange(257) * 0.5).astype(np.float16).view(np.uint16)
        lo_end, le_start, le_end, select = (int(np.float32(v).view(np.uint32)) for v in (256, 1e6, 1e6 + 64, 0))
        fields_extra = {}
    else:
        x = rng.integers(-32768, 32768, shape).astype(np.int16)
        bias = rng.integers(-32768, 32768, shape).astype(np.int16)
        table = rng.integers(-32768, 32768, 257).astype(np.int16).view(np.uint16)
        lo_end, le_start, le_end, select = 256 << 6, 1 << 20, (1 << 20) + 64, 6
        fields_extra = {"SDP.D_CVT_SCALE.CVT_SCALE": 4}  # LUT outputs * 4 saturate int16
    fields = base_fields(shape, precision, precision)
    fields.update({"SDP.D_DP_BS_CFG.BS_BYPASS": 0, "SDP.D_DP_BS_CFG.BS_ALU_BYPASS": 0,
                   "SDP.D_DP_BS_CFG.BS_ALU_ALGO": 2, "SDP.D_DP_BS_ALU_CFG.BS_ALU_SRC": 1,
                   "SDP.D_DP_EW_CFG.EW_BYPASS": 0, "SDP.D_DP_EW_CFG.EW_LUT_BYPASS": 0,
                   "SDP.S_LUT_CFG.LUT_LE_FUNCTION": 1, "SDP.S_LUT_LE_START.LUT_LE_START": le_start,
                   "SDP.S_LUT_LE_END.LUT_LE_END": le_end, "SDP.S_LUT_LO_START.LUT_LO_START": 0,
                   "SDP.S_LUT_LO_END.LUT_LO_END": lo_end, "SDP.S_LUT_INFO.LUT_LO_INDEX_SELECT": select,
                   "SDP.S_LUT_INFO.LUT_LE_INDEX_SELECT": 0})
    fields.update(fields_extra)
    line, surface = enable_dma(fields, "B", "ALU", "PER_ELEMENT", "TWO_BYTE", shape, precision)

    def run():
        ctx = make_ctx(fields, luts=lut.LutTables(lo=table))
        put_feature(ctx, x, precision)
        put_operand(ctx, bias, "B", precision, "ALU", "TWO_BYTE", "PER_ELEMENT", line, surface)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", LimitationWarning)
            result = sdp.run(ctx)
        return get_output(ctx, shape, precision), result.status

    whole, whole_status = run()
    monkeypatch.setattr(sdp, "SLICE_ELEMENTS", slice_elements)
    sliced, sliced_status = run()
    np.testing.assert_array_equal(sliced.view(np.uint16), whole.view(np.uint16))
    assert sliced_status == whole_status
    assert whole_status["SDP", "D_PERF_LUT_UFLOW"] > 0 and whole_status["SDP", "D_PERF_LUT_LO_HIT"] > 0
    assert whole_status["SDP", "D_PERF_OUT_SATURATION"] > 0 or precision == "fp16"
