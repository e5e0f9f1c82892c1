"""NVIDIA's direct-convolution traces (trace_tests/*/dc_*) through the convolution model.

Every dc_ trace ends in SDP (CACC -> SDP on the fly -> memory) and is checked by one CRC. The SDP of all
dc_ traces has BS, BN and EW bypassed, so only SDP's output convertor (D_CVT_OFFSET/SCALE/SHIFT, int8
out) acts. TEMPORARY until golden/units/sdp.py and golden/player.py land: `_play_cfg` is a minimal
.cfg reader and `_sdp_int8_cvt` a minimal SDP for exactly that case (it refuses anything else).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from golden.config import get_profile
from golden.formats import feature
from golden.memory import MemorySystem, read_memory_file
from golden.numerics.integer import saturate, shift_right_round
from golden.regs.regmap import RegisterMap
from golden.regs.values import RegisterValues
from golden.units import conv
from golden.units.base import LayerContext

DC_TRACES = {
    "nv_small": [
        "dc_13x15x64_5x3x64x16_int8_0", "dc_14x7x49_3x4x49x32_int8_0", "dc_1x1x8_1x1x8x1_int8_0",
        "dc_24x33x55_5x5x55x25_int8_0", "dc_24x44x14_5x3x14x41_int8_0", "dc_32x26x76_6x3x76x16_int8_0",
        "dc_35x22x54_6x8x54x29_int8_0", "dc_4x1x8192_1x1x8192x1_int8_0", "dc_6x8x192_3x3x192x32_int8_0",
        "dc_8192x1x1_2x3x1x41_int8_0", "dc_8x16x128_3x3x128x32_int8", "dc_8x8x36_4x4x36x16_dilation_int8_0",
    ],
    "nv_large": ["dc_8x16x128_3x3x128x32_int8", "dc_8x8x32_1x1x32x32_int8_0"],
}
# nv_small/dc_32x26x76_6x3x76x270_int8_0 is left out: its weight file is missing (MISSING_FILES.tsv).

_COMMAND = re.compile(r"^\s*(\w+)\s*\((.*)\)\s*;")


def _play_cfg(path: Path, profile_name: str):
    """TEMPORARY .cfg reader: registers, memory after loads, and the check_crc region."""
    writes, crc = [], None
    memory = MemorySystem()
    for line in path.read_text().splitlines():
        match = _COMMAND.match(line.split("//")[0])
        if not match:
            continue
        command, args = match.group(1), [a.strip() for a in match.group(2).split(",")]
        if command == "reg_write":
            writes.append((args[0], int(args[1], 0)))
        elif command == "mem_init":
            memory.by_name(args[0]).fill(int(args[1], 0), int(args[2], 0), 0)
        elif command == "mem_load":
            base = int(args[1], 0)
            for offset, data in read_memory_file(path.parent / args[2].strip('"')):
                memory.by_name(args[0]).write(base + offset, data)
        elif command == "check_crc":
            crc = tuple(int(a, 0) for a in args[2:5])
    regs = RegisterValues.from_writes(RegisterMap.for_layout("master"), writes)
    return LayerContext(get_profile(profile_name), regs, memory), crc


def _sdp_int8_cvt(ctx: LayerContext, cube: np.ndarray) -> None:
    """TEMPORARY SDP: bypassed BS/BN/EW, output convertor to int8, written in feature format."""
    regs = ctx.regs
    for cfg in ("D_DP_BS_CFG", "D_DP_BN_CFG", "D_DP_EW_CFG"):
        assert regs.value("SDP", cfg) & 1, f"temporary SDP handles bypassed {cfg} only"
    assert regs.enum("SDP", "D_DATA_FORMAT", "OUT_PRECISION") == "INT8"
    offset = regs.signed("SDP", "D_CVT_OFFSET", "CVT_OFFSET")
    scale = regs.signed("SDP", "D_CVT_SCALE", "CVT_SCALE")
    shift = regs.field("SDP", "D_CVT_SHIFT", "CVT_SHIFT")

    def convert(x):
        return saturate(shift_right_round((np.asarray(x, dtype=np.int64) - offset) * scale, shift), 8)[0]

    # The padding channels of the last atom carry what SDP makes of a 0 from CACC.
    pad = int(np.uint8(np.int8(convert(0))))
    base = regs.address("SDP", "D_DST_BASE_ADDR_HIGH", "D_DST_BASE_ADDR_LOW")
    buf = feature.pack_feature(convert(cube).astype(np.int8), "int8", regs.value("SDP", "D_DST_LINE_STRIDE"),
                               regs.value("SDP", "D_DST_SURFACE_STRIDE"), ctx.profile.memory_atomic_size,
                               pad_value=pad)
    ctx.memory.pri.write(base, buf)


def _run_trace(path: Path, profile: str):
    ctx, (crc_base, crc_size, crc_expected) = _play_cfg(path, profile)
    result = conv.run(ctx)
    _sdp_int8_cvt(ctx, result.output)
    return ctx.memory.pri.crc32(crc_base, crc_size), crc_expected, result


@pytest.mark.parametrize("profile,name", [(p, n) for p, names in DC_TRACES.items() for n in names])
def test_dc_trace_crc(nvdla_data, profile, name):
    got, expected, result = _run_trace(nvdla_data / "trace_tests" / profile / name / f"{name}.cfg", profile)
    assert got == expected, f"{profile}/{name}: CRC {got:#010x}, expected {expected:#010x}"
    assert result.output.dtype == np.int32
    assert result.status == {("CACC", "D_OUT_SATURATION"): 0}


def test_dc_trace_fails_when_a_weight_changes(nvdla_data):
    """The CRC check is sensitive: one flipped weight byte must change the result."""
    name = "dc_13x15x64_5x3x64x16_int8_0"
    ctx, (base, size, expected) = _play_cfg(nvdla_data / "trace_tests/nv_small" / name / f"{name}.cfg",
                                            "nv_small")
    address = ctx.regs.address("CDMA", "D_WEIGHT_ADDR_HIGH", "D_WEIGHT_ADDR_LOW")
    byte = ctx.memory.pri.read(address + 5, 1)
    ctx.memory.pri.write(address + 5, byte ^ 0x40)
    _sdp_int8_cvt(ctx, conv.run(ctx).output)
    assert ctx.memory.pri.crc32(base, size) != expected

