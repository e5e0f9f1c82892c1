"""Corner-aimed fp16 data (profiles with fp16): every one of the 65536 fp16 patterns is run through the golden
fp16 datapath of the unit as an elementwise function, observed; each aimed element takes a pattern that lands
on a class of a stage (fp16 in: denormal / INF / NaN / zero / max; the narrowing to fp16: a tie of each sign
and one LSB of the source format either side; fp16 out; SDP's fp16 -> int16 rounding and saturation).

* SDP (offline, operands from registers): the datapath is elementwise; sometimes the X1/X2 operands of the
  stages that run are redrawn (an ALU addend and a multiplier with low mantissa bits set, so that the fp32
  result keeps bits below fp16's LSB and ties come up).
* PDP: average pooling with windows that do not overlap (stride = kernel) and one live element per window,
  the others +0: the window's fp17 sum is the element itself, its output the element times RECIP_KERNEL_WIDTH
  then RECIP_KERNEL_HEIGHT (fp17, golden/units/pdp/pooling.py pool_fp16_average).
* CDP: one live channel per pixel, the others +0: the square sum is the live element's square (the cmod's
  order adds the zeros first), its output an elementwise function of it (golden/units/cdp/lrn.py lrn_fp16).

`with_fp16(integer_aimer, fp16_aimer)` tries the fp16 aimer first; it returns None for a layer it does not aim
(drawing nothing then, so the integer aiming of profiles without fp16 stays what it was).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from golden.config import Profile
from golden.formats.feature import pack_feature
from golden.numerics import corners
from golden.regs.regmap import RegisterMap
from golden.units.cdp.config import decode as cdp_decode
from golden.units.cdp.lrn import lrn_fp16
from golden.units.lut import LutRam
from golden.units.pdp.config import decode as pdp_decode
from golden.units.pdp.pooling import pool_fp16_average
from golden.units.sdp import datapath
from golden.units.sdp.config import decode as sdp_decode
from stimulus.corner_fill import fill, legal, targets
from stimulus.layer import Image, Layer
from stimulus.pdp import layers as pdp
from stimulus.pdp.corner import average_spec

PATTERNS = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
#: chance that an aimed SDP layer's X operands are redrawn
REDRAW = 0.5
#: chance that a PDP draw on a profile with fp16 is an fp16 one
PDP_FP16 = 0.5


def with_fp16(integer, fp16):
    def aim(layer: Layer, profile: Profile, choose, slot: int = 0) -> Layer:
        aimed = fp16(layer, profile, choose, slot)
        return integer(layer, profile, choose, slot) if aimed is None else aimed
    return aim


def _tables(layer: Layer, unit: str):
    ram = LutRam(unit)
    for name, register, value in layer.writes:
        if name == unit:
            ram.write(register, value)
    return ram.tables


def _hits(run) -> list[np.ndarray]:
    with corners.observe(masks=True) as seen:
        run(PATTERNS)
    return targets(seen, PATTERNS.size)


def _replace_src(layer: Layer, cube: np.ndarray, line: int, surface: int, atom: int) -> Layer:
    images = []
    for image in layer.images:
        if image.label == "src":
            buf = np.frombuffer(image.data, np.uint8).copy()
            pack_feature(cube.astype(np.uint16), "fp16", line, surface, atom, buf=buf)
            image = Image(image.memory, image.base, buf.tobytes(), image.label)
        images.append(image)
    return replace(layer, images=images, choices=dict(layer.choices, corners="aimed"))


# ---- SDP -----------------------------------------------------------------------------------------------------

def _operand(choose, multiplier: bool) -> int:
    """An fp16 operand pattern: an addend in [-8, 8), or a multiplier in [0.5, 2) of either sign, with its low
    mantissa bits set (odd mantissa)."""
    exponent = choose.integer(14, 15) if multiplier else choose.integer(10, 17)
    return (choose.integer(0, 1) << 15) | (exponent << 10) | (choose.integer(0, 511) << 1) | 1


def aim_sdp_fp16(layer: Layer, profile: Profile, choose, slot: int = 0) -> Layer | None:
    regmap = RegisterMap.for_profile(profile)
    cfg = sdp_decode(layer.values(regmap))
    if cfg.in_precision != "fp16" or cfg.proc_precision != "fp16":
        return None
    stages = [s for s in (cfg.x1, cfg.x2) if not s.bypass]
    if cfg.flying or cfg.y.eql or any("MEM" in (s.alu_src, s.mul_src) for s in stages) or (
            not cfg.y.bypass and "MEM" in (cfg.y.alu_src, cfg.y.mul_src)):
        return layer
    rng = choose.data()
    if choose.flag(REDRAW):
        fields = dict(layer.fields)
        identity = choose.flag(0.3)  # +0 and 1.0: the input reaches the output narrowing as it is
        for stage, name in ((cfg.x1, "BS"), (cfg.x2, "BN")):
            if not stage.bypass:
                fields[f"SDP.D_DP_{name}_ALU_SRC_VALUE.{name}_ALU_OPERAND"] = 0 if identity else _operand(choose, 0)
                fields[f"SDP.D_DP_{name}_MUL_SRC_VALUE.{name}_MUL_OPERAND"] = 0x3C00 if identity else _operand(choose,
                                                                                                               1)
        if not (cfg.y.bypass or cfg.y.mul_bypass or identity):  # an fp32 multiplier: 24 significant bits
            fields["SDP.D_DP_EW_MUL_SRC_VALUE.EW_MUL_OPERAND"] = (0x3F000000 | (choose.integer(0, 1 << 23) | 1)
                                                                  | (choose.integer(0, 1) << 31))
        aimed = replace(layer, fields=fields)
        regs = aimed.values(regmap)
        if legal("SDP", sdp_decode(regs), regs, profile):
            layer, cfg = aimed, sdp_decode(regs)
    tables = _tables(layer, "SDP")

    def run(bits):
        x = datapath.fp16_operand(bits, cfg.nan_to_zero)
        for stage in (cfg.x1, cfg.x2):
            x = datapath.fp_x(x, stage, None, None, cfg.nan_to_zero)
        x, _ = datapath.fp_y(x, cfg.y, None, None, cfg.nan_to_zero, cfg.lut, tables)
        datapath.fp_output(x, cfg.out_precision)

    hits = _hits(run)
    if not hits:
        return layer
    shape = (cfg.channel, cfg.height, cfg.width)
    cube = fill(rng, shape, PATTERNS.astype(np.int64), hits)
    return _replace_src(layer, cube, cfg.src.line_stride, cfg.src.surface_stride, profile.memory_atomic_size)


# ---- PDP -----------------------------------------------------------------------------------------------------

def _recip(choose, kernel: int) -> int:
    """1/kernel as an fp17 pattern (1 sign, 6 exponent bits bias 31, 10 mantissa bits), its last mantissa bits
    sometimes moved so that products keep bits below fp16's LSB."""
    exact = int(pdp.programmed_recip("fp16", kernel))
    return exact if choose.flag(0.3) else (exact & ~0x3FF) | choose.integer(0, 1023) | 1


def aim_pdp_fp16(layer: Layer, profile: Profile, choose, slot: int = 0) -> Layer | None:
    if "fp16" not in profile.feature_types or not choose.flag(PDP_FP16):
        return None
    spec = average_spec(choose, profile, "fp16", slot)
    rng = choose.data()
    (kw, kh), (oh, ow) = spec.kernel, spec.out_hw
    recip = (_recip(choose, kw), _recip(choose, kh))
    hits = _hits(lambda bits: pool_fp16_average(bits.reshape(1, 1, -1), (1, 1), (1, 1), (0, 0, 0, 0), recip))
    channels, height, width = spec.shape
    (pl, pt, _, _) = spec.pads
    # each window's live element: a real one (its row and column inside the input)
    ys = np.clip(np.arange(oh) * kh - pt + rng.integers(0, kh, oh), 0, height - 1)
    xs = np.clip(np.arange(ow) * kw - pl + rng.integers(0, kw, ow), 0, width - 1)
    cube = np.zeros(spec.shape, np.int64)
    cube[:, ys[:, None], xs[None, :]] = fill(rng, (channels, oh, ow), PATTERNS.astype(np.int64), hits)
    aimed = pdp.build(spec, profile, rng, cube=cube.astype(np.uint16))
    aimed.fields["PDP.D_RECIP_KERNEL_WIDTH.RECIP_KERNEL_WIDTH"] = recip[0]
    aimed.fields["PDP.D_RECIP_KERNEL_HEIGHT.RECIP_KERNEL_HEIGHT"] = recip[1]
    regs = aimed.values(RegisterMap.for_profile(profile))
    if not legal("PDP", pdp_decode(regs), regs, profile):
        return layer
    return replace(aimed, choices=dict(aimed.choices, corners="aimed"))


# ---- CDP -----------------------------------------------------------------------------------------------------

def aim_cdp_fp16(layer: Layer, profile: Profile, choose, slot: int = 0) -> Layer | None:
    regmap = RegisterMap.for_profile(profile)
    cfg = cdp_decode(layer.values(regmap))
    if cfg.precision != "fp16":
        return None
    rng = choose.data()
    tables = _tables(layer, "CDP")
    hits = _hits(lambda bits: lrn_fp16(bits.reshape(1, 1, -1), 1, cfg, tables))
    if not hits:
        return layer
    channels, height, width = cfg.shape
    cube = np.zeros(cfg.shape, np.int64)
    live = rng.integers(0, channels, (height, width))
    cube[live, np.arange(height)[:, None], np.arange(width)[None, :]] = fill(rng, (height, width),
                                                                              PATTERNS.astype(np.int64), hits)
    _, line, surface, _ = cfg.src
    return _replace_src(layer, cube, line, surface, profile.memory_atomic_size)
