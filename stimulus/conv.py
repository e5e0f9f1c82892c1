"""Random direct-convolution layers on the fly into SDP, built with golden/units/conv/program.py.

The convolution registers and memory images are program.direct_layer's (cube and weights laid out, every
CDMA/CSC/CMAC/CACC field derived as the programming guide's formulas give it, weights optionally
compressed); this module draws the layer (sizes against the profile's atoms and CBUF, kernel, stride,
dilation, padding, batches, CACC clip), moves it into its address slot, and adds the SDP that writes the
result (on the fly, X1/X2/Y bypassed, output convertor with or without a shift). Not yet: multi-batch, Winograd,
image input, deconvolution, reuse, SDP operands from memory, PDP after SDP.
"""

from __future__ import annotations

import numpy as np

from golden.config import Profile
from golden.errors import ConfigurationError
from golden.memory import MemorySystem
from golden.units.conv import program
from stimulus import data
from stimulus.layer import Image, Layer, Region

SLOT = 0x1000000
DST_OFFSET = 0xC00000
#: Address fields program.direct_layer sets from its fixed bases, moved by the slot offset.
ADDRESS_FIELDS = ("CDMA.D_DAIN_ADDR_LOW_0.DATAIN_ADDR_LOW_0", "CDMA.D_WEIGHT_ADDR_LOW.WEIGHT_ADDR_LOW",
                  "CDMA.D_WMB_ADDR_LOW.WMB_ADDR_LOW", "CDMA.D_WGS_ADDR_LOW.WGS_ADDR_LOW",
                  "CDMA.D_DAIN_ADDR_LOW_1.DATAIN_ADDR_LOW_1")


def _fields(ctx) -> dict:
    """The written registers of a LayerContext as "UNIT.REGISTER.FIELD" values."""
    fields = {}
    for (unit, name), value in ctx.regs.written().items():
        reg = ctx.regs.register(unit, name)
        for fld in reg.fields:
            fields[f"{unit}.{name}.{fld.name}"] = fld.decode(value)
    return fields


def _sdp_fields(choose, precision: str, shape: tuple, dst: int, line: int, surface: int) -> dict:
    channels, height, width = shape
    mode = precision.upper()
    cvt = choose.choice(("identity", "shift"))
    fields = {
        "SDP.D_DATA_CUBE_WIDTH.WIDTH": width - 1, "SDP.D_DATA_CUBE_HEIGHT.HEIGHT": height - 1,
        "SDP.D_DATA_CUBE_CHANNEL.CHANNEL": channels - 1,
        "SDP.D_FEATURE_MODE_CFG.FLYING_MODE": "ON", "SDP.D_FEATURE_MODE_CFG.OUTPUT_DST": "MEM",
        "SDP.D_FEATURE_MODE_CFG.WINOGRAD": "OFF", "SDP.D_FEATURE_MODE_CFG.BATCH_NUMBER": 0,
        "SDP.D_DATA_FORMAT.PROC_PRECISION": mode, "SDP.D_DATA_FORMAT.OUT_PRECISION": mode,
        "SDP.D_DST_BASE_ADDR_LOW.DST_BASE_ADDR_LOW": dst & 0xFFFFFFFF,
        "SDP.D_DST_BASE_ADDR_HIGH.DST_BASE_ADDR_HIGH": dst >> 32,
        "SDP.D_DST_LINE_STRIDE.DST_LINE_STRIDE": line, "SDP.D_DST_SURFACE_STRIDE.DST_SURFACE_STRIDE": surface,
        "SDP.D_DST_DMA_CFG.DST_RAM_TYPE": "MC",
        "SDP.D_DP_BS_CFG.BS_BYPASS": 1, "SDP.D_DP_BN_CFG.BN_BYPASS": 1,
        "SDP.D_DP_EW_CFG.EW_BYPASS": 1, "SDP.D_DP_EW_CFG.EW_LUT_BYPASS": 1,
        "SDP.D_CVT_OFFSET.CVT_OFFSET": 0, "SDP.D_CVT_SCALE.CVT_SCALE": 1,
        "SDP.D_CVT_SHIFT.CVT_SHIFT": choose.size(1, 20) if cvt == "shift" and precision != "fp16" else 0,
    }
    return fields


def _values(rng: np.random.Generator, precision: str, shape: tuple) -> np.ndarray:
    if precision == "fp16":
        return rng.normal(0.0, 1.0, shape).astype(np.float16)
    return data.values(rng, precision, shape)


def _axis(choose, kernel: int, dilation: int, stride: int, max_out: int = 6) -> tuple[int, int, int]:
    """(input size, padding before, output size) of one axis."""
    span = (kernel - 1) * dilation + 1
    out = choose.size(1, max_out)
    before, after = choose.size(0, min(span - 1, 7)), choose.size(0, min(span - 1, 7))
    size = (out - 1) * stride + span - before - after
    if size < 1:
        before, after = 0, 0
        size = (out - 1) * stride + span
    return size, before, out


def random_layer(choose, profile: Profile, slot: int = 0, attempts: int = 20) -> Layer:
    """One legal direct convolution (one batch) into SDP."""
    precisions = sorted(profile.feature_types & profile.weight_types)
    for _ in range(attempts):
        try:
            return _draw(choose, profile, slot, choose.choice(precisions))
        except ConfigurationError:
            continue  # a draw the CBUF cannot hold: draw again (program.direct_layer names why)
    raise ConfigurationError(f"no convolution of {attempts} drawn fits profile {profile.name}'s CBUF",
                             fields=("CDMA.D_BANK.DATA_BANK",), rule="programming-guide: CBUF allocation")


def _draw(choose, profile: Profile, slot: int, precision: str) -> Layer:
    atom_c, atom_k = profile.mac_atomic_c, profile.mac_atomic_k
    c = choose
    channels = c.size(1, 2 * atom_c + atom_c // 2)
    kernels = c.size(1, 2 * atom_k + atom_k // 2)
    rows, cols = c.size(1, 5), c.size(1, 5)
    dilation = (c.size(1, 3) if rows > 1 else 1, c.size(1, 3) if cols > 1 else 1)
    stride = (c.size(1, 4), c.size(1, 4))
    # the output size first, then the input that gives it with padding below the dilated kernel on both
    # sides (programming-guide: Limitation/Convolution/General)
    (height, top, out_h), (width, left, out_w) = (_axis(c, rows, dilation[0], stride[0]),
                                                  _axis(c, cols, dilation[1], stride[1]))
    pad = (top, left)
    batches = 1
    compressed = profile.weight_compression and c.flag(0.3)
    rng = c.data()
    shape = (batches, channels, height, width) if batches > 1 else (channels, height, width)
    cube = _values(rng, precision, shape)
    weights = _values(rng, precision, (kernels, channels, rows, cols))
    spec = program.DirectLayer(precision=precision, stride=stride, dilation=dilation, pad=pad,
                               pad_value=c.integer(-8, 8) if precision != "fp16" else 0,
                               clip_truncate=c.size(0, 16) if precision != "fp16" else 0, compressed=compressed,
                               out_hw=(out_h, out_w))
    ctx = program.direct_layer(profile, cube, weights, spec, MemorySystem.for_profile(profile))
    offset = slot * SLOT
    fields = _fields(ctx)
    for key in ADDRESS_FIELDS:
        if key in fields:
            fields[key] += offset
    images = [Image("pri_mem", address + offset, bytes(chunk), f"conv{n}")
              for n, (address, chunk) in enumerate(ctx.memory.pri.written_runs())]
    out_w = fields["CACC.D_DATAOUT_SIZE_0.DATAOUT_WIDTH"] + 1
    out_h = fields["CACC.D_DATAOUT_SIZE_0.DATAOUT_HEIGHT"] + 1
    out_shape = (kernels, out_h, out_w)
    atom = profile.memory_atomic_size
    line, surface = data.strides(c, out_shape, atom)
    dst = program.DATA_BASE + offset + DST_OFFSET + atom * c.size(0, 15)
    fields.update(_sdp_fields(c, precision, out_shape, dst, line, surface))
    size = data.span(out_shape, precision, line, surface, atom)
    images.append(Image("pri_mem", dst, rng.integers(0, 256, size, dtype=np.uint8).tobytes(), "dst"))
    choices = {"precision": precision, "kernel": (rows, cols), "stride": stride, "dilation": dilation, "pad": pad,
               "shape": (channels, height, width), "kernels": kernels, "compressed": compressed}
    return Layer("conv", fields, images, [Region("pri_mem", dst, size, "dst")], "SDP",
                 ("SDP", "CACC", "CMAC_A", "CMAC_B", "CSC", "CDMA"), choices)
