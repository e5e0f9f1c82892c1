"""Corner-aimed CDP layers (integer): one channel per pixel differs from DATIN_OFFSET, every other one enters
the datapath as 0 after the input convertor, so the square sum at that channel is its own square and its
output an elementwise function of its value (golden/units/cdp/lrn.py: channels outside add nothing). Every
value of the precision is run through the golden lrn_int as a one-channel cube, observed; each pixel's chosen
channel takes a value that lands on a class of a stage (input convertor, LUT, output convertor), classes in
turn. Most layers' convertor registers are redrawn so that ties exist (shifters >= 1, odd scales); the LUT
is the trace's."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from golden.config import Profile
from golden.formats.feature import pack_feature
from golden.numerics import corners
from golden.numerics.integer import as_signed
from golden.regs.regmap import RegisterMap
from golden.units.cdp.config import decode as cdp_decode
from golden.units.cdp.lrn import INT_WIDTHS, lrn_int
from golden.units.lut import LutRam
from stimulus.corner_fill import fill, legal, targets
from stimulus.data import INT_RANGES
from stimulus.layer import Image, Layer

#: chance that the convertors' registers are redrawn for ties
REDRAW = 0.6


def _tables(layer: Layer):
    ram = LutRam("CDP")
    for unit, register, value in layer.writes:
        if unit == "CDP":
            ram.write(register, value)
    return ram.tables


def _signed16(value: int) -> int:
    return value & 0xFFFF


def aim_cdp(layer: Layer, profile: Profile, choose) -> Layer:
    regmap = RegisterMap.for_profile(profile)
    cfg = cdp_decode(layer.values(regmap))
    if cfg.precision not in INT_RANGES:
        return layer
    rng = choose.data()
    bits = 8 if cfg.precision == "int8" else 16
    scale = choose.integer(1, 1 << 10) | 1
    redrawn = {
        "CDP.D_DATIN_SCALE.DATIN_SCALE": _signed16(scale if choose.flag() else -scale),
        "CDP.D_DATIN_SHIFTER.DATIN_SHIFTER": choose.integer(1, 12),
        "CDP.D_DATOUT_SCALE.DATOUT_SCALE": _signed16(choose.integer(1, 1 << 12) | 1),
        "CDP.D_DATOUT_SHIFTER.DATOUT_SHIFTER": choose.integer(1, 24),
        "CDP.D_DATOUT_OFFSET.DATOUT_OFFSET": choose.integer(-(1 << 12), 1 << 12) & 0xFFFFFFFF}
    if choose.flag(REDRAW):  # else the drawn convertors: wider ranges, so the saturation bounds come up
        layer = replace(layer, fields=dict(layer.fields, **redrawn))
    regs = layer.values(regmap)
    cfg = cdp_decode(regs)
    if not legal("CDP", cfg, regs, profile):
        return layer
    lo, hi = INT_RANGES[cfg.precision]
    candidates = np.arange(lo, hi + 1, dtype=np.int64)
    with corners.observe(masks=True) as seen:
        lrn_int(candidates.reshape(1, 1, -1), 1, cfg, _tables(layer))
    hits = targets(seen, candidates.size)
    if not hits:
        return layer
    channels, height, width = cfg.shape
    quiet = as_signed(cfg.datin[0], INT_WIDTHS[cfg.precision]["offset"])  # 0 after the input convertor
    cube = np.full(cfg.shape, quiet, np.int64)
    chosen = rng.integers(0, channels, (height, width))
    cube[chosen, np.arange(height)[:, None], np.arange(width)[None, :]] = fill(rng, (height, width), candidates,
                                                                                 hits)
    base, line, surface, _ = cfg.src
    atom = profile.memory_atomic_size
    images = []
    for image in layer.images:
        if image.label == "src":
            buf = np.frombuffer(image.data, np.uint8).copy()
            pack_feature(cube.astype(np.int8 if bits == 8 else np.int16), cfg.precision, line, surface, atom, buf=buf)
            image = Image(image.memory, image.base, buf.tobytes(), image.label)
        images.append(image)
    return replace(layer, images=images, choices=dict(layer.choices, corners="aimed"))
