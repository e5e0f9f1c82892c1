"""Deconvolution as its layer sequence (programming guide: "Deconvolution is a software feature"): the
stride_x * stride_y convolution phases into SDP, then one Rubik contract layer that interleaves them.

Phase k = py * stride_x + px convolves the input with kernel set (py, px) (golden.formats.weight.
split_deconv_kernels: taps py + stride_y * r', px + stride_x * s'), flipped, over the input padded by R'-1 /
S'-1 on every side, stride 1 (so W' = W + S' - 1, H' = H + R' - 1 and the right/bottom padding stays below
the kernel, Limitation/Convolution/General); SDP writes the phase cube packed at CONTRACT_STRIDE_0 * k.
The Rubik contract (Rubik programming / Contract; golden/units/conv/deconv.py's registers) writes the
(K, H' * stride_y, W' * stride_x) result. Every layer after the trace's first waits for the earlier ones
(Layer.waits): the phases share the weight address and Rubik reads what they wrote. Needs RUBIK (nv_full).
"""

from __future__ import annotations

import numpy as np

from golden.config import Profile
from golden.formats import feature, weight
from golden.formats.feature import feature_span
from golden.memory import MemorySystem
from golden.regs.regmap import RegisterMap
from golden.units.conv import deconv, program
from stimulus.conv import layers as conv
from stimulus.conv import modes as conv_modes
from stimulus.layer import Image, Layer, Region

#: The phase cubes and the result inside the sequence's slot (deconv.py's bases moved by the slot offset).
ATOM = deconv.ATOM


def _decoded(regs) -> dict:
    fields = {}
    for (unit, name), value in regs.written().items():
        for fld in regs.register(unit, name).fields:
            fields[f"{unit}.{name}.{fld.name}"] = fld.decode(value)
    return fields


def sequence(choose, profile: Profile, slot: int = 0, chain: conv.Chain | None = None) -> list[Layer]:
    """The phase layers and the Rubik contract layer of one random deconvolution (after the trace's layers so
    far, `chain`)."""
    profile.require("RUBIK", "deconvolution's Rubik contract phase", fields=("RBK.D_MISC_CFG.RUBIK_MODE",))
    c = choose
    precision = c.choice(sorted(profile.feature_types & profile.weight_types))
    stride = (c.size(1, 3), c.size(1, 3))  # (y, x)
    rows, cols = c.size(1, 5), c.size(1, 5)
    channels, kernels = c.size(1, profile.mac_atomic_c + 8), c.size(1, profile.mac_atomic_k)
    height, width = c.size(1, 6), c.size(1, 6)
    rng = c.data()
    cube = conv_modes.values(rng, precision, (channels, height, width))
    weights = conv_modes.values(rng, precision, (kernels, channels, rows, cols))
    return build(c, profile, cube, weights, stride, precision, c.size(0, 16) if precision != "fp16" else 0, slot,
                 chain)


def build(choose, profile: Profile, cube: np.ndarray, weights: np.ndarray, stride: tuple[int, int], precision: str,
          clip_truncate: int = 0, slot: int = 0, chain: conv.Chain | None = None) -> list[Layer]:
    """The layers deconvolving (C, H, W) `cube` by (K, C, R, S) `weights` with stride (y, x); `choose` draws
    each phase's SDP output convertor. `chain`: what the trace's earlier layers left in the CBUF (none: an
    empty CBUF)."""
    c = choose
    kernels, channels, rows, cols = weights.shape
    height, width = cube.shape[1:]
    rng = c.data()
    sets = weight.split_deconv_kernels(weights, stride[1], stride[0])
    set_rows, set_cols = sets[0].shape[2:]
    out_h, out_w = height + set_rows - 1, width + set_cols - 1
    surfaces = -(-kernels * feature.element_bytes(precision) // ATOM)
    in_line, in_surf = out_w * ATOM, out_w * out_h * ATOM
    contract0 = surfaces * in_surf
    offset = slot * conv.SLOT
    phase_base, out_base = deconv.PHASE_BASE + offset, deconv.OUT_BASE + offset
    spec = program.DirectLayer(precision=precision, pad=(set_rows - 1, set_cols - 1), out_hw=(out_h, out_w),
                               clip_truncate=clip_truncate)
    layers = []
    for index, kernel_set in enumerate(sets):
        flipped = np.ascontiguousarray(kernel_set[:, :, ::-1, ::-1])
        ctx = program.direct_layer(profile, cube, flipped, spec, MemorySystem.for_profile(profile))
        drawn = conv_modes.ConvDraw(ctx, precision, choices={"mode": "deconv", "precision": precision,
                                                             "stride": stride, "kernel": (rows, cols),
                                                             "phase": index})
        fields = conv.written_fields(ctx)
        for key in conv.ADDRESS_FIELDS:
            if key in fields:
                fields[key] = conv.place(fields[key], slot)
        fields.update(conv.sdp_fields(c, drawn, (kernels, out_h, out_w),
                                       (phase_base + index * contract0, in_line, in_surf, 0)))
        images = [Image("pri_mem", conv.place(address, slot), bytes(chunk), f"phase{index}_{n}")
                  for n, (address, chunk) in enumerate(ctx.memory.pri.written_runs())]
        layers.append(Layer("conv", fields, images, [], "SDP", ("SDP", "CACC", "CMAC_A", "CMAC_B", "CSC", "CDMA"),
                            drawn.choices, waits=True))
    sy, sx = stride
    out_line, out_surf = out_w * sx * ATOM, out_w * sx * out_h * sy * ATOM
    regs = deconv.rubik_registers(RegisterMap.for_profile(profile), precision, (kernels, out_h, out_w), stride,
                                  (in_line, in_surf, contract0, out_line, out_surf), (phase_base, out_base))
    size = feature_span((kernels, out_h * sy, out_w * sx), precision, out_line, out_surf, ATOM)
    filler = rng.integers(0, 256, size, dtype=np.uint8).tobytes()
    layers.append(Layer("conv", _decoded(regs), [Image("pri_mem", out_base, filler, "dst")],
                        [Region("pri_mem", out_base, size, "dst")], "RUBIK", ("RBK",),
                        {"mode": "deconv", "precision": precision, "stride": stride, "phase": "contract"},
                        waits=True))
    layers = [conv.complete(layer, profile) for layer in layers]
    chain = conv.Chain() if chain is None else chain
    for phase in layers[:-1]:  # back to back on the same banks, a phase's weights may leave the weight ring apart
        conv.follow(phase, chain, profile)
    return layers


def random_layer(choose, profile: Profile, slot: int = 0, chain: conv.Chain | None = None) -> Layer:
    """The next layer of the trace's deconvolution (a new one when the last is done); without a chain the
    first phase alone (a legal direct convolution)."""
    if chain is None:
        first = sequence(choose, profile, slot)[0]
        first.waits = False
        return first
    if not chain.queue:
        chain.queue = sequence(choose, profile, slot, chain)  # the phases follow the trace's earlier layers
        if slot == 0:
            chain.queue[0].waits = False
    return chain.queue.pop(0)


def shared(choose, profile: Profile) -> dict:
    return {"chain": conv.Chain()}
