"""Illegal layers: for each rule of the registry (golden/rules.py), a legal layer changed to break that rule.

A breaker takes a legal spec and returns one that breaks its rule, or None when this spec cannot be
changed that way (the caller draws another legal spec). `illegal_layer` keeps only a result whose broken
rules, as the registry's own predicates see them, are the rule plus its declared companions: rules that
depend on each other cannot be broken alone (with the sums of the PDP split widths fixed, a first, mid or
last width cannot be wrong on its own), and COMPANIONS says which others go with it.
"""

from __future__ import annotations

from dataclasses import replace

from golden import rules
from golden.config import Profile
from golden.errors import NvdlaVerifError
from golden.regs.regmap import RegisterMap
from golden.units.pdp.config import decode as pdp_decode
from golden.units.pdp.config import pooled_size
from stimulus import pdp
from stimulus.layer import Layer


class NoIllegalLayer(NvdlaVerifError):
    """No legal layer drawn could be changed to break the rule (alone, or with its declared companions)."""


def _reshaped(spec: pdp.PdpSpec, atom: int, **changes) -> pdp.PdpSpec:
    """The spec with new sizes and packed strides that fit them."""
    spec = replace(spec, **changes)
    channels, height, width = spec.shape
    oh, ow = spec.out_hw
    return replace(spec, src=(spec.src[0], width * atom, width * height * atom),
                   dst=(spec.dst[0], ow * atom, ow * oh * atom))


def _kernel_size(spec, choose, atom):
    if spec.split:
        return None
    kw = choose.integer(9, 16)
    _, pt, _, pb = spec.pads
    ow, sw = spec.out_hw[1], spec.stride[0]
    width = (ow - 1) * sw + kw
    return _reshaped(spec, atom, kernel=(kw, spec.kernel[1]), pads=(0, pt, 0, pb),
                     shape=(spec.shape[0], spec.shape[1], width))


def _pad_left_right(spec, choose, atom):
    kw, sw = spec.kernel[0], spec.stride[0]
    if spec.split or kw > 7:
        return None
    (oh, ow), (_, pt, _, pb) = spec.out_hw, spec.pads
    return _reshaped(spec, atom, pads=(kw, pt, 0, pb), out_hw=(oh, ow + 1),
                     shape=(spec.shape[0], spec.shape[1], ow * sw))


def _pad_top_bottom(spec, choose, atom):
    kh, sh = spec.kernel[1], spec.stride[1]
    if kh > 7:
        return None
    (oh, ow), (pl, _, pr, _) = spec.out_hw, spec.pads
    return _reshaped(spec, atom, pads=(pl, kh, pr, 0), out_hw=(oh + 1, ow),
                     shape=(spec.shape[0], oh * sh, spec.shape[2]))


def _width_stride(spec, choose, atom):
    (kw, _), (sw, _), (pl, _, pr, _) = spec.kernel, spec.stride, spec.pads
    if spec.split or sw < 2:
        return None
    width = spec.shape[2] + 1
    return _reshaped(spec, atom, shape=(spec.shape[0], spec.shape[1], width),
                     out_hw=(spec.out_hw[0], pooled_size(width, pl, pr, kw, sw)))


def _height_stride(spec, choose, atom):
    (_, kh), (_, sh), (_, pt, _, pb) = spec.kernel, spec.stride, spec.pads
    if sh < 2:
        return None
    height = spec.shape[1] + 1
    return _reshaped(spec, atom, shape=(spec.shape[0], height, spec.shape[2]),
                     out_hw=(pooled_size(height, pt, pb, kh, sh), spec.out_hw[1]))


def _override(**fields):
    def breaker(spec, choose, atom):
        values = {key.replace("__", "."): value(spec) if callable(value) else value for key, value in fields.items()}
        return replace(spec, overrides={**spec.overrides, **values})
    return breaker


def _needs_split(breaker, minimum: int = 2):
    def wrapped(spec, choose, atom):
        return breaker(spec, choose, atom) if spec.split and spec.split[0] >= minimum else None
    return wrapped


def _split_change(ins: tuple = (0, 0, 0), outs: tuple = (0, 0, 0)):
    """Add to the split's (first, mid, last) input and output widths (None if a width would drop below 1)."""
    def breaker(spec, choose, atom):
        count, old_in, old_out = spec.split
        mids = count - 2
        delta_in = tuple(-mids if d == "mids" else d for d in ins)  # "mids": minus one per mid part
        new_in = tuple(w + d for w, d in zip(old_in, delta_in, strict=True))
        new_out = tuple(w + d for w, d in zip(old_out, outs, strict=True))
        if min(new_in + new_out) < 1:
            return None
        return replace(spec, split=(count, new_in, new_out))
    return breaker


def _split_overlap(spec, choose, atom):
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
    return _reshaped(spec, atom, pads=(left, pt, pr, pb), split=(count, ins, outs),
                     shape=(spec.shape[0], spec.shape[1], width), out_hw=(spec.out_hw[0], out))


BREAKERS = {
    "PDP-KERNEL-SIZE": _kernel_size,
    "PDP-PAD-LEFT-RIGHT": _pad_left_right,
    "PDP-PAD-TOP-BOTTOM": _pad_top_bottom,
    "PDP-WIDTH-STRIDE": _width_stride,
    "PDP-HEIGHT-STRIDE": _height_stride,
    "PDP-OUT-WIDTH": lambda s, c, a: None if s.split else _override(
        PDP__D_DATA_CUBE_OUT_WIDTH__CUBE_OUT_WIDTH=lambda s: s.out_hw[1])(s, c, a),
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
}

#: Rules that the breaker of a rule necessarily breaks too (the split widths depend on each other).
COMPANIONS = {
    "PDP-SPLIT-OUT-SUM": {"PDP-SPLIT-FIRST-IN"},
    "PDP-SPLIT-FIRST-IN": {"PDP-SPLIT-LAST-IN"},
    "PDP-SPLIT-MID-IN": {"PDP-SPLIT-LAST-IN"},
    "PDP-SPLIT-LAST-IN": {"PDP-SPLIT-FIRST-IN"},
    "PDP-SPLIT-IN-SUM": {"PDP-SPLIT-FIRST-IN"},
}


def broken_rules(layer: Layer, profile: Profile) -> set[str]:
    """The ids of the registry's rules the layer breaks (PDP layers)."""
    regs = layer.values(RegisterMap.for_profile(profile))
    return {r.id for r, _ in rules.violations("PDP", pdp_decode(regs), regs)}


def illegal_layer(rule_id: str, choose, profile: Profile, attempts: int = 400) -> Layer:
    """A layer breaking `rule_id` (and only its declared companions besides)."""
    if rule_id not in BREAKERS:
        raise NoIllegalLayer(f"no illegal generator for rule {rule_id}", where=rule_id)
    allowed = {rule_id} | COMPANIONS.get(rule_id, set())
    for _ in range(attempts):
        spec = BREAKERS[rule_id](pdp.random_spec(choose, profile), choose, profile.memory_atomic_size)
        if spec is None:
            continue
        layer = pdp.build(spec, profile, choose.data())
        broken = broken_rules(layer, profile)
        if rule_id in broken and broken <= allowed:
            layer.choices["illegal"] = rule_id
            return layer
    raise NoIllegalLayer(f"no legal layer of {attempts} could be changed to break {rule_id}", where=rule_id)
