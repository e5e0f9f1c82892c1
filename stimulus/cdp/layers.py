"""Random legal CDP (LRN) layers: every local size, both LE LUT functions, random LUT tables.

The LUT (S_LUT_* registers and the LE/LO tables written through S_LUT_ACCESS_CFG/DATA) is one per unit,
shared by both register groups, so a trace's CDP layers share one: `random_lut` draws it and every
`random_layer` of the trace takes it. Bounds follow programming-guide Limitation/LUT: index selects and
the exponent offset inside their ranges, a linear table's END = START + 2**(select + 6 or 8). FP16 (the
profiles with fp16 features): START/END are fp32 patterns in the LOW words, table entries and slope scales
fp16 patterns, ranges placed around, above or below the square sums' magnitude as stimulus/sdp/lut.py places
SDP's (the same Limitation/LUT bounds); the data convertors are not used in fp16 (precision-preservation
"CDP") and stay at identity.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from golden.config import Profile
from golden.formats.feature import element_bits, feature_span
from golden.units.lut import LE_DEPTH, LO_DEPTH, OFFSET_LIMITS, SELECT_LIMITS
from stimulus import data
from stimulus.layer import Image, Layer, Region
from stimulus.sdp import lut as sdp_lut

BASE, SLOT, DST_OFFSET = 0x80000000, 0x1000000, 0x800000
LOCAL_SIZES = {3: "LEN3", 5: "LEN5", 7: "LEN7", 9: "LEN9"}


#: Chance that a slope scale is within 16 of its 16-bit extreme (NVIDIA's cdp_lut_max_slope_flow_scale test
#: draws these; vmod NV_NVDLA_CDP_DP_intp.v sign-extends the scale to 17 bits into the interpolator).
EXTREME_SLOPE = 0.1
#: Chance that a LUT is read back: the port set to READ at an address, and entries read from S_LUT_ACCESS_DATA
#: once the layer is done, each checked against the golden model's table (golden/units/lut.py LutRam.read).
READ_BACK = 0.3


@dataclass(frozen=True)
class Lut:
    precision: str
    fields: dict
    writes: tuple  # (unit, register, value) in order: the table contents
    reads: int = 0  # entries read back through S_LUT_ACCESS_DATA after the layer (the port left at READ)


def _signed(value: int, bits: int) -> int:
    return value & ((1 << bits) - 1)


def _bound(fields: dict, name: str, value: int) -> None:
    raw = value & ((1 << 38) - 1)
    fields[f"CDP.S_LUT_{name}_LOW.LUT_{name}_LOW"] = raw & 0xFFFFFFFF
    fields[f"CDP.S_LUT_{name}_HIGH.LUT_{name}_HIGH"] = raw >> 32


def precisions(profile: Profile) -> list[str]:
    return sorted(profile.feature_types)


def _fp_lut(c, precision: str) -> Lut:
    """An fp16 LUT: bounds as fp32 patterns (LOW words), fp16 entries and slope scales."""
    (le_sel, lo_sel) = SELECT_LIMITS["CDP", precision]
    linear = c.flag()
    k = c.integer(-8, 14)  # square sums of fp16 data of a few units: 2**-8 .. 2**14 mostly
    placements = [c.choice(sdp_lut.PLACEMENTS) for _ in range(2)]
    if linear:
        le_start, le_end, le_select = sdp_lut.fp_range(c, placements[0], k, 6, le_sel)
        offset = 0
    else:
        le_start, le_end, offset = sdp_lut.exponent(c, placements[0], k, precision, "CDP")
        le_select = 0
    lo_start, lo_end, lo_select = sdp_lut.fp_range(c, placements[1], k, 8, lo_sel)
    f = "CDP.S_LUT_"
    fields = {**sdp_lut.lut_cfg(c, "CDP", linear),
              f"{f}INFO.LUT_LE_INDEX_OFFSET": _signed(offset, 8), f"{f}INFO.LUT_LE_INDEX_SELECT": _signed(le_select, 8),
              f"{f}INFO.LUT_LO_INDEX_SELECT": _signed(lo_select, 8)}
    for name, bits in (("LE_START", le_start), ("LE_END", le_end), ("LO_START", lo_start), ("LO_END", lo_end)):
        fields[f"{f}{name}_LOW.LUT_{name}_LOW"] = bits
        fields[f"{f}{name}_HIGH.LUT_{name}_HIGH"] = 0
    rng = c.data()
    for table in ("LE", "LO"):
        for flow in ("UFLOW", "OFLOW"):
            scale = data.values(rng, "fp16", (1,), edges=0.0, scale=2.0).view(np.uint16)[0]
            fields[f"{f}{table}_SLOPE_SCALE.LUT_{table}_SLOPE_{flow}_SCALE"] = int(scale)
            fields[f"{f}{table}_SLOPE_SHIFT.LUT_{table}_SLOPE_{flow}_SHIFT"] = 0
    writes = []
    for table_id, depth in ((0, LE_DEPTH), (1, LO_DEPTH)):
        writes.append(("CDP", "S_LUT_ACCESS_CFG", (1 << 17) | (table_id << 16)))
        entries = data.values(rng, "fp16", (depth,), edges=0.0, scale=c.choice((1.0, 64.0))).view(np.uint16)
        writes += [("CDP", "S_LUT_ACCESS_DATA", int(v)) for v in entries]
    return Lut(precision, fields, tuple(writes))


def random_lut(choose, profile: Profile) -> Lut:
    profile.require("CDP", "a CDP layer")
    c = choose
    precision = c.choice(precisions(profile))
    if precision == "fp16":
        return _fp_lut(c, precision)
    (le_lo, le_hi), (lo_lo, lo_hi) = SELECT_LIMITS["CDP", precision]
    linear = c.flag()
    fields = {"CDP.S_LUT_CFG.LUT_LE_FUNCTION": "LINEAR" if linear else "EXPONENT",
              "CDP.S_LUT_CFG.LUT_UFLOW_PRIORITY": c.choice(("LE", "LO")),
              "CDP.S_LUT_CFG.LUT_OFLOW_PRIORITY": c.choice(("LE", "LO")),
              "CDP.S_LUT_CFG.LUT_HYBRID_PRIORITY": c.choice(("LE", "LO"))}
    # the sum of squares of int8 inputs is at most 9 * 128**2 (2**17.2): aim most tables at that range
    le_select = c.size(le_lo, min(le_hi, 14))
    lo_select = c.size(lo_lo, min(lo_hi, 12))
    low, high = OFFSET_LIMITS["CDP", precision]
    # mostly offsets that index the square sums; sometimes one so low that the sums overflow the exponent table
    offset = c.size(max(low, -8), min(high, 12)) if c.flag(0.8) else c.integer(low, low + 12)
    le_start = c.choice((0, c.integer(-(1 << 12), 1 << 12)))
    lo_start = c.choice((0, c.integer(-(1 << 12), 1 << 12)))
    fields["CDP.S_LUT_INFO.LUT_LE_INDEX_OFFSET"] = _signed(0 if linear else offset, 8)
    fields["CDP.S_LUT_INFO.LUT_LE_INDEX_SELECT"] = _signed(le_select if linear else 0, 8)
    fields["CDP.S_LUT_INFO.LUT_LO_INDEX_SELECT"] = _signed(lo_select, 8)
    _bound(fields, "LE_START", le_start)
    _bound(fields, "LE_END", le_start + (1 << (le_select + 6)) if linear else le_start + c.integer(1, 1 << 20))
    _bound(fields, "LO_START", lo_start)
    _bound(fields, "LO_END", lo_start + (1 << (lo_select + 8)))
    for table in ("LE", "LO"):
        fields[f"CDP.S_LUT_{table}_SLOPE_SCALE.LUT_{table}_SLOPE_UFLOW_SCALE"] = _signed(_slope(c), 16)
        fields[f"CDP.S_LUT_{table}_SLOPE_SCALE.LUT_{table}_SLOPE_OFLOW_SCALE"] = _signed(_slope(c), 16)
        fields[f"CDP.S_LUT_{table}_SLOPE_SHIFT.LUT_{table}_SLOPE_UFLOW_SHIFT"] = c.size(0, 31)
        fields[f"CDP.S_LUT_{table}_SLOPE_SHIFT.LUT_{table}_SLOPE_OFLOW_SHIFT"] = c.size(0, 31)
    rng = c.data()
    writes = []
    for table_id, depth in ((0, LE_DEPTH), (1, LO_DEPTH)):
        writes.append(("CDP", "S_LUT_ACCESS_CFG", (1 << 17) | (table_id << 16)))
        table = rng.integers(-(1 << 15), 1 << 15, depth) if c.flag(0.8) else np.full(depth, rng.integers(-9, 9))
        writes += [("CDP", "S_LUT_ACCESS_DATA", int(v) & 0xFFFF) for v in table]
    reads = 0
    if c.flag(READ_BACK):  # ACCESS_TYPE READ (bit 17 clear) at an address of either table
        table_id, depth = c.choice(((0, LE_DEPTH), (1, LO_DEPTH)))
        writes.append(("CDP", "S_LUT_ACCESS_CFG", (table_id << 16) | c.integer(0, depth - 1)))
        reads = c.size(1, 8)
    return Lut(precision, fields, tuple(writes), reads)


def _slope(c) -> int:
    """A slope scale: mostly moderate, sometimes within 16 of either 16-bit extreme."""
    if c.flag(EXTREME_SLOPE):
        return (1 << 15) - 1 - c.integer(0, 15) if c.flag() else -(1 << 15) + c.integer(0, 15)
    return c.integer(-512, 512)


def random_layer(choose, profile: Profile, slot: int = 0, lut: Lut | None = None) -> Layer:
    lut = lut or random_lut(choose, profile)
    c, atom, precision = choose, profile.memory_atomic_size, lut.precision
    shape = (c.size(1, 2 * atom + atom // 2), c.size(1, 12), c.size(1, 16))
    local = c.choice(sorted(LOCAL_SIZES))
    src_line, src_surface = data.strides(c, shape, atom)
    dst_line, dst_surface = data.strides(c, shape, atom)
    src = BASE + slot * SLOT + atom * c.size(0, 63)
    dst = BASE + slot * SLOT + DST_OFFSET + atom * c.size(0, 63)
    bits = element_bits(precision)
    fp = precision == "fp16"
    fields = {
        "CDP_RDMA.D_DATA_CUBE_WIDTH.WIDTH": shape[2] - 1, "CDP_RDMA.D_DATA_CUBE_HEIGHT.HEIGHT": shape[1] - 1,
        "CDP_RDMA.D_DATA_CUBE_CHANNEL.CHANNEL": shape[0] - 1,
        "CDP_RDMA.D_SRC_BASE_ADDR_LOW.SRC_BASE_ADDR_LOW": src & 0xFFFFFFFF,
        "CDP_RDMA.D_SRC_BASE_ADDR_HIGH.SRC_BASE_ADDR_HIGH": src >> 32,
        "CDP_RDMA.D_SRC_LINE_STRIDE.SRC_LINE_STRIDE": src_line,
        "CDP_RDMA.D_SRC_SURFACE_STRIDE.SRC_SURFACE_STRIDE": src_surface,
        "CDP_RDMA.D_SRC_DMA_CFG.SRC_RAM_TYPE": "MC", "CDP_RDMA.D_DATA_FORMAT.INPUT_DATA": precision.upper(),
        "CDP.D_DATA_FORMAT.INPUT_DATA_TYPE": precision.upper(),
        "CDP.D_DST_BASE_ADDR_LOW.DST_BASE_ADDR_LOW": dst & 0xFFFFFFFF,
        "CDP.D_DST_BASE_ADDR_HIGH.DST_BASE_ADDR_HIGH": dst >> 32,
        "CDP.D_DST_LINE_STRIDE.DST_LINE_STRIDE": dst_line, "CDP.D_DST_SURFACE_STRIDE.DST_SURFACE_STRIDE": dst_surface,
        "CDP.D_DST_DMA_CFG.DST_RAM_TYPE": "MC", "CDP.D_LRN_CFG.NORMALZ_LEN": LOCAL_SIZES[local],
        "CDP.D_FUNC_BYPASS.SQSUM_BYPASS": int(c.flag(0.15)), "CDP.D_FUNC_BYPASS.MUL_BYPASS": int(c.flag(0.15)),
        "CDP.D_DATIN_OFFSET.DATIN_OFFSET": 0 if fp else _signed(c.size(-(1 << (bits - 1)), (1 << (bits - 1)) - 1), 16),
        "CDP.D_DATIN_SCALE.DATIN_SCALE": 1 if fp else _signed(c.size(-(1 << 15), (1 << 15) - 1), 16),
        "CDP.D_DATIN_SHIFTER.DATIN_SHIFTER": 0 if fp else c.size(0, 31),
        "CDP.D_DATOUT_OFFSET.DATOUT_OFFSET": 0 if fp else _signed(c.integer(-(1 << 12), 1 << 12), 32),
        "CDP.D_DATOUT_SCALE.DATOUT_SCALE": 1 if fp else _signed(c.size(-(1 << 15), (1 << 15) - 1), 16),
        "CDP.D_DATOUT_SHIFTER.DATOUT_SHIFTER": 0 if fp else c.size(0, 63),
    }
    fields["CDP.D_PERF_ENABLE.LUT_EN"] = "ENABLE"
    if fp:
        fields["CDP.D_NAN_FLUSH_TO_ZERO.NAN_TO_ZERO"] = "ENABLE" if c.flag(0.3) else "DISABLE"
    fields.update(lut.fields)
    rng = c.data()
    cube = data.values(rng, precision, shape)
    images = [Image("pri_mem", src, data.surface_bytes(rng, cube, precision, src_line, src_surface, atom), "src")]
    size = feature_span(shape, precision, dst_line, dst_surface, atom)
    images.append(Image("pri_mem", dst, rng.integers(0, 256, size, dtype=np.uint8).tobytes(), "dst"))
    choices = {"precision": precision, "local_size": local, "shape": shape,
               "lut": lut.fields["CDP.S_LUT_CFG.LUT_LE_FUNCTION"]}
    return Layer("cdp", fields, images, [Region("pri_mem", dst, size, "dst")], "CDP", ("CDP", "CDP_RDMA"), choices,
                 writes=list(lut.writes), reads=[("CDP", "S_LUT_ACCESS_DATA", 0xFFFFFFFF)] * lut.reads)
