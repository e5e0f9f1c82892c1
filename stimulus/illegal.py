"""Illegal layers: for each rule of the registry (golden/rules.py), a legal layer changed to break that rule.

A breaker takes a legal spec and returns one that breaks its rule, or None when this spec cannot be
changed that way (the caller draws another legal spec). `illegal_layer` keeps only a result whose broken
rules, as the registry's own predicates see them, are the rule plus its declared companions: rules that
depend on each other cannot be broken alone (with the sums of the PDP split widths fixed, a first, mid or
last width cannot be wrong on its own), and COMPANIONS says which others go with it.
"""

from __future__ import annotations

from dataclasses import replace
from dataclasses import replace as replace_layer

import golden.units
from golden import rules
from golden.config import Profile
from golden.errors import NvdlaVerifError
from golden.memory import MemorySystem
from golden.player import Player
from golden.regs.regmap import RegisterMap
from golden.trace import load_trace
from golden.units import pdp as golden_pdp
from golden.units import sdp as golden_sdp
from golden.units.base import LayerContext
from golden.units.conv.cbuf import left_by
from golden.units.conv.config import decode as conv_decode
from golden.units.pdp.config import decode as pdp_decode
from golden.units.pdp.config import pooled_size
from golden.units.pdp.config import validate as pdp_validate
from golden.units.pdp.rules import PAD_VALUE_BITS, PAD_VALUE_FIELD_BITS, PAD_VALUES, RECIP_ONE, RECIPS, max_out_width
from golden.units.sdp import checks as sdp_checks
from golden.units.sdp.config import decode as sdp_decode
from stimulus import illegal_cdp, illegal_conv, illegal_dma, illegal_rubik, illegal_sdp, illegal_sequence, pdp, sdp
from stimulus.bdma import bdma_group, bdma_operations
from stimulus.export import write_unchecked
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


def _pad_value_sign(spec, choose, atom):
    """One PAD_VALUE_nX written with bit 18 flipped: the cmod's low bits unchanged, the RTL's value not."""
    if spec.method != "average" or spec.precision not in PAD_VALUE_BITS:
        return None
    n = choose.integer(1, 7)
    if PAD_VALUE_BITS[spec.precision][n - 1] >= PAD_VALUE_FIELD_BITS:
        return None
    value = ((n * spec.pad_value) & ((1 << PAD_VALUE_FIELD_BITS) - 1)) ^ (1 << (PAD_VALUE_FIELD_BITS - 1))
    return replace(spec, overrides={**spec.overrides, PAD_VALUES[n - 1]: value})


def _line_buffer_width(spec, choose, atom):
    """An unsplit pass 1..8 columns wider than the line buffer holds for its kernel height and stride."""
    if spec.split:
        return None
    (kw, kh), (sw, sh), (pl, _, pr, _) = spec.kernel, spec.stride, spec.pads
    out = max_out_width(kh, sh) + choose.integer(1, 8)
    width = (out - 1) * sw + kw - pl - pr
    return _reshaped(spec, atom, out_hw=(spec.out_hw[0], out), shape=(*spec.shape[:2], width))


def _recip_kernel(spec, choose, atom):
    """One reciprocal of an integer average a little above 1/kernel (0.16 fixed point)."""
    if spec.method != "average" or spec.precision == "fp16":
        return None
    axis = choose.integer(0, 1)
    kernel = spec.kernel[axis]
    value = RECIP_ONE // kernel + choose.integer(1, 0x800)
    return replace(spec, overrides={**spec.overrides, RECIPS[axis]: value})


PDP_BREAKERS = {
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
    "PDP-PAD-VALUE-SIGN": _pad_value_sign,
    "PDP-RECIP-KERNEL": _recip_kernel,
    "PDP-LINE-BUFFER-WIDTH": _line_buffer_width,
}

#: Rules that the breaker of a rule necessarily breaks too (the split widths depend on each other).
PDP_COMPANIONS = {
    "PDP-SPLIT-OUT-SUM": {"PDP-SPLIT-FIRST-IN"},
    "PDP-SPLIT-FIRST-IN": {"PDP-SPLIT-LAST-IN"},
    "PDP-SPLIT-MID-IN": {"PDP-SPLIT-LAST-IN"},
    "PDP-SPLIT-LAST-IN": {"PDP-SPLIT-FIRST-IN"},
    "PDP-SPLIT-IN-SUM": {"PDP-SPLIT-FIRST-IN"},
}


BREAKERS = {**PDP_BREAKERS, **illegal_sdp.BREAKERS, **illegal_cdp.BREAKERS, **illegal_conv.BREAKERS,
            **illegal_dma.FEATURE_BREAKERS, **illegal_dma.BDMA_BREAKERS, **illegal_rubik.BREAKERS,
            **illegal_sequence.BREAKERS}
COMPANIONS = {**PDP_COMPANIONS, **illegal_sdp.COMPANIONS, **illegal_conv.COMPANIONS}


def _decode(unit: str, regs, profile: Profile):
    """What the unit's rules judge (its declaration's decode)."""
    return golden.units.unit(unit).decode(regs, profile)


def broken_rules(layer: Layer, profile: Profile, unit: str) -> set[str]:
    """The ids of the registry's rules of `unit` the layer breaks (advisory ones included)."""
    regmap = RegisterMap.for_profile(profile)
    if unit == "BDMA":  # every operation the layer caches
        return {r.id for r, _ in rules.violations(unit, bdma_group(layer, regmap),
                                                   rules.Facts(profile=profile))}
    regs = layer.values(regmap)
    decoded = _decode(unit, regs, profile)
    left = None
    if unit == "CONV" and layer.follows:
        left = left_by(conv_decode(earlier.values(regmap)) for earlier in layer.follows if "CDMA" in earlier.enable)
    return {r.id for r, _ in rules.violations(unit, decoded, rules.Facts(regs, profile, left))}


def sequence(layer: Layer) -> list[Layer]:
    """The layers a trace of `layer` holds: those it follows, then itself."""
    return [*layer.follows, layer]


def _dma_candidate(rule_id: str, choose, profile: Profile) -> Layer | None:
    """A legal layer of the rule's family with one DMA value changed (golden/units/dma_rules.py's rules)."""
    from stimulus.families import GENERATORS  # the families import every generator; illegal is one of its users

    unit = rules.REGISTRY[rule_id].unit
    legal = GENERATORS[illegal_dma.FAMILIES[unit]](choose, profile, 0)
    regmap = RegisterMap.for_profile(profile)
    if unit == "BDMA":
        writes = illegal_dma.BDMA_BREAKERS[rule_id](list(legal.writes), bdma_operations(
            legal.writes, regmap), choose, regmap)
        return None if writes is None else replace_layer(legal, writes=writes, choices=dict(legal.choices))
    dma, breaker = illegal_dma.FEATURE_BREAKERS[rule_id]
    regs = legal.values(regmap)
    surface = dma.surface(_decode(unit, regs, profile), rules.Facts(regs, profile))
    if surface is None:
        return None
    fields = breaker(dict(legal.fields), surface, choose, profile.memory_atomic_size)
    return None if fields is None else replace_layer(legal, fields=fields, choices=dict(legal.choices))


def _pdp_candidate(rule_id: str, choose, profile: Profile) -> Layer | None:
    spec = PDP_BREAKERS[rule_id](pdp.random_spec(choose, profile), choose, profile.memory_atomic_size)
    return None if spec is None else pdp.build(spec, profile, choose.data())


def _sdp_candidate(rule_id: str, choose, profile: Profile) -> Layer | None:
    from stimulus import sdp_lut

    # the LUT's rules (and EQL's "no LUT") need a layer whose Y stage may read a legal LUT
    lut = sdp_lut.random_lut(choose, profile) if rule_id in (*illegal_sdp.LUT_RULES, "SDP-EQL-LUT") else None
    legal = sdp.random_layer(choose, profile, lut=lut)
    fields = illegal_sdp.BREAKERS[rule_id](dict(legal.fields), choose, profile)
    if fields is None:
        return None
    layer = replace_layer(legal, fields=fields, choices=dict(legal.choices))
    try:  # a change that needs a feature the profile lacks is a profile error, not this rule
        sdp_checks.check_profile(sdp_decode(layer.values(RegisterMap.for_profile(profile))), profile)
    except NvdlaVerifError:
        return None
    return layer


def _cdp_candidate(rule_id: str, choose, profile: Profile) -> Layer | None:
    from stimulus.families import GENERATORS

    legal = GENERATORS["cdp"](choose, profile, 0)
    fields = illegal_cdp.BREAKERS[rule_id](dict(legal.fields), choose, profile)
    return None if fields is None else replace_layer(legal, fields=fields, choices=dict(legal.choices))


def _rubik_candidate(rule_id: str, choose, profile: Profile) -> Layer | None:
    from stimulus.families import GENERATORS

    legal = GENERATORS["rubik"](choose, profile, 0)
    decoded = _decode("RUBIK", legal.values(RegisterMap.for_profile(profile)), profile)
    fields = illegal_rubik.BREAKERS[rule_id](dict(legal.fields), decoded, choose)
    return None if fields is None else replace_layer(legal, fields=fields, choices=dict(legal.choices))


def _conv_candidate(rule_id: str, choose, profile: Profile) -> Layer | None:
    from stimulus.families import GENERATORS

    legal = GENERATORS["conv"](choose, profile, 0)
    cfg = conv_decode(legal.values(RegisterMap.for_profile(profile)))
    fields = illegal_conv.BREAKERS[rule_id](dict(legal.fields), cfg, choose, profile)
    if fields is None:
        return None
    # a breaker that pools SDP's output on the fly launches PDP too, and the layer ends on its interrupt
    pooled = fields.get("SDP.D_FEATURE_MODE_CFG.OUTPUT_DST") == "PDP" and "PDP" not in legal.enable
    launch = {"enable": ("PDP", *legal.enable), "interrupt": "PDP"} if pooled else {}
    return replace_layer(legal, fields=fields, choices=dict(legal.choices), **launch)


def _sequence_candidate(rule_id: str, choose, profile: Profile) -> Layer | None:
    """Two back-to-back legal convolution layers, changed so that the second breaks the rule (the first
    stays legal and runs before it: Layer.follows)."""
    from stimulus import conv

    shared = conv.shared(choose, profile)  # the chain, and SDP operands in both layers or in neither
    pair = [conv.random_layer(choose, profile, slot, **shared) for slot in range(2)]
    regmap = RegisterMap.for_profile(profile)
    cfgs = [conv_decode(layer.values(regmap)) for layer in pair]
    changed = illegal_sequence.BREAKERS[rule_id](dict(pair[0].fields), dict(pair[1].fields), *cfgs, choose, profile)
    if changed is None:
        return None
    first = replace_layer(pair[0], fields=changed[0], choices=dict(pair[0].choices))
    if broken_rules(first, profile, "CONV"):
        return None
    return replace_layer(pair[1], fields=changed[1], choices=dict(pair[1].choices), follows=[first])


def reachable(rule_id: str, profile: Profile) -> bool:
    """Whether the profile has what the rule's illegal generator needs (e.g. fp16 for an fp16 rule)."""
    unit = rules.REGISTRY[rule_id].unit
    if unit in ("PDP", "CDP", "BDMA", "RUBIK") and not profile.has(unit):  # SDP and CONV: every profile
        return False
    if rule_id in illegal_dma.FEATURE_BREAKERS or rule_id in illegal_dma.BDMA_BREAKERS:
        return illegal_dma.requires(rule_id, profile)
    if unit == "CONV" or rule_id in illegal_conv.BREAKERS:  # an SDP rule may need a convolution layer
        return illegal_conv.requires(rule_id, profile)
    return illegal_sdp.REQUIRES.get(rule_id, lambda profile: True)(profile)


def illegal_layer(rule_id: str, choose, profile: Profile, attempts: int = 400) -> Layer:
    """A layer breaking `rule_id` (and only its declared companions besides)."""
    if rule_id not in BREAKERS:
        raise NoIllegalLayer(f"no illegal generator for rule {rule_id}", where=rule_id)
    if not reachable(rule_id, profile):
        raise NoIllegalLayer(f"profile {profile.name} lacks what breaking {rule_id} needs", where=rule_id)
    unit = rules.REGISTRY[rule_id].unit
    allowed = {rule_id} | COMPANIONS.get(rule_id, set())
    if rule_id in illegal_dma.FEATURE_BREAKERS or rule_id in illegal_dma.BDMA_BREAKERS:
        candidate = _dma_candidate
    elif rule_id in illegal_sequence.BREAKERS:
        candidate = _sequence_candidate
    elif rule_id in illegal_conv.BREAKERS:
        candidate = _conv_candidate
    else:
        candidate = {"PDP": _pdp_candidate, "CDP": _cdp_candidate, "CONV": _conv_candidate,
                     "RUBIK": _rubik_candidate}.get(unit, _sdp_candidate)
    for _ in range(attempts):
        layer = candidate(rule_id, choose, profile)
        if layer is None:
            continue
        broken = broken_rules(layer, profile, unit)
        if rule_id in broken and broken <= allowed:
            layer.choices["illegal"] = rule_id
            return layer
    raise NoIllegalLayer(f"no legal layer of {attempts} on {profile.name} could be changed to break {rule_id}",
                         where=rule_id)


def run_on_golden(layer: Layer, profile: Profile, folder, name: str) -> None:
    """Run a layer on the golden model, raising what it raises: as a trace when it can launch on its own,
    else the unit itself (on-the-fly layers wait for a producer; an advisory rule is checked strictly)."""
    regs = layer.values(RegisterMap.for_profile(profile))
    rule_id = layer.choices.get("illegal")
    if rule_id and rules.REGISTRY[rule_id].advisory:
        if rules.REGISTRY[rule_id].unit == "PDP":
            pdp_validate(pdp_decode(regs), regs, profile, strict=True)
        else:
            sdp_checks.validate(sdp_decode(regs), profile, strict=True)
        return
    if layer.family == "pdp" and layer.fields.get("PDP.D_OPERATION_MODE_CFG.FLYING_MODE") == "ON_FLYING":
        golden_pdp.run(LayerContext(profile, regs, MemorySystem.for_profile(profile)))
        return
    if layer.family == "sdp" and (layer.fields.get("SDP.D_FEATURE_MODE_CFG.FLYING_MODE") == "ON"
                                  or profile.layout != "master"):
        memory = MemorySystem.for_profile(profile)
        for image in layer.images:
            memory.by_name(image.memory).write(image.base, image.data)
        golden_sdp.run(LayerContext(profile, regs, memory))
        return
    Player(load_trace(write_unchecked(sequence(layer), folder / name, name, profile)), profile).run()
