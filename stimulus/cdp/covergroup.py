"""The cdp covergroup: every CDP layer's precision, local size, LE function, bypasses, LUT priorities, sizes,
strides, data convertors, LUT registers and surfaces (NVIDIA's cdp_cg / cdp_lut_cg meanings) and its LUT port
accesses; cdp_run (outcomes): the LUT's hit / underflow / overflow counters a run reported."""

from __future__ import annotations

import numpy as np

from golden.units.cdp.config import decode
from stimulus.covergroups import Samplers
from stimulus.covergroups.common import (
    CHANNEL_CLASSES,
    SIZE_CLASSES,
    channel_class,
    lut_accesses,
    lut_outcomes,
    memory_points,
    packed,
    sign_class,
    size_class,
    stack,
    when_run,
)


def covergroup(coverage, group: str) -> Samplers:
    return Samplers(layer=when_run(("CDP",), decode, _points(coverage, group)),
                    writes=lut_accesses(coverage, group, "CDP"))


def outcomes(coverage, group: str):
    sample = lut_outcomes(coverage, group, "CDP", ())

    def sample_layer(stages, regs, status) -> None:
        if "CDP" in stages and status is not None:
            sample((decode(regs), True, status))
    return sample_layer


def _points(coverage, g: str):
    p = coverage.profile
    atom = p.memory_atomic_size
    decorators = [
        coverage.point(g, "precision", lambda c: c.precision, sorted(p.feature_types)),
        coverage.point(g, "local_size", lambda c: c.local_size, (3, 5, 7, 9)),
        coverage.point(g, "le_function", lambda c: c.lut.le_function, ("LINEAR", "EXPONENT")),
        coverage.point(g, "sqsum", lambda c: "bypass" if c.sqsum_bypass else "on", ("on", "bypass")),
        coverage.point(g, "mul", lambda c: "bypass" if c.mul_bypass else "on", ("on", "bypass")),
        coverage.point(g, "priorities", lambda c: (c.lut.uflow_priority, c.lut.oflow_priority),
                       [(u, o) for u in ("LE", "LO") for o in ("LE", "LO")]),
        coverage.point(g, "channels", lambda c: channel_class(c.shape[0], p.memory_atomic_size), CHANNEL_CLASSES),
        coverage.point(g, "width", lambda c: size_class(c.shape[2]), SIZE_CLASSES[:3]),
        coverage.cross(g, "local_size_x_le_function", ["local_size", "le_function"]),
        coverage.cross(g, "precision_x_local_size", ["precision", "local_size"]),
        # NVIDIA's cdp_cg / cdp_lut_cg meanings the points above do not hold (stimulus/coverage_parity.json)
        coverage.point(g, "height", lambda c: size_class(c.shape[1]), SIZE_CLASSES[:3]),
        coverage.point(g, "src_line_stride", lambda c: packed(c.src[1], c.shape[2] * atom), ("packed", "gap")),
        coverage.point(g, "src_surface_stride", lambda c: packed(c.src[2], c.src[1] * c.shape[1]), ("packed", "gap")),
        coverage.point(g, "dst_line_stride", lambda c: packed(c.dst[1], c.shape[2] * atom), ("packed", "gap")),
        coverage.point(g, "dst_surface_stride", lambda c: packed(c.dst[2], c.dst[1] * c.shape[1]), ("packed", "gap")),
        coverage.point(g, "src_line_end", lambda c: (c.src[0] // atom + c.shape[2]) % 8, range(8)),
        coverage.point(g, "dst_line_end", lambda c: (c.dst[0] // atom + c.shape[2]) % 8, range(8)),
    ]
    # the data convertors are not used in fp16 (precision-preservation "CDP"): sampled for integer layers
    wide = ("wide",) if "int16" in p.feature_types else ()
    convertors = [
        ("datin_offset", lambda c: _offset_class(c.datin[0], 1 << 7), ("negative", "positive") + wide),
        ("datin_scale", lambda c: "negative" if c.datin[1] < 0 else "positive", ("negative", "positive")),
        ("datin_shifter", lambda c: _shift_class(c.datin[2]), SHIFT_CLASSES[:3]),
        ("datout_offset", lambda c: _offset_class(c.datout[0], 1 << 24), ("negative", "positive") + wide),
        ("datout_scale", lambda c: "negative" if c.datout[1] < 0 else "positive", ("negative", "positive")),
        ("datout_shifter", lambda c: _shift_class(c.datout[2]), SHIFT_CLASSES),
    ]
    for name, xf, bins in convertors:
        ignore = ([("fp16", None)] if "fp16" in p.feature_types else []) + \
                 ([("int8", "wide")] if name.endswith("offset") and wide else [])
        decorators += [coverage.point(g, name, lambda c, f=xf: None if c.precision == "fp16" else f(c), bins),
                       coverage.cross(g, f"precision_x_{name}", ["precision", name], ignore)]
    if "fp16" in p.feature_types:
        decorators.append(coverage.point(g, "nan_to_zero", lambda c: None if c.precision != "fp16" else
                                         "on" if c.nan_to_zero else "off", ("off", "on")))
    # the LUT registers (S_LUT_*)
    decorators += [coverage.point(g, f"{kind}_priority", lambda c, k=kind: getattr(c.lut, f"{k}_priority"),
                                  ("LE", "LO")) for kind in ("uflow", "oflow", "hybrid")]
    for name in ("le_index_offset", "le_index_select", "lo_index_select"):
        decorators.append(coverage.point(g, name, lambda c, n=name: sign_class(getattr(c.lut, n)),
                                         ("negative", "zero", "positive")))
    decorators += [
        coverage.cross(g, "le_function_x_le_index_offset", ["le_function", "le_index_offset"], [("LINEAR", None)]),
        coverage.cross(g, "le_function_x_le_index_select", ["le_function", "le_index_select"], [("EXPONENT", None)]),
        coverage.cross(g, "le_function_x_lo_index_select", ["le_function", "lo_index_select"], [("EXPONENT", None)]),
    ]
    for bound in ("le_start", "le_end", "lo_start", "lo_end"):
        decorators += [
            coverage.point(g, f"{bound}_sign", lambda c, b=bound: "negative" if _lut_bound(c, b) < 0 else "positive",
                           ("negative", "positive")),
            coverage.point(g, f"{bound}_size", lambda c, b=bound: "<2^10" if abs(_lut_bound(c, b)) < 1024 else "2^10+",
                           ("<2^10", "2^10+")),
        ]
    for table in ("le", "lo"):
        for flow in ("uflow", "oflow"):
            decorators += [
                coverage.point(g, f"{table}_{flow}_scale", lambda c, a=f"{table}_{flow}_scale": _slope_class(
                               getattr(c.lut, a)), SLOPE_CLASSES),
                coverage.point(g, f"{table}_{flow}_shift", lambda c, a=f"{table}_{flow}_shift": _shift_class(
                               getattr(c.lut, a) & 0x1F), SHIFT_CLASSES[:3]),
            ]
    decorators += memory_points(coverage, g, lambda c: c.src, lambda c: c.dst)
    decorators.append(coverage.cross(g, "src_ram_x_dst_ram", ["src_ram", "dst_ram"]))
    return stack(decorators)


SHIFT_CLASSES = ("0", "1-15", "16-31", "32+")
SLOPE_CLASSES = ("negative", "positive", "negative max", "positive max")


def _shift_class(shift: int) -> str:
    return "0" if shift == 0 else "1-15" if shift < 16 else "16-31" if shift < 32 else "32+"


def _offset_class(offset: int, bound: int) -> str:
    """A convertor offset: inside the int8 pipeline's range (+-bound), by sign, or "wide" beyond it."""
    return "wide" if not -bound <= offset < bound else "negative" if offset < 0 else "positive"


def _slope_class(scale: int) -> str:
    """A LUT slope scale (16 bits as the register holds them): by sign, or within 16 of either extreme."""
    raw = scale & 0xFFFF
    if 0x7FF0 <= raw <= 0x7FFF:
        return "positive max"
    if 0x8000 <= raw <= 0x800F:
        return "negative max"
    return "negative" if raw & 0x8000 else "positive"


def _lut_bound(cfg, bound: str) -> float:
    """A CDP LUT START/END as a number: the signed 38-bit integer, or for fp16 layers the fp32 in its LOW word."""
    raw = getattr(cfg.lut, bound)
    if cfg.precision != "fp16":
        return raw
    return float(np.array([raw & 0xFFFFFFFF], dtype=np.uint32).view(np.float32)[0])
