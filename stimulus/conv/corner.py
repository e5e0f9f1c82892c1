"""Corner-aimed convolutions for CACC's truncation (cacc.truncate: the accumulated sum rounded by CLIP_TRUNCATE
bits, saturated to 32): a direct integer layer with a 1x1 kernel and stride 1, so each output pixel's sums are
a dot product over the channels of one input pixel. Channel 0 of each pixel is the aimed element: every value
of the precision is put in its place, the sums of every kernel run through the golden deliver_int, observed,
and each pixel takes a value whose sums land on a class (a tie of either sign, one LSB beside it, zero when
the pixel's other channels are zeroed too), classes in turn. CLIP_TRUNCATE is small (1..8) so that ties exist
in sums of int8 products. The layer is completed and checked against every CONV and SDP rule by the
generator's own path (stimulus/conv/layers.py follow); a draw the rules reject is dropped."""

from __future__ import annotations

import numpy as np

from golden.config import Profile
from golden.errors import ConfigurationError
from golden.numerics import corners
from golden.units.conv import program
from golden.units.conv.cacc import deliver_int
from stimulus.conv import layers as conv
from stimulus.conv import modes as conv_modes
from stimulus.conv.corner_image import aim_image
from stimulus.corner_fill import fill, targets
from stimulus.data import INT_RANGES
from stimulus.layer import Layer

#: chance that a pixel is all zero (its sums are 0: the zero class)
ZERO = 0.1
#: share of the aimed convolutions that aim at the image convertor instead (aim_conv)
IMAGE = 0.5


def _pixels(rng, cube: np.ndarray, weights: np.ndarray, clip: int, precision: str) -> np.ndarray:
    lo, hi = INT_RANGES[precision]
    candidates = np.arange(lo, hi + 1, dtype=np.int64)
    w = weights[:, :, 0, 0].astype(np.int64)  # (K, C)
    flat = cube.reshape(cube.shape[0], -1).astype(np.int64)  # (C, P)
    rest = w[:, 1:] @ flat[1:]  # (K, P): what the other channels add
    chosen = np.empty(flat.shape[1], np.int64)
    for p in range(flat.shape[1]):  # one enumeration per output pixel (at most 36)
        sums = rest[:, p][None, :] + candidates[:, None] * w[None, :, 0]  # (values, K)
        with corners.observe(masks=True) as seen:
            deliver_int(sums.ravel(), clip)
        per_value = [np.unique(i // w.shape[0]) for i in targets(seen, sums.size)]
        chosen[p] = fill(rng, (1,), candidates, per_value)[0] if per_value else flat[0, p]
    return chosen


def aim_conv(layer: Layer, profile: Profile, choose, slot: int = 0) -> Layer:
    """A convolution aimed at CDMA's image convertor (stimulus/conv/corner_image.py) in IMAGE of the layers, at CACC's
    truncation in the others. A deconvolution's phase stays as drawn: its phases and the Rubik contract after
    them are one sequence (stimulus/deconv/layers.py), which an unrelated aimed layer in its place would break."""
    if layer.choices.get("mode") == "deconv":
        return layer
    return (aim_image if choose.flag(IMAGE) else aim_cacc)(layer, profile, choose, slot)


def aim_cacc(layer: Layer, profile: Profile, choose, slot: int = 0) -> Layer:
    precision = choose.choice(sorted(set(profile.feature_types) & set(profile.weight_types) & set(INT_RANGES)))
    rng = choose.data()
    channels = choose.size(1, 2 * profile.mac_atomic_c)
    kernels = choose.size(1, 2 * profile.mac_atomic_k)
    height, width = choose.size(1, 6), choose.size(1, 6)
    clip = choose.integer(1, 8)
    cube = conv_modes.values(rng, precision, (channels, height, width)).astype(np.int64)
    weights = conv_modes.values(rng, precision, (kernels, channels, 1, 1))
    cube[0] = _pixels(rng, cube, weights, clip, precision).reshape(height, width)
    zero = rng.random((height, width)) < ZERO
    cube[:, zero] = 0
    spec = program.DirectLayer(precision=precision, clip_truncate=clip, out_hw=(height, width))
    try:
        ctx = program.direct_layer(profile, cube.astype(np.int8 if precision == "int8" else np.int16), weights, spec,
                                   conv_modes.memory_system(profile))
        drawn = conv_modes.ConvDraw(ctx, precision, 1, False, {"mode": "direct", "precision": precision,
                                                               "kernel": (1, 1), "corners": "aimed"})
        aimed = conv.complete(conv.conv_layer(choose, profile, slot, drawn, False, False), profile)
        conv.follow(aimed, conv.Chain(), profile)
    except ConfigurationError:
        return layer
    aimed.choices = dict(aimed.choices, corners="aimed")
    return aimed
