"""The rubik covergroup: every Rubik layer's mode, precision, contract strides, sizes and channels, memories,
packed or gapped strides on each side, and its surfaces' memory points (NVIDIA's rubik_cg meanings)."""

from __future__ import annotations

from golden.units.rubik import RubikLayer
from stimulus.covergroups.common import (
    CHANNEL_CLASSES,
    SIZE_CLASSES,
    channel_class,
    memories,
    memory_points,
    packed,
    size_class,
    stack,
    when_run,
)


def covergroup(coverage, group: str):
    return when_run(("RUBIK", "RBK"), lambda regs: RubikLayer.decode(regs, coverage.profile),
                    _points(coverage, group))


def _points(coverage, g: str):
    p = coverage.profile
    modes = (("CONTRACT",) if p.rubik_contract else ()) + (("SPLIT", "MERGE") if p.rubik_reshape else ())
    rams = memories(p)
    four = (1, 2, 3, 4)
    decorators = [
        coverage.point(g, "mode", lambda r: r.mode, modes),
        coverage.point(g, "precision", lambda r: r.precision, sorted(p.feature_types)),
        coverage.point(g, "stride_x", lambda r: r.stride_x if r.mode == "CONTRACT" else None, four),
        coverage.point(g, "stride_y", lambda r: r.stride_y if r.mode == "CONTRACT" else None, four),
        coverage.point(g, "width", lambda r: size_class(r.width), SIZE_CLASSES[:3]),
        coverage.point(g, "height", lambda r: size_class(r.height), SIZE_CLASSES[:3]),
        coverage.point(g, "channels", _rubik_channels, CHANNEL_CLASSES),
        coverage.point(g, "memories", lambda r: ("sec_mem" if r.in_cvsram else "pri_mem",
                       "sec_mem" if r.out_cvsram else "pri_mem"),
[(i, o) for i in rams for o in rams]),
        coverage.cross(g, "mode_x_precision", ["mode", "precision"]),
        coverage.cross(g, "stride_x_x_stride_y", ["stride_x", "stride_y"]),
        coverage.cross(g, "mode_x_memories", ["mode", "memories"]),
        # NVIDIA's rubik_cg meanings the points above do not hold (stimulus/coverage_parity.json)
        coverage.point(g, "in_channels", lambda r: channel_class(r.in_channels, r.per_atom), CHANNEL_CLASSES),
        coverage.point(g, "out_channels", lambda r: channel_class(r.out_channels, r.per_atom), CHANNEL_CLASSES),
        coverage.point(g, "contract_in_channels", lambda r: None if r.mode != "CONTRACT" else "1-31"
                       if r.in_channels < 32 else "32" if r.in_channels == 32 else "33+", ("1-31", "32", "33+")),
    ]
    for side, key in (("src", "DAIN"), ("dst", "DAOUT")):
        planar_mode = "MERGE" if side == "src" else "SPLIT"
        decorators += [
            coverage.point(g, f"{side}_line_stride", lambda r, s=side, k=key: packed(
                           r.addressing[f"{k}_LINE"], _rubik_line(r, s)), ("packed", "gap")),
            coverage.point(g, f"{side}_surface_stride", lambda r, s=side, k=key, m=planar_mode: None if r.mode == m
                           else packed(r.addressing[f"{k}_SURF"], r.addressing[f"{k}_LINE"] * _rubik_lines(r, s)),
                           ("packed", "gap")),
            coverage.point(g, f"{side}_planar_stride", lambda r, s=side, k=key, m=planar_mode: None if r.mode != m
                           else packed(r.addressing[f"{k}_PLANAR"], r.addressing[f"{k}_LINE"] * r.height),
                           ("packed", "gap")),
        ]
    decorators += memory_points(coverage, g, lambda r: (r.addressing["DAIN_ADDR"], 0, 0, r.in_cvsram),
                                      lambda r: (r.addressing["DAOUT_ADDR"], 0, 0, r.out_cvsram))
    return stack(decorators)


def _rubik_channels(r) -> str:
    """The feature cube's channels (contract: the output cube's) against the 32-byte atom."""
    return channel_class(r.out_channels if r.mode == "CONTRACT" else r.in_channels, r.per_atom)


def _rubik_line(r, side: str) -> int:
    """The bytes of one line of a Rubik layer's input ("src") or output ("dst") without a gap: a line of atoms
    on the feature side (contract's output: stride_x times wider), the plane's row in 64-byte units on the
    planar side (split's output, merge's input)."""
    planar = (side == "dst" and r.mode == "SPLIT") or (side == "src" and r.mode == "MERGE")
    if planar:
        return -(-r.width * r.element_bytes // 64) * 64
    return r.width * (r.stride_x if side == "dst" and r.mode == "CONTRACT" else 1) * 32


def _rubik_lines(r, side: str) -> int:
    """Lines of one surface on the feature side (contract's output: stride_y times higher)."""
    return r.height * (r.stride_y if side == "dst" and r.mode == "CONTRACT" else 1)
