"""Offline PDP layers: a `PdpSpec` (what a layer means) built into register fields, and a random legal one.

The spec holds sizes counted from one; `build` encodes them (PDP and PDP_RDMA groups) and computes
nothing but what the registers need, so an illegal spec (stimulus/pdp/illegal.py) builds into exactly the
illegal programming it describes. `random_spec` gives a legal one: the output size first, then the
input size that the guide's pooled-size formula maps onto it (programming-guide "PDP programming",
Limitation/PDP: kernel up to 8, PL/PR < kernel width, (PL+W+PR-Kernel_W) % stride_x == 0).
Split width (2..4 parts) when the geometry allows one. Not yet generated: on the fly from SDP, CV-SRAM surfaces.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cache

import numpy as np

from golden.config import Profile
from golden.formats.feature import feature_span
from golden.numerics import fp
from golden.units.pdp.config import Split
from golden.units.pdp.rules import PAD_VALUE_FIELD_BITS, PAD_VALUES
from stimulus import data
from stimulus.layer import Image, Layer, Region
from stimulus.registry import ids, keeps, largest

BASE, SLOT, DST_OFFSET = 0x80000000, 0x1000000, 0x800000
METHODS = {"average": "POOLING_METHOD_AVERAGE", "max": "POOLING_METHOD_MAX", "min": "POOLING_METHOD_MIN"}


@dataclass(frozen=True)
class PdpSpec:
    precision: str
    method: str
    shape: tuple  # (C, H, W) input
    out_hw: tuple  # (H, W) output
    kernel: tuple  # (width, height)
    stride: tuple  # (width, height)
    pads: tuple  # (left, top, right, bottom)
    pad_value: int = 0
    #: Split width: (count, (in_first, in_mid, in_last), (out_first, out_mid, out_last)), or None.
    split: tuple | None = None
    src: tuple = (BASE, 0, 0)  # (address, line stride, surface stride)
    dst: tuple = (BASE + DST_OFFSET, 0, 0)
    #: Register values an illegal generator sets against the spec: "UNIT.REGISTER.FIELD" -> value.
    overrides: dict = field(default_factory=dict)


def programmed_recip(precision: str, kernel: int) -> int:
    """What software programs: 1/kernel in unsigned 0.16 fixed point, or as an fp17 pattern for fp16."""
    if precision == "fp16":
        return int(fp.fp32_to_fp17(np.float32(1.0 / kernel)))
    return 0x10000 // kernel


def _pad_fields(precision: str, pad_value: int) -> dict:
    """n x the pad value, sign-extended over the whole field (rule PDP-PAD-VALUE-SIGN: the cmod reads the low
    PAD_VALUE_BITS, the RTL all of them). fp16 layers write none, to keep them simple: the hardware does not
    ignore the registers (it adds their low 17 bits as fp17 values, golden/units/pdp/pooling.py
    pool_fp16_average), so a layer sees 0 from reset or what an earlier layer of its register group left."""
    if precision == "fp16":
        return {}
    return {field: (n * pad_value) & ((1 << PAD_VALUE_FIELD_BITS) - 1) for n, field in enumerate(PAD_VALUES, start=1)}


def fields(spec: PdpSpec) -> dict:
    channels, height, width = spec.shape
    (oh, ow), (kw, kh), (sw, sh), (pl, pt, pr, pb) = spec.out_hw, spec.kernel, spec.stride, spec.pads
    fmt = spec.precision.upper()
    values = {
        "PDP.D_DATA_CUBE_IN_WIDTH.CUBE_IN_WIDTH": width - 1, "PDP.D_DATA_CUBE_IN_HEIGHT.CUBE_IN_HEIGHT": height - 1,
        "PDP.D_DATA_CUBE_IN_CHANNEL.CUBE_IN_CHANNEL": channels - 1,
        "PDP.D_DATA_CUBE_OUT_WIDTH.CUBE_OUT_WIDTH": ow - 1, "PDP.D_DATA_CUBE_OUT_HEIGHT.CUBE_OUT_HEIGHT": oh - 1,
        "PDP.D_DATA_CUBE_OUT_CHANNEL.CUBE_OUT_CHANNEL": channels - 1,
        "PDP.D_OPERATION_MODE_CFG.POOLING_METHOD": METHODS[spec.method],
        "PDP.D_OPERATION_MODE_CFG.FLYING_MODE": "OFF_FLYING", "PDP.D_OPERATION_MODE_CFG.SPLIT_NUM": 0,
        "PDP.D_POOLING_KERNEL_CFG.KERNEL_WIDTH": kw - 1, "PDP.D_POOLING_KERNEL_CFG.KERNEL_HEIGHT": kh - 1,
        "PDP.D_POOLING_KERNEL_CFG.KERNEL_STRIDE_WIDTH": sw - 1,
        "PDP.D_POOLING_KERNEL_CFG.KERNEL_STRIDE_HEIGHT": sh - 1,
        "PDP.D_POOLING_PADDING_CFG.PAD_LEFT": pl, "PDP.D_POOLING_PADDING_CFG.PAD_TOP": pt,
        "PDP.D_POOLING_PADDING_CFG.PAD_RIGHT": pr, "PDP.D_POOLING_PADDING_CFG.PAD_BOTTOM": pb,
        "PDP.D_RECIP_KERNEL_WIDTH.RECIP_KERNEL_WIDTH": programmed_recip(spec.precision, kw),
        "PDP.D_RECIP_KERNEL_HEIGHT.RECIP_KERNEL_HEIGHT": programmed_recip(spec.precision, kh),
        "PDP.D_DATA_FORMAT.INPUT_DATA": fmt,
        "PDP.D_DST_BASE_ADDR_LOW.DST_BASE_ADDR_LOW": spec.dst[0] & 0xFFFFFFFF,
        "PDP.D_DST_BASE_ADDR_HIGH.DST_BASE_ADDR_HIGH": spec.dst[0] >> 32,
        "PDP.D_DST_LINE_STRIDE.DST_LINE_STRIDE": spec.dst[1],
        "PDP.D_DST_SURFACE_STRIDE.DST_SURFACE_STRIDE": spec.dst[2], "PDP.D_DST_RAM_CFG.DST_RAM_TYPE": "MC",
        "PDP_RDMA.D_DATA_CUBE_IN_WIDTH.CUBE_IN_WIDTH": width - 1,
        "PDP_RDMA.D_DATA_CUBE_IN_HEIGHT.CUBE_IN_HEIGHT": height - 1,
        "PDP_RDMA.D_DATA_CUBE_IN_CHANNEL.CUBE_IN_CHANNEL": channels - 1,
        "PDP_RDMA.D_FLYING_MODE.FLYING_MODE": "OFF_FLYING",
        "PDP_RDMA.D_SRC_BASE_ADDR_LOW.SRC_BASE_ADDR_LOW": spec.src[0] & 0xFFFFFFFF,
        "PDP_RDMA.D_SRC_BASE_ADDR_HIGH.SRC_BASE_ADDR_HIGH": spec.src[0] >> 32,
        "PDP_RDMA.D_SRC_LINE_STRIDE.SRC_LINE_STRIDE": spec.src[1],
        "PDP_RDMA.D_SRC_SURFACE_STRIDE.SRC_SURFACE_STRIDE": spec.src[2],
        "PDP_RDMA.D_SRC_RAM_CFG.SRC_RAM_TYPE": "MC", "PDP_RDMA.D_DATA_FORMAT.INPUT_DATA": fmt,
        "PDP_RDMA.D_OPERATION_MODE_CFG.SPLIT_NUM": 0,
        "PDP_RDMA.D_POOLING_KERNEL_CFG.KERNEL_WIDTH": kw - 1,
        "PDP_RDMA.D_POOLING_KERNEL_CFG.KERNEL_STRIDE_WIDTH": sw - 1,
    }
    values.update(_pad_fields(spec.precision, spec.pad_value))
    if spec.split is not None:
        count, ins, outs = spec.split
        for unit in ("PDP", "PDP_RDMA"):
            values[f"{unit}.D_OPERATION_MODE_CFG.SPLIT_NUM"] = count - 1
            for part, width in zip(("FIRST", "MID", "LAST"), ins, strict=True):
                values[f"{unit}.D_PARTIAL_WIDTH_IN.PARTIAL_WIDTH_IN_{part}"] = width - 1
        for part, width in zip(("FIRST", "MID", "LAST"), outs, strict=True):
            values[f"PDP.D_PARTIAL_WIDTH_OUT.PARTIAL_WIDTH_OUT_{part}"] = width - 1
    values.update(spec.overrides)
    return values


@cache
def kernel_max() -> int:
    """The largest pooling kernel the registry keeps (PDP-KERNEL-SIZE) of what KERNEL_WIDTH (4 bits) holds."""
    return largest(("PDP-KERNEL-SIZE",), 1, 16, lambda k: {"kernel": (k, k)})


@cache
def pad_max(kernel: int) -> int:
    """The largest padding the registry keeps beside a kernel (PDP-PAD-LEFT-RIGHT, PDP-PAD-TOP-BOTTOM) of what
    PAD_LEFT (3 bits) holds."""
    return largest(("PDP-PAD-LEFT-RIGHT", "PDP-PAD-TOP-BOTTOM"), 0, 7,
                   lambda p: {"kernel": (kernel, kernel), "pads": (p, p, p, p)})


def strided(kernel: int, stride: int, before: int, after: int, size: int) -> bool:
    """Whether the registry's PDP-WIDTH-STRIDE and PDP-HEIGHT-STRIDE keep an axis of `size` padded and pooled
    so (asked of a layer that pools both axes alike)."""
    return keeps(("PDP-WIDTH-STRIDE", "PDP-HEIGHT-STRIDE"), kernel=(kernel, kernel), stride=(stride, stride),
                 pads=(before, before, after, after), in_width=size, in_height=size)


def _axis(choose, max_out: int) -> tuple[int, int, int, int, int, int]:
    """(kernel, stride, pad before, pad after, input size, output size) of one axis: the input size from the
    guide's pooled-size equation, so that it keeps the registry's stride rules."""
    kernel, stride, out = choose.size(1, kernel_max()), choose.size(1, 8), choose.size(1, max_out)
    before, after = choose.size(0, pad_max(kernel)), choose.size(0, pad_max(kernel))
    size = (out - 1) * stride + kernel - before - after
    if size < 1:
        before, after = 0, 0
        size = (out - 1) * stride + kernel
    return kernel, stride, before, after, size, out


def split_inputs(outs: tuple, kernel: int, stride: int, left: int, right: int) -> tuple[int, int, int]:
    """The input widths of split parts producing `outs` (first, mid, last) output columns: the guide's
    first_in + PL = (first_out-1)*stride + kernel, mid_in + overlap = (mid_out-1)*stride + kernel,
    last_in + PR + overlap = (last_out-1)*stride + kernel, with overlap = kernel - stride."""
    first, mid, last = outs
    return (first - 1) * stride + kernel - left, mid * stride, last * stride - right


def _split(choose, kernel: int, stride: int, left: int, right: int, out: int, width: int) -> tuple | None:
    """A split of the width into 2..4 parts that the registry's PDP-SPLIT-* rules keep, or None when this draw
    has none."""
    if out < 2:
        return None
    count = choose.size(2, min(4, out))
    mids = count - 2
    mid = choose.integer(1, max(1, (out - 2) // mids)) if mids else 1
    rest = out - mid * mids
    if rest < 2:
        return None
    first = choose.integer(1, rest - 1)
    outs = (first, mid, rest - first)
    ins = split_inputs(outs, kernel, stride, left, right)
    if min(ins) < 1:  # a part of no columns cannot be programmed (the fields hold the width minus one)
        return None
    if not keeps(ids("PDP", "PDP-SPLIT-"), split=Split(*ins, *outs, count), on_the_fly=False, kernel=(kernel, 1),
                 stride=(stride, 1), pads=(left, 0, right, 0), in_width=width, out_width=out):
        return None
    return count, ins, outs


def random_spec(choose, profile: Profile, slot: int = 0, max_out: int = 6, max_channels: int | None = None) -> PdpSpec:
    profile.require("PDP", "a PDP layer")
    atom = profile.memory_atomic_size
    precision = choose.choice(sorted(profile.feature_types))
    kw, sw, pl, pr, width, ow = _axis(choose, max_out)
    kh, sh, pt, pb, height, oh = _axis(choose, max_out)
    shape = (choose.size(1, max_channels or 2 * atom + atom // 2), height, width)
    src_line, src_surface = data.strides(choose, shape, atom)
    dst_line, dst_surface = data.strides(choose, (shape[0], oh, ow), atom)
    base = BASE + slot * SLOT
    low, high = data.INT_RANGES.get(precision, (-1000, 1000))
    split = _split(choose, kw, sw, pl, pr, ow, width) if choose.flag(0.3) else None
    return PdpSpec(precision, choose.choice(sorted(METHODS)), shape, (oh, ow), (kw, kh), (sw, sh), (pl, pt, pr, pb),
                   split=split,
                   pad_value=choose.size(low, high) if precision != "fp16" else 0,
                   src=(base + atom * choose.size(0, 63), src_line, src_surface),
                   dst=(base + DST_OFFSET + atom * choose.size(0, 63), dst_line, dst_surface))


def build(spec: PdpSpec, profile: Profile, rng: np.random.Generator, cube: np.ndarray | None = None) -> Layer:
    """The layer of `spec`, its input `cube` (drawn when None)."""
    atom = profile.memory_atomic_size
    cube = data.values(rng, spec.precision, spec.shape) if cube is None else cube
    src_bytes = data.surface_bytes(rng, cube, spec.precision, spec.src[1], spec.src[2], atom)
    out_shape = (spec.shape[0], *spec.out_hw)
    dst_size = feature_span(out_shape, spec.precision, spec.dst[1], spec.dst[2], atom)
    images = [Image("pri_mem", spec.src[0], src_bytes, "src"),
              Image("pri_mem", spec.dst[0], rng.integers(0, 256, dst_size, dtype=np.uint8).tobytes(), "dst")]
    choices = {"precision": spec.precision, "method": spec.method, "kernel": spec.kernel, "stride": spec.stride,
               "pads": spec.pads, "shape": spec.shape, "split": spec.split[0] if spec.split else 1}
    return Layer("pdp", fields(spec), images, [Region("pri_mem", spec.dst[0], dst_size, "dst")], "PDP",
                 ("PDP", "PDP_RDMA"), choices)


def random_layer(choose, profile: Profile, slot: int = 0) -> Layer:
    spec = random_spec(choose, profile, slot)
    return build(spec, profile, choose.data())


__all__ = ["PdpSpec", "build", "fields", "random_layer", "random_spec", "replace"]
