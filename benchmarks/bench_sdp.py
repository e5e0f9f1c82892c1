"""SDP throughput: an fp16 BS + BN + EW layer over 2**20 elements (64 x 128 x 128), as a ratio to a numpy
float32 multiply-add of the same size timed in the same run (goal >= 0.2).

Run: python benchmarks/bench_sdp.py [--repeat R]
"layer" is the unit's whole run() (read the cube and operands from the memory image, X1 bias (ALU, per
channel), X2 batch norm (ALU + MUL, per channel), Y element-wise sum (per element, fp16 convertor) and
scale (register), output convertor, write back); "datapath" is the compute from the read input to the
fp16 output.  ratio = numpy multiply-add seconds / SDP seconds.  An int8 layer is printed too.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.timing import best_time  # noqa: E402
from golden.config import get_profile  # noqa: E402
from golden.formats import auxiliary, feature  # noqa: E402
from golden.memory import MemorySystem  # noqa: E402
from golden.numerics import fp  # noqa: E402
from golden.regs.regmap import RegisterMap  # noqa: E402
from golden.regs.values import RegisterValues  # noqa: E402
from golden.units import sdp  # noqa: E402
from golden.units.base import LayerContext  # noqa: E402
from golden.units.sdp import rdma  # noqa: E402

PROFILE = get_profile("nv_full")
ATOM = PROFILE.memory_atomic_size
C, H, W = 64, 128, 128
SRC, DST = 0x8000_0000, 0x9000_0000
OPS = {"B": 0xA000_0000, "N": 0xA100_0000, "E": 0xA200_0000}
CODE = {"int8": 0, "int16": 1, "fp16": 2}


def layer(precision: str) -> LayerContext:
    rng = np.random.default_rng(0)
    line, surface = feature.packed_strides((C, H, W), precision, ATOM)
    fields = {
        "SDP.D_DATA_CUBE_WIDTH.WIDTH": W - 1, "SDP.D_DATA_CUBE_HEIGHT.HEIGHT": H - 1,
        "SDP.D_DATA_CUBE_CHANNEL.CHANNEL": C - 1, "SDP_RDMA.D_DATA_CUBE_WIDTH.WIDTH": W - 1,
        "SDP_RDMA.D_DATA_CUBE_HEIGHT.HEIGHT": H - 1, "SDP_RDMA.D_DATA_CUBE_CHANNEL.CHANNEL": C - 1,
        "SDP_RDMA.D_SRC_BASE_ADDR_LOW.SRC_BASE_ADDR_LOW": SRC, "SDP_RDMA.D_SRC_LINE_STRIDE.SRC_LINE_STRIDE": line,
        "SDP_RDMA.D_SRC_SURFACE_STRIDE.SRC_SURFACE_STRIDE": surface, "SDP_RDMA.D_SRC_DMA_CFG.SRC_RAM_TYPE": 1,
        "SDP_RDMA.D_FEATURE_MODE_CFG.IN_PRECISION": CODE[precision],
        "SDP_RDMA.D_FEATURE_MODE_CFG.PROC_PRECISION": CODE[precision],
        "SDP_RDMA.D_FEATURE_MODE_CFG.OUT_PRECISION": CODE[precision],
        "SDP.D_DATA_FORMAT.PROC_PRECISION": CODE[precision], "SDP.D_DATA_FORMAT.OUT_PRECISION": CODE[precision],
        "SDP.D_DST_BASE_ADDR_LOW.DST_BASE_ADDR_LOW": DST, "SDP.D_DST_LINE_STRIDE.DST_LINE_STRIDE": line,
        "SDP.D_DST_SURFACE_STRIDE.DST_SURFACE_STRIDE": surface, "SDP.D_DST_DMA_CFG.DST_RAM_TYPE": 1,
        "SDP.D_CVT_SCALE.CVT_SCALE": 1,
        # X1: bias (ALU SUM, per channel), ReLU
        "SDP.D_DP_BS_CFG.BS_BYPASS": 0, "SDP.D_DP_BS_CFG.BS_ALU_BYPASS": 0, "SDP.D_DP_BS_CFG.BS_ALU_ALGO": 2,
        "SDP.D_DP_BS_CFG.BS_MUL_BYPASS": 1, "SDP.D_DP_BS_CFG.BS_MUL_PRELU": 0, "SDP.D_DP_BS_CFG.BS_RELU_BYPASS": 0,
        "SDP.D_DP_BS_ALU_CFG.BS_ALU_SRC": 1, "SDP.D_DP_BS_MUL_CFG.BS_MUL_SHIFT_VALUE": 0,
        # X2: batch norm (ALU + MUL, per channel)
        "SDP.D_DP_BN_CFG.BN_BYPASS": 0, "SDP.D_DP_BN_CFG.BN_ALU_BYPASS": 0, "SDP.D_DP_BN_CFG.BN_ALU_ALGO": 2,
        "SDP.D_DP_BN_CFG.BN_MUL_BYPASS": 0, "SDP.D_DP_BN_CFG.BN_MUL_PRELU": 0, "SDP.D_DP_BN_CFG.BN_RELU_BYPASS": 1,
        "SDP.D_DP_BN_ALU_CFG.BN_ALU_SRC": 1, "SDP.D_DP_BN_MUL_CFG.BN_MUL_SRC": 1,
        "SDP.D_DP_BN_MUL_CFG.BN_MUL_SHIFT_VALUE": 6 if precision != "fp16" else 0,
        # Y: element-wise sum (per element, through its convertor) then scale by a register operand
        "SDP.D_DP_EW_CFG.EW_BYPASS": 0, "SDP.D_DP_EW_CFG.EW_ALU_BYPASS": 0, "SDP.D_DP_EW_CFG.EW_ALU_ALGO": 2,
        "SDP.D_DP_EW_CFG.EW_MUL_BYPASS": 0, "SDP.D_DP_EW_CFG.EW_MUL_PRELU": 0, "SDP.D_DP_EW_CFG.EW_LUT_BYPASS": 1,
        "SDP.D_DP_EW_ALU_CFG.EW_ALU_SRC": 1, "SDP.D_DP_EW_ALU_CFG.EW_ALU_CVT_BYPASS": 0,
        "SDP.D_DP_EW_ALU_CVT_SCALE_VALUE.EW_ALU_CVT_SCALE": 1, "SDP.D_DP_EW_MUL_CFG.EW_MUL_SRC": 0,
        "SDP.D_DP_EW_MUL_SRC_VALUE.EW_MUL_OPERAND": int(np.float32(0.75).view(np.uint32)) if precision == "fp16"
        else 3, "SDP.D_DP_EW_TRUNCATE_VALUE.EW_TRUNCATE": 0 if precision == "fp16" else 2,
    }
    memory = MemorySystem()
    dtype = feature.element_dtype(precision)
    if precision == "fp16":
        cube = rng.standard_normal((C, H, W)).astype(np.float16)
    else:
        cube = rng.integers(-128, 128, (C, H, W)).astype(dtype)
    memory.pri.write(SRC, feature.pack_feature(cube, precision, line, surface, ATOM))
    for letter, name, use, mode, shape in (("B", "BS", "ALU", "PER_KERNEL", (C,)),
                                           ("N", "BN", "BOTH", "PER_KERNEL", (C, 2)),
                                           ("E", "EW", "ALU", "PER_ELEMENT", (C, H, W))):
        per_atom = auxiliary.bytes_per_atom(precision, use, "TWO_BYTE", ATOM)
        fields.update({
            f"SDP_RDMA.D_{letter}RDMA_CFG.{letter}RDMA_DISABLE": 0,
            f"SDP_RDMA.D_{letter}RDMA_CFG.{letter}RDMA_DATA_USE": {"MUL": 0, "ALU": 1, "BOTH": 2}[use],
            f"SDP_RDMA.D_{letter}RDMA_CFG.{letter}RDMA_DATA_SIZE": 1,
            f"SDP_RDMA.D_{letter}RDMA_CFG.{letter}RDMA_DATA_MODE": int(mode == "PER_ELEMENT"),
            f"SDP_RDMA.D_{letter}RDMA_CFG.{letter}RDMA_RAM_TYPE": 1,
            f"SDP_RDMA.D_{name}_BASE_ADDR_LOW.{name}_BASE_ADDR_LOW": OPS[letter],
            f"SDP_RDMA.D_{name}_LINE_STRIDE.{name}_LINE_STRIDE": W * per_atom,
            f"SDP_RDMA.D_{name}_SURFACE_STRIDE.{name}_SURFACE_STRIDE": W * H * per_atom,
        })
        values = (rng.standard_normal(shape).astype(np.float16) if precision == "fp16"
                  else rng.integers(-1000, 1000, shape).astype(np.int16))
        memory.pri.write(OPS[letter], auxiliary.pack_aux(values, precision, use, "TWO_BYTE", mode, W * per_atom,
                                                         W * H * per_atom, ATOM))
    regs = RegisterValues.encode(RegisterMap.for_profile(PROFILE), fields)
    return LayerContext(PROFILE, regs, memory)


def datapath_only(ctx: LayerContext):
    cfg = sdp.decode(ctx.regs)
    channels = rdma.padded_channels(cfg, ATOM)
    x = rdma.read_input(ctx, cfg, channels, None)
    operands = {k: rdma.read_operands(ctx, cfg, dma, channels) for k, dma in cfg.dmas.items()}
    return lambda: sdp.compute(cfg, x, operands, None, {})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    n = C * H * W
    rng = np.random.default_rng(1)
    a, b, c = (rng.standard_normal(n).astype(np.float32) for _ in range(3))
    baseline = best_time(lambda: a * b + c, args.repeat)
    print(f"numpy float32 multiply-add over {n} elements: {baseline * 1e3:.2f} ms")
    for precision in ("fp16", "int8"):
        ctx = layer(precision)
        whole = best_time(lambda ctx=ctx: sdp.run(ctx), args.repeat)
        compute = best_time(datapath_only(ctx), args.repeat)
        print(f"{precision} BS+BN+EW layer: run() {whole * 1e3:.1f} ms  ratio {baseline / whole:.3f}   "
              f"datapath {compute * 1e3:.1f} ms  ratio {baseline / compute:.3f}")
    # the floor: an fp16 layer widens its two fp16 inputs and narrows its output, bit-exactly
    halves = rng.standard_normal(n).astype(np.float16).view(np.uint16)
    singles = fp.fp16_to_float32(halves)
    casts = (best_time(lambda: fp.fp16_to_float32(halves), args.repeat) * 2
             + best_time(lambda: fp.fp32_to_fp16(singles), args.repeat))
    print(f"fp16 conversions alone (2 widenings + 1 narrowing): {casts * 1e3:.1f} ms  ratio {baseline / casts:.3f}"
          f"  (the most any fp16 layer of this model can reach; goal >= 0.2)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
