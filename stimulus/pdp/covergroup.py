"""The pdp covergroup: every PDP layer's precision, method, kernel, stride, padding, split, input and sizes, the
memory side of its surfaces (src_* is None for on-the-fly input), and NVIDIA's pdp_cg / pdp_rdma_cg meanings."""

from __future__ import annotations

from golden.units.pdp.config import decode
from stimulus.covergroups.common import (
    CHANNEL_CLASSES,
    SIZE_CLASSES,
    channel_class,
    memory_points,
    packed,
    size_class,
    stack,
    when_run,
)


def covergroup(coverage, group: str):
    return when_run(("PDP",), decode, _points(coverage, group))


def _points(coverage, g: str):
    p = coverage.profile
    per_atom = p.memory_atomic_size
    eight = list(range(1, 9))
    decorators = [
        coverage.point(g, "precision", lambda c: c.precision, sorted(p.feature_types)),
        coverage.point(g, "method", lambda c: c.method, ("average", "max", "min")),
        coverage.point(g, "kernel_w", lambda c: c.kernel[0], eight),
        coverage.point(g, "kernel_h", lambda c: c.kernel[1], eight),
        coverage.point(g, "stride_w", lambda c: c.stride[0], eight),
        coverage.point(g, "stride_h", lambda c: c.stride[1], eight),
        coverage.point(g, "pad", lambda c: "none" if not any(c.pads) else
                       "kernel-1" if max(c.pads) == max(c.kernel) - 1 else "some", ("none", "some", "kernel-1")),
        coverage.point(g, "split", lambda c: c.split.count if c.split else 1, (1, 2, 3, 4)),
        coverage.point(g, "input", lambda c: "on-the-fly" if c.on_the_fly else "memory", ("memory", "on-the-fly")),
        coverage.point(g, "in_width", lambda c: size_class(c.in_width), SIZE_CLASSES),
        coverage.point(g, "out_width", lambda c: size_class(c.out_width), SIZE_CLASSES[:3]),
        coverage.point(g, "channels", lambda c: channel_class(c.channels, per_atom), CHANNEL_CLASSES),
        coverage.cross(g, "method_x_precision", ["method", "precision"]),
        coverage.cross(g, "kernel_w_x_stride_w", ["kernel_w", "stride_w"]),
        coverage.cross(g, "method_x_split", ["method", "split"]),
        coverage.cross(g, "method_x_input", ["method", "input"]),
        # NVIDIA's pdp_cg / pdp_rdma_cg meanings the points above do not hold (stimulus/coverage_parity.json)
        coverage.point(g, "in_height", lambda c: size_class(c.in_height), SIZE_CLASSES),
        coverage.point(g, "out_height", lambda c: size_class(c.out_height), SIZE_CLASSES[:3]),
        coverage.point(g, "pad_left", lambda c: c.pads[0], range(8)),
        coverage.point(g, "pad_top", lambda c: c.pads[1], range(8)),
        coverage.point(g, "pad_right", lambda c: c.pads[2], range(8)),
        coverage.point(g, "pad_bottom", lambda c: c.pads[3], range(8)),
        coverage.cross(g, "stride_w_x_stride_h", ["stride_w", "stride_h"]),
        coverage.cross(g, "input_x_in_width", ["input", "in_width"]),
        coverage.cross(g, "input_x_in_height", ["input", "in_height"]),
        coverage.cross(g, "input_x_channels", ["input", "channels"]),
        coverage.point(g, "split_in_first", lambda c: _split_part(c, "in_first"), SIZE_CLASSES),
        coverage.point(g, "split_in_mid", lambda c: _split_part(c, "in_mid"), SIZE_CLASSES),
        coverage.point(g, "split_in_last", lambda c: _split_part(c, "in_last"), SIZE_CLASSES),
        coverage.point(g, "split_out_first", lambda c: _split_part(c, "out_first"), SIZE_CLASSES[:3]),
        coverage.point(g, "split_out_mid", lambda c: _split_part(c, "out_mid"), SIZE_CLASSES[:2]),
        coverage.point(g, "split_out_last", lambda c: _split_part(c, "out_last"), SIZE_CLASSES[:3]),
        coverage.point(g, "overlap_lines", _overlap_lines, range(8)),
        coverage.point(g, "src_line_stride", lambda c: None if c.on_the_fly or c.split else
                       packed(c.src[1], c.in_width * per_atom), ("packed", "gap")),
        coverage.point(g, "src_line_stride_split", lambda c: None if c.on_the_fly or not c.split else
                       packed(c.src[1], c.in_width * per_atom), ("packed", "gap")),
        coverage.point(g, "dst_line_stride", lambda c: None if c.split else packed(c.dst[1], c.out_width * per_atom),
                       ("packed", "gap")),
        coverage.point(g, "dst_line_stride_split", lambda c: None if not c.split else
                       packed(c.dst[1], c.out_width * per_atom), ("packed", "gap")),
    ]
    decorators += memory_points(coverage, g, lambda c: None if c.on_the_fly else c.src, lambda c: c.dst)
    return stack(decorators)


def _split_part(cfg, part: str) -> str | None:
    """Size class of one split-width part (first / mid / last, input or output columns); mid only with 3+ parts."""
    if cfg.split is None or (part.endswith("mid") and cfg.split.count < 3):
        return None
    return size_class(getattr(cfg.split, part))


def _overlap_lines(cfg) -> int | None:
    """Output lines an input line belongs to beyond the first (ceil(kernel_h / stride_h) - 1), in split
    layers whose kernel is at least as high as the stride."""
    kernel, stride = cfg.kernel[1], cfg.stride[1]
    if cfg.split is None or kernel < stride:
        return None
    return -(-kernel // stride) - 1
