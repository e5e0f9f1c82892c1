"""SDP: the single data processor (X1 bias, X2 batch norm, Y element-wise + LUT, output convertor).

    run(ctx, upstream=None) -> UnitResult

Offline the input cube comes from memory through SDP_RDMA; in flying mode `upstream` is the
convolution pipeline's (N, C, H, W) int32 / fp32 cube (fp32 as float32 values or uint32 patterns).
The output goes to memory, or is returned as UnitResult.output when D_FEATURE_MODE_CFG.OUTPUT_DST is
PDP (an (N, C, H, W) int64 cube for integer outputs, uint16 fp16 patterns for FP16).  In compare
(EQL) mode nothing is written and D_STATUS.STATUS_UNEQUAL reports a difference.

Precision-preservation "SDP" demands bit-identical FP16 results; see datapath.py for the evidence and
the open points.  LUT contents come from LayerContext.luts["SDP"] (golden.units.lut).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from golden import limits
from golden.formats import feature
from golden.numerics import fp
from golden.rules import Facts
from golden.units import lut
from golden.units.base import MEMORIES, Surface, Tolerance, UnitResult
from golden.units.declaration import Unit
from golden.units.dma import write_feature
from golden.units.sdp import datapath, rdma
from golden.units.sdp.checks import validate
from golden.units.sdp.config import SdpConfig, decode
from golden.units.sdp.launch import sdp_launch
from golden.units.sdp.rdma import Operands

__all__ = ["run", "compute", "decode", "validate", "SdpConfig", "UNIT"]


def run(ctx, upstream: np.ndarray | None = None) -> UnitResult:
    cfg = decode(ctx.regs)
    validate(cfg, Facts(ctx.regs, ctx.profile))
    tables = lut.ctx_tables(ctx, "SDP") if cfg.y.lut_active else None
    atom = ctx.profile.memory_atomic_size
    channels = rdma.padded_channels(cfg, atom)
    limits.check_working_set(f"SDP layer {cfg.width}x{cfg.height}x{cfg.channel} {cfg.proc_precision}",
                             working_set(cfg, channels), ctx.memory.select(cfg.dst.cvsram).limit)
    status: dict[tuple[str, str], int] = {}
    x = rdma.read_input(ctx, cfg, channels, upstream)
    operands = {k: rdma.read_operands(ctx, cfg, dma, channels) for k, dma in cfg.dmas.items()}
    out, counters, saturated = compute(cfg, x, operands, tables, status)
    if counters is not None and cfg.perf_lut:
        status.update({("SDP", name): value for name, value in counters.items()})
    if cfg.perf_sat:
        status["SDP", "D_PERF_OUT_SATURATION"] = saturated
    if cfg.y.eql:
        status["SDP", "D_STATUS"] = int(np.any(np.asarray(out) != 0))
        return UnitResult(status=status)
    if cfg.out_precision == "fp16" and cfg.perf_nan_out:
        status["SDP", "D_STATUS_NAN_OUTPUT_NUM"] = fp.nan_count(out, "fp16")
    if cfg.output_pdp:
        return UnitResult(status=status, output=out if cfg.batch > 1 else out[0])
    return UnitResult(status=status, surfaces=[_write(ctx, cfg, out, atom)])


#: Bytes the golden model holds per element of the (channel-padded) cube while it runs an SDP layer: the input
#: as int64 (fp32 for FP16), a stage's temporaries, the joined output and its packed bytes. Measured peaks
#: (docs/guides/limits.md, "Memory"): about 28 for the integer pipes, 13 for FP16; operands read per
#: element add their own arrays, so this is the least a layer needs.
WORKING_BYTES_PER_ELEMENT = {"int8": 28, "int16": 28, "fp16": 13}


def working_set(cfg: SdpConfig, channels: int) -> int:
    """Bytes the layer needs at least while it runs (WORKING_BYTES_PER_ELEMENT)."""
    return cfg.batch * channels * cfg.height * cfg.width * WORKING_BYTES_PER_ELEMENT[cfg.proc_precision]


def compute(cfg: SdpConfig, x, operands, tables, status):
    """The datapath from the read input and operands to (output, LUT counters, saturation count)."""
    if cfg.proc_precision == "fp16":
        return _by_channel_slices(partial(_run_fp, cfg, tables=tables), _fp_input(cfg, x, status), operands)
    return _by_channel_slices(partial(_run_int, cfg, tables=tables), x, operands)


def _run_int(cfg: SdpConfig, x, operands: dict[str, Operands], tables):
    for stage, key, where in ((cfg.x1, "B", "sdp.x1"), (cfg.x2, "N", "sdp.x2")):
        x = datapath.int_x(x, stage, *operands[key], where=where)
    x, counters = datapath.int_y(x, cfg.y, *operands["E"], cfg.lut, tables, cfg.proc_precision)
    if cfg.y.eql:
        return x, counters, 0
    out, saturated = datapath.int_output(x, cfg.cvt, cfg.out_precision)
    return out, counters, saturated


def _fp_input(cfg: SdpConfig, x, status):
    """The fp16 pipe's fp32 input; the RDMA NaN/INF counters are taken on fp16 data read from memory."""
    if x.dtype == np.uint16:
        if cfg.perf_nan_in:
            status["SDP_RDMA", "D_STATUS_NAN_INPUT_NUM"] = fp.nan_count(x, "fp16")
            status["SDP_RDMA", "D_STATUS_INF_INPUT_NUM"] = int(np.count_nonzero((x & 0x7FFF) == 0x7C00))
        return datapath.fp16_operand(x, cfg.nan_to_zero)
    if cfg.nan_to_zero:
        return np.where(np.isnan(x), np.float32(0), x).astype(np.float32)
    return x


def _run_fp(cfg: SdpConfig, x, operands: dict[str, Operands], tables):
    for stage, key in ((cfg.x1, "B"), (cfg.x2, "N")):
        x = datapath.fp_x(x, stage, *operands[key], cfg.nan_to_zero)
    x, counters = datapath.fp_y(x, cfg.y, *operands["E"], cfg.nan_to_zero, cfg.lut, tables)
    if cfg.y.eql:
        return x.view(np.uint32) & 0xFFFF, counters, 0
    out, saturated = datapath.fp_output(x, cfg.out_precision)
    return out, counters, saturated


#: Elements of one slice of the datapath, so that its temporaries stay in a core's L2 cache.
SLICE_ELEMENTS = 1 << 16


def _by_channel_slices(run, x, operands):
    """run(x, operands) -> (out, counters, saturated) over slices of channels, results joined.

    Every SDP stage works element by element, and its memory operands are (N, C, 1|H, 1|W) arrays,
    so a slice of channels of the input takes the same slice of each operand; the counters add up.
    """
    channels = x.shape[1]
    step = max(1, SLICE_ELEMENTS // max(1, x[:, :1].size))
    if step >= channels:
        return run(x, operands)
    outs, totals, saturated = [], None, 0
    for first in range(0, channels, step):
        part = slice(first, first + step)
        sliced = {key: tuple(None if v is None else v[:, part] for v in pair) for key, pair in operands.items()}
        out, counters, count = run(x[:, part], sliced)
        outs.append(out)
        saturated += count
        if counters is not None:
            totals = dict(counters) if totals is None else {k: totals[k] + v for k, v in counters.items()}
    return np.concatenate(outs, axis=1), totals, saturated


def _write(ctx, cfg: SdpConfig, out, atom: int) -> Surface:
    precision = cfg.out_precision
    memory = ctx.memory.select(cfg.dst.cvsram)
    dst = cfg.dst
    batch_stride = dst.batch_stride if cfg.batch > 1 else None
    cube = out.astype(feature.element_dtype(precision)) if precision != "fp16" else out.astype(np.uint16)
    cube = cube if cfg.batch > 1 else cube[0]
    write_feature(memory, dst.base, cube, precision, dst.line_stride, dst.surface_stride, atom, batch_stride,
                  name="SDP")
    return Surface(memory=memory.name, base=dst.base, shape=tuple(out.shape[-3:]) if cfg.batch == 1
                   else tuple(out.shape), precision=precision, line_stride=dst.line_stride,
                   surface_stride=dst.surface_stride, atom_bytes=atom,
                   batch_stride=dst.batch_stride if cfg.batch > 1 else 0, name="SDP output")


# -- what SDP does to the FP16 threshold of a convolution it processes on the fly (golden/hardware.py) ----------
def follows_input(ctx) -> bool:
    """fp16 stages on the fly after a convolution: their multipliers scale the convolution's error."""
    cfg = decode(ctx.regs)
    return cfg.proc_precision == "fp16" and cfg.flying


def passed_on(ctx, tolerance: Tolerance | None, own: Tolerance | None) -> Tolerance | None:
    """The convolution's threshold, its `scale` (precision-preservation: "the factor applied to the convolution
    result before it is compared") times the largest factor SDP's fp16 stages can apply to an input error,
    element by element: |operand| for each multiplier (PReLU: at least 1), 1 for ALU, ReLU and conversion."""
    if tolerance is None or not follows_input(ctx) or tolerance.max_exp is None:
        return own if own is not None else tolerance
    cfg = decode(ctx.regs)
    channels = rdma.padded_channels(cfg, ctx.profile.memory_atomic_size)
    operands = {k: rdma.read_operands(ctx, cfg, dma, channels) for k, dma in cfg.dmas.items()}
    factor: np.float64 | np.ndarray = np.float64(1.0)
    for stage, key in ((cfg.x1, "B"), (cfg.x2, "N")):
        if not stage.bypass and not stage.mul_bypass:
            operand = datapath.fp_x_operand(operands[key][1], stage.mul_operand, cfg.nan_to_zero)
            factor = factor * _magnitude(operand, stage.mul_prelu)
    y = cfg.y
    if not y.bypass and not y.mul_bypass:
        operand = datapath.fp_ew_operand(operands["E"][1], y.mul_src, y.mul_operand, cfg.nan_to_zero)
        factor = factor * _magnitude(operand, y.mul_prelu)
    factor = np.asarray(factor)  # a number, or (N, C', H or 1, W or 1) like the operands
    if factor.ndim == 4 and np.ndim(tolerance.max_exp) == 3:
        factor = factor[0]
    return Tolerance(tolerance.rule, max_exp=tolerance.max_exp, taps=tolerance.taps,
                     scale=np.asarray(tolerance.scale) * factor)


def _magnitude(operand, prelu: bool) -> np.ndarray:
    with np.errstate(invalid="ignore"):  # a signalling NaN operand is quieted by the cast (golden.numerics.fp)
        size = np.abs(np.asarray(operand, np.float64))
    size = np.where(np.isfinite(size), size, 0.0)  # NaN/INF elements are compared exactly anyway
    return np.maximum(size, 1.0) if prelu else size


def inputs(regs, profile) -> list[Surface]:
    """The source cube SDP_RDMA reads (none on the fly)."""
    cfg = decode(regs)
    if cfg.flying:
        return []
    shape = (cfg.rdma["channel"], cfg.rdma["height"], cfg.rdma["width"])
    return [Surface(MEMORIES[cfg.src.cvsram], cfg.src.base, shape, cfg.in_precision, cfg.src.line_stride,
                    cfg.src.surface_stride, profile.memory_atomic_size, name="SDP_RDMA source")]


UNIT = Unit("sdp", "SDP", ("SDP_RDMA", "SDP"), run, decode, validate,
            rules=("golden.units.sdp.rules", "golden.units.sdp.lut_rules", "golden.units.dma_rules"),
            interrupts={"SDP": ("SDP",)}, luts=("SDP",), pipelines=sdp_launch, inputs=inputs,
            prefixes=("sdp", "random"), hdl=("sdp",), feeds=("PDP",), passed_on=passed_on)
