"""PDP 3x3 stride-2 max / average pooling and CDP LRN-5 throughput on a 112x112x64 int8 cube, each as a
ratio to a plain numpy sliding-window reference of the same operation timed in the same run.

Run: python benchmarks/bench_pdp_cdp.py [--repeat R]
"model" is the unit's whole run() (read the cube from the memory image, compute, write it back);
"kernel" is the compute step alone. ratio = reference seconds / model seconds (>= 1.0: no slower).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.timing import best_time  # noqa: E402
from golden.config import get_profile  # noqa: E402
from golden.formats.feature import pack_feature, packed_strides  # noqa: E402
from golden.memory import MemorySystem  # noqa: E402
from golden.regs.regmap import RegisterMap  # noqa: E402
from golden.regs.values import RegisterValues  # noqa: E402
from golden.units import cdp, pdp  # noqa: E402
from golden.units.base import LayerContext  # noqa: E402
from golden.units.cdp.config import decode as cdp_decode  # noqa: E402
from golden.units.cdp.lrn import lrn_int  # noqa: E402
from golden.units.lut import LutTables  # noqa: E402
from golden.units.pdp.pooling import pool_int  # noqa: E402

PROFILE = get_profile("nv_large")
REGMAP = RegisterMap.for_layout("master")
SRC, DST, ATOM = 0x8000_0000, 0x9000_0000, 32
C, H, W = 64, 112, 112
PADS = (1, 1, 0, 0)  # (PL+W+PR-3) % 2 == 0 -> 56x56 out
RECIP = 0x10000 // 3


def memory_with(cube) -> MemorySystem:
    memory = MemorySystem()
    line, surface = packed_strides(cube.shape, "int8", ATOM)
    memory.pri.write(SRC, pack_feature(cube, "int8", line, surface, ATOM))
    return memory


def pdp_regs(method: int) -> RegisterValues:
    line, surface = packed_strides((C, H, W), "int8", ATOM)
    out_line, out_surface = packed_strides((C, 56, 56), "int8", ATOM)
    fields = {
        "PDP.D_DATA_CUBE_IN_WIDTH.CUBE_IN_WIDTH": W - 1, "PDP.D_DATA_CUBE_IN_HEIGHT.CUBE_IN_HEIGHT": H - 1,
        "PDP.D_DATA_CUBE_IN_CHANNEL.CUBE_IN_CHANNEL": C - 1, "PDP.D_DATA_CUBE_OUT_WIDTH.CUBE_OUT_WIDTH": 55,
        "PDP.D_DATA_CUBE_OUT_HEIGHT.CUBE_OUT_HEIGHT": 55, "PDP.D_DATA_CUBE_OUT_CHANNEL.CUBE_OUT_CHANNEL": C - 1,
        "PDP.D_OPERATION_MODE_CFG.POOLING_METHOD": method, "PDP.D_OPERATION_MODE_CFG.FLYING_MODE": 1,
        "PDP.D_POOLING_KERNEL_CFG.KERNEL_WIDTH": 2, "PDP.D_POOLING_KERNEL_CFG.KERNEL_HEIGHT": 2,
        "PDP.D_POOLING_KERNEL_CFG.KERNEL_STRIDE_WIDTH": 1, "PDP.D_POOLING_KERNEL_CFG.KERNEL_STRIDE_HEIGHT": 1,
        "PDP.D_POOLING_PADDING_CFG.PAD_LEFT": 1, "PDP.D_POOLING_PADDING_CFG.PAD_TOP": 1,
        "PDP.D_RECIP_KERNEL_WIDTH.RECIP_KERNEL_WIDTH": RECIP, "PDP.D_RECIP_KERNEL_HEIGHT.RECIP_KERNEL_HEIGHT": RECIP,
        "PDP.D_DST_BASE_ADDR_LOW.DST_BASE_ADDR_LOW": DST, "PDP.D_DST_LINE_STRIDE.DST_LINE_STRIDE": out_line,
        "PDP.D_DST_SURFACE_STRIDE.DST_SURFACE_STRIDE": out_surface, "PDP.D_DST_RAM_CFG.DST_RAM_TYPE": 1,
        "PDP_RDMA.D_DATA_CUBE_IN_WIDTH.CUBE_IN_WIDTH": W - 1, "PDP_RDMA.D_DATA_CUBE_IN_HEIGHT.CUBE_IN_HEIGHT": H - 1,
        "PDP_RDMA.D_DATA_CUBE_IN_CHANNEL.CUBE_IN_CHANNEL": C - 1, "PDP_RDMA.D_FLYING_MODE.FLYING_MODE": 1,
        "PDP_RDMA.D_SRC_BASE_ADDR_LOW.SRC_BASE_ADDR_LOW": SRC, "PDP_RDMA.D_SRC_LINE_STRIDE.SRC_LINE_STRIDE": line,
        "PDP_RDMA.D_SRC_SURFACE_STRIDE.SRC_SURFACE_STRIDE": surface, "PDP_RDMA.D_SRC_RAM_CFG.SRC_RAM_TYPE": 1,
    }
    return RegisterValues.encode(REGMAP, fields)


def cdp_regs() -> RegisterValues:
    line, surface = packed_strides((C, H, W), "int8", ATOM)
    fields = {
        "CDP_RDMA.D_DATA_CUBE_WIDTH.WIDTH": W - 1, "CDP_RDMA.D_DATA_CUBE_HEIGHT.HEIGHT": H - 1,
        "CDP_RDMA.D_DATA_CUBE_CHANNEL.CHANNEL": C - 1, "CDP_RDMA.D_SRC_BASE_ADDR_LOW.SRC_BASE_ADDR_LOW": SRC,
        "CDP_RDMA.D_SRC_LINE_STRIDE.SRC_LINE_STRIDE": line, "CDP_RDMA.D_SRC_SURFACE_STRIDE.SRC_SURFACE_STRIDE": surface,
        "CDP_RDMA.D_SRC_DMA_CFG.SRC_RAM_TYPE": 1, "CDP.D_DST_BASE_ADDR_LOW.DST_BASE_ADDR_LOW": DST,
        "CDP.D_DST_LINE_STRIDE.DST_LINE_STRIDE": line, "CDP.D_DST_SURFACE_STRIDE.DST_SURFACE_STRIDE": surface,
        "CDP.D_DST_DMA_CFG.DST_RAM_TYPE": 1, "CDP.D_LRN_CFG.NORMALZ_LEN": 1,
        "CDP.D_DATA_FORMAT.INPUT_DATA_TYPE": 0, "CDP_RDMA.D_DATA_FORMAT.INPUT_DATA": 0,
        "CDP.D_DATIN_SCALE.DATIN_SCALE": 1, "CDP.D_DATOUT_SCALE.DATOUT_SCALE": 1,
        "CDP.D_DATOUT_SHIFTER.DATOUT_SHIFTER": 9,
        "CDP.S_LUT_CFG.LUT_LE_FUNCTION": 1, "CDP.S_LUT_INFO.LUT_LE_INDEX_SELECT": 10,
        "CDP.S_LUT_INFO.LUT_LO_INDEX_SELECT": 8,
        "CDP.S_LUT_LE_END_LOW.LUT_LE_END_LOW": 1 << 16, "CDP.S_LUT_LO_END_LOW.LUT_LO_END_LOW": 1 << 16,
    }
    return RegisterValues.encode(REGMAP, fields)


def numpy_pool(cube, method):
    fill = np.iinfo(np.int32).min if method == "max" else 0  # max ignores the padding, average adds 0
    padded = np.pad(cube.astype(np.int32), ((0, 0), (1, 0), (1, 0)), constant_values=fill)
    windows = sliding_window_view(padded, (3, 3), axis=(1, 2))[:, ::2, ::2]
    if method == "max":
        return windows.max(axis=(-2, -1))
    total = windows.sum(axis=(-2, -1)).astype(np.int64)
    return _round_shift(_round_shift(total * RECIP, 16) * RECIP, 16).astype(np.int8)


def _round_shift(v, shift):
    """Plain numpy rounding half away from zero of v / 2**shift."""
    return v if shift == 0 else np.sign(v) * ((np.abs(v) + (1 << (shift - 1))) >> shift)


def _numpy_table(s, entries, start, select, depth):
    t = s - start
    idx = np.clip(t >> select, 0, depth - 2)
    frac = (t & ((1 << select) - 1)) << (16 - select)
    hit = entries[idx] + _round_shift((entries[idx + 1] - entries[idx]) * frac, 16)
    under, over = t <= 0, (t >> select) >= depth - 1
    return np.where(under, entries[0], np.where(over, entries[-1], hit)), under, over


def numpy_lrn(cube, le, lo):
    """The same LRN-5 as the CDP registers of cdp_regs(), in plain numpy (sliding window over channels)."""
    x = np.clip(_round_shift(cube.astype(np.int64) * 1, 0), -256, 255)
    squares = np.pad(x * x, ((2, 2), (0, 0), (0, 0)))
    sums = sliding_window_view(squares, 5, axis=0).sum(axis=-1)
    le_y, le_under, le_over = _numpy_table(sums, le, 0, 10, 65)
    lo_y, lo_under, lo_over = _numpy_table(sums, lo, 0, 8, 257)
    le_hit, lo_hit = ~(le_under | le_over), ~(lo_under | lo_over)
    y = np.clip(np.where(lo_hit & ~le_hit, lo_y, le_y), -32768, 32767)
    return np.clip(_round_shift(y * x, 9), -128, 127).astype(np.int8)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    cube = rng.integers(-128, 128, (C, H, W)).astype(np.int8)
    table = (20000 / (1 + np.arange(65) / 16) ** 0.75).astype(np.int64)
    lo_table = (20000 / (1 + np.arange(257) / 64) ** 0.75).astype(np.int64)
    tables = LutTables(table.astype(np.uint16), lo_table.astype(np.uint16))
    memory = memory_with(cube)

    def pdp_run(method):
        ctx = LayerContext(PROFILE, pdp_regs(method), memory)
        return lambda: pdp.run(ctx)

    cdp_ctx = LayerContext(PROFILE, cdp_regs(), memory)
    cdp_ctx.luts = {"CDP": tables}
    cdp_cfg = cdp_decode(cdp_ctx.regs)
    cases = [
        ("PDP 3x3/2 max", lambda: numpy_pool(cube, "max"), pdp_run(1),
         lambda: pool_int(cube, "max", (3, 3), (2, 2), PADS)),
        ("PDP 3x3/2 average", lambda: numpy_pool(cube, "average"), pdp_run(0),
         lambda: pool_int(cube, "average", (3, 3), (2, 2), PADS, recip=(RECIP, RECIP))),
        ("CDP LRN-5", lambda: numpy_lrn(cube, table, lo_table), lambda: cdp.run(cdp_ctx),
         lambda: lrn_int(cube, C, cdp_cfg, tables)),
    ]
    same = {
        "PDP max": np.array_equal(pool_int(cube, "max", (3, 3), (2, 2), PADS), numpy_pool(cube, "max")),
        "PDP average": np.array_equal(pool_int(cube, "average", (3, 3), (2, 2), PADS, recip=(RECIP, RECIP)),
                                      numpy_pool(cube, "average")),
        "CDP LRN-5": np.array_equal(lrn_int(cube, C, cdp_cfg, tables)[0], numpy_lrn(cube, table, lo_table)),
    }
    print("model output equals the numpy reference:", ", ".join(f"{k} {v}" for k, v in same.items()))
    print(f"cube {C}x{H}x{W} int8, best of {args.repeat}, numpy {np.__version__}")
    print(f"{'operation':20s} {'numpy s':>9s} {'model s':>9s} {'kernel s':>9s} {'ratio model':>12s} "
          f"{'ratio kernel':>13s}")
    for name, reference, model, kernel in cases:
        t_ref, t_model, t_kernel = (best_time(fn, args.repeat) for fn in (reference, model, kernel))
        print(f"{name:20s} {t_ref:9.4f} {t_model:9.4f} {t_kernel:9.4f} {t_ref / t_model:12.2f} "
              f"{t_ref / t_kernel:13.2f}")


if __name__ == "__main__":
    main()
