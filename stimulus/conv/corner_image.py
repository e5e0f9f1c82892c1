"""Corner-aimed image-input convolutions for CDMA's convertor (cdma.cvt: (pixel - CVT_OFFSET) * CVT_SCALE rounded
half away from zero by CVT_TRUNCATE bits, saturated to 17 bits, then narrowed to the pipeline's precision:
precision-preservation "Convertor" (cc_cvt), in-memory-data-formats "Precision Conversion", Equation 1).

An image layer of an 8- or 16-bit unpacked integer pixel format is drawn as the convolution generator draws one
(stimulus/conv/modes.py image), with MEAN_FORMAT off and the convertor solved for one goal:

* "round": an odd scale below 2**7 and a truncation of 2..6 bits, CVT_OFFSET a pixel value from the middle of
  the range, so (x - offset) * scale takes every residue of the truncation on both sides of zero over the 256
  (or 65536) pixel values (an odd scale is invertible modulo a power of two): both ties, one LSB either side and
  zero;
* a bound b met exactly, the 17-bit result's (65535, -65536) or the pipeline precision's: a pixel value v, a
  truncation s, a distance d and a scale k with round(d * k >> s) = b, CVT_OFFSET = v - d (16 bits), v with
  pixel values on both sides, so that the neighbours of v pass the bound.

Then every pixel value is run through the golden convertor, observing per element, and each component of the
image takes a value that lands on a class of a stage, classes in turn (stimulus/corner_fill.py)."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from golden.config import Profile
from golden.errors import ConfigurationError
from golden.formats import pixel
from golden.numerics import corners
from golden.numerics.integer import shift_right_round
from golden.units.conv.config import decode
from golden.units.conv.image import convert
from stimulus.conv import layers as conv
from stimulus.conv import modes as conv_modes
from stimulus.corner_fill import fill, targets
from stimulus.layer import Layer

INT16 = (-(1 << 15), (1 << 15) - 1)
#: the convertor's 17-bit result (precision-preservation "Convertor"; cmod cdma_cvt)
CVT17 = ((1 << 16) - 1, -(1 << 16))
NARROW = {"int8": (127, -128), "int16": (INT16[1], INT16[0])}
#: goal -> share of the aimed layers
GOALS = {"round": 0.4, "cvt17": 0.4, "narrow": 0.2}
TRUNCATE = 6  # the largest truncation drawn (CVT_TRUNCATE is 6 bits; a bound needs little)


def formats(profile: Profile) -> list[str]:
    """The profile's pixel formats whose components enter the convertor as they are stored (not packed)."""
    return [name for name in conv_modes.image_formats(profile)
            if not pixel.pixel_format(name).floating and not pixel.pixel_format(name).packed]


def aim_image(layer: Layer, profile: Profile, choose, slot: int = 0) -> Layer:
    names = formats(profile)
    precisions = sorted(set(profile.feature_types) & set(NARROW))
    if not names or not precisions:
        return layer
    precision, name = choose.choice(precisions), choose.choice(names)
    goal = str(choose.rng.choice(list(GOALS), p=list(GOALS.values())))
    try:
        drawn = conv_modes.image(choose, profile, precision, name, aim=functools.partial(_aim, goal, precision))
        aimed = conv.complete(conv.conv_layer(choose, profile, slot, drawn, False, False), profile)
        conv.follow(aimed, conv.Chain(), profile)
    except ConfigurationError:
        return layer
    aimed.choices = dict(aimed.choices, corners="aimed", cvt_goal=goal)
    return aimed


def _aim(goal: str, precision: str, rng, fmt, spec, pixels, build):
    raw = np.arange(1 << fmt.component_bits, dtype=np.int64)
    values = pixel.pipeline_values(raw.reshape(1, 1, -1), fmt, sign_override=spec.sign_override).ravel()
    offset, scale, truncate = (_round(rng, values) if goal == "round" else
                               _bound(rng, values, int(rng.choice(CVT17 if goal == "cvt17" else NARROW[precision]))))
    spec = dataclasses.replace(spec, cvt_en=True, mean=None, cvt_offset=offset, cvt_scale=scale, cvt_truncate=truncate)
    cfg = decode(build(spec, pixels).regs)
    with corners.observe(masks=True) as seen:
        convert(raw.astype(fmt.dtype).reshape(1, 1, -1), cfg)
    hits = targets(seen, raw.size)
    if hits:
        pixels = fill(rng, pixels.shape, raw, hits).astype(fmt.dtype)
    return spec, build(spec, pixels)


def _round(rng, values: np.ndarray) -> tuple[int, int, int]:
    ordered = np.sort(values)
    quarter = ordered.size // 4
    offset = int(rng.choice(ordered[quarter:ordered.size - quarter]))
    scale = int(rng.integers(0, 1 << 6)) * 2 + 1
    return offset, scale if rng.random() < 0.5 else -scale, int(rng.integers(2, TRUNCATE + 1))


def _bound(rng, values: np.ndarray, bound: int) -> tuple[int, int, int]:
    """(offset, scale, truncate) with round((v - offset) * scale >> truncate) == bound for a pixel value v that
    has others on both sides."""
    ordered = np.sort(values)
    inner = ordered[1:-1] if ordered.size > 2 else ordered
    v = int(rng.choice(inner))
    for truncate in rng.permutation(TRUNCATE + 1):
        found = _solutions(bound, int(truncate), v)
        if found.size:
            d, k = found[int(rng.integers(0, len(found)))]
            return v - int(d), int(k), int(truncate)
    return v, 1, 0  # no solution: the layer stays legal, the goal is missed


@functools.cache
def _all_solutions(bound: int, truncate: int) -> np.ndarray:
    """Every (d, k) with k a 16-bit scale and round(d * k >> truncate) == bound, d = pixel - offset within what a
    16-bit pixel and a 16-bit offset give."""
    d = np.arange(-(1 << 17), 1 << 17, dtype=np.int64)
    d = d[d != 0]
    k = np.rint(bound * (1 << truncate) / d).astype(np.int64)
    ok = (k >= INT16[0]) & (k <= INT16[1]) & (shift_right_round(d * k, truncate) == bound)
    return np.stack([d[ok], k[ok]], axis=1)


def _solutions(bound: int, truncate: int, v: int) -> np.ndarray:
    found = _all_solutions(bound, truncate)
    offsets = v - found[:, 0]
    return found[(offsets >= INT16[0]) & (offsets <= INT16[1])]
