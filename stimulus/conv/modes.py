"""The convolution modes a random layer draws: direct (one batch or several), Winograd and image input.

Each draw returns a `ConvDraw`: the LayerContext one of golden/units/conv/program.py's builders programmed
(registers on the register map's encoders, memory images laid out) and what was chosen. The rules each
draw keeps, by source:

* direct: the output size first, padding below the dilated kernel on both sides (programming-guide:
  Limitation/Convolution/General).
* full CBUF: now and then a direct layer's input takes every bank but the one its 1x1 weights need.
* reuse: a single-batch direct layer of a trace may skip its data and/or weight release, and the next
  layer reuse what stayed in the CBUF (`reuse`).
* multi-batch: 2..MAX_BATCH_SIZE cubes BATCH_STRIDE apart (Limitation/Convolution/Multi-batch), dilation
  allowed, never with image input, post-extension or Winograd (feature crossing table); fewer and smaller
  lines as the batch count grows, so that N x lines fit the data banks. The output is never 1x1: SDP's
  destination strides must be 64-byte aligned in multi-batch mode (Limitation/SDP/Winograd/Batch) and a
  1x1xC cube line and surface packed (Limitation/Data Format), which no atom of 32 bytes satisfies both.
* Winograd: equivalent kernel 3x3 after the stride folds into channels (R = 3 * stride_y - {0,1,2}, S the
  same), output width/height divisible by 4 and >= 8 (Limitation/Convolution/Winograd); stride 1 or 2;
  pre-transformed 4x4 weights drawn directly, as software writes them (nvdla/sw's Winograd weight
  conversion is software); no dilation, batches or image input (crossing table); pra_truncate int only.
* image: every pixel format of Table 33 (in-memory-data-formats: Pixel Format) with its channel count,
  input precision and X offset range; fp16 pixels only into an fp16 pipeline (Table 29); processing in any
  precision the profile has; CDMA convertor with offset or per-channel mean (MEAN_FORMAT), scale, truncate,
  sign override; weight channel post-extension 2 or 4 when C * S <= 32 or 16 (in-memory-data-formats:
  Weight Channel Post-extension for image input); no dilation (Limitation/Convolution/Image).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from golden.config import Profile
from golden.formats import feature, pixel
from golden.memory import MemorySystem
from golden.units.base import LayerContext
from golden.units.conv import program
from golden.units.conv.limits import dc_entries_per_slice, entry_bytes
from stimulus import data

#: Chance that a direct layer is one whose input fills the CBUF (`full`).
FULL_CBUF = 0.08
#: Chance that a direct layer's dilation is drawn in 4..8 instead of 1..3.
WIDE_DILATION = 0.15
#: Chance that a direct layer's feature data passes the CDMA convertor (golden.units.conv.cdma: the RTL converts it).
FEATURE_CONVERTOR = 0.15
#: Chance that a line or surface of the input (feature or pixel) has a gap after it (up to 16 atoms / 512 bytes).
GAP = 0.4


def _gap(choose, unit: int = 1) -> int:
    """A stride's gap beyond the packed line or surface: none, or 1..16 units (atoms, or 32 bytes)."""
    return unit * choose.integer(1, 16) if choose.flag(GAP) else 0


@dataclass
class ConvDraw:
    ctx: LayerContext
    precision: str
    batches: int = 1
    winograd: bool = False
    choices: dict = field(default_factory=dict)
    #: (cube, weights, spec) of a single-batch direct layer: what a following layer may reuse.
    arrays: tuple | None = None


def values(rng: np.random.Generator, precision: str, shape: tuple) -> np.ndarray:
    """Cube or weight elements; fp16 as moderate normals (NaN/INF inputs would make every sum NaN)."""
    if precision == "fp16":
        return rng.normal(0.0, 1.0, shape).astype(np.float16)
    return data.values(rng, precision, shape)


def _axis(choose, kernel: int, dilation: int, stride: int, max_out: int = 6, min_out: int = 1) -> tuple[int, int, int]:
    """(input size, padding before, output size) of one axis."""
    span = (kernel - 1) * dilation + 1
    out = choose.size(min_out, max_out)
    # padding below the dilated kernel (CONV-PAD-*), within PAD_LEFT/TOP's 5 bits and PAD_RIGHT/BOTTOM's 6
    before, after = choose.size(0, min(span - 1, 31)), choose.size(0, min(span - 1, 63))
    size = (out - 1) * stride + span - before - after
    if size < 1:
        before, after = 0, 0
        size = (out - 1) * stride + span
    return size, before, out


def memory_system(profile: Profile) -> MemorySystem:
    return MemorySystem.for_profile(profile)


def direct(choose, profile: Profile, precision: str, batches: int = 1) -> ConvDraw:
    atom_c, atom_k = profile.mac_atomic_c, profile.mac_atomic_k
    c = choose
    if batches == 1 and c.flag(FULL_CBUF):
        return full(choose, profile, precision)
    # whole MAC atoms on purpose: exactly one or two atoms of channels / kernels are corners of CMAC's split
    channels = atom_c * c.size(1, 2) if c.flag(0.1) else c.size(1, 2 * atom_c + atom_c // 2)
    kernels = atom_k * c.size(1, 2) if c.flag(0.1) else c.size(1, 2 * atom_k + atom_k // 2)
    rows, cols = c.size(1, 5), c.size(1, 5)
    # now and then a dilation of 4..8: a kernel spanning up to 33 elements, padded beyond 8 on a side
    low, high = (4, 8) if c.flag(WIDE_DILATION) else (1, 3)
    dilation = (c.size(low, high) if rows > 1 else 1, c.size(low, high) if cols > 1 else 1)
    stride = (c.size(1, 8), c.size(1, 8))  # CONV_X_STRIDE / CONV_Y_STRIDE: 3 bits
    max_out = 6 if batches <= 4 else 3
    height, top, out_h = _axis(c, rows, dilation[0], stride[0], max_out)
    # a multi-batch output is never 1x1: SDP's 64-byte aligned strides could not be packed (see module)
    width, left, out_w = _axis(c, cols, dilation[1], stride[1], max_out, 2 if batches > 1 and out_h == 1 else 1)
    compressed = profile.weight_compression and c.flag(0.3)
    rng = c.data()
    shape = (batches, channels, height, width) if batches > 1 else (channels, height, width)
    spec = program.DirectLayer(precision=precision, stride=stride, dilation=dilation, pad=(top, left),
                               pad_value=c.integer(-8, 8) if precision != "fp16" else 0,
                               clip_truncate=c.size(0, 16) if precision != "fp16" else 0, compressed=compressed,
                               out_hw=(out_h, out_w), line_gap=_gap(c), surface_gap=_gap(c),
                               convertor=_convertor(c, precision))
    cube, weights = values(rng, precision, shape), values(rng, precision, (kernels, channels, rows, cols))
    ctx = program.direct_layer(profile, cube, weights, spec, memory_system(profile))
    choices = {"mode": "batch" if batches > 1 else "direct", "precision": precision, "kernel": (rows, cols),
               "stride": stride, "dilation": dilation, "pad": (top, left), "shape": (channels, height, width),
               "kernels": kernels, "batches": batches, "compressed": compressed,
               "convertor": spec.convertor is not None}
    return ConvDraw(ctx, precision, batches, False, choices, (cube, weights, spec) if batches == 1 else None)


def _convertor(choose, precision: str) -> tuple[int, int, int] | None:
    """Now and then (CVT_OFFSET, CVT_SCALE, CVT_TRUNCATE) for an integer layer's feature data."""
    if precision == "fp16" or not choose.flag(FEATURE_CONVERTOR):
        return None
    return choose.integer(-32, 32), choose.choice((1, choose.integer(-6, 6))), choose.size(0, 4)


def reuse(choose, profile: Profile, kept: ConvDraw, data_reuse: bool, weight_reuse: bool) -> ConvDraw:
    """A direct layer after `kept` (which skipped its release) that takes its input cube (DATA_REUSE: same
    conv mode, precision, C, W and DATA_BANK, programming-guide: Limitation/Convolution/General) and/or its
    weights (WEIGHT_REUSE: same kernels) from the CBUF; the rest (kernel, stride, padding, output) is drawn
    anew. Its own memory holds the same cube and weights, so the bytes are right whether or not CDMA fetches."""
    c = choose
    cube, weights, first = kept.arrays
    precision = kept.precision
    channels, height, width = cube.shape
    rng = c.data()
    if weight_reuse:
        kernels, _, rows, cols = weights.shape
    else:
        kernels = c.size(1, 2 * profile.mac_atomic_k + profile.mac_atomic_k // 2)
        rows = c.size(1, min(5, height)) if data_reuse else c.size(1, 5)
        cols = c.size(1, min(5, width)) if data_reuse else c.size(1, 5)
        weights = values(rng, precision, (kernels, channels, rows, cols))
    if data_reuse:
        # the input is fixed: padding below the kernel, a stride no larger than it, so that the right/bottom
        # padding the output-size rule derives stays below the kernel as well
        stride = (c.size(1, min(4, rows)), c.size(1, min(4, cols)))
        pad, out_hw = (c.size(0, rows - 1), c.size(0, cols - 1)), None
    else:
        stride = (c.size(1, 4), c.size(1, 4))
        (height, top, out_h), (width, left, out_w) = _axis(c, rows, 1, stride[0]), _axis(c, cols, 1, stride[1])
        cube = values(rng, precision, (channels, height, width))
        pad, out_hw = (top, left), (out_h, out_w)
    spec = program.DirectLayer(precision=precision, stride=stride, pad=pad, out_hw=out_hw,
                               pad_value=c.integer(-8, 8) if precision != "fp16" else 0,
                               clip_truncate=c.size(0, 16) if precision != "fp16" else 0, compressed=first.compressed,
                               convertor=first.convertor)
    ctx = program.direct_layer(profile, cube, weights, spec, memory_system(profile))
    reused = ("data",) * data_reuse + ("weight",) * weight_reuse
    choices = {"mode": "direct", "precision": precision, "kernel": (rows, cols), "stride": stride, "pad": pad,
               "shape": cube.shape, "kernels": kernels, "compressed": first.compressed, "reuse": reused}
    return ConvDraw(ctx, precision, 1, False, choices, (cube, weights, spec))


def full(choose, profile: Profile, precision: str) -> ConvDraw:
    """A direct layer whose input fills every CBUF bank but the one its 1x1 weights need: the largest input
    the buffer holds (programming-guide: Convolution pipeline programming/Features, banks_for_data)."""
    c = choose
    channels, width, stride = c.size(1, 2 * profile.mac_atomic_c), c.size(1, 64), c.size(1, 4)
    compressed = profile.weight_compression and c.flag(0.3)
    entries = dc_entries_per_slice(profile, width, channels, precision)
    banks = profile.cbuf_bank_number - 1 - int(compressed)
    # at most 4096 lines: CSC.D_RELEASE.RLS_SLICES (12 bits) releases them all
    lines = min(banks * (profile.cbuf_bank_bytes // entry_bytes(profile)) // entries, 4096)
    out_h = (lines - 1) // stride + 1
    height = (out_h - 1) * stride + 1
    out_w = (width - 1) // stride + 1
    width = (out_w - 1) * stride + 1
    kernels = c.size(1, profile.mac_atomic_k)
    rng = c.data()
    spec = program.DirectLayer(precision=precision, stride=(stride, stride), compressed=compressed,
                               clip_truncate=c.size(0, 16) if precision != "fp16" else 0)
    ctx = program.direct_layer(profile, values(rng, precision, (channels, height, width)),
                               values(rng, precision, (kernels, channels, 1, 1)), spec, memory_system(profile))
    choices = {"mode": "direct", "precision": precision, "kernel": (1, 1), "stride": (stride, stride),
               "shape": (channels, height, width), "kernels": kernels, "compressed": compressed, "full": True}
    return ConvDraw(ctx, precision, 1, False, choices)


def batch(choose, profile: Profile, precision: str) -> ConvDraw:
    profile.require("BATCH", "multi-batch convolution", fields=("CDMA.D_BATCH_NUMBER.BATCHES",))
    return direct(choose, profile, precision, choose.size(2, profile.max_batch_size or 2))


def winograd(choose, profile: Profile, precision: str) -> ConvDraw:
    profile.require("WINOGRAD", "Winograd convolution", fields=("CSC.D_MISC_CFG.CONV_MODE",))
    c = choose
    stride = (c.size(1, 2), c.size(1, 2))
    kernel = tuple(3 * s - c.integer(0, s - 1) for s in stride)  # ceil(R / stride) == 3
    out_hw = (4 * c.size(2, 4), 4 * c.size(2, 4))
    pad = (c.size(0, kernel[0] - 1), c.size(0, kernel[1] - 1))
    after = (c.size(0, kernel[0] - 1), c.size(0, kernel[1] - 1))
    height, width = ((out + 4) * s - before - end for out, s, before, end in zip(out_hw, stride, pad, after,
                                                                                 strict=True))
    per_atom = 32 // feature.element_bytes(precision)
    channels = c.size(1, profile.mac_atomic_c + per_atom // 2)
    ext_channels = -(-channels // per_atom) * per_atom * stride[0] * stride[1]
    kernels = c.size(1, profile.mac_atomic_k + profile.mac_atomic_k // 2)
    integer = precision != "fp16"
    compressed = profile.weight_compression and c.flag(0.3)
    spec = program.WinogradLayer(precision=precision, stride=stride, pad=pad, out_hw=out_hw,
                                 pad_value=c.integer(-8, 8) & 0xFFFF if integer else 0,
                                 pra_truncate=c.size(0, 3) if integer else 0,
                                 clip_truncate=c.size(0, 16) if integer else 0, compressed=compressed)
    rng = c.data()
    ctx = program.winograd_layer(profile, values(rng, precision, (channels, height, width)),
                                 values(rng, precision, (kernels, ext_channels, 4, 4)), spec, memory_system(profile))
    choices = {"mode": "winograd", "precision": precision, "kernel": kernel, "stride": stride, "pad": pad,
               "shape": (channels, height, width), "kernels": kernels, "out_hw": out_hw, "compressed": compressed}
    return ConvDraw(ctx, precision, 1, True, choices)


def image_formats(profile: Profile) -> list[str]:
    """Table 33's formats the profile can read: the format's input precision is one the profile has (nv_small
    reads the 8-bit formats only), and fp16 pixels need an fp16 pipeline (Table 29)."""
    types = profile.feature_types
    return [name for name, fmt in pixel.FORMATS.items()
            if fmt.precision in types and (not fmt.floating or "fp16" in types)]


#: The channel post-extensions drawn (Weight Channel Post-extension: 1, 2 or 4 lines).
POST_EXTENSIONS = (1, 2, 4)


def post_extension_fits(profile: Profile, lines: int, channels: int, stride_x: int, wide: int) -> bool:
    """Whether a `lines`-line post-extension is drawn for a kernel of `wide` pre-extended channels over pixels of
    `channels` components at x stride `stride_x`.

    The lines of one output pixel share one MAC atom (CONV-POST-EXTENSION-CHANNELS). NVIDIA's RTL also starts a
    post-extended line at element (lines - 1) * stride_x * channels + wide - 1 (NV_NVDLA_CSC_dl.v, pixel_x_init):
    the pixels of `lines` neighbouring outputs must fit one atom too. On the nv_small RTL (8-channel atom) all 88
    of 198 post-extended layers within that agreed with the model, 81 of the 110 beyond it did not (single-pixel
    layers read zeros). The document and NVIDIA's cmod have no such limit, so the model does not enforce it and the
    generator keeps within it; with a 64-channel atom and x strides up to 4 it never binds."""
    if lines == 1:
        return True
    atomic = profile.mac_atomic_c
    return wide * lines <= atomic and (lines - 1) * stride_x * channels + wide <= atomic


def _largest(fits, top: int) -> int:
    """The largest n in 1..top that fits (1 always does)."""
    return max(n for n in range(1, top + 1) if n == 1 or fits(n))


def raw_pixels(rng: np.random.Generator, fmt: pixel.PixelFormat, shape: tuple) -> np.ndarray:
    """Components as stored: every value of each field's width, the extremes included."""
    if fmt.floating:
        return values(rng, "fp16", shape)
    bits = np.array([b for _, b in fmt.fields] if fmt.packed else [fmt.component_bits] * shape[0])
    top = ((1 << bits) - 1).reshape(-1, 1, 1)
    drawn = np.floor(rng.random(shape) * (top + 1)).astype(np.int64)
    edge = rng.random(shape) < 0.05
    return np.where(edge, np.where(rng.random(shape) < 0.5, 0, top), drawn).astype(fmt.dtype)


def image(choose, profile: Profile, precision: str, pixel_format: str | None = None, aim=None) -> ConvDraw:
    """An image-input layer; `aim(rng, fmt, spec, pixels, build)` (stimulus/conv/corner_image.py) may replace the
    drawn convertor settings and pixels: it returns the spec it chose and the LayerContext of build(spec, pixels)."""
    c = choose
    name = pixel_format or c.choice(image_formats(profile))
    fmt = pixel.pixel_format(name)
    if fmt.floating:
        profile.require_precision("fp16", f"{name} image input (fp16 pixels need an fp16 pipeline, Table 29)",
                                  fields=("CDMA.D_DATAIN_FORMAT.PIXEL_FORMAT",))
        precision = "fp16"
    atom = profile.memory_atomic_size
    # the post-extension first, then the kernel width and x stride it allows (a 4-line one needs a narrow kernel
    # and a small stride on a small atom, too rare to draw afterwards)
    longer = [p for p in POST_EXTENSIONS[1:] if post_extension_fits(profile, p, fmt.channels, 1, fmt.channels)]
    post = c.choice(longer) if longer and c.flag(0.4) else 1
    rows = c.size(1, 5)
    cols = c.size(1, _largest(lambda s: post_extension_fits(profile, post, fmt.channels, 1, fmt.channels * s), 5))
    wide = fmt.channels * cols
    stride = (c.size(1, 4), c.size(1, _largest(lambda x: post_extension_fits(profile, post, fmt.channels, x, wide), 4)))
    # up to 8 outputs a line: a padded line reaches every quarter of an atom (planar_pixel_bytes_x_padded_width_quarter)
    (height, top, _), (width, left, _) = _axis(c, rows, 1, stride[0]), _axis(c, cols, 1, stride[1], max_out=8)
    x_offset = c.size(0, pixel.x_offset_limit(fmt, atom))
    if c.flag(0.15):  # a first-plane line of whole 32-byte units: a pitch without any gap
        per_unit = max(32 // fmt.plane_bytes[0], 1)
        width = -(-(x_offset + width) // per_unit) * per_unit - x_offset
    integer = precision != "fp16"
    mean = tuple(c.integer(-300, 300) for _ in range(4)) if c.flag(0.3) else None
    # pixels of another precision than the pipeline's reach it only through the convertor (CONV-PIXEL-CONVERTOR)
    cvt_en = fmt.precision != precision or (not fmt.floating and c.flag(0.8))
    spec = program.ImageLayer(
        pixel_format=name, precision=precision, stride=stride, pad=(top, left),
        x_offset=x_offset, sign_override=c.choice(pixel.SIGN_OVERRIDES), line_gap=_gap(c, 32), uv_gap=_gap(c, 32),
        cvt_en=cvt_en,
        cvt_offset=c.integer(-200, 200), cvt_scale=c.choice((1, c.integer(-40, 40))), cvt_truncate=c.size(0, 6),
        mean=mean, post_extension=post, pad_value=c.integer(-100, 100) & 0xFFFF if integer else 0,
        clip_truncate=c.size(0, 8) if integer else 0,
        compressed=profile.weight_compression and c.flag(0.3))
    kernels = c.size(1, 2 * profile.mac_atomic_k + profile.mac_atomic_k // 2)
    rng = c.data()
    pixels = raw_pixels(rng, fmt, (fmt.channels, height, width))
    weights = values(rng, precision, (kernels, fmt.channels, rows, cols))

    def build(spec, pixels):
        return program.image_layer(profile, pixels, weights, spec, memory_system(profile))

    spec, ctx = aim(rng, fmt, spec, pixels, build) if aim else (spec, build(spec, pixels))
    choices = {"mode": "image", "precision": precision, "pixel_format": name, "kernel": (rows, cols),
               "stride": stride, "pad": (top, left), "shape": (fmt.channels, height, width), "kernels": kernels,
               "post_extension": post, "mean": spec.mean is not None, "cvt": spec.cvt_en, "compressed": spec.compressed}
    return ConvDraw(ctx, precision, 1, False, choices)


#: mode -> draw(choose, profile, precision)
DRAWS = {"direct": direct, "winograd": winograd, "image": image, "batch": batch}
#: The feature switch a mode needs (modes not listed: every profile).
NEEDS = {"winograd": "WINOGRAD", "batch": "BATCH"}


def modes(profile: Profile) -> list[str]:
    return [mode for mode in DRAWS if mode not in NEEDS or profile.has(NEEDS[mode])]
