"""The convolution pipeline CDMA -> CBUF -> CSC -> CMAC_A/B -> CACC, handing its result to SDP on the fly.

run(ctx, upstream=None) -> UnitResult with

* output: the CACC result cube, shape (K, H, W) for one batch or (N, K, H, W) when BATCH_NUMBER > 0,
  H/W/K = CACC.D_DATAOUT_SIZE (+1). dtype np.int32 for int8/int16 pipelines (after cc_out_trunc and
  int32 saturation) and np.float32 for the fp16 pipeline (the fp32 values CACC delivers).
* status: {("CACC", "D_OUT_SATURATION"): saturated element count}.
* tolerance (fp16 only): per-element absolute tolerance of the CC DC / CC Winograd thresholds
  (precision-preservation), same shape as output.

Stages: config (register decode), limits (programming-guide Limitation checks), cdma (memory -> CBUF),
csc (windows and padding), cmac (sums), cacc (truncate/saturate), tolerance (fp16 thresholds),
winograd, image, compression, deconv (composite of several hardware layers).
"""

from __future__ import annotations

import numpy as np

from golden.units.base import LayerContext, UnitResult
from golden.units.conv import cacc, cdma, cmac, csc, limits
from golden.units.conv.config import ConvConfig, read_config
from golden.units.conv.geometry import Geometry, direct_geometry


def _shape_output(cube: np.ndarray, batches: int) -> np.ndarray:
    return cube if batches > 1 else cube[0]


def compute(cube: np.ndarray, weights: np.ndarray, geometry: Geometry, precision: str, pad_value: int,
            clip_truncate: int):
    """Sums of a direct convolution through CACC: (N, K, Ho, Wo) output, saturation count, sums."""
    pad = csc.pad_element(pad_value, precision)
    win = csc.direct_windows(cube, pad, geometry)
    sums = cmac.multiply_accumulate(win, weights)
    if precision == "fp16":
        return cacc.deliver_fp(sums), 0, win
    out, count = cacc.deliver_int(sums, clip_truncate)
    return out, count, win


def run(ctx: LayerContext, upstream: np.ndarray | None = None) -> UnitResult:
    cfg: ConvConfig = read_config(ctx.regs)
    limits.check(ctx.profile, cfg)
    if cfg.image:
        from golden.units.conv import image
        cube, weights, geometry = image.prepare(ctx, cfg)
    else:
        cube = cdma.load_feature(ctx, cfg)
        weights = cdma.load_weights(ctx, cfg)
        geometry = direct_geometry(cfg)
    if cfg.winograd:
        from golden.units.conv import winograd
        out, count, tolerance = winograd.run_layer(cube, weights, cfg)
    else:
        out, count, win = compute(cube, weights, geometry, cfg.precision, cfg.csc_pad_value,
                                  cfg.clip_truncate)
        tolerance = None
        if cfg.precision == "fp16":
            from golden.units.conv import tolerance as tol
            tolerance = tol.dc_tolerance(win, weights, out)
    out = _shape_output(out, cfg.cacc_batches)
    if tolerance is not None:
        tolerance = _shape_output(tolerance, cfg.cacc_batches)
    return UnitResult(status={("CACC", "D_OUT_SATURATION"): count}, output=out, tolerance=tolerance)
