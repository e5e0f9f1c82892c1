"""The convolution pipeline CDMA -> CBUF -> CSC -> CMAC_A/B -> CACC, handing its result to SDP on the fly.

run(ctx, upstream=None) -> UnitResult with

* output: the CACC result cube, shape (K, H, W) for one batch or (N, K, H, W) when BATCH_NUMBER > 0,
  H/W/K = CACC.D_DATAOUT_SIZE (+1). dtype np.int32 for int8/int16 pipelines (after cc_out_trunc and
  int32 saturation) and np.float32 for the fp16 pipeline (the fp32 values CACC delivers). Only the K
  real kernels are in the cube: SDP pads the last output atom itself.
* status: ("CACC", "D_OUT_SATURATION") always; fp16 layers add CDMA's NaN/INF input counters.
* tolerance (fp16 only): what the CC DC / CC Winograd thresholds need (precision-preservation), a
  golden.units.base.Tolerance with max_exp shaped as output.

Stages: config (register decode), limits (programming-guide Limitation checks), cdma (memory -> CBUF),
csc (windows and padding), cmac (sums), cacc (truncate/saturate), tolerance (fp16 thresholds), and the
modes image, winograd, compression; deconv is a composite of several hardware layers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from golden.errors import NotModelledError
from golden.units.base import LayerContext, Tolerance, UnitResult
from golden.units.conv import cacc, cbuf, cdma, cmac, csc, limits
from golden.units.conv.config import ConvConfig, read_config
from golden.units.conv.geometry import Geometry, direct_geometry

#: in-memory-data-formats "FP16 Supporting / Infinity": INF inputs of the convolution pipeline.
INF_DC = 65536.0
INF_WINOGRAD = 65504.0


@dataclass
class ConvResult:
    output: np.ndarray  # (N, K, Ho, Wo)
    saturated: int = 0
    status: dict = field(default_factory=dict)
    tolerance: Tolerance | None = None


def convolve(cube: np.ndarray, weights: np.ndarray, geometry: Geometry, precision: str, pad_value: int,
             clip_truncate: int = 0, *, nan_to_zero: bool = False, tolerance_scale: float = 1.0) -> ConvResult:
    """A direct convolution through CSC, CMAC and CACC.

    cube (N, C, H, W) and weights (K, C, R, S): int64 values for int8/int16, np.float16 for fp16.
    """
    pad = csc.pad_element(pad_value, precision)
    if precision != "fp16":
        taps = weights.shape[1] * weights.shape[2] * weights.shape[3]
        x_max = max(cmac.magnitude(cube), abs(pad))
        dtype = cmac.gemm_dtype(x_max, cmac.magnitude(weights), taps)
        plane = cube if dtype == np.int64 else cube.astype(dtype)
        sums = cmac.multiply_accumulate(csc.direct_windows(plane, pad, geometry), weights, dtype)
        out, count = cacc.deliver_int(sums, clip_truncate)
        return ConvResult(out, count)
    data, nan_d, inf_d = cdma.fp16_operands(cube, nan_to_zero, INF_DC)
    wts, nan_w, inf_w = cdma.fp16_operands(weights, nan_to_zero, INF_DC)
    pad_wide = cdma.fp16_operands(np.asarray([pad]), nan_to_zero, INF_DC)[0][0]
    sums = cmac.multiply_accumulate(csc.direct_windows(data, pad_wide, geometry), wts)
    out = cacc.deliver_fp(sums)
    from golden.units.conv import tolerance
    tol = tolerance.dc_tolerance(cube, pad, geometry, weights, tolerance_scale)
    status = {("CDMA", "D_NAN_INPUT_DATA_NUM"): nan_d, ("CDMA", "D_NAN_INPUT_WEIGHT_NUM"): nan_w,
              ("CDMA", "D_INF_INPUT_DATA_NUM"): inf_d, ("CDMA", "D_INF_INPUT_WEIGHT_NUM"): inf_w}
    return ConvResult(out, 0, status, tol)


def run_layer(ctx: LayerContext, cfg: ConvConfig) -> ConvResult:
    """One hardware layer, output (N, K, Ho, Wo)."""
    if (cfg.data_reuse or cfg.weight_reuse) and (cfg.image or cfg.winograd):
        raise NotModelledError("data/weight reuse is modelled for direct convolution of feature data only",
                               unit="CDMA")
    if cfg.image:
        from golden.units.conv import image
        return image.run_layer(ctx, cfg)
    if cfg.winograd:
        from golden.units.conv import winograd
        return winograd.convolve(cdma.load_feature(ctx, cfg), cdma.load_winograd_weights(ctx, cfg),
                                 cfg.precision, cfg.pad_value,
                                 (cfg.pad_top, cfg.pad_left, cfg.pad_bottom, cfg.pad_right),
                                 (cfg.stride_y, cfg.stride_x), (cfg.csc_out_height, cfg.csc_out_width),
                                 cfg.pra_truncate, cfg.clip_truncate, cfg.nan_to_zero)
    buffer = getattr(ctx, "cbuf", None)
    cube = cbuf.input_cube(buffer, cfg, lambda: cdma.load_feature(ctx, cfg))
    weights = cbuf.weights(buffer, cfg, lambda: cdma.load_weights(ctx, cfg))
    result = convolve(cube, weights, direct_geometry(cfg), cfg.precision, cfg.csc_pad_value, cfg.clip_truncate,
                      nan_to_zero=cfg.nan_to_zero)
    cbuf.release(buffer, cfg, cube, weights)
    return result


def run(ctx: LayerContext, upstream: np.ndarray | None = None) -> UnitResult:
    cfg: ConvConfig = read_config(ctx.regs)
    limits.check(ctx.profile, cfg)
    result = run_layer(ctx, cfg)
    single = cfg.cacc_batches == 1
    out = result.output[0] if single else result.output
    tol = result.tolerance
    if tol is not None and single:
        tol = tol.first()
    status = {("CACC", "D_OUT_SATURATION"): result.saturated, **result.status}
    return UnitResult(status=status, output=out, tolerance=tol)
