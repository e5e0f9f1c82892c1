"""PDP (planar data processor) golden model: max / min / average pooling.

Sources: programming guide "PDP programming" and "Limitation/PDP"; in-memory-data-formats Table 32 and
the INF table; precision-preservation (PDP padding value, PDP FP16 threshold). Bit behaviour beyond the
documents follows nvdla/hw cmod/pdp (see pooling.py).

The input is the SDP output cube on the fly (`upstream`, (C, H, W) with C at least CUBE_IN_CHANNEL) or
the cube PDP_RDMA reads from memory; the output is written to the PDP destination surface. Whole atoms
are processed, so the padding channels of the last atom are pooled and written too.
"""

from __future__ import annotations

import numpy as np

from golden import provenance
from golden.errors import ConfigurationError
from golden.formats.feature import element_bits
from golden.memory import MemorySystem
from golden.numerics import fp
from golden.numerics.integer import as_signed
from golden.rules import Facts
from golden.units.base import MEMORIES, LayerContext, Surface, Tolerance, UnitResult
from golden.units.declaration import Unit
from golden.units.pdp.config import PAD_VALUE_BITS, decode, validate
from golden.units.pdp.pooling import pool_fp16_average, pool_fp16_extreme, pool_int, window_max
from golden.units.pdp.surface_io import padded_channels, read_cube, write_cube

__all__ = ["run", "UNIT"]


def _input(ctx: LayerContext, cfg, upstream) -> np.ndarray:
    atom = ctx.profile.memory_atomic_size
    channels = padded_channels(cfg.channels, cfg.precision, atom)
    if not cfg.on_the_fly:
        base, line, surface, cvsram = cfg.src
        return read_cube(ctx.memory.select(cvsram), base, (cfg.channels, cfg.in_height, cfg.in_width),
                         cfg.precision, line, surface, atom)
    if upstream is None:
        raise ConfigurationError("on-the-fly PDP needs the SDP output cube (run SDP first)",
                                 fields=("PDP.D_OPERATION_MODE_CFG.FLYING_MODE",),
                                 rule="programming-guide: PDP programming (On-the-fly processing)")
    cube = np.asarray(upstream)
    if cube.shape[1:] != (cfg.in_height, cfg.in_width) or cube.shape[0] < cfg.channels:
        raise ConfigurationError(f"SDP output cube {cube.shape} does not match the PDP input "
                                 f"{cfg.channels}x{cfg.in_height}x{cfg.in_width}",
                                 fields=("PDP.D_DATA_CUBE_IN_WIDTH", "PDP.D_DATA_CUBE_IN_HEIGHT",
                                         "PDP.D_DATA_CUBE_IN_CHANNEL"),
                                 rule="programming-guide: PDP programming (On-the-fly processing)")
    cube = cube[:channels]
    if cube.shape[0] < channels:
        cube = np.concatenate([cube, np.zeros((channels - cube.shape[0], *cube.shape[1:]), cube.dtype)])
    return cube


def _pool_fp16(cfg, bits: np.ndarray, status: dict) -> tuple[np.ndarray, Tolerance | None]:
    if not cfg.on_the_fly:
        status["D_INF_INPUT_NUM"] = int(np.count_nonzero((bits & 0x7FFF) == 0x7C00))
        status["D_NAN_INPUT_NUM"] = fp.nan_count(bits)
        if cfg.nan_to_zero:
            bits, _ = fp.flush_nan(bits)
    if cfg.method != "average":
        return pool_fp16_extreme(bits, cfg.method, cfg.kernel, cfg.stride, cfg.pads), None
    out, max_value = pool_fp16_average(bits, cfg.kernel, cfg.stride, cfg.pads, cfg.recip, cfg.pad_values)
    return out, Tolerance("PDP", max_value=max_value)


def run(ctx: LayerContext, upstream: np.ndarray | None = None) -> UnitResult:
    regs = ctx.regs
    cfg = decode(regs)
    ctx.profile.require("PDP", "PDP layer", fields=("PDP.D_OP_ENABLE.OP_EN",))
    ctx.profile.require_precision(cfg.precision, "PDP layer", fields=("PDP.D_DATA_FORMAT.INPUT_DATA",))
    validate(cfg, Facts(regs, ctx.profile))
    if cfg.dst[3] or (not cfg.on_the_fly and cfg.src[3]):
        ctx.profile.require("SECONDARY_MEMIF", "PDP surface in CV-SRAM",
                            fields=("PDP.D_DST_RAM_CFG.DST_RAM_TYPE", "PDP_RDMA.D_SRC_RAM_CFG.SRC_RAM_TYPE"))
    cube = _input(ctx, cfg, upstream)
    status = {"D_INF_INPUT_NUM": 0, "D_NAN_INPUT_NUM": 0, "D_NAN_OUTPUT_NUM": 0}
    tolerance: Tolerance | None = None
    bits: np.ndarray | int
    if cfg.precision == "fp16":
        cube = np.ascontiguousarray(cube)
        bits = cube.view(np.uint16) if cube.dtype.itemsize == 2 else cube.astype(np.uint16)
        out, tolerance = _pool_fp16(cfg, bits, status)
        status["D_NAN_OUTPUT_NUM"] = fp.nan_count(out)
    else:
        bits = element_bits(cfg.precision)
        pads = tuple(as_signed(v, n) for v, n in zip(cfg.pad_values, PAD_VALUE_BITS[cfg.precision], strict=True))
        out = pool_int(cube, cfg.method, cfg.kernel, cfg.stride, cfg.pads, pads, cfg.recip, bits)
    base, line, surface, cvsram = cfg.dst
    written = write_cube(ctx.memory.select(cvsram), base, out, cfg.precision, line, surface,
                         ctx.profile.memory_atomic_size, "PDP")
    return UnitResult(status={("PDP", name): value for name, value in status.items()},
                      surfaces=[written], tolerance=tolerance)


# -- what max/min pooling passes on of its input's FP16 threshold (the declaration's passed_on; input_patterns
# says where the input comes from) -----------------------------------------------------------------------------
def follows_input(ctx: LayerContext) -> bool:
    """Whether the input's threshold matters to the output's: fp16 pooling."""
    return decode(ctx.regs).precision == "fp16"


def input_patterns(ctx: LayerContext):
    """A reader of the input cube's fp16 patterns from a given memory (golden/provenance.py follows elements);
    None when the input's threshold does not matter or comes on the fly."""
    cfg = decode(ctx.regs)
    if not follows_input(ctx) or cfg.on_the_fly:
        return None

    def read(memory: MemorySystem) -> np.ndarray:
        return np.ascontiguousarray(_input(LayerContext(ctx.profile, ctx.regs, memory), cfg, None)).view(np.uint16)
    return read


def passed_on(ctx: LayerContext, tolerance: Tolerance | None, own: Tolerance | None) -> Tolerance | None:
    """The threshold of the pooled output, from the input cube's `tolerance` and the pooling's `own` (the PDP
    average threshold): max/min pooling passes on the largest of each window's, average pooling its own plus
    that (an average moves by no more than the largest error among its inputs)."""
    cfg = decode(ctx.regs)
    if tolerance is None or not follows_input(ctx):
        return own
    shape = (tolerance.shape[-3], cfg.in_height, cfg.in_width)
    pooled = pooled_tolerance(tolerance, shape, cfg.kernel, cfg.stride, cfg.pads)
    if cfg.method != "average":
        return pooled
    if own is None or not provenance.per_exponent(tolerance.rule):
        return own
    return Tolerance(own.rule, max_value=own.max_value, carried=pooled)


def pooled_tolerance(tolerance: Tolerance, shape: tuple[int, int, int], kernel, stride, pads) -> Tolerance:
    """The threshold max/min pooling passes on: each output the largest of its window's inputs' (padding
    contributes none). `shape` is the pooled input cube's (C, H, W)."""
    def pool(values, fill):
        return window_max(provenance.fit(values, shape, fill), kernel, stride, pads, fill)

    if provenance.per_exponent(tolerance.rule):
        return Tolerance(tolerance.rule, max_exp=pool(tolerance.max_exp, provenance.NO_EXPONENT),
                         taps=pool(np.asarray(tolerance.taps, np.float64), 0.0),
                         scale=pool(np.asarray(tolerance.scale, np.float64), 0.0))
    assert tolerance.max_value is not None, "a pooling or window threshold has max_value"
    return Tolerance(tolerance.rule, max_value=pool(np.abs(tolerance.max_value), 0.0))


def inputs(regs, profile) -> list[Surface]:
    """The source cube PDP_RDMA reads (offline PDP)."""
    cfg = decode(regs)
    base, line, surface, cvsram = cfg.src
    return [Surface(MEMORIES[cvsram], base, (cfg.channels, cfg.in_height, cfg.in_width), cfg.precision,
                    line, surface, profile.memory_atomic_size, name="PDP_RDMA source")]


def launch(device, unit: Unit, armed: dict[str, int], found: list) -> list:
    """Offline PDP (PDP_RDMA + PDP); on the fly it waits for an SDP layer with OUTPUT_DST=PDP, which runs it."""
    if not ("PDP" in armed or "PDP_RDMA" in armed) or any("PDP" in groups for groups, _ in found):
        return []
    if device.consumer_field("PDP", "D_OPERATION_MODE_CFG", "FLYING_MODE"):  # OFF_FLYING
        return [(["PDP_RDMA", "PDP"], ["PDP"])]
    return [(["PDP", "SDP with OUTPUT_DST=PDP"], [])]


UNIT = Unit("pdp", "PDP", ("PDP_RDMA", "PDP"), run, decode, validate,
            rules=("golden.units.pdp.rules", "golden.units.dma_rules"), interrupts={"PDP": ("PDP",)},
            switch="PDP", pipelines=launch, inputs=inputs, prefixes=("pdp",), hdl=("pdp",),
            thresholds={"PDP": "window"}, passed_on=passed_on, input_patterns=input_patterns)
