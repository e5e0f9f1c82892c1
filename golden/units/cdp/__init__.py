"""CDP (channel data processor) golden model: local response normalization across channels.

Sources: programming guide "CDP programming", "Limitation/CDP" and "Limitation/LUT";
precision-preservation (cdp_in_cvt, cdp_lut_cvt, cdp_out_cvt, the CDP FP16 threshold, saturation
counters); in-memory-data-formats Table 31 and the INF table. Bit widths beyond the documents follow
nvdla/hw cmod/cdp and cmod/hls/cdp_libs (see lrn.py, lut.py).

CDP_RDMA reads the (C, H, W) cube, CDP writes the result; whole atoms are processed and written, the
padding channels of the last atom included. The LUT contents come from the S_LUT_ACCESS writes that
the driver replays into LayerContext.luts["CDP"] (golden/units/lut.py: LutRam, ctx_tables).
"""

from __future__ import annotations

import numpy as np

from golden.numerics import fp
from golden.rules import Facts
from golden.units.base import MEMORIES, LayerContext, Surface, Tolerance, UnitResult
from golden.units.cdp.config import decode, validate
from golden.units.cdp.lrn import lrn_fp16, lrn_int
from golden.units.declaration import Unit
from golden.units.lut import ctx_tables
from golden.units.pdp.surface_io import read_cube, write_cube

__all__ = ["run", "UNIT"]

_STATUS = ("D_OUT_SATURATION", "D_NAN_INPUT_NUM", "D_INF_INPUT_NUM", "D_NAN_OUTPUT_NUM", "D_PERF_LUT_UFLOW",
           "D_PERF_LUT_OFLOW", "D_PERF_LUT_HYBRID", "D_PERF_LUT_LE_HIT", "D_PERF_LUT_LO_HIT")


def run(ctx: LayerContext, upstream: np.ndarray | None = None) -> UnitResult:
    regs = ctx.regs
    cfg = decode(regs)
    ctx.profile.require("CDP", "CDP layer", fields=("CDP.D_OP_ENABLE.OP_EN",))
    ctx.profile.require_precision(cfg.precision, "CDP layer", fields=("CDP.D_DATA_FORMAT.INPUT_DATA_TYPE",))
    validate(cfg, Facts(regs, ctx.profile))
    if cfg.src[3] or cfg.dst[3]:
        ctx.profile.require("SECONDARY_MEMIF", "CDP surface in CV-SRAM",
                            fields=("CDP_RDMA.D_SRC_DMA_CFG.SRC_RAM_TYPE", "CDP.D_DST_DMA_CFG.DST_RAM_TYPE"))
    tables = ctx_tables(ctx, "CDP")
    atom = ctx.profile.memory_atomic_size
    base, line, surface, cvsram = cfg.src
    cube = read_cube(ctx.memory.select(cvsram), base, cfg.shape, cfg.precision, line, surface, atom, "CDP_RDMA")
    status = dict.fromkeys(_STATUS, 0)
    tolerance = None
    if cfg.precision == "fp16":
        bits = cube.view(np.uint16)
        status["D_NAN_INPUT_NUM"] = fp.nan_count(bits)
        status["D_INF_INPUT_NUM"] = int(np.count_nonzero((bits & 0x7FFF) == 0x7C00))
        if cfg.nan_to_zero:
            bits, _ = fp.flush_nan(bits)
        out, counters, max_value = lrn_fp16(bits, cfg.shape[0], cfg, tables)
        status["D_NAN_OUTPUT_NUM"] = fp.nan_count(out)
        tolerance = Tolerance("CDP", max_value=max_value)
    else:
        out, counters = lrn_int(cube, cfg.shape[0], cfg, tables)
    status.update(counters)
    base, line, surface, cvsram = cfg.dst
    written = write_cube(ctx.memory.select(cvsram), base, out, cfg.precision, line, surface, atom, "CDP")
    return UnitResult(status={("CDP", name): value for name, value in status.items()},
                      surfaces=[written], tolerance=tolerance)


def inputs(regs, profile) -> list[Surface]:
    """The source cube CDP_RDMA reads."""
    cfg = decode(regs)
    base, line, surface, cvsram = cfg.src
    return [Surface(MEMORIES[cvsram], base, cfg.shape, cfg.precision, line, surface, profile.memory_atomic_size,
                    name="CDP_RDMA source")]


UNIT = Unit("cdp", "CDP", ("CDP_RDMA", "CDP"), run, decode, validate,
            rules=("golden.units.cdp.rules", "golden.units.dma_rules"), interrupts={"CDP": ("CDP",)},
            switch="CDP", luts=("CDP",), inputs=inputs, prefixes=("cdp",), hdl=("cdp",), lut_port=("CDP",),
            thresholds={"CDP": "window"})
