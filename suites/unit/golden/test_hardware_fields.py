"""Register fields as nvdlav1's RTL implements them (golden/regs/hardware_fields.json), not as the RDL says:
read back through the register file, checked against the read masks in NVIDIA's own traceplayer traces, and
the compressed-weight mask size (CONV-WMB-BYTES) against the RTL's assertion re-derived by hand."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from register_edits import with_fields

from golden.config import get_profile
from golden.errors import ConfigurationError
from golden.regs.regfile import RegisterFile
from golden.regs.regmap import HARDWARE, RegisterMap
from golden.units import conv
from golden.units.conv.program import DirectLayer, direct_layer

TRACEPLAYER = Path(__file__).resolve().parents[3] / ".." / "shared" / "nvdla" / "traceplayer"
READ = re.compile(r"read_reg\s+\S+\s+(0x[0-9a-fA-F]+)\s+\S+\s+#(NVDLA_\w+\.\w+?_0)\b")


def written_then_read(layout: str, register: str, value: int) -> int:
    regmap = RegisterMap.for_layout(layout)
    regs = RegisterFile(regmap)
    reg = regmap.lookup(register)
    regs.write(reg, value)
    return regs.read(reg)


def test_wmb_bytes_keeps_whole_128_byte_units_on_nvdlav1_only():
    # nvdlav1 vmod/nvdla/cdma/NV_NVDLA_CDMA_dual_reg.v: wmb_bytes[20:0] <= reg_wr_data[27:7]; master keeps 27:0
    assert written_then_read("nvdlav1", "CDMA.D_WMB_BYTES", 0xBD) == 0x80
    assert written_then_read("nvdlav1", "CSC.D_WMB_BYTES", 0x12345FF) == 0x1234580
    assert written_then_read("master", "CDMA.D_WMB_BYTES", 0xBD) == 0xBD


def test_addresses_and_entries_as_nvdlav1_stores_them():
    assert written_then_read("nvdlav1", "SDP.D_DST_LINE_STRIDE", 0x1234) == 0x1220
    assert written_then_read("nvdlav1", "CDMA.D_ENTRY_PER_SLICE", 0x3FFF) == 0xFFF
    assert written_then_read("nvdlav1", "CDMA.D_BANK", 0x1F001F) == 0xF000F
    assert written_then_read("master", "CDMA.D_ENTRY_PER_SLICE", 0x3FFF) == 0x3FFF


def traceplayer_read_masks() -> dict[str, set[int]]:
    masks: dict[str, set[int]] = {}
    for path in sorted(TRACEPLAYER.glob("*/input.txn")):
        for match in READ.finditer(path.read_text()):
            masks.setdefault(match.group(2), set()).add(int(match.group(1), 16))
    return masks


@pytest.mark.skipif(not TRACEPLAYER.is_dir(), reason="needs ../shared/nvdla/traceplayer beside the checkout")
def test_nvidia_traceplayer_read_masks_agree_with_the_narrowed_fields():
    """NVIDIA's nvdlav1 traces read registers back under a mask; where a narrowed register is read under one
    that is not all ones, the mask is exactly the bits nvdlav1 keeps (e.g. 0xffffffe0 for SDP.D_DST_*)."""
    regmap = RegisterMap.for_layout("nvdlav1")
    narrowed = {entry["register"] for entry in json.loads(HARDWARE.read_text())["nvdlav1"]["fields"]}
    checked = 0
    for name, masks in traceplayer_read_masks().items():
        reg = regmap.lookup(name)
        if reg.qualified not in narrowed:
            continue
        for mask in masks - {0xFFFFFFFF}:
            assert mask == reg.readable_mask, f"{name}: the trace's mask {mask:#x}, the map's {reg.readable_mask:#x}"
            checked += 1
    assert checked >= 10


def compressed_layer(profile_name="nv_full"):
    rng = np.random.default_rng(5)
    cube = rng.integers(-8, 8, size=(64, 5, 5)).astype(np.int16)
    weights = rng.integers(-3, 3, size=(16, 64, 3, 3)).astype(np.int16)
    weights[rng.random(weights.shape) < 0.5] = 0
    return direct_layer(get_profile(profile_name), cube, weights, DirectLayer(precision="int16", compressed=True))


def test_wmb_bytes_is_the_mask_in_whole_128_byte_units():
    """16 kernels of 3x3x64 int16 weights: 9216 mask bits, 1152 bytes = 9 units of 128 (the RTL asserts
    WMB_BYTES[27:7] == ceil(BYTE_PER_KERNEL * K / 2 / 1024) = ceil(1152 * 16 / 2 / 1024) = 9)."""
    ctx = compressed_layer()
    assert ctx.regs.value("CDMA", "D_WMB_BYTES") == 9 * 128
    conv.run(ctx)
    with pytest.raises(ConfigurationError) as info:
        conv.run(with_fields(ctx, CDMA__D_WMB_BYTES__WMB_BYTES=10 * 128, CSC__D_WMB_BYTES__WMB_BYTES=10 * 128))
    assert "CONV-WMB-BYTES" in info.value.rule and "= 1152" in str(info.value)
