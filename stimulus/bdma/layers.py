"""Random BDMA groups: 1..4 copy operations (group 0: sometimes up to 16) launched as group 0 or 1, between DRAM
and CV-SRAM; sometimes after a CFG_OP write with EN=0, which queues nothing.

Each operation copies SURF_REPEAT+1 surfaces of LINE_REPEAT+1 lines of (SIZE+1)*32 bytes with its own
source and destination strides (32-byte units, at the minimum or with gaps); software writes its CFG_*
registers and CFG_OP.EN=1, then CFG_LAUNCH<g> starts the group (programming-guide: BDMA programming).
The operations of a group write one memory (Limitation/BDMA), each into its own buffer (disjoint
from every source). The programming is a sequence of writes (`Layer.writes`), not register groups:
the trace's layer index picks the launch register, so back-to-back layers use both.
"""

from __future__ import annotations

import numpy as np

from golden.config import Profile
from golden.regs.regmap import RegisterMap
from golden.units.bdma import OPERATION_REGISTERS, BdmaGroup, BdmaOperation
from stimulus.layer import Image, Layer, Region

ATOM = 32
BASES = {"pri_mem": 0x80000000, "sec_mem": 0x50000000}
SLOT, BUFFER = 0x1000000, 0x40000  # 20 operations' buffers stay below DST_OFFSET
DST_OFFSET = 0x800000


def _operation(choose, rng, regmap: RegisterMap, src_mem: str, dst_mem: str, slot: int, index: int):
    c = choose
    size, lines, surfaces = c.size(1, 8), c.size(1, 4), c.size(1, 3)
    line_bytes = size * ATOM
    src_line = line_bytes + ATOM * c.size(0, 2)
    dst_line = line_bytes + ATOM * c.size(0, 2)
    src_surf = (lines - 1) * src_line + line_bytes + ATOM * c.size(0, 2)
    dst_surf = (lines - 1) * dst_line + line_bytes + ATOM * c.size(0, 2)
    src = BASES[src_mem] + slot * SLOT + index * BUFFER + ATOM * c.size(0, 31)
    dst = BASES[dst_mem] + slot * SLOT + DST_OFFSET + index * BUFFER + ATOM * c.size(0, 31)
    src_span = (surfaces - 1) * src_surf + (lines - 1) * src_line + line_bytes
    dst_span = (surfaces - 1) * dst_surf + (lines - 1) * dst_line + line_bytes

    def encode(name: str, **fields) -> tuple:
        return ("BDMA", name, regmap.get("BDMA", name).encode(**fields))

    writes = [
        encode("CFG_SRC_ADDR_LOW", V32=(src & 0xFFFFFFFF) >> 5), encode("CFG_SRC_ADDR_HIGH", V8=src >> 32),
        encode("CFG_DST_ADDR_LOW", V32=(dst & 0xFFFFFFFF) >> 5), encode("CFG_DST_ADDR_HIGH", V8=dst >> 32),
        encode("CFG_LINE", SIZE=size - 1),
        encode("CFG_CMD", SRC_RAM_TYPE=int(src_mem == "pri_mem"), DST_RAM_TYPE=int(dst_mem == "pri_mem")),
        encode("CFG_LINE_REPEAT", NUMBER=lines - 1), encode("CFG_SURF_REPEAT", NUMBER=surfaces - 1),
        encode("CFG_SRC_LINE", STRIDE=src_line >> 5), encode("CFG_DST_LINE", STRIDE=dst_line >> 5),
        encode("CFG_SRC_SURF", STRIDE=src_surf >> 5), encode("CFG_DST_SURF", STRIDE=dst_surf >> 5),
        encode("CFG_OP", EN=1),
    ]
    images = [Image(src_mem, src, rng.integers(0, 256, src_span, dtype=np.uint8).tobytes(), f"op{index}_src"),
              Image(dst_mem, dst, rng.integers(0, 256, dst_span, dtype=np.uint8).tobytes(), f"op{index}_dst")]
    return writes, images, Region(dst_mem, dst, dst_span, f"op{index}_dst"), (size, lines, surfaces)


def random_layer(choose, profile: Profile, slot: int = 0) -> Layer:
    profile.require("BDMA", "a BDMA group")
    regmap = RegisterMap.for_profile(profile)
    memories = ["pri_mem", "sec_mem"] if profile.secondary_memif else ["pri_mem"]
    dst_mem = choose.choice(memories)
    group = slot % 2
    rng = choose.data()
    writes, images, checks, shapes = [], [], [], []
    # 1..4 operations; group 0 sometimes 5..16, so that with a group 1 of up to 4 behind it (the layers are
    # programmed back to back) every one of the 20 slots gets used (NVIDIA's cp_free_slot bins 0..20)
    operations = choose.size(5, 16) if group == 0 and choose.flag(0.25) else choose.size(1, 4)
    if choose.flag(0.1):  # a CFG_OP write with EN=0 queues nothing (NV_NVDLA_BDMA_csb.v: the FIFO push needs EN)
        writes.append(("BDMA", "CFG_OP", regmap.get("BDMA", "CFG_OP").encode(EN=0)))
    for index in range(operations):
        op_writes, op_images, region, shape = _operation(choose, rng, regmap, choose.choice(memories), dst_mem,
                                                          slot, index)
        writes += op_writes
        images += op_images
        checks.append(region)
        shapes.append(shape)
    writes.append(("BDMA", f"CFG_LAUNCH{group}", regmap.get("BDMA", f"CFG_LAUNCH{group}").encode(
        **{f"GRP{group}_LAUNCH": 1})))
    choices = {"operations": len(shapes), "dst": dst_mem, "shapes": shapes, "group": group}
    return Layer("bdma", {}, images, checks, "BDMA", (), choices, writes=writes)


def bdma_group(layer, regmap) -> BdmaGroup:
    """The group a BDMA layer launches, as the BDMA rules judge it."""
    return BdmaGroup(tuple(bdma_operations(layer.writes, regmap)), layer.choices.get("group", 0))


def bdma_operations(writes: list, regmap) -> list[BdmaOperation]:
    """The operations a BDMA layer's writes cache (each CFG_OP write takes the CFG_* values written so far)."""
    raw, operations = {}, []
    for unit, name, value in writes:
        if unit != "BDMA":
            continue
        if name == "CFG_OP" and value & 1:  # EN=0 queues nothing
            operations.append(BdmaOperation.from_registers(regmap, dict(raw)))
        elif name in OPERATION_REGISTERS:
            raw[name] = value
    return operations
