"""The DMAs' Table 35 and stride rules (golden/units/dma_rules.py) on hand-built configurations.

Every rule also has an illegal generator (suites/unit/stimulus/test_illegal.py); these tests pin the predicates
to the documents' numbers and cover what no generator draws yet (the CDMA pixel input).
"""

from __future__ import annotations

import numpy as np
import pytest
from register_edits import with_fields

from golden import rules
from golden.config import get_profile
from golden.errors import ConfigurationError
from golden.units import conv, dma_rules
from golden.units.conv.config import decode
from golden.units.conv.program import DirectLayer, direct_layer

FULL, SMALL = get_profile("nv_full"), get_profile("nv_small")
#: A 32-byte atom on master's register files, which keep every address bit (nvdlav1's keep 31:5 only).
LARGE = get_profile("nv_large")


def conv_ctx(profile=FULL, channels=20):
    cube = np.ones((channels, 6, 7), dtype=np.int64)
    weights = np.ones((5, channels, 3, 3), dtype=np.int64)
    return direct_layer(profile, cube, weights, DirectLayer(precision="int8"))




def check(rule_id: str, ctx, profile=FULL):
    return rules.REGISTRY[rule_id].check(decode(ctx.regs), rules.Facts(ctx.regs, profile))


IMAGE = {"CDMA__D_DATAIN_FORMAT__DATAIN_FORMAT": 1, "CSC__D_DATAIN_FORMAT__DATAIN_FORMAT": 1}


@pytest.mark.parametrize("address, line, broken", [
    (0x80000000, 0x100, False), (0x80000020, 0x120, False),
    (0x80000010, 0x100, True),  # the start address: 32 bytes on every profile
    (0x80000000, 0x108, True),  # the line stride
])
@pytest.mark.parametrize("profile", [LARGE, SMALL], ids=["nv_large", "nv_small"])
def test_pixel_input_start_and_line_stride_are_32_byte_aligned(address, line, broken, profile):
    ctx = with_fields(conv_ctx(profile), **IMAGE, CDMA__D_DAIN_ADDR_LOW_0__DATAIN_ADDR_LOW_0=address,
                      CDMA__D_LINE_STRIDE__LINE_STRIDE=line)
    message = check("CONV-CDMA-PIXEL-ALIGN", ctx, profile)
    assert (message is not None) == broken, message
    if broken:
        assert "Pitch linear pixel" in message and "32 bytes" in message
    # a feature layer is not a pixel layer: the rule does not apply to it
    assert check("CONV-CDMA-PIXEL-ALIGN", with_fields(conv_ctx(profile), CDMA__D_LINE_STRIDE__LINE_STRIDE=line + 4),
                 profile) is None


def test_feature_alignment_scales_with_the_memory_atom():
    """Table 35 says 32 bytes for a 32-byte atom; nv_small's 8-byte atom programs 8-byte strides."""
    assert check("CONV-CDMA-FEATURE-ALIGN", with_fields(conv_ctx(SMALL), CDMA__D_DAIN_ADDR_LOW_0__DATAIN_ADDR_LOW_0=
                                                        0x80000008), SMALL) is None
    message = check("CONV-CDMA-FEATURE-ALIGN", with_fields(conv_ctx(LARGE), CDMA__D_DAIN_ADDR_LOW_0__DATAIN_ADDR_LOW_0=
                                                           0x80000008), LARGE)
    assert "Feature data cube" in message and "start address" in message


def test_nvdlav1_cannot_hold_an_address_off_its_atom():
    """nvdlav1's CDMA keeps bits 31:5 of DATAIN_ADDR_LOW_0 (golden/regs/hardware_fields.json): what software
    writes below them never reaches the DMA, so on nv_full the rule sees the aligned address."""
    ctx = with_fields(conv_ctx(FULL), CDMA__D_DAIN_ADDR_LOW_0__DATAIN_ADDR_LOW_0=0x80000008)
    assert decode(ctx.regs).data_addr % 32 == 0
    assert check("CONV-CDMA-FEATURE-ALIGN", ctx, FULL) is None


def test_surface_stride_must_clear_the_previous_surface():
    ctx = conv_ctx(channels=40)  # two 32-byte surfaces
    cfg = decode(ctx.regs)
    needed = cfg.line_stride * (cfg.height - 1) + cfg.width * FULL.memory_atomic_size
    assert check("CONV-CDMA-FEATURE-SURFACE-STRIDE", with_fields(ctx, CDMA__D_SURF_STRIDE__SURF_STRIDE=needed)) is None
    message = check("CONV-CDMA-FEATURE-SURFACE-STRIDE", with_fields(ctx, CDMA__D_SURF_STRIDE__SURF_STRIDE=needed - 32))
    assert "overlaps the previous surface" in message


def test_the_convolution_rejects_through_the_registry():
    ctx = with_fields(conv_ctx(LARGE), CDMA__D_WEIGHT_ADDR_LOW__WEIGHT_ADDR_LOW=0x80100010)
    with pytest.raises(ConfigurationError) as info:
        conv.run(ctx)
    assert info.value.rule.startswith("CONV-CDMA-WEIGHT-ALIGN (in-memory-data-formats: Table 35")
    assert info.value.fields == ("CDMA.D_WEIGHT_ADDR_LOW.WEIGHT_ADDR_LOW",)


def test_every_dma_rule_cites_table_35_or_a_stride_rule():
    for dma in dma_rules.DMAS.values():
        align = rules.REGISTRY[f"{dma.id}-ALIGN"]
        assert "Table 35" in align.source and align.module == "golden.units.dma_rules"
        assert set(align.fields) == set(dma.fields.values())
    sources = {r.source for r in rules.all_rules()
               if r.module == "golden.units.dma_rules" and not r.id.endswith("-ALIGN")}
    assert sources == {dma_rules.DATA_FORMAT, dma_rules.FEATURE_FORMAT, dma_rules.BDMA_SOURCE}
