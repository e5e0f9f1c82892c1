"""Write the shipped example layer: golden/examples/sdp_bias_relu_int8.cfg + _input.dat.

    python -m golden.examples.make_sdp_bias_relu

An nv_small int8 SDP layer read from memory by SDP_RDMA: a per-cube bias from a
register (BS ALU SUM, shift 0), ReLU, then the output convertor
y = saturate_int8((x - offset) * scale >> shift) (precision-preservation: Convertor).
With shift 0 no rounding is involved, so the expected output below is plain
integer arithmetic, written here independently of golden/units/sdp.py. The
expected CRC is zlib's CRC-32 of the packed output (../shared/nvdla/README.md: "The CRC used by check_crc").
"""

from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np

from golden.formats.feature import pack_feature
from golden.memory import format_records
from golden.regs.regmap import RegisterMap
from golden.trace import CheckCrc, Command, IntrNotify, MemInit, MemLoad, RegWrite, Where, write_cfg

NAME = "sdp_bias_relu_int8"
FOLDER = Path(__file__).parent
SHAPE = (16, 8, 8)  # C, H, W
ATOM = 8  # nv_small memory atom (bytes)
SRC, DST = 0x80000000, 0x80100000
LINE, SURFACE = 8 * ATOM, 8 * 8 * ATOM
BIAS, CVT_OFFSET, CVT_SCALE, CVT_SHIFT = 20, 10, 3, 0


def input_cube() -> np.ndarray:
    rng = np.random.default_rng(2026)
    return rng.integers(-128, 128, SHAPE, dtype=np.int16).astype(np.int8)


def expected_cube(x: np.ndarray) -> np.ndarray:
    biased = np.maximum(x.astype(np.int64) + BIAS, 0)
    return np.clip(((biased - CVT_OFFSET) * CVT_SCALE) >> CVT_SHIFT, -128, 127).astype(np.int8)


def registers() -> list[tuple[str, dict[str, int]]]:
    c, h, w = SHAPE
    cube = {"WIDTH": w - 1}, {"HEIGHT": h - 1}, {"CHANNEL": c - 1}
    rdma = [
        ("SDP_RDMA.S_POINTER", {"PRODUCER": 0}),
        ("SDP_RDMA.D_DATA_CUBE_WIDTH", cube[0]), ("SDP_RDMA.D_DATA_CUBE_HEIGHT", cube[1]),
        ("SDP_RDMA.D_DATA_CUBE_CHANNEL", cube[2]),
        ("SDP_RDMA.D_SRC_BASE_ADDR_HIGH", {"SRC_BASE_ADDR_HIGH": SRC >> 32}),
        ("SDP_RDMA.D_SRC_BASE_ADDR_LOW", {"SRC_BASE_ADDR_LOW": SRC & 0xFFFFFFFF}),
        ("SDP_RDMA.D_SRC_LINE_STRIDE", {"SRC_LINE_STRIDE": LINE}),
        ("SDP_RDMA.D_SRC_SURFACE_STRIDE", {"SRC_SURFACE_STRIDE": SURFACE}),
        ("SDP_RDMA.D_SRC_DMA_CFG", {"SRC_RAM_TYPE": 1}),
        ("SDP_RDMA.D_BRDMA_CFG", {"BRDMA_DISABLE": 1}),
        ("SDP_RDMA.D_NRDMA_CFG", {"NRDMA_DISABLE": 1}),
        ("SDP_RDMA.D_ERDMA_CFG", {"ERDMA_DISABLE": 1}),
        ("SDP_RDMA.D_FEATURE_MODE_CFG", {"FLYING_MODE": 0, "IN_PRECISION": 0, "PROC_PRECISION": 0,
                                         "OUT_PRECISION": 0}),
    ]
    sdp = [
        ("SDP.S_POINTER", {"PRODUCER": 0}),
        ("SDP.D_DATA_CUBE_WIDTH", cube[0]), ("SDP.D_DATA_CUBE_HEIGHT", cube[1]),
        ("SDP.D_DATA_CUBE_CHANNEL", cube[2]),
        ("SDP.D_DST_BASE_ADDR_HIGH", {"DST_BASE_ADDR_HIGH": DST >> 32}),
        ("SDP.D_DST_BASE_ADDR_LOW", {"DST_BASE_ADDR_LOW": DST & 0xFFFFFFFF}),
        ("SDP.D_DST_LINE_STRIDE", {"DST_LINE_STRIDE": LINE}),
        ("SDP.D_DST_SURFACE_STRIDE", {"DST_SURFACE_STRIDE": SURFACE}),
        ("SDP.D_DST_DMA_CFG", {"DST_RAM_TYPE": 1}),
        ("SDP.D_FEATURE_MODE_CFG", {"FLYING_MODE": 0, "OUTPUT_DST": 0}),
        ("SDP.D_DATA_FORMAT", {"PROC_PRECISION": 0, "OUT_PRECISION": 0}),
        ("SDP.D_DP_BS_CFG", {"BS_BYPASS": 0, "BS_ALU_BYPASS": 0, "BS_ALU_ALGO": 2, "BS_MUL_BYPASS": 1,
                             "BS_MUL_PRELU": 0, "BS_RELU_BYPASS": 0}),
        ("SDP.D_DP_BS_ALU_CFG", {"BS_ALU_SRC": 0, "BS_ALU_SHIFT_VALUE": 0}),
        ("SDP.D_DP_BS_ALU_SRC_VALUE", {"BS_ALU_OPERAND": BIAS & 0xFFFF}),
        ("SDP.D_DP_BN_CFG", {"BN_BYPASS": 1}),
        ("SDP.D_DP_EW_CFG", {"EW_BYPASS": 1}),
        ("SDP.D_CVT_OFFSET", {"CVT_OFFSET": CVT_OFFSET & 0xFFFFFFFF}),
        ("SDP.D_CVT_SCALE", {"CVT_SCALE": CVT_SCALE}),
        ("SDP.D_CVT_SHIFT", {"CVT_SHIFT": CVT_SHIFT}),
    ]
    enable = [("SDP.D_OP_ENABLE", {"OP_EN": 1}), ("SDP_RDMA.D_OP_ENABLE", {"OP_EN": 1})]
    return rdma + sdp + enable


def main() -> None:
    regmap = RegisterMap.for_layout("master")
    x = input_cube()
    packed_in = pack_feature(x, "int8", LINE, SURFACE, ATOM)
    packed_out = pack_feature(expected_cube(x), "int8", LINE, SURFACE, ATOM)
    (FOLDER / f"{NAME}_input.dat").write_text(format_records([(0, packed_in)]))
    where: Where = {"path": str(FOLDER / f"{NAME}.cfg"), "line": 0}
    commands: list[Command] = [
        MemInit(**where, memory="pri_mem", base=SRC, size=packed_in.size),
        MemLoad(**where, memory="pri_mem", base=SRC, file=f"{NAME}_input.dat"),
        MemInit(**where, memory="pri_mem", base=DST, size=packed_out.size),
    ]
    for name, fields in registers():
        reg = regmap.lookup(name)
        commands.append(RegWrite(**where, register=reg, value=reg.encode(**fields)))
    commands += [
        IntrNotify(**where, source="SDP_0", sync="sync_id_0"),
        CheckCrc(**where, sync="sync_id_0", memory="pri_mem", base=DST, size=packed_out.size,
                 crc=zlib.crc32(packed_out.tobytes()) & 0xFFFFFFFF),
    ]
    header = (f"nvdla-verif example layer {NAME} (nv_small): {SHAPE[2]}x{SHAPE[1]}x{SHAPE[0]} int8 cube,\n"
              f"bias {BIAS} from a register, ReLU, convertor offset {CVT_OFFSET} scale {CVT_SCALE} "
              f"shift {CVT_SHIFT}.\nWritten by golden/examples/make_sdp_bias_relu.py.")
    write_cfg(commands, FOLDER / f"{NAME}.cfg", header)


if __name__ == "__main__":
    main()
