"""Breakers of the PDP's rules (golden/units/pdp/rules.py): each changes a legal PDP layer's spec before it is built.

A change (stimulus/breakers.py) takes the legal spec (stimulus/pdp/layers.py: PdpSpec), nothing decoded (the layer is
built after the change), the chooser and the profile, and returns the changed spec or None when this spec cannot
be changed that way. Sizes move with the strides that pack them, so that only the one rule breaks.
"""

from __future__ import annotations

from dataclasses import replace

from golden.units.pdp.config import pooled_size
from golden.units.pdp.rules import PAD_VALUE_BITS, PAD_VALUE_FIELD_BITS, PAD_VALUES, RECIP_ONE, RECIPS, max_out_width
from stimulus.breakers import declare
from stimulus.pdp import layers as pdp


def _reshaped(spec: pdp.PdpSpec, profile, **changes) -> pdp.PdpSpec:
    """The spec with new sizes and packed strides that fit them."""
    atom = profile.memory_atomic_size
    spec = replace(spec, **changes)
    channels, height, width = spec.shape
    oh, ow = spec.out_hw
    return replace(spec, src=(spec.src[0], width * atom, width * height * atom),
                   dst=(spec.dst[0], ow * atom, ow * oh * atom))


def _kernel_size(spec, seen, choose, profile):
    if spec.split:
        return None
    kw = choose.integer(9, 16)
    _, pt, _, pb = spec.pads
    ow, sw = spec.out_hw[1], spec.stride[0]
    width = (ow - 1) * sw + kw
    return _reshaped(spec, profile, kernel=(kw, spec.kernel[1]), pads=(0, pt, 0, pb),
                     shape=(spec.shape[0], spec.shape[1], width))


def _pad_left_right(spec, seen, choose, profile):
    kw, sw = spec.kernel[0], spec.stride[0]
    if spec.split or kw > 7:
        return None
    (oh, ow), (_, pt, _, pb) = spec.out_hw, spec.pads
    return _reshaped(spec, profile, pads=(kw, pt, 0, pb), out_hw=(oh, ow + 1),
                     shape=(spec.shape[0], spec.shape[1], ow * sw))


def _pad_top_bottom(spec, seen, choose, profile):
    kh, sh = spec.kernel[1], spec.stride[1]
    if kh > 7:
        return None
    (oh, ow), (pl, _, pr, _) = spec.out_hw, spec.pads
    return _reshaped(spec, profile, pads=(pl, kh, pr, 0), out_hw=(oh + 1, ow),
                     shape=(spec.shape[0], oh * sh, spec.shape[2]))


def _width_stride(spec, seen, choose, profile):
    (kw, _), (sw, _), (pl, _, pr, _) = spec.kernel, spec.stride, spec.pads
    if spec.split or sw < 2:
        return None
    width = spec.shape[2] + 1
    return _reshaped(spec, profile, shape=(spec.shape[0], spec.shape[1], width),
                     out_hw=(spec.out_hw[0], pooled_size(width, pl, pr, kw, sw)))


def _height_stride(spec, seen, choose, profile):
    (_, kh), (_, sh), (_, pt, _, pb) = spec.kernel, spec.stride, spec.pads
    if sh < 2:
        return None
    height = spec.shape[1] + 1
    return _reshaped(spec, profile, shape=(spec.shape[0], height, spec.shape[2]),
                     out_hw=(pooled_size(height, pt, pb, kh, sh), spec.out_hw[1]))


def _override(**fields):
    def breaker(spec, seen, choose, profile):
        values = {key.replace("__", "."): value(spec) if callable(value) else value for key, value in fields.items()}
        return replace(spec, overrides={**spec.overrides, **values})
    return breaker


def _needs_split(breaker, minimum: int = 2):
    def wrapped(spec, seen, choose, profile):
        return breaker(spec, seen, choose, profile) if spec.split and spec.split[0] >= minimum else None
    return wrapped


def _split_change(ins: tuple = (0, 0, 0), outs: tuple = (0, 0, 0)):
    """Add to the split's (first, mid, last) input and output widths (None if a width would drop below 1)."""
    def breaker(spec, seen, choose, profile):
        count, old_in, old_out = spec.split
        mids = count - 2
        delta_in = tuple(-mids if d == "mids" else d for d in ins)  # "mids": minus one per mid part
        new_in = tuple(w + d for w, d in zip(old_in, delta_in, strict=True))
        new_out = tuple(w + d for w, d in zip(old_out, outs, strict=True))
        if min(new_in + new_out) < 1:
            return None
        return replace(spec, split=(count, new_in, new_out))
    return breaker


def _split_overlap(spec, seen, choose, profile):
    (kw, _), (sw, _), (_, pt, pr, pb) = spec.kernel, spec.stride, spec.pads
    if not spec.split or kw < sw + 2:
        return None
    count, _, (_, mid, last) = spec.split
    outs = (1, mid, last)
    left = kw - 1  # first_in = kernel - PL = 1 < kernel - stride
    ins = pdp.split_inputs(outs, kw, sw, left, pr)
    if min(ins) < 1:
        return None
    mids = count - 2
    width, out = ins[0] + ins[1] * mids + ins[2], 1 + mid * mids + last
    return _reshaped(spec, profile, pads=(left, pt, pr, pb), split=(count, ins, outs),
                     shape=(spec.shape[0], spec.shape[1], width), out_hw=(spec.out_hw[0], out))


def _pad_value_sign(spec, seen, choose, profile):
    """One PAD_VALUE_nX written with bit 18 flipped: the cmod's low bits unchanged, the RTL's value not."""
    if spec.method != "average" or spec.precision not in PAD_VALUE_BITS:
        return None
    n = choose.integer(1, 7)
    if PAD_VALUE_BITS[spec.precision][n - 1] >= PAD_VALUE_FIELD_BITS:
        return None
    value = ((n * spec.pad_value) & ((1 << PAD_VALUE_FIELD_BITS) - 1)) ^ (1 << (PAD_VALUE_FIELD_BITS - 1))
    return replace(spec, overrides={**spec.overrides, PAD_VALUES[n - 1]: value})


def _line_buffer_width(spec, seen, choose, profile):
    """An unsplit pass 1..8 columns wider than the line buffer holds for its kernel height and stride."""
    if spec.split:
        return None
    (kw, kh), (sw, sh), (pl, _, pr, _) = spec.kernel, spec.stride, spec.pads
    out = max_out_width(kh, sh) + choose.integer(1, 8)
    width = (out - 1) * sw + kw - pl - pr
    return _reshaped(spec, profile, out_hw=(spec.out_hw[0], out), shape=(*spec.shape[:2], width))


def _recip_kernel(spec, seen, choose, profile):
    """One reciprocal of an integer average a little above 1/kernel (0.16 fixed point)."""
    if spec.method != "average" or spec.precision == "fp16":
        return None
    axis = choose.integer(0, 1)
    kernel = spec.kernel[axis]
    value = RECIP_ONE // kernel + choose.integer(1, 0x800)
    return replace(spec, overrides={**spec.overrides, RECIPS[axis]: value})


CHANGES = {
    "PDP-KERNEL-SIZE": _kernel_size,
    "PDP-PAD-LEFT-RIGHT": _pad_left_right,
    "PDP-PAD-TOP-BOTTOM": _pad_top_bottom,
    "PDP-WIDTH-STRIDE": _width_stride,
    "PDP-HEIGHT-STRIDE": _height_stride,
    "PDP-OUT-WIDTH": lambda s, seen, c, p: None if s.split else _override(
        PDP__D_DATA_CUBE_OUT_WIDTH__CUBE_OUT_WIDTH=lambda s: s.out_hw[1])(s, seen, c, p),
    "PDP-OUT-HEIGHT": _override(PDP__D_DATA_CUBE_OUT_HEIGHT__CUBE_OUT_HEIGHT=lambda s: s.out_hw[0]),
    "PDP-OUT-CHANNEL": _override(PDP__D_DATA_CUBE_OUT_CHANNEL__CUBE_OUT_CHANNEL=lambda s: s.shape[0]),
    "PDP-SPLIT-OFFLINE": _needs_split(_override(PDP__D_OPERATION_MODE_CFG__FLYING_MODE="ON_FLYING")),
    "PDP-SPLIT-OUT-SUM": _needs_split(_split_change(outs=(1, 0, 0))),
    "PDP-SPLIT-FIRST-IN": _needs_split(_split_change(ins=(1, 0, -1))),
    "PDP-SPLIT-MID-IN": _needs_split(_split_change(ins=(0, 1, "mids")), minimum=3),
    "PDP-SPLIT-LAST-IN": _needs_split(_split_change(ins=(-1, 0, 1))),
    "PDP-SPLIT-OVERLAP": _split_overlap,
    "PDP-SPLIT-IN-SUM": _needs_split(_split_change(ins=(1, 0, 0))),
    "PDP-RDMA-MIRROR": _override(PDP_RDMA__D_DATA_CUBE_IN_CHANNEL__CUBE_IN_CHANNEL=lambda s: s.shape[0]),
    "PDP-RDMA-OFFLINE": _override(PDP_RDMA__D_FLYING_MODE__FLYING_MODE="ON_FLYING"),
    "PDP-PAD-VALUE-SIGN": _pad_value_sign,
    "PDP-RECIP-KERNEL": _recip_kernel,
    "PDP-LINE-BUFFER-WIDTH": _line_buffer_width,
}

#: Rules that the breaker of a rule necessarily breaks too (the split widths depend on each other).
COMPANIONS = {
    "PDP-SPLIT-OUT-SUM": {"PDP-SPLIT-FIRST-IN"},
    "PDP-SPLIT-FIRST-IN": {"PDP-SPLIT-LAST-IN"},
    "PDP-SPLIT-MID-IN": {"PDP-SPLIT-LAST-IN"},
    "PDP-SPLIT-LAST-IN": {"PDP-SPLIT-FIRST-IN"},
    "PDP-SPLIT-IN-SUM": {"PDP-SPLIT-FIRST-IN"},
}


def _draw(breaker, choose, profile):
    """A legal spec (stimulus/pdp/layers.py), changed, then built."""
    spec = breaker.change(pdp.random_spec(choose, profile), None, choose, profile)
    return None if spec is None else pdp.build(spec, profile, choose.data())


BREAKERS = declare(CHANGES, _draw, companions=COMPANIONS)
