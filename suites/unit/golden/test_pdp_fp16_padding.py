"""fp16 average pooling adds the PAD_VALUE_nX registers as fp17 values (issue 25, oracle disagreement D1).

The expected values come from NVIDIA's RTL stage definition, re-derived here with float64 rounded to fp17 (1 sign,
6 exponent, 10 mantissa bits) after every operation, or from bytes NVIDIA's C model wrote (recorded/):

- row stage, nvdlav1 vmod/nvdla/pdp/NV_NVDLA_PDP_CORE_cal1d.v:3089-3095 and :3134: the fp17 sum of a window row's
  real elements, left to right, plus PAD_VALUE_nX[16:0] for its n padded columns (u_HLS_fp17_add_0..3, :3230-3284);
- column stage, NV_NVDLA_PDP_CORE_cal2d.v:6542, :6599-6607, :9128-9137, :9153, :9225-9275: the rows summed top to
  bottom, plus PAD_VALUE_nX[16:0] x kernel_width (kernel_width an fp17 number 1.0 .. 8.0, the product rounded to
  fp17) for its n padded rows;
- then x RECIP_KERNEL_WIDTH, x RECIP_KERNEL_HEIGHT (fp17) and the conversion to fp16.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from golden.config import get_profile
from golden.formats.feature import feature_span, pack_feature, packed_strides, unpack_feature
from golden.memory import MemorySystem
from golden.memory_files import parse_byte_lines
from golden.player import Player, play
from golden.regs.values import RegisterValues
from golden.trace import load_trace
from golden.units import pdp
from golden.units.base import LayerContext
from suites.unit.golden.test_pdp import ATOM, DST, REGMAP, SRC, layer_fields

FULL = get_profile("nv_full")
RECORDED = Path(__file__).parent / "recorded" / "pdp_fp16_pad_values"
PAD_FIELD = "PDP.D_POOLING_PADDING_VALUE_{n}_CFG.PAD_VALUE_{n}X"


def fp17(x: float) -> float:
    """x rounded to 11 significant bits, ties to even (the values here stay inside fp17's normal range)."""
    mantissa, exponent = np.frexp(x)
    return float(np.ldexp(np.rint(np.ldexp(mantissa, 11)), exponent - 11))


def fp17_pattern(x: float) -> int:
    """The fp17 bit pattern of a value that fp17 holds exactly: sign 16, exponent 15:10 (bias 31), mantissa 9:0."""
    if x == 0:
        return 0
    mantissa, exponent = np.frexp(abs(x))  # |x| = 2m * 2**(exponent - 1), 2m in [1, 2)
    fraction = int(np.ldexp(2 * mantissa - 1, 10))
    assert fp17(x) == x and 1 <= exponent - 1 + 31 <= 62
    return (x < 0) << 16 | (exponent - 1 + 31) << 10 | fraction


def stage_reference(cube: np.ndarray, kernel, stride, pads, pad_values, recips) -> np.ndarray:
    """The output of fp16 average pooling after the RTL's stages (module docstring), element by element."""
    (kw, kh), (sw, sh), (pl, pt, pr, pb) = kernel, stride, pads
    channels, height, width = cube.shape
    oh, ow = (height + pt + pb - kh) // sh + 1, (width + pl + pr - kw) // sw + 1
    table = (0.0, *pad_values)  # no padded position: the RTL's table gives 0
    out = np.zeros((channels, oh, ow), np.float16)
    for c, y, x in np.ndindex(channels, oh, ow):
        lines = [r for r in range(y * sh - pt, y * sh - pt + kh) if 0 <= r < height]
        cols = [i for i in range(x * sw - pl, x * sw - pl + kw) if 0 <= i < width]
        column = None
        for r in lines:
            row = None
            for i in cols:
                value = float(cube[c, r, i])
                row = value if row is None else fp17(row + value)
            row = fp17(row + table[kw - len(cols)])
            column = row if column is None else fp17(row + column)
        column = fp17(column + fp17(table[kh - len(lines)] * kw))
        out[c, y, x] = np.float16(fp17(fp17(column * recips[0]) * recips[1]))
    return out


def run_golden(cube: np.ndarray, kernel, stride, pads, pad_registers, recips) -> np.ndarray:
    """The golden PDP on an offline fp16 average pooling layer; PAD_VALUE_1X..7X = pad_registers."""
    (kw, kh), (sw, sh), (pl, pt, pr, pb) = kernel, stride, pads
    height, width = cube.shape[1:]
    out_hw = ((height + pt + pb - kh) // sh + 1, (width + pl + pr - kw) // sw + 1)
    fields = layer_fields(cube.shape, "fp16", "average", kernel, stride, pads, out_hw,
                          recip=tuple(fp17_pattern(r) for r in recips))
    fields.update({PAD_FIELD.format(n=n): value for n, value in enumerate(pad_registers, start=1)})
    memory = MemorySystem()
    line, surface = packed_strides(cube.shape, "fp16", ATOM)
    memory.pri.write(SRC, pack_feature(cube, "fp16", line, surface, ATOM))
    pdp.run(LayerContext(FULL, RegisterValues.encode(REGMAP, fields), memory))
    shape = (cube.shape[0], *out_hw)
    line, surface = packed_strides(shape, "fp16", ATOM)
    raw = memory.pri.read(DST, feature_span(shape, "fp16", line, surface, ATOM))
    return unpack_feature(raw, 0, shape, "fp16", line, surface, ATOM)


def test_hand_worked_window_with_a_padded_column_and_a_padded_row():
    """Input row [1, 2], kernel 3x2, padding left 1 and top 1: one window, PAD_VALUE_1X = 0.5.
    Row: 1 + 2 = 3, + 0.5 (one padded column) = 3.5. Column: one real row, + 0.5 x 3.0 (one padded row)
    = 5. Times fp17(1/3) = 1365/4096: 6825/4096 rounds to 11 bits as 6824/4096; times 0.5: 0.8330078125,
    which fp16 holds. Ignoring the registers gives 3 x 1365/4096 -> 1.0 (a tie, to even) x 0.5 = 0.5."""
    cube = np.array([[[1.0, 2.0]]], np.float16)
    pad_registers = (fp17_pattern(0.5), *(fp17_pattern(-64.0),) * 6)  # 2X..7X unused by this window
    out = run_golden(cube, (3, 2), (1, 1), (1, 1, 0, 0), pad_registers, (fp17(1 / 3), 0.5))
    assert out.tolist() == [[[0.8330078125]]]


# (shape, kernel, stride, pads (left, top, right, bottom)), each legal for PDP; kernel width 8 with padded rows
# multiplies by 8.0 (cal2d.v:9136 17'h8800).
GEOMETRIES = [
    ((16, 5, 6), (3, 4), (2, 1), (2, 3, 1, 2)),
    ((8, 3, 9), (8, 3), (1, 1), (7, 2, 0, 1)),
    ((5, 4, 4), (2, 2), (2, 2), (1, 1, 1, 1)),
    ((3, 4, 5), (5, 7), (3, 2), (4, 6, 2, 3)),
]


@pytest.mark.parametrize(("shape", "kernel", "stride", "pads"), GEOMETRIES)
def test_fp16_average_adds_the_pad_registers_as_the_rtl_stages_do(shape, kernel, stride, pads):
    rng = np.random.default_rng(sum(shape) + 7 * sum(kernel))
    cube = rng.uniform(-4, 4, shape).astype(np.float16)
    pad_values = [fp17(v) for v in rng.uniform(-6, 6, 7)]
    # bits 18:17 are not part of the fp17 value (cal1d.v / cal2d.v use pad_table_out[16:0])
    high_bits = rng.integers(0, 4, 7)
    pad_registers = [fp17_pattern(v) | int(high) << 17 for v, high in zip(pad_values, high_bits, strict=True)]
    recips = (fp17(1 / kernel[0]), fp17(1 / kernel[1]))
    expected = stage_reference(cube, kernel, stride, pads, pad_values, recips)
    np.testing.assert_array_equal(run_golden(cube, kernel, stride, pads, pad_registers, recips), expected)


def test_nan_pad_value_reaches_only_the_padded_windows():
    """PAD_VALUE_nX[16:0] = 0x1fffb (a left-over int16 value 0x7fffb; exponent 63, mantissa non-zero) is an fp17
    NaN: every window with a padded position comes out NaN, the others are the plain average."""
    cube = np.full((1, 3, 3), 1.0, np.float16)
    out = run_golden(cube, (2, 2), (1, 1), (1, 1, 0, 0), (0x7FFFB,) * 7, (0.5, 0.5))
    assert np.isnan(out[0, 0, :]).all() and np.isnan(out[0, :, 0]).all()
    assert out[0, 1:, 1:].tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_recorded_c_model_output():
    """The bytes NVIDIA's nvdlav1 C model wrote for a layer with non-zero PAD_VALUE registers (recorded/)."""
    trace = RECORDED / "input.txn"
    result = play(trace, FULL)
    assert result.status == "passed", result.detail
    player = Player(load_trace(trace), FULL)
    player.run()
    expected = parse_byte_lines((RECORDED / "pdp_fp16_pad_values_golden_0.dat").read_text())
    got = np.frombuffer(player.memory.by_name("pri_mem").read(0x80800000, 0x680), np.uint8)
    np.testing.assert_array_equal(got, expected)
