"""Random legal SDP layers inside the fixture's subset, written as `.cfg` traces.

`write_random_trace(folder, seed, layers=1)` writes `<folder>/<name>.cfg` plus its
input/filler `.dat` files: int8 offline SDP layers (X1/X2 with register operands or
bypassed, EW bypassed, output convertor), random cube sizes, padded strides,
a destination pre-filled with random bytes (so a lost byte lane shows), and,
with layers=2, a second layer programmed in register group 1. Each layer's
check_crc holds the golden model's CRC (golden/player.py), so the trace also
checks the golden model against itself on the RTL side's inputs.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from golden.config import Profile, get_profile
from golden.memory import format_records
from golden.numerics.integer import as_signed
from golden.player import play
from golden.regs.regmap import RegisterMap
from golden.trace import CheckCrc, IntrNotify, MemLoad, RegWrite, write_cfg

SRC_BASE = 0x80000000
DST_BASE = 0x90000000
ALGOS = (0, 1, 2)  # MAX, MIN, SUM (SDP D_DP_BS_CFG.BS_ALU_ALGO)


def _x_unit(rng: np.random.Generator, name: str) -> dict[str, int]:
    """Fields of one X sub-unit (BS or BN) with register operands."""
    if rng.random() < 0.15:
        return {f"D_DP_{name}_CFG": 1}
    alu_bypass = int(rng.random() < 0.3)
    mul_bypass = int(rng.random() < 0.3)
    prelu = int(alu_bypass and not mul_bypass and rng.random() < 0.4)  # PReLU needs the ALU bypassed
    cfg = (alu_bypass << 1) | (int(rng.choice(ALGOS)) << 2) | (mul_bypass << 4) | (prelu << 5)
    cfg |= int(rng.random() < 0.5) << 6  # RELU_BYPASS
    return {
        f"D_DP_{name}_CFG": cfg,
        f"D_DP_{name}_ALU_CFG": int(rng.integers(0, 12)) << 8,
        f"D_DP_{name}_ALU_SRC_VALUE": int(rng.integers(-(1 << 15), 1 << 15)) & 0xFFFF,
        f"D_DP_{name}_MUL_CFG": int(rng.integers(0, 14)) << 8,
        f"D_DP_{name}_MUL_SRC_VALUE": int(rng.integers(-(1 << 15), 1 << 15)) & 0xFFFF,
    }


def _x_range(fields: dict[str, int], name: str, lo: int, hi: int) -> tuple[int, int]:
    """Bounds of an X sub-unit's output for inputs in [lo, hi] (interval arithmetic), to aim the convertor."""
    cfg = fields[f"D_DP_{name}_CFG"]
    if cfg & 1:
        return lo, hi
    if not cfg & 2:
        op = as_signed(fields[f"D_DP_{name}_ALU_SRC_VALUE"], 16) << (fields[f"D_DP_{name}_ALU_CFG"] >> 8)
        op = min(max(op, -(1 << 31)), (1 << 31) - 1)
        algo = (cfg >> 2) & 3
        lo, hi = ((max(lo, op), max(hi, op)) if algo == 0 else (min(lo, op), min(hi, op)) if algo == 1
                  else (lo + op, hi + op))
    if not cfg & 16:
        mul = as_signed(fields[f"D_DP_{name}_MUL_SRC_VALUE"], 16)
        shift = fields[f"D_DP_{name}_MUL_CFG"] >> 8
        ends = [lo * mul >> shift, hi * mul >> shift] + ([lo, hi, 0] if cfg & 32 else [])
        lo, hi = min(ends), max(ends)
    else:
        lo, hi = lo >> (fields[f"D_DP_{name}_MUL_CFG"] >> 8), hi >> (fields[f"D_DP_{name}_MUL_CFG"] >> 8)
    if not cfg & 64:
        lo, hi = max(lo, 0), max(hi, 0)
    return max(lo, -(1 << 31)), min(hi, (1 << 31) - 1)


def _aim_convertor(rng: np.random.Generator, sdp: dict[str, int]) -> None:
    """Offset near the middle of the X2 output range and a shift that maps it to about +-100 (some saturate)."""
    lo, hi = _x_range(sdp, "BN", *_x_range(sdp, "BS", -128, 127))
    middle, half = (lo + hi) // 2, max((hi - lo) // 2, 1)
    offset = middle + int(rng.integers(-half // 4 - 1, half // 4 + 1))
    scale = int(rng.choice([-1, 1])) * int(rng.integers(1, 1 << 15))
    shift = int(np.clip(np.ceil(np.log2(half * abs(scale) / 100 + 1)), 0, 63))
    sdp.update(D_CVT_OFFSET=offset & 0xFFFFFFFF, D_CVT_SCALE=scale & 0xFFFF, D_CVT_SHIFT=shift)


def random_layer(rng: np.random.Generator, atom: int = 8, slot: int = 0) -> tuple[dict, dict, bytes, bytes]:
    """(SDP registers, SDP_RDMA registers, input bytes, destination filler bytes)."""
    width, height, channel = int(rng.integers(1, 13)), int(rng.integers(1, 7)), int(rng.integers(1, 41))
    surfaces = -(-channel // atom)
    src_line = width * atom + atom * int(rng.integers(0, 3))
    src_surf = src_line * height + atom * int(rng.integers(0, 3))
    dst_line = width * atom + atom * int(rng.integers(0, 3))
    dst_surf = dst_line * height + atom * int(rng.integers(0, 3))
    if width == height == 1 and channel > atom:  # a 1x1xC cube of several atoms is packed (SDP-*-1X1XC-PACKED)
        src_line = src_surf = dst_line = dst_surf = atom
    src = SRC_BASE + slot * 0x100000 + atom * int(rng.integers(0, 64))
    dst = DST_BASE + slot * 0x100000 + atom * int(rng.integers(0, 64))
    sdp = {"D_DATA_CUBE_WIDTH": width - 1, "D_DATA_CUBE_HEIGHT": height - 1, "D_DATA_CUBE_CHANNEL": channel - 1,
           "D_DST_BASE_ADDR_LOW": dst, "D_DST_BASE_ADDR_HIGH": 0, "D_DST_LINE_STRIDE": dst_line,
           "D_DST_SURFACE_STRIDE": dst_surf, "D_DP_EW_CFG": 1, "D_FEATURE_MODE_CFG": 0, "D_DST_DMA_CFG": 1,
           "D_DATA_FORMAT": 0}
    sdp.update(_x_unit(rng, "BS"))
    sdp.update(_x_unit(rng, "BN"))
    _aim_convertor(rng, sdp)
    rdma = {"D_DATA_CUBE_WIDTH": width - 1, "D_DATA_CUBE_HEIGHT": height - 1, "D_DATA_CUBE_CHANNEL": channel - 1,
            "D_SRC_BASE_ADDR_LOW": src, "D_SRC_BASE_ADDR_HIGH": 0, "D_SRC_LINE_STRIDE": src_line,
            "D_SRC_SURFACE_STRIDE": src_surf, "D_BRDMA_CFG": 1, "D_NRDMA_CFG": 1, "D_ERDMA_CFG": 1,
            "D_FEATURE_MODE_CFG": 0, "D_SRC_DMA_CFG": 1}
    inputs = rng.integers(0, 256, surfaces * src_surf, dtype=np.uint8).tobytes()
    filler = rng.integers(0, 256, surfaces * dst_surf, dtype=np.uint8).tobytes()
    return sdp, rdma, inputs, filler


def write_random_trace(folder: Path, seed: int, layers: int = 1, profile: Profile | None = None) -> Path:
    profile = profile or get_profile("nv_small")
    regmap = RegisterMap.for_profile(profile)
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    name = f"rtl_random_sdp_{seed}_{layers}l"
    cfg = folder / f"{name}.cfg"
    where = {"path": str(cfg), "line": 0}

    def reg(unit: str, register: str, value: int) -> RegWrite:
        return RegWrite(**where, register=regmap.get(unit, register), value=value & 0xFFFFFFFF)

    commands = [reg("GLB", "S_INTR_MASK", 0)]
    checks = []
    for group in range(layers):
        sdp, rdma, inputs, filler = random_layer(rng, profile.memory_atomic_size, slot=group)
        for label, base, data in (("in", rdma["D_SRC_BASE_ADDR_LOW"], inputs),
                                  ("dst", sdp["D_DST_BASE_ADDR_LOW"], filler)):
            dat = folder / f"{name}_{group}_{label}.dat"
            dat.write_text(format_records([(0, np.frombuffer(data, np.uint8))]))
            commands.append(MemLoad(**where, memory="pri_mem", base=base, file=dat.name))
        commands += [reg("SDP", "S_POINTER", group), reg("SDP_RDMA", "S_POINTER", group)]
        commands += [reg("SDP", r, v) for r, v in sdp.items()]
        commands += [reg("SDP_RDMA", r, v) for r, v in rdma.items()]
        commands += [reg("SDP", "D_OP_ENABLE", 1), reg("SDP_RDMA", "D_OP_ENABLE", 1)]
        sync = f"layer{group}_done"
        commands.append(IntrNotify(**where, source=f"SDP_{group}", sync=sync))
        checks.append(CheckCrc(**where, sync=sync, memory="pri_mem", base=sdp["D_DST_BASE_ADDR_LOW"],
                               size=len(filler), crc=0))
    write_cfg(commands + checks, cfg)
    # the expected CRCs are the golden model's
    result = play(cfg, profile)
    if result.memory is None:
        raise RuntimeError(f"golden model could not play {cfg}: {result.status} {result.detail}")
    checks = [CheckCrc(**where, sync=c.sync, memory=c.memory, base=c.base, size=c.size,
                       crc=result.memory.pri.crc32(c.base, c.size)) for c in checks]
    write_cfg(commands + checks, cfg, header=f"random SDP layers (seed {seed}), CRCs from the golden model")
    return cfg
