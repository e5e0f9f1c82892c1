"""Corner-aimed data: a drawn layer whose input data is rebuilt so that the values at its rounding and
saturating stages land on the corner classes of golden.numerics.corners (exact ties of each sign, one LSB
either side, saturation bounds, zero) on purpose, not by chance.

    aimed_layers(family, profile, seed, index, count) -> the layers of stimulus.families.layers, aimed

A separate, explicit draw: stimulus.families.layers and the default bytes of every seed are unchanged; the
aimed layers take their extra random numbers from a stream of their own ([seed, index, "corners"]).

SDP (integer, operands from registers, no LUT): the output convertor's registers are redrawn so that ties exist
(CVT_SHIFT 1..10, an odd CVT_SCALE), then every input value of the precision (256 for int8, 65536 for int16) is
run through the golden X1, X2 and output convertor, observing per element; each element of the cube takes a
value that lands on a corner class of a stage, classes in turn. Other families are returned unchanged (left).
"""

from __future__ import annotations

import dataclasses
import zlib

import numpy as np

from golden.config import Profile
from golden.formats.feature import pack_feature, unpack_feature
from golden.numerics import corners
from golden.regs.regmap import RegisterMap
from golden.units.sdp import datapath
from golden.units.sdp.config import decode as sdp_decode
from stimulus.families import layers as draw
from stimulus.layer import Image, Layer

RANGES = {"int8": (-128, 127), "int16": (-32768, 32767)}


def aimed_layers(family: str, profile: Profile, seed: int, index: int, count: int = 1) -> list[Layer]:
    rng = np.random.default_rng([seed, index, zlib.crc32(b"corners")])
    return [AIMERS.get(layer.family, _unchanged)(layer, profile, rng) for layer in draw(family, profile, seed, index,
                                                                                        count)]


def _unchanged(layer, profile, rng):
    return layer


def targets(seen: corners.Corners) -> list[np.ndarray]:
    """Per (stage, class) met by some candidate: the candidates' indices, in a fixed order."""
    return [np.flatnonzero(mask) for stage in sorted(seen.masks) for _, mask in sorted(seen.masks[stage].items())
            if np.any(mask) and np.ndim(mask) == 1]


def fill(rng, shape, candidates: np.ndarray, hits: list[np.ndarray]) -> np.ndarray:
    """A cube of `shape` whose elements take, in turn over the targets, a candidate of each target."""
    size = int(np.prod(shape))
    which = rng.integers(0, len(hits), size)
    out = np.empty(size, np.int64)
    for t, indices in enumerate(hits):
        chosen = which == t
        out[chosen] = candidates[rng.choice(indices, int(np.count_nonzero(chosen)))]
    return out.reshape(shape)


def _aim_sdp(layer: Layer, profile: Profile, rng) -> Layer:
    regmap = RegisterMap.for_profile(profile)
    cfg = sdp_decode(layer.values(regmap))
    memory_operands = any(getattr(s, "alu_src", "REG") == "MEM" or getattr(s, "mul_src", "REG") == "MEM"
                          for s in (cfg.x1, cfg.x2) if not s.bypass)
    if (cfg.flying or cfg.in_precision not in RANGES or cfg.proc_precision not in RANGES or memory_operands
            or not cfg.y.bypass):
        return layer  # aimed: integer offline layers whose Y stage is off and operands are registers
    scale = int(rng.integers(1, 1 << 7)) | 1
    fields = dict(layer.fields, **{"SDP.D_CVT_SHIFT.CVT_SHIFT": int(rng.integers(1, 11)),
                                   "SDP.D_CVT_SCALE.CVT_SCALE": (scale if rng.random() < 0.5 else -scale) & 0xFFFF,
                                   "SDP.D_CVT_OFFSET.CVT_OFFSET": int(rng.integers(-64, 65)) & 0xFFFFFFFF})
    layer = dataclasses.replace(layer, fields=fields)
    cfg = sdp_decode(layer.values(regmap))
    lo, hi = RANGES[cfg.in_precision]
    candidates = np.arange(lo, hi + 1, dtype=np.int64)
    with corners.observe(masks=True) as seen:
        x = candidates
        for stage, where in ((cfg.x1, "sdp.x1"), (cfg.x2, "sdp.x2")):
            x = datapath.int_x(x, stage, None, None, where=where)
        datapath.int_output(x, cfg.cvt, cfg.out_precision)
    hits = targets(seen)
    if not hits:
        return layer
    shape = (cfg.channel, cfg.height, cfg.width)
    atom = profile.memory_atomic_size
    src = cfg.src
    images = []
    for image in layer.images:
        if image.label == "src":
            buf = np.frombuffer(image.data, np.uint8).copy()
            unpack_feature(buf, 0, shape, cfg.in_precision, src.line_stride, src.surface_stride, atom)  # checks
            cube = fill(rng, shape, candidates, hits)
            pack_feature(cube, cfg.in_precision, src.line_stride, src.surface_stride, atom, buf=buf)
            image = Image(image.memory, image.base, buf.tobytes(), image.label)
        images.append(image)
    return dataclasses.replace(layer, images=images, choices=dict(layer.choices, corners="aimed"))


AIMERS = {"sdp": _aim_sdp, "sdp_reg": _aim_sdp}
