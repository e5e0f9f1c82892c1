"""NVIDIA's CDP traces (trace_tests/{nv_small,nv_large}/cdp_*, int8, one CRC each) through the CDP model.

TEMPORARY: the trace player does not replay S_LUT_ACCESS_CFG/DATA writes into LayerContext.luts yet, so
`_play_cfg` reads the .cfg itself (reg_write / mem_init / mem_load / check_crc, memory commands in file
order), replays the LUT writes with golden.units.lut.LutRam and calls golden.units.cdp.run. Switch to
golden.player.play once it provides the LUT contents.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from golden.config import get_profile
from golden.memory import MemorySystem, read_memory_file
from golden.regs.regmap import RegisterMap
from golden.regs.values import RegisterValues
from golden.units import cdp
from golden.units.base import LayerContext
from golden.units.lut import LutRam

CDP_TRACES = {
    "nv_small": [
        "cdp_1x1x1_lrn3_int8_0", "cdp_1x1x31_lrn3_int8_0", "cdp_33x17x34_lrn5_int8_0", "cdp_8x8x32_lrn3_int8_0",
        "cdp_8x8x32_lrn3_int8_1", "cdp_8x8x32_lrn3_int8_2", "cdp_8x8x32_lrn5_int8_0", "cdp_8x8x32_lrn7_int8_0",
        "cdp_8x8x32_lrn9_int8_0", "cdp_8x8x64_lrn3_int8_0", "cdp_8x8x64_lrn3_int8_1", "cdp_8x8x64_lrn3_int8_10",
        "cdp_8x8x64_lrn3_int8_11", "cdp_8x8x64_lrn3_int8_12", "cdp_8x8x64_lrn3_int8_2", "cdp_8x8x64_lrn3_int8_3",
        "cdp_8x8x64_lrn3_int8_4", "cdp_8x8x64_lrn3_int8_5", "cdp_8x8x64_lrn3_int8_6", "cdp_8x8x64_lrn3_int8_7",
        "cdp_8x8x64_lrn3_int8_8", "cdp_8x8x64_lrn3_int8_9", "cdp_8x8x64_lrn9_int8",
    ],
    "nv_large": ["cdp_8x8x64_lrn9_int8_0", "cdp_passthrough_8x8x32_pack_inc_int8"],
}
CASES = [(profile, name) for profile, names in CDP_TRACES.items() for name in names]
_COMMAND = re.compile(r"^\s*(\w+)\s*\((.*)\)\s*;")


def _play_cfg(path: Path, profile_name: str):
    """TEMPORARY .cfg reader: the CDP layer's context (with its LUT) and the check_crc region."""
    writes, crc, lut = [], None, LutRam("CDP")
    memory = MemorySystem()
    regmap = RegisterMap.for_layout("master")
    for line in path.read_text().splitlines():
        match = _COMMAND.match(line.split("//")[0])
        if not match:
            continue
        command, args = match.group(1), [a.strip() for a in match.group(2).split(",")]
        if command == "reg_write":
            reg = regmap.lookup(args[0])
            if not (reg.unit == "CDP" and lut.write(reg.name, int(args[1], 0))):
                writes.append((args[0], int(args[1], 0)))
        elif command == "mem_init":
            memory.by_name(args[0]).fill(int(args[1], 0), int(args[2], 0), 0)
        elif command == "mem_load":
            for offset, data in read_memory_file(path.parent / args[2].strip('"')):
                memory.by_name(args[0]).write(int(args[1], 0) + offset, data)
        elif command == "check_crc":
            crc = ("sec_mem" if args[1] == "sec_mem" else "pri_mem", *(int(a, 0) for a in args[2:5]))
    ctx = LayerContext(get_profile(profile_name), RegisterValues.from_writes(regmap, writes), memory)
    ctx.luts = {"CDP": lut}
    return ctx, crc


@pytest.mark.parametrize(("profile", "name"), CASES, ids=[f"{p}/{n}" for p, n in CASES])
def test_cdp_trace(nvdla_data, profile, name):
    ctx, (memory, base, size, expected) = _play_cfg(nvdla_data / "trace_tests" / profile / name / f"{name}.cfg",
                                                    profile)
    before = ctx.memory.by_name(memory).crc32(base, size)
    cdp.run(ctx)
    crc = ctx.memory.by_name(memory).crc32(base, size)
    assert crc == expected, f"CRC {crc:#010x} != expected {expected:#010x} (before the run: {before:#010x})"
