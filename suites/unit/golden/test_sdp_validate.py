"""golden/units/sdp/checks.py: every checked rule raises naming its register fields and its source."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from test_sdp import base_fields, enable_dma, make_ctx, put_feature

from golden.config import get_profile
from golden.errors import ConfigurationError, MemoryAccessError, NotModelledError, ProfileFeatureError
from golden.rules import Facts, LimitationWarning
from golden.units import sdp
from golden.units.sdp.checks import validate

SHAPE = (16, 2, 2)


def layer(extra=(), in_p="int8", out_p="int8", dmas=(), shape=SHAPE, profile=None):
    fields = base_fields(shape, in_p, out_p)
    for letter, use, mode in dmas:
        enable_dma(fields, letter, use, mode, "TWO_BYTE", shape, in_p)
    fields.update(dict(extra))
    return make_ctx(fields, profile=profile or get_profile("nv_full"))


def rejects(ctx, field, rule):
    with pytest.raises(ConfigurationError) as err:
        sdp.run(ctx)
    assert any(field in f for f in err.value.fields), err.value.fields
    assert rule in err.value.rule
    return err.value


EW_ON = {"SDP.D_DP_EW_CFG.EW_BYPASS": 0}
EQL = {**EW_ON, "SDP.D_DP_EW_CFG.EW_ALU_BYPASS": 0, "SDP.D_DP_EW_CFG.EW_ALU_ALGO": 3,
       "SDP.D_DP_EW_ALU_CFG.EW_ALU_SRC": 1}
BS_ALU_MEM = {"SDP.D_DP_BS_CFG.BS_BYPASS": 0, "SDP.D_DP_BS_CFG.BS_ALU_BYPASS": 0,
              "SDP.D_DP_BS_ALU_CFG.BS_ALU_SRC": 1}

CASES = {
    "table30_int8_to_fp16": (dict(out_p="fp16"), "OUT_PRECISION", "Table 30"),
    "table30_fp16_to_int8": (dict(in_p="fp16"), "IN_PRECISION", "Table 30"),
    "rdma_enabled_with_reg_src": (dict(dmas=[("B", "ALU", "PER_KERNEL")]), "BRDMA_DISABLE", "Limitation/SDP/General"),
    "rdma_disabled_with_mem_src": (dict(extra=BS_ALU_MEM), "BRDMA_DISABLE", "DATA_USE"),
    "data_use_mismatch": (dict(extra=BS_ALU_MEM, dmas=[("B", "MUL", "PER_KERNEL")]), "BRDMA_DATA_USE", "DATA_USE"),
    "eql_lut_on": (dict(extra={**EQL, "SDP.D_DP_EW_CFG.EW_LUT_BYPASS": 0, "SDP.S_LUT_LE_END.LUT_LE_END": 64,
                               "SDP.S_LUT_LO_END.LUT_LO_END": 256}, dmas=[("E", "ALU", "PER_ELEMENT")]),
                    "EW_LUT_BYPASS", "Limitation/SDP/General"),
    "eql_cvt_on": (dict(extra={**EQL, "SDP.D_DP_EW_ALU_CFG.EW_ALU_CVT_BYPASS": 0}, dmas=[("E", "ALU", "PER_ELEMENT")]),
                   "EW_ALU_CVT_BYPASS", "Limitation/SDP/General"),
    "eql_output_cvt": (dict(extra={**EQL, "SDP.D_CVT_SCALE.CVT_SCALE": 2}, dmas=[("E", "ALU", "PER_ELEMENT")]),
                       "CVT_SCALE", "Limitation/SDP/General"),
    "eql_precision_conversion": (dict(extra=EQL, out_p="int16", dmas=[("E", "ALU", "PER_ELEMENT")]),
                                 "OUTPUT_DST", "Limitation/SDP/DC"),
    "pdp_precision_conversion": (dict(extra={"SDP.D_FEATURE_MODE_CFG.OUTPUT_DST": 1}, out_p="int16"),
                                 "OUTPUT_DST", "Limitation/SDP/DC"),
    "fp16_ew_cvt_bypassed": (dict(in_p="fp16", out_p="fp16", extra={**EW_ON, "SDP.D_DP_EW_CFG.EW_MUL_BYPASS": 0,
                                                                   "SDP.D_DP_EW_MUL_CFG.EW_MUL_SRC": 1},
                                  dmas=[("E", "MUL", "PER_ELEMENT")]), "EW_MUL_CVT_BYPASS", "Limitation/SDP/General"),
    "batch_offline": (dict(extra={"SDP.D_FEATURE_MODE_CFG.BATCH_NUMBER": 1}), "FLYING_MODE", "Winograd/Batch"),
    "batch_alignment": (dict(extra={"SDP.D_FEATURE_MODE_CFG.BATCH_NUMBER": 1, "SDP.D_FEATURE_MODE_CFG.FLYING_MODE": 1,
                                    "SDP_RDMA.D_FEATURE_MODE_CFG.FLYING_MODE": 1,
                                    "SDP.D_DST_BASE_ADDR_LOW.DST_BASE_ADDR_LOW": 0x80100020}),
                        "DST_BASE_ADDR_LOW", "Winograd/Batch"),
    # nv_large: nvdlav1's SDP keeps bits 31:5 of DST_BASE_ADDR_LOW only (golden/regs/hardware_fields.json)
    "dst_alignment": (dict(extra={"SDP.D_DST_BASE_ADDR_LOW.DST_BASE_ADDR_LOW": 0x80100010},
                           profile=get_profile("nv_large")), "DST_BASE_ADDR_LOW", "Table 35"),
    "line_stride_too_small": (dict(extra={"SDP.D_DST_LINE_STRIDE.DST_LINE_STRIDE": 32}), "DST_LINE_STRIDE",
                              "Limitation/Data Format"),
    "one_by_one_not_packed": (dict(shape=(64, 1, 1), extra={"SDP.D_DST_SURFACE_STRIDE.DST_SURFACE_STRIDE": 64}),
                              "DST_SURFACE_STRIDE", "Limitation/Data Format"),
    "rdma_mirror": (dict(extra={"SDP_RDMA.D_DATA_CUBE_WIDTH.WIDTH": 5}), "D_DATA_CUBE_WIDTH", "SDP_RDMA"),
    "x_alu_eql": (dict(extra={"SDP.D_DP_BS_CFG.BS_BYPASS": 0, "SDP.D_DP_BS_CFG.BS_ALU_BYPASS": 0,
                              "SDP.D_DP_BS_CFG.BS_ALU_ALGO": 3}), "BS_ALU_ALGO", "register map"),
    "lut_select": (dict(extra={**EW_ON, "SDP.D_DP_EW_CFG.EW_LUT_BYPASS": 0, "SDP.S_LUT_CFG.LUT_LE_FUNCTION": 1,
                               "SDP.S_LUT_INFO.LUT_LE_INDEX_SELECT": 26, "SDP.S_LUT_LO_END.LUT_LO_END": 256}),
                   "LUT_LE_INDEX_SELECT", "Limitation/LUT"),
    "lut_span": (dict(extra={**EW_ON, "SDP.D_DP_EW_CFG.EW_LUT_BYPASS": 0, "SDP.S_LUT_CFG.LUT_LE_FUNCTION": 1,
                             "SDP.S_LUT_LE_END.LUT_LE_END": 64, "SDP.S_LUT_LO_END.LUT_LO_END": 100}),
                 "S_LUT_LO_END", "Limitation/LUT"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_limitation_rejected(case):
    kwargs, field, rule = CASES[case]
    rejects(layer(**kwargs), field, rule)


def test_a_legal_layer_passes_validation():
    ctx = layer(extra={**EW_ON, "SDP.D_DP_EW_CFG.EW_LUT_BYPASS": 0, "SDP.S_LUT_CFG.LUT_LE_FUNCTION": 1,
                       "SDP.S_LUT_LE_END.LUT_LE_END": 64, "SDP.S_LUT_LO_END.LUT_LO_END": 256})
    validate(sdp.decode(ctx.regs), Facts(ctx.regs, ctx.profile), strict=True)


def test_prelu_with_alu_is_advisory_but_strict_raises():
    extra = {"SDP.D_DP_BS_CFG.BS_BYPASS": 0, "SDP.D_DP_BS_CFG.BS_ALU_BYPASS": 0, "SDP.D_DP_BS_CFG.BS_MUL_BYPASS": 0,
             "SDP.D_DP_BS_CFG.BS_MUL_PRELU": 1}
    ctx = layer(extra=extra)
    with pytest.warns(LimitationWarning, match="BS_MUL_PRELU"):
        validate(sdp.decode(ctx.regs), Facts(ctx.regs, ctx.profile))
    with pytest.raises(ConfigurationError) as err:
        validate(sdp.decode(ctx.regs), Facts(ctx.regs, ctx.profile), strict=True)
    assert "SDP.D_DP_BS_CFG.BS_ALU_BYPASS" in err.value.fields


@pytest.mark.parametrize("extra, switch", [
    (EW_ON, "SDP_EW"),
    ({**EW_ON, "SDP.D_DP_EW_CFG.EW_LUT_BYPASS": 0}, "SDP_EW"),
])
def test_nv_small_lacks_ew_and_lut(extra, switch):
    ctx = layer(extra=extra, profile=get_profile("nv_small"), shape=(8, 2, 2))
    with pytest.raises(ProfileFeatureError) as err:
        sdp.run(ctx)
    assert switch in err.value.switch


def test_lut_needs_the_lut_switch():
    profile = dataclasses.replace(get_profile("nv_full"), sdp_lut=False)
    ctx = layer(extra={**EW_ON, "SDP.D_DP_EW_CFG.EW_LUT_BYPASS": 0}, profile=profile)
    with pytest.raises(ProfileFeatureError, match="LUT") as err:
        sdp.run(ctx)
    assert err.value.switch == "SDP_LUT_ENABLE"


def test_int16_on_nv_small_is_invalid():
    with pytest.raises(ProfileFeatureError) as err:
        sdp.run(layer(in_p="int16", out_p="int16", profile=get_profile("nv_small"), shape=(4, 2, 2)))
    assert "INT16" in err.value.switch


def test_winograd_on_the_fly_writes_the_feature_layout_offline_is_not_modelled():
    flying = {"SDP.D_FEATURE_MODE_CFG.FLYING_MODE": 1, "SDP_RDMA.D_FEATURE_MODE_CFG.FLYING_MODE": 1}
    upstream = np.random.default_rng(3).integers(-300, 300, (1, 16, 2, 2)).astype(np.int32)
    plain, wino = layer(extra=flying), layer(extra={**flying, "SDP.D_FEATURE_MODE_CFG.WINOGRAD": 1})
    np.testing.assert_array_equal(sdp.run(wino, upstream).output, sdp.run(plain, upstream).output)
    with pytest.raises(NotModelledError):
        sdp.run(layer(extra={"SDP.D_FEATURE_MODE_CFG.WINOGRAD": 1}))


def test_flying_without_upstream_is_rejected():
    ctx = layer(extra={"SDP.D_FEATURE_MODE_CFG.FLYING_MODE": 1, "SDP_RDMA.D_FEATURE_MODE_CFG.FLYING_MODE": 1})
    rejects(ctx, "FLYING_MODE", "on the fly")


def test_never_written_input_is_reported():
    ctx = layer()  # the input surface was never loaded
    with pytest.raises(MemoryAccessError, match="never-written"):
        sdp.run(ctx)
    ctx = layer()
    put_feature(ctx, np.zeros(SHAPE, np.int8), "int8")
    sdp.run(ctx)


def test_the_unit_declaration_checks_a_layer_as_its_validate_does():
    """golden.rules.check(stage, regs, profile, strict): decode, then the unit's validate (stimulus's illegal
    layers of advisory rules go through it)."""
    from golden import rules

    extra = {"SDP.D_DP_BS_CFG.BS_BYPASS": 0, "SDP.D_DP_BS_CFG.BS_ALU_BYPASS": 0, "SDP.D_DP_BS_CFG.BS_MUL_BYPASS": 0,
             "SDP.D_DP_BS_CFG.BS_MUL_PRELU": 1}
    ctx = layer(extra=extra)
    with pytest.warns(LimitationWarning, match="BS_MUL_PRELU"):
        assert rules.check("SDP", ctx.regs, ctx.profile).proc_precision == "int8"
    with pytest.raises(ConfigurationError, match="PRELU"):
        rules.check("SDP", ctx.regs, ctx.profile, strict=True)
