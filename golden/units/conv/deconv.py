"""Deconvolution as the programming guide describes it ("Deconvolution is a software feature"): a composite
of stride_x * stride_y convolution hardware layers and one Rubik contract layer, run end to end on the
golden models (conv -> SDP on the fly -> memory, then RBK contract).

Phase I: the kernel is split into stride_x * stride_y sets of ceil(R/stride_y) x ceil(S/stride_x) taps
(golden.formats.weight.split_deconv_kernels; set (py, px) holds taps py + stride_y * r', px + stride_x * s').
A transposed convolution correlates each set flipped, over the input padded by R'-1 / S'-1 on every side
(PL, PT from the network; PR, PB by the output-size rule), with stride 1: W' = W + S' - 1, H' = H + R' - 1.
SDP writes each phase cube (BS/BN/EW bypassed, output convertor 1:1) to cube k = py * stride_x + px at
CONTRACT_STRIDE_0 * k. Phase II: Rubik contract (programming guide: Rubik programming / Contract) with the
guide's CONTRACT_STRIDE_0/1 interleaves them into the (K, H' * stride_y, W' * stride_x) result.
"""

from __future__ import annotations

import numpy as np

from golden.config import Profile
from golden.formats import feature, weight
from golden.formats.feature import PRECISION_CODES
from golden.memory import MemorySystem
from golden.regs.regmap import RegisterMap
from golden.regs.values import RegisterValues
from golden.units import conv, model
from golden.units.base import LayerContext
from golden.units.conv.program import DirectLayer, direct_layer

ATOM = 32
PHASE_BASE = 0x9000_0000
OUT_BASE = 0xA000_0000


def _sdp_passthrough(ctx: LayerContext, shape, precision: str, base: int, line: int, surface: int):
    """Registers of an on-the-fly SDP that writes the CACC cube unchanged (saturated to `precision`)."""
    channels, height, width = shape
    mode = PRECISION_CODES[precision]
    cube = {"D_DATA_CUBE_WIDTH.WIDTH": width - 1, "D_DATA_CUBE_HEIGHT.HEIGHT": height - 1,
            "D_DATA_CUBE_CHANNEL.CHANNEL": channels - 1}
    fields = {f"SDP.{k}": v for k, v in cube.items()} | {f"SDP_RDMA.{k}": v for k, v in cube.items()}
    fields |= {
        "SDP.D_FEATURE_MODE_CFG.FLYING_MODE": 1, "SDP.D_DST_DMA_CFG.DST_RAM_TYPE": 1,
        "SDP.D_DST_BASE_ADDR_LOW.DST_BASE_ADDR_LOW": base & 0xFFFFFFFF,
        "SDP.D_DST_BASE_ADDR_HIGH.DST_BASE_ADDR_HIGH": base >> 32,
        "SDP.D_DST_LINE_STRIDE.DST_LINE_STRIDE": line, "SDP.D_DST_SURFACE_STRIDE.DST_SURFACE_STRIDE": surface,
        "SDP.D_DP_BS_CFG.BS_BYPASS": 1, "SDP.D_DP_BN_CFG.BN_BYPASS": 1, "SDP.D_DP_EW_CFG.EW_BYPASS": 1,
        "SDP.D_DATA_FORMAT.PROC_PRECISION": mode, "SDP.D_DATA_FORMAT.OUT_PRECISION": mode,
        "SDP.D_CVT_SCALE.CVT_SCALE": 1,
        "SDP_RDMA.D_FEATURE_MODE_CFG.FLYING_MODE": 1, "SDP_RDMA.D_FEATURE_MODE_CFG.PROC_PRECISION": mode,
        "SDP_RDMA.D_FEATURE_MODE_CFG.OUT_PRECISION": mode, "SDP_RDMA.D_FEATURE_MODE_CFG.IN_PRECISION": mode,
        "SDP_RDMA.D_BRDMA_CFG.BRDMA_DISABLE": 1, "SDP_RDMA.D_NRDMA_CFG.NRDMA_DISABLE": 1,
        "SDP_RDMA.D_ERDMA_CFG.ERDMA_DISABLE": 1,
    }
    extra = RegisterValues.encode(ctx.regs.regmap, fields)
    return ctx.regs.with_values(extra.written())


def rubik_registers(regmap: RegisterMap, precision: str, phase_shape, stride, strides,
                    bases: tuple[int, int] = (PHASE_BASE, OUT_BASE)) -> RegisterValues:
    """Phase II's Rubik contract: the phase cubes at bases[0] (CONTRACT_STRIDE_0 apart) into bases[1]."""
    kernels, height, width = phase_shape
    sy, sx = stride
    in_line, in_surf, contract0, out_line, out_surf = strides
    values = RegisterValues.encode(regmap, {
        "RBK.D_MISC_CFG.RUBIK_MODE": 0, "RBK.D_MISC_CFG.IN_PRECISION": PRECISION_CODES[precision],
        "RBK.D_DAIN_RAM_TYPE.DATAIN_RAM_TYPE": 1, "RBK.D_DAOUT_RAM_TYPE.DATAOUT_RAM_TYPE": 1,
        "RBK.D_DATAIN_SIZE_0.DATAIN_WIDTH": width - 1, "RBK.D_DATAIN_SIZE_0.DATAIN_HEIGHT": height - 1,
        "RBK.D_DATAIN_SIZE_1.DATAIN_CHANNEL": kernels * sx * sy - 1,
        "RBK.D_DATAOUT_SIZE_1.DATAOUT_CHANNEL": kernels - 1,
        "RBK.D_DECONV_STRIDE.DECONV_X_STRIDE": sx - 1, "RBK.D_DECONV_STRIDE.DECONV_Y_STRIDE": sy - 1,
    })
    # addresses and strides are byte values in bits [31:5] (32-byte aligned)
    raw = {"D_DAIN_ADDR_LOW": bases[0], "D_DAOUT_ADDR_LOW": bases[1], "D_DAIN_LINE_STRIDE": in_line,
           "D_DAIN_SURF_STRIDE": in_surf, "D_DAOUT_LINE_STRIDE": out_line, "D_DAOUT_SURF_STRIDE": out_surf,
           "D_CONTRACT_STRIDE_0": contract0, "D_CONTRACT_STRIDE_1": sy * out_line}
    return values.with_values({("RBK", name): value for name, value in raw.items()})


def deconvolve(profile: Profile, cube: np.ndarray, weights: np.ndarray, stride: tuple[int, int],
               precision: str = "int8", clip_truncate: int = 0,
               memory: MemorySystem | None = None) -> tuple[np.ndarray, MemorySystem]:
    """Transposed convolution of (C, H, W) by (K, C, R, S) with stride (sy, sx) on the hardware models.

    Returns the (K, H' * sy, W' * sx) cube read back from memory (element values of `precision`) and the
    memory. Needs a profile with Rubik (nv_full).
    """
    profile.require("RUBIK", "deconvolution's Rubik contract phase", fields=("RBK.D_MISC_CFG.RUBIK_MODE",))
    sy, sx = stride
    memory = memory or MemorySystem()
    sets = weight.split_deconv_kernels(weights, sx, sy)
    kernels = weights.shape[0]
    rows, cols = sets[0].shape[2:]
    height, width = cube.shape[1] + rows - 1, cube.shape[2] + cols - 1
    surfaces = -(-kernels * feature.element_bytes(precision) // ATOM)
    in_line, in_surf = width * ATOM, width * height * ATOM
    contract0 = surfaces * in_surf  # the guide: Ceil((DATAOUT_CHANNEL+1) * BPE / 32) * DAIN_SURF_STRIDE
    layer = DirectLayer(precision=precision, pad=(rows - 1, cols - 1), clip_truncate=clip_truncate,
                        out_hw=(height, width))
    for index, kernel_set in enumerate(sets):
        flipped = np.ascontiguousarray(kernel_set[:, :, ::-1, ::-1])
        ctx = direct_layer(profile, cube, flipped, layer, memory)
        result = conv.run(ctx)
        assert result.output is not None, "CONV hands its output on to SDP"
        ctx.regs = _sdp_passthrough(ctx, result.output.shape, precision, PHASE_BASE + index * contract0,
                                    in_line, in_surf)
        model("SDP")(ctx, upstream=result.output)
    out_line, out_surf = width * sx * ATOM, width * sx * height * sy * ATOM
    regs = rubik_registers(RegisterMap.for_profile(profile), precision, (kernels, height, width), stride,
                            (in_line, in_surf, contract0, out_line, out_surf))
    model("RUBIK")(LayerContext(profile, regs, memory))
    shape = (kernels, height * sy, width * sx)
    span = feature.feature_span(shape, precision, out_line, out_surf, ATOM)
    window = memory.pri.read(OUT_BASE, span, unwritten="allow")
    return feature.unpack_feature(window, 0, shape, precision, out_line, out_surf, ATOM), memory
