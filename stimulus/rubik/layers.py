"""Random legal Rubik (RBK) layers: contract, split and merge, on the profiles with RUBIK (nv_full).

Programming and limits (programming-guide "Rubik programming" and "Limitation/Rubik", the rules
golden/units/rubik.py checks): every address and stride in 32-byte units; the planar side (split's output,
merge's input) 64-byte aligned; contract: DATAOUT_CHANNEL+1 = (DATAIN_CHANNEL+1) / (stride_x * stride_y),
CONTRACT_STRIDE_0 = Ceil((DATAOUT_CHANNEL+1) * BPE / 32) * DAIN_SURF_STRIDE, CONTRACT_STRIDE_1 = stride_y *
DAOUT_LINE_STRIDE, stride_x * width <= 8192; split: one plane per input channel (DATAOUT_CHANNEL = DATAIN_CHANNEL,
RUBIK-SPLIT-CHANNELS); feature strides hold a line / a surface of atoms and a 1x1xC cube is packed (Limitation/Data
Format). Split and merge leave the registers the guide says they need not program at reset. Input and output
are disjoint, each in DRAM or (with a secondary memory interface) CV-SRAM; the output's filler makes a byte
Rubik fails to write show.
"""

from __future__ import annotations

import numpy as np

from golden.config import Profile
from golden.formats.feature import element_bytes
from stimulus import data
from stimulus.layer import Image, Layer, Region, random_bytes

ATOM = 32
BASES = {"pri_mem": 0x80000000, "sec_mem": 0x50000000}
SLOT, DST_OFFSET = 0x1000000, 0x800000
RAM = {"pri_mem": "MCIF", "sec_mem": "CVIF"}


def modes(profile: Profile) -> list[str]:
    return (["CONTRACT"] if profile.has("RUBIK_CONTRACT") else []) + \
        (["SPLIT", "MERGE"] if profile.has("RUBIK_RESHAPE") else [])


def _round(value: int, unit: int) -> int:
    return -(-value // unit) * unit


def _planar(c, height: int, row: int) -> tuple[int, int]:
    """(line, planar) strides of planes whose lines hold `row` bytes: 64-byte multiples, minimal or with gaps."""
    line = _round(row, 64) + 64 * c.size(0, 2)
    return line, height * line + 64 * c.size(0, 2)


def _channels(c, per_atom: int, atoms: int) -> int:
    """1 .. atoms whole atoms of channels, exactly whole atoms on purpose a third of the time."""
    return per_atom * c.integer(1, atoms) if c.flag(1 / 3) else c.size(1, atoms * per_atom)


def _span(surfaces: int, surface: int, lines: int, line: int, last: int) -> int:
    return (surfaces - 1) * surface + (lines - 1) * line + last


def random_layer(choose, profile: Profile, slot: int = 0) -> Layer:
    profile.require("RUBIK", "a Rubik layer")
    c = choose
    mode = c.choice(modes(profile))
    precision = c.choice(sorted(profile.feature_types))
    bpe = element_bytes(precision)
    per_atom = ATOM // bpe
    memories = ["pri_mem", "sec_mem"] if profile.has("SECONDARY_MEMIF") else ["pri_mem"]
    src_mem, dst_mem = c.choice(memories), c.choice(memories)
    # a 1x1xC cube on purpose: its strides follow their own rule (Limitation/Data Format)
    width, height = (1, 1) if c.flag(0.1) else (c.size(1, 12), c.size(1, 6))
    src = BASES[src_mem] + slot * SLOT + 64 * c.size(0, 31)
    dst = BASES[dst_mem] + slot * SLOT + DST_OFFSET + 64 * c.size(0, 31)
    reg: dict[str, int] = {}  # byte values of the 32-byte-unit registers, by register name
    stride_x = stride_y = 1
    if mode == "CONTRACT":
        out_channels = _channels(c, per_atom, 2)
        stride_x, stride_y = c.size(1, 4), c.size(1, 4)
        in_channels = out_channels * stride_x * stride_y
        surfaces = -(-out_channels // per_atom)
        in_line, in_surf = data.strides(c, (in_channels, height, width), ATOM)
        out_line, out_surf = data.strides(c, (out_channels, height * stride_y, width * stride_x), ATOM)
        reg.update(D_DAIN_LINE_STRIDE=in_line, D_DAIN_SURF_STRIDE=in_surf, D_DAOUT_LINE_STRIDE=out_line,
                   D_DAOUT_SURF_STRIDE=out_surf, D_CONTRACT_STRIDE_0=surfaces * in_surf,
                   D_CONTRACT_STRIDE_1=stride_y * out_line)
        src_size = (stride_x * stride_y - 1) * surfaces * in_surf + _span(surfaces, in_surf, height, in_line,
                                                                          width * ATOM)
        dst_size = _span(surfaces, out_surf, height * stride_y, out_line, width * stride_x * ATOM)
    elif mode == "SPLIT":
        in_channels = _channels(c, per_atom, 3)
        surfaces = -(-in_channels // per_atom)
        out_channels = in_channels  # RUBIK-SPLIT-CHANNELS
        in_line, in_surf = data.strides(c, (in_channels, height, width), ATOM)
        row = _round(width * bpe, ATOM)
        out_line, planar = _planar(c, height, row)
        reg.update(D_DAIN_LINE_STRIDE=in_line, D_DAIN_SURF_STRIDE=in_surf, D_DAOUT_LINE_STRIDE=out_line,
                   D_DAOUT_PLANAR_STRIDE=planar)
        src_size = _span(surfaces, in_surf, height, in_line, width * ATOM)
        dst_size = _span(out_channels, planar, height, out_line, row)
    else:  # MERGE
        in_channels = out_channels = _channels(c, per_atom, 3)
        surfaces = -(-in_channels // per_atom)
        row = _round(width * bpe, ATOM)
        in_line, planar = _planar(c, height, row)
        out_line, out_surf = data.strides(c, (in_channels, height, width), ATOM)
        reg.update(D_DAIN_LINE_STRIDE=in_line, D_DAIN_PLANAR_STRIDE=planar, D_DAOUT_LINE_STRIDE=out_line,
                   D_DAOUT_SURF_STRIDE=out_surf)
        src_size = _span(in_channels, planar, height, in_line, row)
        dst_size = _span(surfaces, out_surf, height, out_line, width * ATOM)
    reg.update(D_DAIN_ADDR_LOW=src & 0xFFFFFFFF, D_DAOUT_ADDR_LOW=dst & 0xFFFFFFFF)
    fields = {"RBK.D_MISC_CFG.RUBIK_MODE": mode, "RBK.D_MISC_CFG.IN_PRECISION": precision.upper(),
              "RBK.D_DAIN_RAM_TYPE.DATAIN_RAM_TYPE": RAM[src_mem],
              "RBK.D_DAOUT_RAM_TYPE.DATAOUT_RAM_TYPE": RAM[dst_mem],
              "RBK.D_DATAIN_SIZE_0.DATAIN_WIDTH": width - 1, "RBK.D_DATAIN_SIZE_0.DATAIN_HEIGHT": height - 1,
              "RBK.D_DATAIN_SIZE_1.DATAIN_CHANNEL": in_channels - 1,
              "RBK.D_DATAOUT_SIZE_1.DATAOUT_CHANNEL": out_channels - 1,
              "RBK.D_DAIN_ADDR_HIGH.DAIN_ADDR_HIGH": src >> 32, "RBK.D_DAOUT_ADDR_HIGH.DAOUT_ADDR_HIGH": dst >> 32}
    if mode == "CONTRACT":
        fields["RBK.D_DECONV_STRIDE.DECONV_X_STRIDE"] = stride_x - 1
        fields["RBK.D_DECONV_STRIDE.DECONV_Y_STRIDE"] = stride_y - 1
    for name, value in reg.items():  # the field holds bits [31:5] of the byte value
        fields[f"RBK.{name}.{name[2:]}"] = value >> 5
    rng: np.random.Generator = c.data()
    images = [Image(src_mem, src, random_bytes(rng, src_size), "src"), Image(dst_mem, dst, random_bytes(rng, dst_size),
                                                                              "dst")]
    choices = {"mode": mode, "precision": precision, "shape": (in_channels, height, width),
               "out_channels": out_channels, "stride": (stride_x, stride_y), "memories": (src_mem, dst_mem)}
    return Layer("rubik", fields, images, [Region(dst_mem, dst, dst_size, "dst")], "RUBIK", ("RBK",), choices)
