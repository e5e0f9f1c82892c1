"""The convolution pipeline CDMA -> CBUF -> CSC -> CMAC_A/B -> CACC, handing its result to SDP on the fly.

run(ctx, upstream=None) -> UnitResult with

* output: the CACC result cube, shape (K, H, W) for one batch or (N, K, H, W) when BATCH_NUMBER > 0,
  H/W/K = CACC.D_DATAOUT_SIZE (+1). dtype np.int32 for int8/int16 pipelines (after cc_out_trunc and
  int32 saturation) and np.float32 for the fp16 pipeline (the fp32 values CACC delivers). Only the K
  real kernels are in the cube: SDP pads the last output atom itself.
* status: ("CACC", "D_OUT_SATURATION") always; fp16 layers add CDMA's NaN/INF input counters.
* tolerance (fp16 only): what the CC DC / CC Winograd thresholds need (precision-preservation), a
  golden.units.base.Tolerance with max_exp shaped as output.

Stages: config (register decode), limits (programming-guide Limitation checks), cdma (memory -> CBUF,
weight decompression), csc (windows and padding), cmac (sums), cacc (truncate/saturate), tolerance (fp16
thresholds); direct (a direct convolution through CSC, CMAC and CACC) and the modes image and winograd;
deconv is a composite of several hardware layers.
"""

from __future__ import annotations

import numpy as np

from golden.errors import NotModelledError
from golden.rules import Facts
from golden.units.base import LayerContext, UnitResult
from golden.units.conv import cbuf, cdma, image, limits, winograd
from golden.units.conv.config import ConvConfig, decode
from golden.units.conv.direct import ConvResult, convolve
from golden.units.conv.geometry import direct_geometry
from golden.units.declaration import Unit
from golden.units.sdp.launch import conv_launch


def run_layer(ctx: LayerContext, cfg: ConvConfig) -> ConvResult:
    """One hardware layer, output (N, K, Ho, Wo)."""
    if (cfg.data_reuse or cfg.weight_reuse) and (cfg.image or cfg.winograd):
        raise NotModelledError("data/weight reuse is modelled for direct convolution of feature data only",
                               unit="CDMA")
    buffer = getattr(ctx, "cbuf", None)
    if cfg.image:
        result = image.run_layer(ctx, cfg)
    elif cfg.winograd:
        lanes = winograd.padded_channels(cfg.channels, cfg.in_precision)  # whole atoms: their weights exist too
        result = winograd.convolve(cdma.load_feature(ctx, cfg, lanes), cdma.load_winograd_weights(ctx, cfg),
                                   cfg.precision, cfg.pad_value,
                                   (cfg.pad_top, cfg.pad_left, cfg.pad_bottom, cfg.pad_right),
                                   (cfg.stride_y, cfg.stride_x), (cfg.csc_out_height, cfg.csc_out_width),
                                   cfg.pra_truncate, cfg.clip_truncate, cfg.nan_to_zero)
    else:
        cube = cbuf.input_cube(buffer, cfg, lambda: cdma.load_feature(ctx, cfg))
        weights = cbuf.weights(buffer, cfg, lambda: cdma.load_weights(ctx, cfg))
        result = convolve(cube, weights, direct_geometry(cfg), cfg.precision, cfg.csc_pad_value, cfg.clip_truncate,
                          nan_to_zero=cfg.nan_to_zero)
        cbuf.release(buffer, cfg, cube, weights)
        return result
    cbuf.release(buffer, cfg)
    return result


def run(ctx: LayerContext, upstream: np.ndarray | None = None) -> UnitResult:
    cfg: ConvConfig = decode(ctx.regs)
    buffer = getattr(ctx, "cbuf", None)
    limits.validate(cfg, Facts(ctx.regs, ctx.profile, None if buffer is None else buffer.left))
    result = run_layer(ctx, cfg)
    single = cfg.cacc_batches == 1
    out = result.output[0] if single else result.output
    tol = result.tolerance
    if tol is not None and single:
        tol = tol.first()
    status = {("CACC", "D_OUT_SATURATION"): result.saturated, **result.status}
    return UnitResult(status=status, output=out, tolerance=tol)


UNIT = Unit("conv", "CONV", ("CDMA", "CSC", "CMAC_A", "CMAC_B", "CACC"), run, decode, limits.validate,
            rules=("golden.units.conv.rules", "golden.units.dma_rules"),
            interrupts={"CDMA": ("CDMA_DAT", "CDMA_WT"), "CACC": ("CACC",)}, output="CACC", pipelines=conv_launch,
            prefixes=("conv", "dc", "img", "cc", "wino"), hdl=("cdma", "csc", "cmac", "cacc"), feeds=("SDP",),
            enables=("CACC", "CMAC_A", "CMAC_B", "CSC", "CDMA"),
            thresholds={"CC DC": "convolution", "CC Winograd": "convolution"}, keeps=cbuf.ConvBuffer)
