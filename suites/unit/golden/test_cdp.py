"""CDP model against references written here: integer LRN element by element (Python ints) for local sizes
3/5/7/9 and the bypass modes, fp16 LRN against a float64 formula under the documented CDP threshold,
LUT counters and the limitation checks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from golden.config import get_profile
from golden.errors import ConfigurationError
from golden.formats.feature import feature_span, pack_feature, packed_strides, unpack_feature
from golden.memory import MemorySystem
from golden.regs.regmap import RegisterMap
from golden.regs.values import RegisterValues
from golden.units import cdp
from golden.units.base import LayerContext
from golden.units.lut import LutTables

FULL = get_profile("nv_full")
REGMAP = RegisterMap.for_layout("nvdlav1")
SRC, DST, ATOM = 0x8000_0000, 0x8100_0000, 32
FORMAT_CODES = {"int8": 0, "int16": 1, "fp16": 2}
LEN_CODES = {3: 0, 5: 1, 7: 2, 9: 3}


def _raw(value: int, bits: int) -> int:
    return value & ((1 << bits) - 1)


def lut_fields(le_start, le_end, lo_start, lo_end, le_select, lo_select, *, linear=True, offset=0,
               priorities=(0, 0, 0), scales=(0, 0, 0, 0), shifts=(0, 0, 0, 0)):
    fields = {
        "CDP.S_LUT_CFG.LUT_LE_FUNCTION": 1 if linear else 0,
        "CDP.S_LUT_CFG.LUT_UFLOW_PRIORITY": priorities[0], "CDP.S_LUT_CFG.LUT_OFLOW_PRIORITY": priorities[1],
        "CDP.S_LUT_CFG.LUT_HYBRID_PRIORITY": priorities[2],
        "CDP.S_LUT_INFO.LUT_LE_INDEX_OFFSET": _raw(offset, 8),
        "CDP.S_LUT_INFO.LUT_LE_INDEX_SELECT": _raw(le_select, 8),
        "CDP.S_LUT_INFO.LUT_LO_INDEX_SELECT": _raw(lo_select, 8),
        "CDP.S_LUT_LE_SLOPE_SCALE.LUT_LE_SLOPE_UFLOW_SCALE": _raw(scales[0], 16),
        "CDP.S_LUT_LE_SLOPE_SCALE.LUT_LE_SLOPE_OFLOW_SCALE": _raw(scales[1], 16),
        "CDP.S_LUT_LO_SLOPE_SCALE.LUT_LO_SLOPE_UFLOW_SCALE": _raw(scales[2], 16),
        "CDP.S_LUT_LO_SLOPE_SCALE.LUT_LO_SLOPE_OFLOW_SCALE": _raw(scales[3], 16),
        "CDP.S_LUT_LE_SLOPE_SHIFT.LUT_LE_SLOPE_UFLOW_SHIFT": _raw(shifts[0], 5),
        "CDP.S_LUT_LE_SLOPE_SHIFT.LUT_LE_SLOPE_OFLOW_SHIFT": _raw(shifts[1], 5),
        "CDP.S_LUT_LO_SLOPE_SHIFT.LUT_LO_SLOPE_UFLOW_SHIFT": _raw(shifts[2], 5),
        "CDP.S_LUT_LO_SLOPE_SHIFT.LUT_LO_SLOPE_OFLOW_SHIFT": _raw(shifts[3], 5),
    }
    for name, value in (("LE_START", le_start), ("LE_END", le_end), ("LO_START", lo_start), ("LO_END", lo_end)):
        fields[f"CDP.S_LUT_{name}_LOW.LUT_{name}_LOW"] = value & 0xFFFFFFFF
        fields[f"CDP.S_LUT_{name}_HIGH.LUT_{name}_HIGH"] = (value >> 32) & 0x3F
    return fields


def layer_fields(shape, precision, local_size, datin=(0, 1, 0), datout=(0, 1, 0), sqsum_bypass=False,
                 mul_bypass=False):
    channels, height, width = shape
    line, surface = packed_strides(shape, precision, ATOM)
    return {
        "CDP_RDMA.D_DATA_CUBE_WIDTH.WIDTH": width - 1, "CDP_RDMA.D_DATA_CUBE_HEIGHT.HEIGHT": height - 1,
        "CDP_RDMA.D_DATA_CUBE_CHANNEL.CHANNEL": channels - 1,
        "CDP_RDMA.D_SRC_BASE_ADDR_LOW.SRC_BASE_ADDR_LOW": SRC & 0xFFFFFFFF,
        "CDP_RDMA.D_SRC_LINE_STRIDE.SRC_LINE_STRIDE": line, "CDP_RDMA.D_SRC_SURFACE_STRIDE.SRC_SURFACE_STRIDE": surface,
        "CDP_RDMA.D_SRC_DMA_CFG.SRC_RAM_TYPE": 1, "CDP_RDMA.D_DATA_FORMAT.INPUT_DATA": FORMAT_CODES[precision],
        "CDP.D_DATA_FORMAT.INPUT_DATA_TYPE": FORMAT_CODES[precision],
        "CDP.D_DST_BASE_ADDR_LOW.DST_BASE_ADDR_LOW": DST & 0xFFFFFFFF, "CDP.D_DST_LINE_STRIDE.DST_LINE_STRIDE": line,
        "CDP.D_DST_SURFACE_STRIDE.DST_SURFACE_STRIDE": surface, "CDP.D_DST_DMA_CFG.DST_RAM_TYPE": 1,
        "CDP.D_LRN_CFG.NORMALZ_LEN": LEN_CODES[local_size],
        "CDP.D_FUNC_BYPASS.SQSUM_BYPASS": int(sqsum_bypass), "CDP.D_FUNC_BYPASS.MUL_BYPASS": int(mul_bypass),
        "CDP.D_DATIN_OFFSET.DATIN_OFFSET": _raw(datin[0], 16), "CDP.D_DATIN_SCALE.DATIN_SCALE": _raw(datin[1], 16),
        "CDP.D_DATIN_SHIFTER.DATIN_SHIFTER": datin[2],
        "CDP.D_DATOUT_OFFSET.DATOUT_OFFSET": _raw(datout[0], 32),
        "CDP.D_DATOUT_SCALE.DATOUT_SCALE": _raw(datout[1], 16), "CDP.D_DATOUT_SHIFTER.DATOUT_SHIFTER": datout[2],
    }


def run_model(cube, precision, fields, le, lo):
    memory = MemorySystem()
    line, surface = packed_strides(cube.shape, precision, ATOM)
    memory.pri.write(SRC, pack_feature(cube, precision, line, surface, ATOM))
    ctx = LayerContext(FULL, RegisterValues.encode(REGMAP, fields), memory)
    ctx.luts = {"CDP": LutTables(np.asarray(le).astype(np.uint16), np.asarray(lo).astype(np.uint16))}
    result = cdp.run(ctx)
    raw = memory.pri.read(DST, feature_span(cube.shape, precision, line, surface, ATOM))
    return unpack_feature(raw, 0, cube.shape, precision, line, surface, ATOM), result


# ---- integer reference, one element at a time ---------------------------------------------------------------

def rha(numerator: int, shift: int) -> int:
    """numerator / 2**shift rounded half away from zero (negative shift: multiply)."""
    if shift <= 0:
        return numerator << -shift
    magnitude = (abs(numerator) + (1 << (shift - 1))) >> shift
    return magnitude if numerator >= 0 else -magnitude


def sat(value: int, bits: int) -> int:
    return max(-(1 << (bits - 1)), min((1 << (bits - 1)) - 1, value))


def linear_table(s, table, start, end, select, uflow, oflow):
    """One linear LUT: (kind, value) with kind 'under', 'over' or 'hit'."""
    depth = len(table)
    t = s - start
    index = t >> select if select >= 0 else t << -select
    if t <= 0:
        return "under", sat(table[0] + rha((s - start) * uflow[0], uflow[1]), 16)
    if index >= depth - 1:
        return "over", sat(table[-1] + rha((s - end) * oflow[0], oflow[1]), 16)
    remainder = t % (1 << select) if select >= 0 else 0
    fraction = remainder << (16 - select) if select <= 16 else remainder >> (select - 16)  # 16-bit fraction
    return "hit", sat(table[index] + rha((table[index + 1] - table[index]) * fraction, 16), 16)


def reference_int(cube, precision, local_size, datin, datout, le, lo, lut, sqsum_bypass, mul_bypass):
    in_bits, offset_bits, out_offset_bits, out_bits = (9, 8, 25, 8) if precision == "int8" else (17, 16, 32, 16)
    channels, height, width = cube.shape
    offset = ((datin[0] + (1 << (offset_bits - 1))) % (1 << offset_bits)) - (1 << (offset_bits - 1))
    out_offset = ((datout[0] + (1 << (out_offset_bits - 1))) % (1 << out_offset_bits)) - (1 << (out_offset_bits - 1))
    out = np.zeros(cube.shape, np.int64)
    half = local_size // 2
    for h in range(height):
        for w in range(width):
            xs = [sat(rha((int(cube[c, h, w]) - offset) * datin[1], datin[2]), in_bits) for c in range(channels)]
            for c in range(channels):
                window = range(max(0, c - half), min(channels, c + half + 1))
                s = xs[c] if sqsum_bypass else sum(xs[k] ** 2 for k in window)
                le_kind, le_y = linear_table(s, le, *lut["le"])
                lo_kind, lo_y = linear_table(s, lo, *lut["lo"])
                y = lo_y if (le_kind != "hit" and lo_kind == "hit") else le_y  # all priorities LE
                v = y if mul_bypass else y * xs[c]
                out[c, h, w] = sat(rha((v - out_offset) * datout[1], datout[2]), out_bits)
    return out


@st.composite
def int_layers(draw):
    precision = draw(st.sampled_from(["int8", "int16"]))
    local_size = draw(st.sampled_from([3, 5, 7, 9]))
    shape = (draw(st.integers(1, 40)), draw(st.integers(1, 2)), draw(st.integers(1, 3)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    info = np.iinfo(np.int8 if precision == "int8" else np.int16)
    cube = rng.integers(info.min, info.max + 1, shape).astype(info.dtype)
    datin = (draw(st.integers(-300, 300)), draw(st.integers(-4, 4)), draw(st.integers(0, 3)))
    datout = (draw(st.integers(-5000, 5000)), draw(st.integers(-300, 300)), draw(st.integers(0, 40)))
    max_sum = 9 * (1 << (16 if precision == "int8" else 32))
    le_select = draw(st.integers(0, 15 if precision == "int8" else 28))
    lo_select = draw(st.integers(0, 13 if precision == "int8" else 26))
    le_start, lo_start = draw(st.integers(-1000, max_sum // 4)), draw(st.integers(-1000, max_sum // 4))
    lut = {"le": (le_start, le_start + (1 << (le_select + 6)), le_select, (3, 2), (-2, 1)),
           "lo": (lo_start, lo_start + (1 << (lo_select + 8)), lo_select, (5, 4), (7, 3))}
    le = rng.integers(-32768, 32768, 65)
    lo = rng.integers(-32768, 32768, 257)
    bypass = draw(st.sampled_from([(False, False), (True, False), (False, True), (True, True)]))
    return precision, local_size, cube, datin, datout, lut, le, lo, bypass


@settings(max_examples=30, deadline=None)
@given(int_layers())
def test_integer_lrn_matches_reference(layer):
    precision, local_size, cube, datin, datout, lut, le, lo, (sqsum_bypass, mul_bypass) = layer
    (le_start, le_end, le_select, le_u, le_o), (lo_start, lo_end, lo_select, lo_u, lo_o) = lut["le"], lut["lo"]
    fields = layer_fields(cube.shape, precision, local_size, datin, datout, sqsum_bypass, mul_bypass)
    fields.update(lut_fields(le_start, le_end, lo_start, lo_end, le_select, lo_select,
                             scales=(le_u[0], le_o[0], lo_u[0], lo_o[0]), shifts=(le_u[1], le_o[1], lo_u[1], lo_o[1])))
    out, _ = run_model(cube, precision, fields, le, lo)
    reference = reference_int(cube, precision, local_size, datin, datout, le.tolist(), lo.tolist(),
                              {"le": (le_start, le_end, le_select, le_u, le_o),
                               "lo": (lo_start, lo_end, lo_select, lo_u, lo_o)}, sqsum_bypass, mul_bypass)
    np.testing.assert_array_equal(out, reference)


def test_counters_and_saturation():
    # LE covers sums [0, 64) linearly (select 0), LO [0, 256); int8 ones: lrn3 sums 3 (2 at the edges).
    cube = np.ones((32, 1, 1), np.int8)
    cube[0, 0, 0] = 100  # 100^2 + 1 = 10001: both tables overflow
    fields = layer_fields(cube.shape, "int8", 3, datout=(0, 1, 0))
    fields.update(lut_fields(0, 64, 0, 256, 0, 0))
    le, lo = np.arange(65) * 100, np.arange(257)
    out, result = run_model(cube, "int8", fields, le, lo)
    status = {name: value for (_, name), value in result.status.items()}
    assert status["D_PERF_LUT_OFLOW"] == 2  # channels 0 and 1 see 100^2
    assert status["D_PERF_LUT_HYBRID"] == 30 and status["D_PERF_LUT_UFLOW"] == 0
    assert status["D_OUT_SATURATION"] == int(np.count_nonzero(np.abs(out.astype(np.int64)) == 127)) - 0
    assert status["D_OUT_SATURATION"] > 0


# ---- fp16 against float64 --------------------------------------------------------------------------------------

def test_fp16_lrn_within_documented_threshold():
    rng = np.random.default_rng(7)
    x = rng.uniform(-0.05, 0.05, (40, 3, 3)).astype(np.float16)
    select = -11  # LE: 64 entries of 2**-11 over [0, 1/32); the largest LRN-5 sum is 5 * 0.0025
    grid = np.arange(65) * 2.0**select
    le = (0.5 * (1.0 + grid) ** -0.75).astype(np.float16).view(np.uint16)
    lo = np.full(257, 0x3800, np.uint16)  # 0.5, never chosen (hybrid priority LE)
    fp32 = {v: int(np.float32(v).view(np.uint32)) for v in (0.0, 2.0**-5, 0.5)}
    fields = layer_fields(x.shape, "fp16", 5)
    fields.update(lut_fields(fp32[0.0], fp32[2.0**-5], fp32[0.0], fp32[0.5], select, -9))
    out, result = run_model(x, "fp16", fields, le, lo)
    values = x.astype(np.float64)
    squares = np.pad(values**2, ((2, 2), (0, 0), (0, 0)))
    sums = sum(squares[k:k + 40] for k in range(5))
    position = sums / 2.0**select
    index = np.floor(position).astype(int)
    table = le.view(np.float16).astype(np.float64)
    interpolated = table[index] + (table[index + 1] - table[index]) * (position - index)
    reference = values * interpolated
    padded = np.pad(np.abs(values), ((2, 2), (0, 0), (0, 0)))
    max_value = np.max([padded[k:k + 40] for k in range(5)], axis=0)
    error = np.abs(out.astype(np.float64) - reference)
    assert np.all((error <= 1e-4) & (error / max_value <= 1e-3)), float(error.max())
    assert result.tolerance is not None and result.tolerance.shape == result.surfaces[0].shape  # padded C


# ---- limitations -------------------------------------------------------------------------------------------

def _error(**changes):
    cube = np.zeros((8, 2, 2), np.int8)
    fields = layer_fields(cube.shape, "int8", 3)
    fields.update(lut_fields(0, 64, 0, 256, 0, 0))
    fields.update(changes)
    with pytest.raises(ConfigurationError) as info:
        run_model(cube, "int8", fields, np.zeros(65), np.zeros(257))
    return info.value


def test_linear_le_span_rule():
    error = _error(**{"CDP.S_LUT_LE_END_LOW.LUT_LE_END_LOW": 65})
    assert error.rule == "CDP-LUT-LE-SPAN (programming-guide: Limitation/LUT)"
    assert "CDP.S_LUT_LE_END_LOW.LUT_LE_END_LOW" in error.fields


def test_index_select_range_for_cdp_int8():
    error = _error(**{"CDP.S_LUT_INFO.LUT_LO_INDEX_SELECT": 14, "CDP.S_LUT_LO_END_LOW.LUT_LO_END_LOW": 1 << 22})
    assert "LO_INDEX_SELECT" in str(error)


@pytest.mark.parametrize("start,legal", [(-(1 << 21), True), ((1 << 21) - 1 - 64, True), (-(1 << 21) - 1, False),
                                         (1 << 21, False), (-12884901909, False)])
def test_int8_exponent_start_is_22_bits(start, legal):
    """NVIDIA's RTL (NV_NVDLA_CDP_DP_LUT_CTRL_unit.v) keeps an int8 lane's START and difference in 22 bits; the
    last START is the one the fuzzing campaign found, on which nv_small's RTL indexed entry 45 where the 38-bit
    value leaves the table."""
    cube = np.zeros((8, 2, 2), np.int8)
    fields = {**layer_fields(cube.shape, "int8", 3), **lut_fields(start, 0, 0, 256, 0, 0, linear=False)}
    if legal:
        run_model(cube, "int8", fields, np.zeros(65), np.zeros(257))
        return
    with pytest.raises(ConfigurationError) as info:
        run_model(cube, "int8", fields, np.zeros(65), np.zeros(257))
    assert info.value.rule.startswith("CDP-LUT-START-INT8") and "22-bit" in str(info.value)


def test_int16_start_keeps_38_bits():
    cube = np.zeros((8, 2, 2), np.int16)
    fields = {**layer_fields(cube.shape, "int16", 3), **lut_fields(-(1 << 36), 0, 0, 256, 0, 0, linear=False)}
    run_model(cube, "int16", fields, np.zeros(65), np.zeros(257))


def test_lrn_has_no_precision_conversion():
    error = _error(**{"CDP_RDMA.D_DATA_FORMAT.INPUT_DATA": 1})
    assert "Table 31" in error.rule


def test_fp16_exponent_lut_within_documented_threshold():
    rng = np.random.default_rng(11)
    x = rng.uniform(-0.05, 0.05, (24, 2, 3)).astype(np.float16)
    offset = -20  # LE entry i at 2**(i - 20)
    points = 2.0 ** (np.arange(65) + offset)
    le = (0.5 * (1.0 + points) ** -0.75).astype(np.float16).view(np.uint16)
    lo = np.full(257, 0x3800, np.uint16)
    fp32 = {v: int(np.float32(v).view(np.uint32)) for v in (0.0, 0.5)}
    fields = layer_fields(x.shape, "fp16", 3)
    fields.update(lut_fields(fp32[0.0], fp32[0.5], fp32[0.0], fp32[0.5], 0, -9, linear=False, offset=offset))
    out, _ = run_model(x, "fp16", fields, le, lo)
    values = x.astype(np.float64)
    squares = np.pad(values**2, ((1, 1), (0, 0), (0, 0)))
    sums = squares[:-2] + squares[1:-1] + squares[2:]
    exponent = np.floor(np.log2(sums))
    index = (exponent - offset).astype(int)
    table = le.view(np.float16).astype(np.float64)
    interpolated = table[index] + (table[index + 1] - table[index]) * (sums / 2.0**exponent - 1)
    reference = values * interpolated
    padded = np.pad(np.abs(values), ((1, 1), (0, 0), (0, 0)))
    max_value = np.maximum(np.maximum(padded[:-2], padded[1:-1]), padded[2:])
    error = np.abs(out.astype(np.float64) - reference)
    assert np.all((error <= 1e-4) & (error / max_value <= 1e-3)), float(error.max())
