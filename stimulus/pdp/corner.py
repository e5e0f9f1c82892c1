"""Corner-aimed PDP layers: integer average pooling whose window sums land on the classes of the two divisor
stages (pdp.divide.width / .height: the sum times RECIP_KERNEL_WIDTH, then times RECIP_KERNEL_HEIGHT, each
rounded by 16 bits) and of the output's narrowing.

The windows are made not to overlap (stride = kernel on both axes, the input sized by the guide's pooled-size
formula), so each window's sum is set by its own elements alone. The RECIP registers are drawn at most
1/kernel (rule PDP-RECIP-KERNEL), within RECIP_SPREAD of it, among those whose products reach the most
classes; every sum a window can hold (its real elements' range plus its padding registers) is run through
the golden pool_int, and each window takes a sum that lands on a class, classes in turn, spread over its real
elements (the output's saturation classes are out of reach at RECIP <= 1/kernel: stimulus/corners.py).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from golden.config import Profile
from golden.formats.feature import element_bits
from golden.numerics import corners
from golden.numerics.integer import as_signed, shift_right_round
from golden.regs.regmap import RegisterMap
from golden.units.pdp.config import PAD_VALUE_BITS
from golden.units.pdp.config import decode as pdp_decode
from golden.units.pdp.pooling import padding_counts, padding_sum, pool_int
from golden.units.pdp.rules import RECIP_ONE
from stimulus.corner_fill import fill_within, legal, targets
from stimulus.data import INT_RANGES
from stimulus.layer import Layer
from stimulus.pdp import layers as pdp

#: RECIP candidates: 1/kernel in 0.16 fixed point less up to this much
RECIP_SPREAD = 600
TRIES = 160
#: sums enumerated at most: this many from each end of the range and around zero (int16 sums span 2**22)
ENDS = 1 << 12


def _stage_classes(totals: np.ndarray, recip: tuple[int, int], out_bits: int) -> corners.Corners:
    """The golden pooling of each total as a one-element window (kernel 1, no padding), observed."""
    with corners.observe(masks=True) as seen:
        pool_int(totals.reshape(1, 1, -1), "average", (1, 1), (1, 1), (0, 0, 0, 0), recip=recip, out_bits=out_bits)
    return seen


def _reach(values: np.ndarray, recips: np.ndarray, out_bits: int | None, rng) -> np.ndarray:
    """Per candidate RECIP: the classes values x RECIP (rounded by 16 bits, then narrowed to `out_bits` when
    given) reach, each weighted at random (a tie and one LSB beside it need RECIPs of different parity: one
    layer cannot have both, the weights make successive layers favour different ones)."""
    product = values[:, None] * recips[None, :]
    found = [m.any(axis=0) for m in corners.rounding_classes(product, 16).values()]
    if out_bits is not None:
        bound = 1 << (out_bits - 1)
        found += [m.any(axis=0) for m in corners.saturation_classes(shift_right_round(product, 16), -bound,
                                                                    bound - 1).values()]
    return rng.random(len(found)) @ np.array(found, dtype=float)


def _best(rng, kernel: int, values: np.ndarray, out_bits: int | None) -> int:
    """A RECIP at most 1/kernel whose products with `values` reach the most classes."""
    top = RECIP_ONE // kernel
    tries = np.unique(np.clip(top - np.abs(rng.integers(-RECIP_SPREAD, RECIP_SPREAD + 1, TRIES)), 1, top))
    return int(tries[int(np.argmax(_reach(values, tries, out_bits, rng)))])


def average_spec(choose, profile: Profile, precision: str | None = None, slot: int = 0) -> pdp.PdpSpec:
    """An average-pooling spec with windows that do not overlap, in address slot `slot`; an integer precision
    unless `precision`."""
    spec = pdp.random_spec(choose, profile, slot)
    (kw, kh), (pl, pt, pr, pb), (oh, ow) = spec.kernel, spec.pads, spec.out_hw
    height, width = oh * kh - pt - pb, ow * kw - pl - pr
    if height < 1:
        pt = pb = 0
        height = oh * kh
    if width < 1:
        pl = pr = 0
        width = ow * kw
    shape = (spec.shape[0], height, width)
    atom = profile.memory_atomic_size
    src_line, src_surface = pdp.data.strides(choose, shape, atom)
    dst_line, dst_surface = pdp.data.strides(choose, (shape[0], oh, ow), atom)
    if precision is None:
        precision = choose.choice(sorted(set(profile.feature_types) & set(INT_RANGES)))
        pad_value = choose.integer(*INT_RANGES[precision]) if choose.flag(0.5) else 0
    else:
        pad_value = 0  # fp16 layers write no padding registers (pdp._pad_fields)
    return replace(spec, precision=precision, method="average", shape=shape, stride=(kw, kh),
                   pads=(pl, pt, pr, pb), split=None, src=(spec.src[0], src_line, src_surface),
                   dst=(spec.dst[0], dst_line, dst_surface), pad_value=pad_value)


def _elements(spec: pdp.PdpSpec, sums: np.ndarray, pad_sum: np.ndarray) -> np.ndarray:
    """A (C, H, W) cube whose real elements of each window add up to sums - pad_sum (as evenly as can be)."""
    channels, height, width = spec.shape
    (kw, kh), (pl, pt, _, _), (oh, ow) = spec.kernel, spec.pads, spec.out_hw
    real_x = kw - padding_counts(width, kw, kw, pl, ow)
    real_y = kh - padding_counts(height, kh, kh, pt, oh)
    count = real_y[:, None] * real_x[None, :]
    rest = sums - pad_sum[None]
    base, extra = np.floor_divide(rest, count), np.mod(rest, count)
    ys, xs = np.arange(height), np.arange(width)
    wy, wx = (ys + pt) // kh, (xs + pl) // kw
    rank_y = ys - np.maximum(wy * kh - pt, 0)
    rank_x = xs - np.maximum(wx * kw - pl, 0)
    rank = rank_y[:, None] * real_x[wx][None, :] + rank_x[None, :]
    return base[:, wy][:, :, wx] + (rank[None] < extra[:, wy][:, :, wx])


def _pad_values(layer: Layer, profile: Profile) -> tuple[int, ...]:
    """PAD_VALUE_1X..7X as the golden model reads them (golden/units/pdp/__init__.py)."""
    cfg = pdp_decode(layer.values(RegisterMap.for_profile(profile)))
    return tuple(as_signed(v, n) for v, n in zip(cfg.pad_values, PAD_VALUE_BITS[cfg.precision], strict=True))


def aim_pdp(layer: Layer, profile: Profile, choose, slot: int = 0) -> Layer:
    rng = choose.data()
    spec = average_spec(choose, profile, slot=slot)
    out_bits = element_bits(spec.precision)
    lo, hi = INT_RANGES[spec.precision]
    (kw, kh), (oh, ow) = spec.kernel, spec.out_hw
    pad_sum = padding_sum(spec.shape[1:], spec.kernel, spec.stride, spec.pads, _pad_values(
        pdp.build(spec, profile, rng), profile))
    real = (kh - padding_counts(spec.shape[1], kh, kh, spec.pads[1], oh))[:, None] * \
        (kw - padding_counts(spec.shape[2], kw, kw, spec.pads[0], ow))[None, :]
    low, high = real * lo + pad_sum, real * hi + pad_sum
    start, end = int(low.min()), int(high.max())
    totals = np.unique(np.concatenate([np.arange(start, min(start + ENDS, end) + 1),
                                       np.arange(max(-ENDS, start), min(ENDS, end) + 1),
                                       np.arange(max(end - ENDS, start), end + 1)])).astype(np.int64)
    recip_w = _best(rng, kw, totals, None)
    recip_h = _best(rng, kh, np.unique(shift_right_round(totals * recip_w, 16)), out_bits)
    seen = _stage_classes(totals, (recip_w, recip_h), out_bits)
    hits = targets(seen, totals.size)
    channels = spec.shape[0]
    sums = fill_within(rng, np.broadcast_to(low, (channels, oh, ow)).ravel(),
                       np.broadcast_to(high, (channels, oh, ow)).ravel(), totals, hits).reshape(channels, oh, ow)
    cube = _elements(spec, sums, pad_sum)
    aimed = pdp.build(spec, profile, rng, cube=cube.astype(np.int8 if out_bits == 8 else np.int16))
    aimed.fields["PDP.D_RECIP_KERNEL_WIDTH.RECIP_KERNEL_WIDTH"] = recip_w
    aimed.fields["PDP.D_RECIP_KERNEL_HEIGHT.RECIP_KERNEL_HEIGHT"] = recip_h
    regs = aimed.values(RegisterMap.for_profile(profile))
    if not legal("PDP", pdp_decode(regs), regs, profile):
        return layer
    return replace(aimed, choices=dict(aimed.choices, corners="aimed"))
