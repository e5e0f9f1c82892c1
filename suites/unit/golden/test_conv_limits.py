"""Limitation checks of the convolution model: each illegal programming is rejected before any data is
read, naming its rule and register fields; legal layers pass (the NVIDIA traces in test_conv_traces.py
also pass every check)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from register_edits import with_fields

from golden import rules
from golden.config import get_profile
from golden.errors import ConfigurationError, ProfileFeatureError
from golden.rules import Facts
from golden.units import conv
from golden.units.conv.config import decode
from golden.units.conv.limits import dc_entries_per_slice
from golden.units.conv.program import DirectLayer, direct_layer


def layer(profile="nv_full", precision="int8", **kwargs):
    cube = np.ones((20, 6, 7), dtype=np.int64)
    weights = np.ones((5, 20, 3, 3), dtype=np.int64)
    return direct_layer(get_profile(profile), cube, weights, DirectLayer(precision=precision, **kwargs))




def test_legal_layer_runs():
    assert conv.run(layer()).output.shape == (5, 4, 5)


WINOGRAD_MODE = {f"{unit}__D_MISC_CFG__CONV_MODE": 1 for unit in ("CDMA", "CSC", "CMAC_A", "CMAC_B", "CACC")}

CASES = [
    ("stage precisions differ", {"CACC__D_MISC_CFG__PROC_PRECISION": 1}, "CACC.D_MISC_CFG.PROC_PRECISION",
     "Register definition"),
    ("conv modes differ", {"CMAC_B__D_MISC_CFG__CONV_MODE": 1}, "CMAC_B.D_MISC_CFG.CONV_MODE", "Register definition"),
    ("feature int8 -> int16 (Table 29 invalid)", {"CDMA__D_MISC_CFG__IN_PRECISION": 1,
                                                  "CSC__D_MISC_CFG__IN_PRECISION": 1},
     "CDMA.D_MISC_CFG.IN_PRECISION", "Table 29"),
    ("output width", {"CSC__D_DATAOUT_SIZE_0__DATAOUT_WIDTH": 5, "CACC__D_DATAOUT_SIZE_0__DATAOUT_WIDTH": 5,
                      "CSC__D_ATOMICS__ATOMICS": 6 * 4 - 1}, "DATAOUT_WIDTH", "Limitation/Convolution/General"),
    ("CSC/CACC output differ", {"CACC__D_DATAOUT_SIZE_0__DATAOUT_HEIGHT": 2}, "CACC.D_DATAOUT_SIZE_0.DATAOUT_HEIGHT",
     "Register definition"),
    ("atomics", {"CSC__D_ATOMICS__ATOMICS": 7}, "CSC.D_ATOMICS.ATOMICS", "CSC.D_ATOMICS"),
    ("left padding >= S", {"CDMA__D_ZERO_PADDING__PAD_LEFT": 3, "CSC__D_ZERO_PADDING__PAD_LEFT": 3},
     "CDMA.D_ZERO_PADDING.PAD_LEFT", "Limitation/Convolution/General"),
    ("CSC padding differs", {"CSC__D_ZERO_PADDING__PAD_TOP": 1}, "CSC.D_ZERO_PADDING.PAD_TOP",
     "Register definition"),
    ("padding values differ", {"CSC__D_ZERO_PADDING_VALUE__PAD_VALUE": 3}, "CSC.D_ZERO_PADDING_VALUE.PAD_VALUE",
     "ZERO_PADDING_VALUE"),
    ("weight bytes", {"CDMA__D_WEIGHT_BYTES__WEIGHT_BYTES": 128, "CSC__D_WEIGHT_BYTES__WEIGHT_BYTES": 128},
     "CDMA.D_WEIGHT_BYTES.WEIGHT_BYTES", "WEIGHT_BYTES"),
    ("byte per kernel", {"CDMA__D_WEIGHT_SIZE_0__BYTE_PER_KERNEL": 99}, "CDMA.D_WEIGHT_SIZE_0.BYTE_PER_KERNEL",
     "WEIGHT_BYTES"),
    ("kernel counts", {"CSC__D_WEIGHT_SIZE_EXT_1__WEIGHT_KERNEL": 6}, "CSC.D_WEIGHT_SIZE_EXT_1.WEIGHT_KERNEL",
     "Register definition"),
    ("weight channels", {"CSC__D_WEIGHT_SIZE_EXT_1__WEIGHT_CHANNEL_EXT": 10},
     "CSC.D_WEIGHT_SIZE_EXT_1.WEIGHT_CHANNEL_EXT", "WEIGHT_SIZE_EXT"),
    ("strides differ", {"CSC__D_CONV_STRIDE_EXT__CONV_X_STRIDE_EXT": 1}, "CSC.D_CONV_STRIDE_EXT.CONV_X_STRIDE_EXT",
     "CONV_STRIDE"),
    ("release > height", {"CSC__D_RELEASE__RLS_SLICES": 9}, "CSC.D_RELEASE.RLS_SLICES", "General"),
    ("entries per slice", {"CDMA__D_ENTRY_PER_SLICE__ENTRIES": 5, "CSC__D_ENTRY_PER_SLICE__ENTRIES": 5},
     "CDMA.D_ENTRY_PER_SLICE.ENTRIES", "ENTRY_PER_SLICE"),
    ("too many banks", {"CDMA__D_BANK__WEIGHT_BANK": 15, "CSC__D_BANK__WEIGHT_BANK": 15}, "CDMA.D_BANK.DATA_BANK",
     "General"),
    ("clip truncate beyond 48 bits", {"CACC__D_CLIP_CFG__CLIP_TRUNCATE": 17}, "CACC.D_CLIP_CFG.CLIP_TRUNCATE",
     "cc_out_trunc"),
    ("line stride too small", {"CDMA__D_LINE_STRIDE__LINE_STRIDE": 32}, "CDMA.D_LINE_STRIDE.LINE_STRIDE",
     "Data Format"),
    ("dilation with image", {"CDMA__D_DATAIN_FORMAT__DATAIN_FORMAT": 1, "CSC__D_DATAIN_FORMAT__DATAIN_FORMAT": 1,
                             "CSC__D_DILATION_EXT__X_DILATION_EXT": 1}, "CSC.D_DILATION_EXT", "feature crossing"),
    ("batch with post-extension", {"CDMA__D_BATCH_NUMBER__BATCHES": 1, "CSC__D_BATCH_NUMBER__BATCHES": 1,
                                   "CACC__D_BATCH_NUMBER__BATCHES": 1, "CSC__D_POST_Y_EXTENSION__Y_EXTENSION": 1},
     "CSC.D_POST_Y_EXTENSION", "feature crossing"),
    ("winograd with dilation", {**WINOGRAD_MODE, "CSC__D_DILATION_EXT__Y_DILATION_EXT": 1},
     "CSC.D_DILATION_EXT", "feature crossing"),
    ("winograd output not 4-divisible", {**WINOGRAD_MODE, "CSC__D_WEIGHT_SIZE_EXT_0__WEIGHT_WIDTH_EXT": 3,
                                         "CSC__D_WEIGHT_SIZE_EXT_0__WEIGHT_HEIGHT_EXT": 3},
     "CSC.D_DATAOUT_SIZE_0.DATAOUT_WIDTH", "Winograd"),
]


@pytest.mark.parametrize("name,changes,field,rule", CASES, ids=[c[0] for c in CASES])
def test_violation_is_rejected(name, changes, field, rule):
    ctx = with_fields(layer(), **changes)
    with pytest.raises(ConfigurationError) as info:
        conv.run(ctx)
    assert any(field in f for f in info.value.fields), info.value
    assert rule in info.value.rule, info.value


def test_unaligned_line_stride_is_rejected_where_the_register_holds_it():
    """nv_large's CDMA keeps every bit of LINE_STRIDE; nvdlav1's keeps 31:5 (golden/regs/hardware_fields.json)."""
    ctx = with_fields(layer("nv_large"), CDMA__D_LINE_STRIDE__LINE_STRIDE=7 * 32 + 8)
    with pytest.raises(ConfigurationError) as info:
        conv.run(ctx)
    assert "CDMA.D_LINE_STRIDE.LINE_STRIDE" in info.value.fields and "Table 35" in info.value.rule


def test_fp16_pixel_to_int8_is_invalid():
    ctx = with_fields(layer(), CDMA__D_DATAIN_FORMAT__DATAIN_FORMAT=1, CSC__D_DATAIN_FORMAT__DATAIN_FORMAT=1,
                      CDMA__D_DATAIN_FORMAT__PIXEL_FORMAT=5)  # T_R16_F
    with pytest.raises(ConfigurationError, match="invalid case") as info:
        conv.run(ctx)
    assert "Table 29" in info.value.rule


def test_image_channel_count_follows_table_33():
    ctx = with_fields(layer(), CDMA__D_DATAIN_FORMAT__DATAIN_FORMAT=1, CSC__D_DATAIN_FORMAT__DATAIN_FORMAT=1,
                      CDMA__D_DATAIN_FORMAT__PIXEL_FORMAT=12)  # T_A8B8G8R8 has 4 channels, the layer 20
    with pytest.raises(ConfigurationError, match="channel size 4") as info:
        conv.run(ctx)
    assert "Table 33" in info.value.rule


@pytest.mark.parametrize("feature,changes", [
    ("WINOGRAD", WINOGRAD_MODE),
    ("BATCH", {"CDMA__D_BATCH_NUMBER__BATCHES": 1, "CSC__D_BATCH_NUMBER__BATCHES": 1,
               "CACC__D_BATCH_NUMBER__BATCHES": 1}),
    ("WEIGHT_COMPRESSION", {"CDMA__D_WEIGHT_FORMAT__WEIGHT_FORMAT": 1, "CSC__D_WEIGHT_FORMAT__WEIGHT_FORMAT": 1}),
])
def test_profile_features_are_required(feature, changes):
    ctx = with_fields(layer("nv_large"), **changes)
    with pytest.raises(ProfileFeatureError, match=feature):
        conv.run(ctx)


@pytest.mark.parametrize("profile,width,channels,precision,entries", [
    ("nv_small", 13, 64, "int8", 0x67 + 1),  # nv_small/dc_13x15x64_5x3x64x16_int8_0
    ("nv_small", 14, 49, "int8", 0x61 + 1),  # nv_small/dc_14x7x49_3x4x49x32_int8_0
    ("nv_large", 8, 128, "int8", 0xF + 1),  # nv_large/dc_8x16x128_3x3x128x32_int8
    ("nv_large", 8, 32, "int8", 0x3 + 1),  # nv_large/dc_8x8x32_1x1x32x32_int8_0 (two lines per entry)
    ("nv_full", 8, 32, "int16", 0x3 + 1),  # traceplayer conv_8x8_fc_int16
    ("nv_full", 19, 64, "int16", 0x12 + 1),  # traceplayer googlenet_conv2_3x3_int16
])
def test_entries_per_slice_match_nvidia_traces(profile, width, channels, precision, entries):
    assert dc_entries_per_slice(get_profile(profile), width, channels, precision) == entries


# -- the registry's rules that no generator reaches yet (image input, Winograd), on hand-built configurations ----
def _winograd_cfg():
    from golden.units.conv.program import WinogradLayer, winograd_layer
    ctx = winograd_layer(get_profile("nv_full"), np.ones((8, 10, 10), dtype=np.int64),
                         np.ones((4, 32, 4, 4), dtype=np.int64), WinogradLayer(out_hw=(8, 8)))
    return decode(ctx.regs)


def _image_cfg():
    from golden.units.conv.program import ImageLayer, image_layer
    ctx = image_layer(get_profile("nv_full"), np.zeros((4, 6, 7), dtype=np.uint8),
                      np.ones((5, 4, 3, 3), dtype=np.int64), ImageLayer(post_extension=2))
    return decode(ctx.regs)


#: rule id -> (legal configuration, ConvConfig attributes that break the rule)
UNGENERATED_CASES = {
    "CONV-PIXEL-PRECISION": (_image_cfg, dict(pixel_format="T_R16_F")),
    "CONV-PIXEL-SETTINGS": (_image_cfg, dict(channels=3)),
    "CONV-PIXEL-Y-OFFSET": (_image_cfg, dict(pixel_y_offset=1)),
    "CONV-PIXEL-MAPPING": (_image_cfg, dict(pixel_mapping="RESERVED")),
    "CONV-POST-EXTENSION-CHANNELS": (_image_cfg, dict(post_y_extension=4, weight_channel_ext=20)),
    "CONV-IMAGE-WEIGHT-CHANNELS": (_image_cfg, dict(weight_channel_ext=13)),
    "CONV-IMAGE-WEIGHT-SIZE": (_image_cfg, dict(weight_width_ext=2)),
    "CONV-WINOGRAD-FEATURE-INPUT": (_winograd_cfg, dict(csc_datain_format="pixel")),
    "CONV-WINOGRAD-WEIGHT-SIZE": (_winograd_cfg, dict(weight_width_ext=3)),
    "CONV-WINOGRAD-OUTPUT-SIZE": (_winograd_cfg, dict(csc_out_width=6)),
    "CONV-WINOGRAD-DATAIN-SIZE": (_winograd_cfg, dict(csc_height_ext=13)),
    "CONV-WINOGRAD-WEIGHT-CHANNELS": (_winograd_cfg, dict(weight_channel_ext=8)),
    "CONV-WINOGRAD-DATAIN-CHANNELS": (_winograd_cfg, dict(csc_channel_ext=9)),
    "CONV-WINOGRAD-CSC-STRIDES": (_winograd_cfg, dict(csc_stride_x=2)),
    "CONV-WINOGRAD-OUTPUT": (_winograd_cfg, dict(csc_out_height=12)),
    "CONV-WINOGRAD-PRA-TRUNCATE": (_winograd_cfg, dict(proc_precision="fp16", pra_truncate=1)),
}


def test_every_ungenerated_conv_rule_has_a_case():
    """(The pixel settings, Y offset and mapping rules have breakers now and keep their hand-built cases.)"""
    from golden import rules
    from stimulus import illegal
    assert set(UNGENERATED_CASES) >= {r for r in illegal.UNBROKEN if rules.REGISTRY[r].unit == "CONV"}


@pytest.mark.parametrize("rule_id", sorted(UNGENERATED_CASES))
def test_ungenerated_conv_rule_predicate(rule_id):
    import dataclasses

    from golden import rules
    legal, changes = UNGENERATED_CASES[rule_id]
    cfg = legal()
    facts = rules.Facts(profile=get_profile("nv_full"))
    assert not rules.violations("CONV", cfg, facts)  # the hand-built layer is legal
    broken = dataclasses.replace(cfg, **changes)
    assert rules.REGISTRY[rule_id].check(broken, facts) is not None


@pytest.mark.parametrize("name", ["T_R10", "T_A16B16G16R16", "T_Y16___U16V16_N444", "T_A2B10G10R10"])
def test_nv_small_reads_only_8_bit_pixel_formats(name):
    """Table 33's input precision int16 needs a profile with int16: NVIDIA's nv_small RTL ran such layers as other
    formats (NV_NVDLA_CDMA_IMG_ctrl.v decodes only the 8-bit ones on an int8-only build)."""
    from golden.formats import pixel
    from golden.units.conv import limits
    cfg = dataclasses.replace(_image_cfg(), pixel_format=name, in_precision=pixel.pixel_format(name).precision,
                              channels=pixel.pixel_format(name).channels)
    with pytest.raises(ProfileFeatureError, match="int16"):
        limits.validate(dataclasses.replace(cfg, proc_precision="int8"), Facts(profile=get_profile("nv_small")))
    limits.check_profile(get_profile("nv_full"), cfg)


@pytest.mark.parametrize(("profile", "lines", "widest"), [("nv_full", 2, 32), ("nv_full", 4, 16), ("nv_small", 2, 4),
                                                          ("nv_small", 4, 2)])
def test_post_extension_channels_follow_the_mac_atom(profile, lines, widest):
    """The document's 32 / 16 channels are nv_full's 64-channel atom split over 2 / 4 lines; nv_small's 8-channel
    atom leaves 4 / 2 (the lines of one output pixel share one atom: nvdla/hw cmod NV_NVDLA_csc.cpp)."""
    from golden import rules
    facts = rules.Facts(profile=get_profile(profile))
    legal = dataclasses.replace(_image_cfg(), post_y_extension=lines, weight_channel_ext=widest)
    assert rules.REGISTRY["CONV-POST-EXTENSION-CHANNELS"].check(legal, facts) is None
    wider = dataclasses.replace(legal, weight_channel_ext=widest + 1)
    assert f"<= {widest}" in rules.REGISTRY["CONV-POST-EXTENSION-CHANNELS"].check(wider, facts)


def test_image_entry_per_slice_counts_the_padding():
    """NVIDIA's nv_small img_51x96x4_* traces: 51 pixels of 4 int8 channels on 8-byte entries take 26 entries
    (their ENTRY_PER_SLICE is 0x19). A left padding of 4 and a right one of 1 make 224 bytes: 28 entries."""
    from golden import rules
    from golden.units.conv.rules import image_entries_per_slice
    small = get_profile("nv_small")
    assert image_entries_per_slice(small, 0, 51, 0, 4, "int8") == 0x19 + 1
    assert image_entries_per_slice(small, 4, 51, 1, 4, "int8") == 28
    facts = rules.Facts(profile=small)
    cfg = dataclasses.replace(_image_cfg(), width=51, channels=4, proc_precision="int8", pad_left=4, pad_right=1,
                              entries=28)
    assert rules.REGISTRY["CONV-IMAGE-ENTRY-PER-SLICE"].check(cfg, facts) is None
    short = rules.REGISTRY["CONV-IMAGE-ENTRY-PER-SLICE"].check(dataclasses.replace(cfg, entries=27), facts)
    assert "4 + 51 + 1 pixels" in short and "takes 28 entries" in short
    # one spare entry: the generator wrote these on nv_full, and nvdlav1's C model disagreed on 14 of 72
    spare = rules.REGISTRY["CONV-IMAGE-ENTRY-PER-SLICE"].check(dataclasses.replace(cfg, entries=29), facts)
    assert "= 29" in spare and "takes 28 entries" in spare


@pytest.mark.parametrize(("skip", "weight_bytes", "broken"), [(True, 422_400, True), (True, 393_344, True),
                                                               (True, 393_216, False), (False, 422_400, False)])
def test_kept_weights_fit_their_banks(skip, weight_bytes, broken):
    """CSC releases no weights in a layer with SKIP_WEIGHT_RLS (nvdla/hw NV_NVDLA_CSC_sg.v wt_release), so its
    WEIGHT_BYTES must fit WEIGHT_BANK: nv_full's banks are 32 KiB (hw_spec nv_full: 16 banks of 256 entries of 128
    bytes), 12 of them 393,216 bytes. The C model campaign's gen_conv_s2611_531 kept 422,400 bytes in them and never
    finished, on NVIDIA's C model as on the RTL; released (streamed) weights may exceed the banks."""
    cfg = dataclasses.replace(decode(layer().regs), skip_weight_rls=skip, weight_bytes=weight_bytes, weight_bank=12)
    found = [r.id for r, _ in rules.violations("CONV", cfg, rules.Facts(profile=get_profile("nv_full")))]
    assert ("CONV-KEPT-WEIGHT-BANKS" in found) == broken
