"""Arithmetic corner observation: which corner classes each rounding, truncating and saturating stage met.

A unit model names each such stage where it computes it ("sdp.cvt_out.round", "cacc.truncate.round", ...;
STAGES lists them with the model's place and the document's section) and hands this module the stage's
intermediate value. Nothing is computed unless a caller observes:

    with corners.observe() as seen:
        ...run a layer on the golden model...
    seen.hit("sdp.cvt_out.round")  -> {"tie+", "below_tie", ...}

Corner classes (vectorised over the whole array):

* a rounding right shift by s (round half away from zero, precision-preservation "Convertor"/"Truncate"):
  "tie+" / "tie-" the dropped bits are exactly one half (value positive / negative); "below_tie" /
  "above_tie" the dropped magnitude is one LSB below / above one half; "zero" the value is 0. With s = 0
  nothing is dropped (no class but zero); with s = 1 the half is one LSB, so nothing lies above it.
* a rounding right shift whose result goes on to the unit's output (kind "round_reach", CDP's LUT): the classes
  above and "tie+_out" / "tie-_out", an exact tie of that sign whose rounding reaches the output: the unit's
  output at that element differs when the tie rounds the other way (toward zero), the rest of the datapath
  unchanged. The model reruns its datapath for that (only while observed; see reach()): a tie whose one LSB
  is lost downstream (multiplied by 0, saturated, shifted out) is no test of the rounding.
* a saturation to [lo, hi]: "sat_min" / "sat_max" the value lies beyond a bound and is clipped; "at_min" /
  "at_max" it equals the bound (one LSB inside the clipping).
* fp16 patterns in or out (in-memory-data-formats "FP16 Supporting"): "denormal", "inf", "nan", "zero",
  "max" (+/-65504, where an overflow is clipped).
* a round to nearest even into fp16 (in-memory-data-formats "Rounding"): "tie+" / "tie-" the value lies
  exactly half way between two fp16 neighbours, "below_tie" / "above_tie" one LSB of the source format
  nearer to / farther from the smaller-magnitude neighbour.

The cost when nothing observes is one check of a module-level list per call (benchmarks/bench_corners.py).
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from golden.numerics.integer import shift_right_round

ROUND = ("tie+", "tie-", "below_tie", "above_tie", "zero")
SATURATE = ("sat_min", "at_min", "at_max", "sat_max")
FP16 = ("denormal", "inf", "nan", "zero", "max")
FP_ROUND = ("tie+", "tie-", "below_tie", "above_tie")
REACH = ("tie+_out", "tie-_out")

_OBSERVERS: list[Corners] = []


class Corners:
    """Counts of corner classes per stage (and with `masks`, the last per-element mask of each)."""

    def __init__(self, masks: bool = False):
        self.counts: dict[str, dict[str, int]] = {}
        self.elements: dict[str, int] = {}
        self.keep_masks = masks
        self.masks: dict[str, dict[str, np.ndarray]] = {}

    def add(self, stage: str, classes: dict[str, np.ndarray], size: int) -> None:
        counts = self.counts.setdefault(stage, {})
        self.elements[stage] = self.elements.get(stage, 0) + size
        for name, mask in classes.items():
            counts[name] = counts.get(name, 0) + int(np.count_nonzero(mask))
        if self.keep_masks:
            self.masks[stage] = classes

    def extend(self, stage: str, classes: dict[str, np.ndarray]) -> None:
        """More classes of a stage already added (same elements: the element count stays)."""
        counts = self.counts.setdefault(stage, {})
        for name, mask in classes.items():
            counts[name] = counts.get(name, 0) + int(np.count_nonzero(mask))
        if self.keep_masks:
            self.masks[stage] = {**self.masks.get(stage, {}), **classes}

    def hit(self, stage: str) -> set[str]:
        return {name for name, count in self.counts.get(stage, {}).items() if count}

    def stages(self) -> list[str]:
        return sorted(self.counts)


@contextmanager
def observe(masks: bool = False):
    """Observe every stage the code inside runs; nested observers each see everything."""
    seen = Corners(masks)
    _OBSERVERS.append(seen)
    try:
        yield seen
    finally:
        _OBSERVERS.remove(seen)


def active() -> bool:
    return bool(_OBSERVERS)


@contextmanager
def unobserved():
    """Nothing inside is observed (a model rerunning part of its datapath to see where a tie goes)."""
    saved = _OBSERVERS[:]
    _OBSERVERS.clear()
    try:
        yield
    finally:
        _OBSERVERS[:] = saved


def _record(stage: str, classes: dict[str, np.ndarray], size: int) -> None:
    for seen in _OBSERVERS:
        seen.add(stage, classes, size)


def rounding_classes(x, shift) -> dict[str, np.ndarray]:
    """Masks of ROUND for x rounded by a right shift of `shift` (int or array broadcasting against x)."""
    x = np.asarray(x, np.int64)
    s = np.minimum(np.asarray(shift, np.int64), 62)
    x, s = np.broadcast_arrays(x, s)
    magnitude = np.abs(x)
    dropped = magnitude & ((np.int64(1) << s) - 1)
    half = np.where(s > 0, np.int64(1) << np.maximum(s - 1, 0), np.int64(-4))  # -4: matches no remainder
    nonzero = x != 0
    tie = dropped == half
    return {"tie+": tie & (x > 0), "tie-": tie & (x < 0), "below_tie": nonzero & (dropped == half - 1),
            "above_tie": (s >= 2) & (dropped == half + 1), "zero": ~nonzero}


def saturation_classes(v, lo: int, hi: int) -> dict[str, np.ndarray]:
    v = np.asarray(v)
    return {"sat_min": v < lo, "at_min": v == lo, "at_max": v == hi, "sat_max": v > hi}


def fp16_classes(bits) -> dict[str, np.ndarray]:
    magnitude = np.asarray(bits).astype(np.uint16) & np.uint16(0x7FFF)
    return {"denormal": (magnitude > 0) & (magnitude < 0x400), "inf": magnitude == 0x7C00,
            "nan": magnitude > 0x7C00, "zero": magnitude == 0, "max": magnitude == 0x7BFF}


def fp16_rounding_classes(values, source_bits: int) -> dict[str, np.ndarray]:
    """Masks of FP_ROUND for finite values (float64, exact) narrowed to fp16 with RNE; `source_bits`: the
    mantissa bits of the source format (23 fp32, 10 fp17, 0 an integer), whose LSB is "one LSB"."""
    v = np.asarray(values, np.float64)
    magnitude = np.where(np.isfinite(v), np.abs(v), 0.0)
    exponent = np.frexp(magnitude)[1] - 1
    step_exp = np.maximum(exponent - 10, -24)  # fp16's spacing at |v| (denormals: 2**-24)
    units = np.ldexp(magnitude, -step_exp)  # |v| in fp16 steps: exact (a power-of-two scaling)
    fraction = units - np.floor(units)
    lsb = np.ldexp(1.0, exponent - source_bits) if source_bits else np.ones_like(magnitude)
    lsb_units = np.ldexp(lsb, -step_exp)
    inside = (magnitude > 0) & (magnitude < 65520.0)  # beyond: clipped or rounded to 65504's neighbour
    tie = inside & (fraction == 0.5)
    return {"tie+": tie & (v > 0), "tie-": tie & (v < 0), "below_tie": inside & (fraction == 0.5 - lsb_units),
            "above_tie": inside & (fraction == 0.5 + lsb_units)}


def fp16_to_int_rounding_classes(values) -> dict[str, np.ndarray]:
    """Masks of ROUND for finite fp16 values (float64, exact) rounded to an integer: the fraction of |v| is one
    half, or one fp16 LSB (the spacing at v) below / above one half."""
    v = np.asarray(values, np.float64)
    magnitude = np.where(np.isfinite(v), np.abs(v), 0.0)
    fraction = magnitude - np.floor(magnitude)
    exponent = np.frexp(magnitude)[1] - 1
    lsb = np.ldexp(1.0, np.maximum(exponent - 10, -24))  # fp16's spacing at |v| (denormals: 2**-24)
    tie = fraction == 0.5
    return {"tie+": tie & (v > 0), "tie-": tie & (v < 0), "below_tie": (magnitude > 0) & (fraction == 0.5 - lsb),
            "above_tie": fraction == 0.5 + lsb, "zero": v == 0}


# ---- what unit models call ----------------------------------------------------------------------------------

def _only(classes: dict[str, np.ndarray], where, size: int) -> tuple[dict[str, np.ndarray], int]:
    """The classes of the elements `where` is true (all without it): the masks keep their full shape, so that a
    per-element mask still maps back to its element, and the count is of the elements the stage computed."""
    if where is None:
        return classes, size
    where = np.asarray(where, bool)
    return {name: mask & where for name, mask in classes.items()}, int(np.count_nonzero(where))


def rounding(stage: str, x, shift, where=None) -> None:
    """A right shift with rounding half away from zero of `x` by `shift` (of the elements `where` is true)."""
    if _OBSERVERS:
        x = np.asarray(x)
        _record(stage, *_only(rounding_classes(x, shift), where, x.size))


def reach(stage: str, moved, changed) -> None:
    """Which exact ties of `stage` (already observed) reach the unit's output: `moved` the stage's result with its
    ties rounded toward zero minus its result (-1 at a positive tie, +1 at a negative one, 0 elsewhere),
    `changed` whether the unit's output differs then (same shape)."""
    if _OBSERVERS:
        moved, changed = np.asarray(moved), np.asarray(changed, bool)
        classes = {"tie+_out": changed & (moved < 0), "tie-_out": changed & (moved > 0)}
        for seen in _OBSERVERS:
            seen.extend(stage, classes)


def saturation(stage: str, v, bits: int | None = None, bounds: tuple[int, int] | None = None, where=None) -> None:
    """A saturation of `v` to signed `bits` (or to `bounds`), of the elements `where` is true."""
    if _OBSERVERS:
        if bounds is None:
            assert bits is not None, "saturation() takes bits or bounds"
            bounds = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
        lo, hi = bounds
        v = np.asarray(v)
        _record(stage, *_only(saturation_classes(v, lo, hi), where, v.size))


def convertor(stage: str, x, shift, bits: int, where=None) -> None:
    """A convertor / truncation: x rounded by `shift` ("<stage>.round"), then saturated to `bits`
    ("<stage>.saturate"); x is the value before the shift; `where`: the elements that take this stage."""
    if _OBSERVERS:
        x = np.asarray(x, np.int64)
        rounding(f"{stage}.round", x, shift, where)
        saturation(f"{stage}.saturate", shift_right_round(x, shift), bits, where=where)


def shifter(stage: str, x, shift, bits: int) -> None:
    """A left shift of `x` by `shift` saturated to signed `bits` (precision-preservation "Shifter")."""
    if _OBSERVERS:
        x = np.asarray(x, np.int64)
        s = np.minimum(np.asarray(shift, np.int64), 62)
        hi, lo = (1 << (bits - 1)) - 1, -(1 << (bits - 1))
        over, under = x > (hi >> s), x < -((-lo) >> s)
        shifted = np.where(over | under, 0, x) << s
        classes = {"sat_min": under, "at_min": ~under & (shifted == lo), "at_max": ~over & (shifted == hi),
                   "sat_max": over}
        _record(f"{stage}.saturate", classes, x.size)


def fp16_patterns(stage: str, bits) -> None:
    """fp16 patterns entering or leaving a unit."""
    if _OBSERVERS:
        bits = np.asarray(bits)
        _record(stage, fp16_classes(bits), bits.size)


def fp16_rounding(stage: str, values, source_bits: int) -> None:
    """Values narrowed to fp16 with round to nearest even (see fp16_rounding_classes)."""
    if _OBSERVERS:
        values = np.asarray(values, np.float64)
        _record(stage, fp16_rounding_classes(values, source_bits), values.size)


def fp16_to_int(stage: str, bits, out_bits: int) -> None:
    """fp16 patterns rounded half away from zero to an integer ("<stage>.round", NaN left out) and saturated
    to signed `out_bits` ("<stage>.saturate"; INF as beyond the bound of its sign)."""
    if _OBSERVERS:
        bits = np.asarray(bits).astype(np.uint16)
        magnitude = bits & np.uint16(0x7FFF)
        number = magnitude <= 0x7C00
        values = np.where(number, bits.view(np.float16), 0).astype(np.float64)
        _record(f"{stage}.round", *_only(fp16_to_int_rounding_classes(values), number, bits.size))
        rounded = np.trunc(np.where(np.isinf(values), np.copysign(2.0**out_bits, values), values)
                           + np.copysign(0.5, values))
        saturation(f"{stage}.saturate", rounded, out_bits, where=number)


# ---- the stages ---------------------------------------------------------------------------------------------

PP = "nvdla-precision-preservation.md"
FMT = "nvdla-in-memory-data-formats.md"
_KIND_CLASSES = {"round": ROUND, "round_reach": ROUND + REACH, "saturate": SATURATE, "fp16": FP16,
                 "fp16_round": FP_ROUND}


def _stage(place: str, section: str, kind: str, needs: tuple[str, ...] = ()) -> dict:
    return {"place": place, "section": section, "kind": kind, "needs": needs}


#: stage -> where the model computes it, the document section that defines it, the kind of its classes
#: (CLASSES[kind]) and what a profile needs for it (features, or "fp16" / "int16" among its feature types).
STAGES: dict[str, dict] = {
    "sdp.x1.alu_shift.saturate": _stage("golden/units/sdp/datapath.py int_x", f"{PP} Shifter (bs_shifter)",
                                        "saturate", ("SDP_BS",)),
    "sdp.x1.mul_shift.round": _stage("golden/units/sdp/datapath.py int_x", f"{PP} Truncate (cmod X_trt)", "round",
                                     ("SDP_BS",)),
    "sdp.x1.mul_shift.saturate": _stage("golden/units/sdp/datapath.py int_x", f"{PP} Truncate", "saturate",
                                        ("SDP_BS",)),
    "sdp.x2.alu_shift.saturate": _stage("golden/units/sdp/datapath.py int_x", f"{PP} Shifter (bn_m_shifter)",
                                        "saturate", ("SDP_BN",)),
    "sdp.x2.mul_shift.round": _stage("golden/units/sdp/datapath.py int_x", f"{PP} Truncate (cmod X_trt)", "round",
                                     ("SDP_BN",)),
    "sdp.x2.mul_shift.saturate": _stage("golden/units/sdp/datapath.py int_x", f"{PP} Truncate", "saturate",
                                        ("SDP_BN",)),
    "sdp.y.mul_cvt.round": _stage("golden/units/sdp/datapath.py int_ew_operand", f"{PP} Convertor (ew_cvt)",
                                  "round", ("SDP_EW",)),
    "sdp.y.mul_cvt.saturate": _stage("golden/units/sdp/datapath.py int_ew_operand", f"{PP} Convertor (ew_cvt)",
                                     "saturate", ("SDP_EW",)),
    "sdp.y.alu_cvt.round": _stage("golden/units/sdp/datapath.py int_ew_operand", f"{PP} Convertor (ew_cvt)",
                                  "round", ("SDP_EW",)),
    "sdp.y.alu_cvt.saturate": _stage("golden/units/sdp/datapath.py int_ew_operand", f"{PP} Convertor (ew_cvt)",
                                     "saturate", ("SDP_EW",)),
    "sdp.y.truncate.round": _stage("golden/units/sdp/datapath.py int_y", f"{PP} Truncate (ew_inv_cvt)", "round",
                                   ("SDP_EW",)),
    "sdp.y.truncate.saturate": _stage("golden/units/sdp/datapath.py int_y", f"{PP} Truncate", "saturate",
                                      ("SDP_EW",)),
    "sdp.y.alu.saturate": _stage("golden/units/sdp/datapath.py int_y", f"{PP} saturation counters (INT32)",
                                 "saturate", ("SDP_EW",)),
    "sdp.lut.interp.round": _stage("golden/units/lut.py _interpolate_int", f"{PP} LUT; programming-guide LUT",
                                   "round", ("SDP_LUT",)),
    "sdp.lut.extrap.round": _stage("golden/units/lut.py _extrapolate_int", f"{PP} LUT; programming-guide LUT",
                                   "round", ("SDP_LUT",)),
    "sdp.lut.extrap.saturate": _stage("golden/units/lut.py _extrapolate_int", f"{PP} LUT", "saturate",
                                      ("SDP_LUT",)),
    "sdp.cvt_out.round": _stage("golden/units/sdp/datapath.py int_output", f"{PP} Convertor", "round"),
    "sdp.cvt_out.saturate": _stage("golden/units/sdp/datapath.py int_output", f"{PP} Convertor (17-bit result, "
                                   "cmod sdp_c)", "saturate"),
    "sdp.cvt_out.narrow": _stage("golden/units/sdp/datapath.py int_output", f"{PP} saturation counters "
                                 "(INT8/INT16)", "saturate"),
    "sdp.cvt_out.fp16_round": _stage("golden/units/sdp/datapath.py int_output", f"{FMT} Rounding (int->fp16)",
                                     "fp16_round", ("fp16",)),
    "sdp.out.fp16": _stage("golden/units/sdp/datapath.py int_output, fp_output", f"{FMT} FP16 Supporting",
                           "fp16", ("fp16",)),
    "sdp.fp.in": _stage("golden/units/sdp/datapath.py fp16_operand", f"{FMT} FP16 Supporting (INF, NaN)", "fp16",
                        ("fp16",)),
    "sdp.fp.out.round": _stage("golden/units/sdp/datapath.py fp_output", f"{FMT} Rounding (fp32->fp16)",
                               "fp16_round", ("fp16",)),
    "sdp.fp.out.int16.round": _stage("golden/units/sdp/datapath.py fp_output", "cmod hls/sdp/sdp_c.cpp:48 "
                                     "Fp16ToInt16, hls/include/nvdla_float.h:1508 FpFloatToInt (fp16 -> int16, "
                                     "half away from zero)", "round", ("fp16", "int16")),
    "sdp.fp.out.int16.saturate": _stage("golden/units/sdp/datapath.py fp_output", "cmod hls/include/nvdla_float.h"
                                        ":1508 FpFloatToInt (saturates to int16)", "saturate", ("fp16", "int16")),
    "cacc.truncate.round": _stage("golden/units/conv/cacc.py deliver_int", f"{PP} Truncate (cc_out_trunc)",
                                  "round"),
    "cacc.truncate.saturate": _stage("golden/units/conv/cacc.py deliver_int", f"{PP} Truncate (cc_out_trunc); "
                                     "saturation counters (CACC.D_OUT_SATURATION)", "saturate"),
    "cdma.cvt.round": _stage("golden/units/conv/image.py", f"{PP} Convertor (cc_cvt); {FMT} Precision "
                             "Conversion, Equation 1", "round"),
    "cdma.cvt.saturate": _stage("golden/units/conv/image.py", f"{PP} Convertor (cc_cvt, 17 bits, cmod cdma_cvt)",
                                "saturate"),
    "cdma.cvt.narrow": _stage("golden/units/conv/image.py", f"{FMT} Precision Conversion, Equation 1", "saturate"),
    "conv.pra_truncate.round": _stage("golden/units/conv/winograd.py pre_transform", f"{PP} Truncate (pra_trunc)",
                                      "round", ("WINOGRAD",)),
    "conv.pra_truncate.saturate": _stage("golden/units/conv/winograd.py pre_transform", f"{PP} Truncate "
                                         "(pra_trunc)", "saturate", ("WINOGRAD",)),
    "cdp.cvt_in.round": _stage("golden/units/cdp/lrn.py lrn_int", f"{PP} Convertor (cdp_in_cvt)", "round",
                               ("CDP",)),
    "cdp.cvt_in.saturate": _stage("golden/units/cdp/lrn.py lrn_int", f"{PP} Convertor (cdp_in_cvt, 9/17 bits)",
                                  "saturate", ("CDP",)),
    "cdp.lut.interp.round": _stage("golden/units/cdp/lut.py _interpolate, lrn.py lrn_int (reach)",
                                   f"{PP} LUT (cdp_lut_cvt)", "round_reach", ("CDP",)),
    "cdp.lut.extrap.round": _stage("golden/units/cdp/lut.py _observe_extrapolation, lrn.py lrn_int (reach)",
                                   f"{PP} LUT", "round_reach", ("CDP",)),
    "cdp.lut.extrap.saturate": _stage("golden/units/cdp/lut.py _observe_extrapolation",
                                      f"{PP} LUT (56-bit intermediate)", "saturate", ("CDP",)),
    "cdp.lut.out.saturate": _stage("golden/units/cdp/lut.py lookup", f"{PP} LUT (16-bit entries)", "saturate",
                                   ("CDP",)),
    "cdp.cvt_out.round": _stage("golden/units/cdp/lrn.py lrn_int", f"{PP} Convertor (cdp_out_cvt)", "round",
                                ("CDP",)),
    "cdp.cvt_out.saturate": _stage("golden/units/cdp/lrn.py lrn_int", f"{PP} Convertor (cdp_out_cvt); saturation "
                                   "counters (CDP.D_OUT_SATURATION)", "saturate", ("CDP",)),
    "cdp.fp.in": _stage("golden/units/cdp/lrn.py lrn_fp16", f"{FMT} FP16 Supporting", "fp16", ("CDP", "fp16")),
    "cdp.fp.out": _stage("golden/units/cdp/lrn.py lrn_fp16", f"{FMT} FP16 Supporting", "fp16", ("CDP", "fp16")),
    "cdp.fp.out.round": _stage("golden/units/cdp/lrn.py lrn_fp16", f"{FMT} Rounding (fp17->fp16)", "fp16_round",
                               ("CDP", "fp16")),
    "pdp.divide.width.round": _stage("golden/units/pdp/pooling.py pool_int", f"{PP} (no convertor in PDP; "
                                     "RECIP_KERNEL_WIDTH product, cmod NV_NVDLA_pdp.cpp)", "round", ("PDP",)),
    "pdp.divide.height.round": _stage("golden/units/pdp/pooling.py pool_int", f"{PP} (no convertor in PDP; "
                                      "RECIP_KERNEL_HEIGHT product, cmod NV_NVDLA_pdp.cpp)", "round", ("PDP",)),
    "pdp.out.narrow": _stage("golden/units/pdp/pooling.py pool_int", "cmod NV_NVDLA_pdp.cpp (static_cast: wraps)",
                             "saturate", ("PDP",)),
    "pdp.fp.in": _stage("golden/units/pdp/pooling.py pool_fp16_average", f"{FMT} FP16 Supporting (INF table)",
                        "fp16", ("PDP", "fp16")),
    "pdp.fp.out.round": _stage("golden/units/pdp/pooling.py pool_fp16_average", f"{FMT} Rounding (fp17->fp16)",
                               "fp16_round", ("PDP", "fp16")),
}
CLASSES = _KIND_CLASSES
