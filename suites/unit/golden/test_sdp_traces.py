"""NVIDIA's SDP traces through golden/player.py and the SDP model.

trace_tests/{nv_small,nv_large}/sdp_* (int8, CRC; sdp_pdp_* chains SDP into PDP on the fly) and the
nvdlav1 traceplayer sdp_relu_int16 (nv_full, golden dump_mem file).  nv_small.spec disables SDP EW and
LUT, yet four nv_small traces program them: on nv_small they are invalid (ProfileFeatureError naming
SDP_EW); their CRCs come from a full SDP, so they are also played on nv_small's geometry with EW and LUT
enabled through a .spec file.
"""

from __future__ import annotations

import re

import pytest

from golden.config import get_profile, load_spec
from golden.player import play
from golden.units import lut

SDP_TRACES = {
    "nv_small": [
        "sdp_1x1x1_pass_through_int8", "sdp_1x1x8_pass_through_int8_0", "sdp_1x8192x1_pass_through_int8_0",
        "sdp_23x13x42_bs_int8_mem_0", "sdp_3x3x33_bn_int8_mem_0", "sdp_3x3x33_bn_int8_reg_0",
        "sdp_3x3x33_bn_int8_reg_1", "sdp_3x3x33_bn_int8_reg_2", "sdp_3x3x33_bn_int8_reg_3",
        "sdp_3x3x33_bs_bn_int8_0", "sdp_3x3x33_bs_bn_int8_1", "sdp_3x3x33_bs_int8_reg_0",
        "sdp_3x3x33_bs_int8_reg_1", "sdp_4x1x8192_pass_through_int8_0", "sdp_4x22x42_bypass_int8",
        "sdp_5x24x18_bs_int8_mem_0", "sdp_8192x1x1_pass_through_int8_0", "sdp_8x8x32_bypass_int8_0",
        "sdp_8x8x32_bypass_int8_1", "sdp_pdp_32x16x32_pass_through_int8_0",
    ],
    "nv_large": [
        "sdp_13x4x29_ew_lut_int8", "sdp_passthrough_8x8x32_pack_all_zero_int8",
        "sdp_passthrough_8x8x32_pack_inc_int8",
    ],
}
EW_ON_NV_SMALL = ["sdp_3x3x32_ew_lo_lin_int8", "sdp_3x3x33_ew_int8_reg_0", "sdp_3x3x33_ew_le_exp_int8",
                  "sdp_3x3x33_ew_le_lin_int8"]
CASES = [(profile, name) for profile, names in SDP_TRACES.items() for name in names]


def _cfg(nvdla_data, profile, name):
    return nvdla_data / "trace_tests" / profile / name / f"{name}.cfg"


@pytest.fixture(scope="module")
def nv_small_full(nvdla_data, tmp_path_factory):
    """nv_small's .spec with SDP EW and LUT switched on."""
    text = (nvdla_data / "configs" / "nv_small.spec").read_text()
    text = re.sub(r"SDP_(EW|LUT)_DISABLE", r"SDP_\1_ENABLE", text)
    path = tmp_path_factory.mktemp("spec") / "nv_small_ew_lut.spec"
    path.write_text(text)
    profile = load_spec(path)
    assert profile.sdp_ew and profile.sdp_lut and profile.memory_atomic_size == 8
    return profile


@pytest.mark.filterwarnings("ignore::golden.units.sdp.validate.LimitationWarning")
@pytest.mark.parametrize(("profile", "name"), CASES, ids=[f"{p}/{n}" for p, n in CASES])
def test_sdp_trace(nvdla_data, profile, name):
    result = play(_cfg(nvdla_data, profile, name), get_profile(profile))
    assert result.status == "passed", result.detail
    assert "SDP" in result.layers[0].stages


@pytest.mark.parametrize("name", EW_ON_NV_SMALL)
def test_ew_traces_are_invalid_on_nv_small(nvdla_data, name):
    result = play(_cfg(nvdla_data, "nv_small", name), get_profile("nv_small"))
    assert result.status == "invalid" and "SDP_EW" in result.detail, result.detail


@pytest.mark.parametrize("name", EW_ON_NV_SMALL)
def test_ew_traces_pass_with_ew_and_lut(nvdla_data, nv_small_full, name):
    result = play(_cfg(nvdla_data, "nv_small", name), nv_small_full)
    assert result.status == "passed", result.detail


def test_lut_contents_matter_for_le_lin(nvdla_data, nv_small_full, monkeypatch):
    """The LUT is really used: sdp_3x3x33_ew_le_lin_int8 fails when its table entries are shifted."""
    original = lut.LutRam.write

    def shifted(self, register, value):
        return original(self, register, value + 3000 if register == "S_LUT_ACCESS_DATA" else value)

    monkeypatch.setattr(lut.LutRam, "write", shifted)
    result = play(_cfg(nvdla_data, "nv_small", "sdp_3x3x33_ew_le_lin_int8"), nv_small_full)
    assert result.status == "failed"


def test_traceplayer_sdp_relu_int16(nvdla_data):
    result = play(nvdla_data / "traceplayer" / "sdp_relu_int16" / "input.txn", get_profile("nv_full"))
    assert result.status == "passed", result.detail


@pytest.mark.parametrize("name", ["sdp_3x3x33_bn_int8_reg_2"])
def test_prelu_after_alu_warns_but_is_computed(nvdla_data, name):
    """nv_small/sdp_3x3x33_bn_int8_reg_2 breaks Limitation/SDP (PReLU with the ALU on); its CRC
    matches the datapath, so the rule is advisory (LimitationWarning) when playing traces."""
    from golden.units.sdp.validate import LimitationWarning

    with pytest.warns(LimitationWarning, match="BN_MUL_PRELU"):
        result = play(_cfg(nvdla_data, "nv_small", name), get_profile("nv_small"))
    assert result.status == "passed", result.detail
