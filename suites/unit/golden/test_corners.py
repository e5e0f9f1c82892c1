"""Corner observation: the classes of each kind on hand-worked values, and per unit stage a minimal case whose
classes are worked out by hand from the stage's definition (precision-preservation: round half away from zero
after the shift, then saturate)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from golden.config import get_profile
from golden.numerics import corners
from golden.units.cdp import lut as cdp_lut
from golden.units.conv import cacc
from golden.units.pdp.pooling import pool_int
from golden.units.sdp import datapath
from suites.unit.golden.test_cdp import layer_fields, lut_fields, run_model


def _hits(run, stage):
    with corners.observe() as seen:
        run()
    return seen.hit(stage)


def test_rounding_classes_by_hand():
    # shift 2: the dropped two bits of |x| are 10b (a half) for 6 and -6, 01b for 5, 11b for 7, 00b for 4
    got = corners.rounding_classes(np.array([6, -6, 5, 7, 0, 4, -5]), 2)
    assert {k: v.tolist() for k, v in got.items()} == {
        "tie+": [1, 0, 0, 0, 0, 0, 0], "tie-": [0, 1, 0, 0, 0, 0, 0], "below_tie": [0, 0, 1, 0, 0, 0, 1],
        "above_tie": [0, 0, 0, 1, 0, 0, 0], "zero": [0, 0, 0, 0, 1, 0, 0]}


def test_shift_zero_has_no_tie_and_shift_one_nothing_above():
    assert not any(m.any() for k, m in corners.rounding_classes(np.arange(-9, 10), 0).items() if k != "zero")
    one = corners.rounding_classes(np.arange(-9, 10), 1)
    assert not one["above_tie"].any() and one["tie+"].sum() == 5 and one["tie-"].sum() == 5


def test_saturation_and_fp16_classes_by_hand():
    sat = corners.saturation_classes(np.array([-129, -128, 0, 127, 128]), -128, 127)
    assert [np.flatnonzero(sat[k]).tolist() for k in corners.SATURATE] == [[0], [1], [3], [4]]
    fp = corners.fp16_classes(np.array([0x0001, 0x7C00, 0xFE00, 0x8000, 0xFBFF, 0x3C00], np.uint16))
    assert [np.flatnonzero(fp[k]).tolist() for k in corners.FP16] == [[0], [1], [2], [3], [4]]


def test_fp16_rounding_classes_by_hand():
    # fp16 neighbours 1 and 1 + 2**-10: their midpoint is 1 + 2**-11; one fp32 LSB at 1 is 2**-23
    values = np.array([1 + 2**-11, -(1 + 2**-11), 1 + 2**-11 - 2**-23, 1 + 2**-11 + 2**-23, 1.0])
    got = corners.fp16_rounding_classes(values, 23)
    assert [np.flatnonzero(got[k]).tolist() for k in corners.FP_ROUND] == [[0], [1], [2], [3]]
    # integers into fp16: between 4096 and 4100 the spacing is 4, the midpoint 4098
    ints = corners.fp16_rounding_classes(np.array([4098, -4098, 4097, 4099, 2047]), 0)
    assert [np.flatnonzero(ints[k]).tolist() for k in corners.FP_ROUND] == [[0], [1], [2], [3]]


def test_nothing_is_recorded_without_an_observer():
    corners.rounding("x", np.array([1]), 1)  # no observer: no error, nothing kept
    with corners.observe() as outer:
        with corners.observe() as inner:
            corners.rounding("x", np.array([1, -1]), 1)
    assert outer.counts == inner.counts == {"x": {"tie+": 1, "tie-": 1, "below_tie": 0, "above_tie": 0, "zero": 0}}


def test_sdp_output_convertor_stage():
    cvt = SimpleNamespace(offset=0, scale=3, shift=1)
    # (x - 0) * 3 >> 1: 3 -> 1.5 (tie+), -3 -> -1.5 (tie-), 6 -> 3 (one LSB below a half); 30000*3 >> 1 = 45000
    # fits 17 bits but not int8
    x = np.array([1, -1, 2, 30000])
    assert _hits(lambda: datapath.int_output(x, cvt, "int8"), "sdp.cvt_out.round") == {"tie+", "tie-", "below_tie"}
    assert _hits(lambda: datapath.int_output(x, cvt, "int8"), "sdp.cvt_out.narrow") == {"sat_max"}
    big = SimpleNamespace(offset=0, scale=1, shift=0)
    assert _hits(lambda: datapath.int_output(np.array([65536, -65537]), big, "int16"),
                 "sdp.cvt_out.saturate") == {"sat_max", "sat_min"}


def test_sdp_x_stage_shift_and_operand_shifter():
    stage = SimpleNamespace(bypass=False, alu_bypass=False, alu_operand=-1, alu_shift=31, alu_algo="SUM",
                            mul_shift=2, mul_bypass=True, mul_prelu=False, relu_bypass=True)
    # -1 << 31 is exactly INT32_MIN (at the bound, not clipped); x - 2**31 then rounded by 2 bits
    x = np.array([2**31 + 6, 2**31 - 6])
    with corners.observe() as seen:
        datapath.int_x(x, stage, None, None, where="sdp.x2")
    assert seen.hit("sdp.x2.alu_shift.saturate") == {"at_min"}
    assert seen.hit("sdp.x2.mul_shift.round") == {"tie+", "tie-"}


def test_cacc_truncation_stage_both_paths():
    sums = np.array([2, -2, 1, 3, 0])  # truncate 2 bits: a half, minus a half, below, above, zero
    for dtype in (np.int64, np.float32):
        assert _hits(lambda d=dtype: cacc.deliver_int(sums.astype(d), 2), "cacc.truncate.round") == set(corners.ROUND)
    assert _hits(lambda: cacc.deliver_int(np.array([2**31, -2**31 - 1]), 0), "cacc.truncate.saturate") == {
        "sat_max", "sat_min"}


def test_pdp_divisor_stage():
    # kernel 2x1: window sums 1+2 = 3 and -3; 3 * 0x8000 = 1.5 * 2**16 (a tie), height factor 1.0 exact
    cube = np.array([[[1, 2]], [[-1, -2]]], np.int8)
    with corners.observe() as seen:
        pool_int(cube, "average", (2, 1), (1, 1), (0, 0, 0, 0), recip=(0x8000, 0x10000))
    assert seen.hit("pdp.divide.width.round") == {"tie+", "tie-"}
    assert seen.hit("pdp.divide.height.round") == set()  # 2 * 2**16 and -2 * 2**16 drop nothing


def test_cdp_lut_interpolation_stage():
    # linear table, START 0, INDEX_SELECT 1: x = 1 is entry 0 at fraction one half (32768 / 2**16); entries
    # 0 -> 1 give +0.5 (a tie), 0 -> -1 give -0.5, 0 -> 3 give 1.5, 0 -> 0 give 0
    with corners.observe() as seen:
        for step in (1, -1, 3, 0):
            cdp_lut._interpolate(np.array([1]), np.array([0, step], np.int64), 0, 1, False)
    assert seen.hit("cdp.lut.interp.round") == {"tie+", "tie-", "zero"}


def test_cdp_input_convertor_stage_from_a_layer():
    # shift 1: 1 and 3 are +half, -1 is -half, 2 one LSB below; the atom's padding channels enter as
    # DATIN_OFFSET, i.e. 0 (lrn.py)
    cube = np.array([[[1, -1, 2, 3]]], np.int8)
    fields = layer_fields(cube.shape, "int8", 3, datin=(0, 1, 1), sqsum_bypass=True, mul_bypass=True)
    fields.update(lut_fields(0, 64, 0, 256, 0, 0))
    with corners.observe() as seen:
        run_model(cube, "int8", fields, np.zeros(65), np.zeros(257))
    assert seen.hit("cdp.cvt_in.round") == {"tie+", "tie-", "below_tie", "zero"}


@pytest.mark.parametrize("profile", ["nv_small", "nv_full"])
def test_every_stage_names_a_place_and_a_section(profile):
    get_profile(profile)
    for stage, info in corners.STAGES.items():
        assert info["place"].startswith("golden/units/") and info["section"], stage
        assert info["kind"] in corners.CLASSES


def test_cdp_interpolation_ties_that_reach_the_output():
    # Worked from NVIDIA RTL cdp/NV_NVDLA_CDP_DP_INTP_unit.v (rounding after ">> 16": a positive value adds the
    # first dropped bit; a negative one keeps the floor on an exact half, i.e. both away from zero), the MUL unit
    # (lut * x) and the output convertor. int8, one channel, DATIN and DATOUT the identity, LEN3: the square sum
    # of channel 0 is x*x (the padding channels enter as 0). Linear LE table, START 0, INDEX_SELECT 1: an odd
    # x*x lies at entry (x*x) >> 1 with fraction 1/2, i.e. f = 0x8000.
    #   x = 3:  9 -> entry 4,  le 0 -> 1:  (1 - 0) * 0x8000 >> 16 = 0.5 -> 1; y = 1, out 1 * 3 = 3
    #           (rounded toward zero: y = 0, out 0): a positive tie the output shows
    #   x = 11: 121 -> entry 60, le 100 -> 101: y = 101 (or 100): 1111 (or 1100) saturate to 127 alike
    #   x = 5:  25 -> entry 12, le 0 -> -1: -0x8000 >> 16 = -0.5 -> -1; out -5 (toward zero: y = 0, out 0)
    #   x = 0:  0 <= START: both tables underflow, y = le[0] + 0 = 0, out 0 (no interpolation)
    # Padding channel 1 sums channel 0's square too: the same ties, multiplied by its x = 0, reach nothing.
    cube = np.array([[[3, 11, 5, 0]]], np.int8)
    fields = layer_fields(cube.shape, "int8", 3)
    fields.update(lut_fields(0, 128, 0, 512, 1, 1))
    le = np.zeros(65, np.int64)
    le[4:6], le[60:62], le[12:14] = (0, 1), (100, 101), (0, -1)
    with corners.observe(masks=True) as seen:
        out, _ = run_model(cube, "int8", fields, le, np.zeros(257))
    assert out.ravel().tolist() == [3, 127, -5, 0]
    assert seen.hit("cdp.lut.interp.round") == {"tie+", "tie-", "tie+_out", "tie-_out"}
    masks = seen.masks["cdp.lut.interp.round"]
    assert np.flatnonzero(masks["tie+_out"]).tolist() == [0]  # x = 3 only: 11's saturates, channel 1's is times 0
    assert np.flatnonzero(masks["tie-_out"]).tolist() == [2]
    assert np.count_nonzero(masks["tie+"]) == 4 and np.count_nonzero(masks["tie-"]) == 2
    assert seen.hit("cdp.lut.extrap.round") == {"zero"}  # x = 0's underflow: 0 * SCALE


def test_cdp_extrapolation_ties_that_reach_the_output():
    # The same INTP unit extrapolates (its shift the UFLOW_SHIFT): linear tables START 10, both under for square
    # sums <= 10, so UFLOW_PRIORITY (LE) picks le[0] + round((sum - 10) * UFLOW_SCALE >> UFLOW_SHIFT); SCALE -1,
    # SHIFT 1, le[0] = 0, DATIN and DATOUT the identity:
    #   x = 3: (9 - 10) * -1 = 1 -> 0.5 -> 1 (toward zero 0): out 3 (or 0), a positive tie the output shows
    #   x = 1: 9 -> 4.5 -> 5 (or 4): out 5 (or 4), another; x = 0: 10 -> 5, x = 2: 6 -> 3, out 0 and 6: no tie
    # Padding channel 1 sums channel 0's squares: the ties of x = 3 and 1 again, times its x = 0.
    cube = np.array([[[3, 1, 0, 2]]], np.int8)
    fields = layer_fields(cube.shape, "int8", 3)
    fields.update(lut_fields(10, 138, 10, 522, 1, 1, scales=(-1, 0, 0, 0), shifts=(1, 0, 0, 0)))
    with corners.observe(masks=True) as seen:
        out, _ = run_model(cube, "int8", fields, np.zeros(65), np.zeros(257))
    assert out.ravel().tolist() == [3, 5, 0, 6]
    # 10 and 6 drop a 0: at shift 1 the half is one LSB, so that is one LSB below it
    assert seen.hit("cdp.lut.extrap.round") == {"tie+", "below_tie", "tie+_out"}
    masks = seen.masks["cdp.lut.extrap.round"]
    assert np.flatnonzero(masks["tie+_out"]).tolist() == [0, 1]
    assert np.count_nonzero(masks["tie+"]) == 4
