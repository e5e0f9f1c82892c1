"""NVIDIA's SDP traces beyond their verdicts, which suites/conformance/test_traces.py checks once for
every trace (trace_tests sdp_*, traceplayer sdp_relu_int16, and the four nv_small EW traces that are
invalid because nv_small.spec disables SDP EW and LUT).

Here: those four EW traces pass on nv_small's geometry with EW and LUT enabled through a .spec file
(their CRCs come from a full SDP), the LUT contents matter, and an advisory rule warns.
"""

from __future__ import annotations

import re

import pytest

from golden.config import get_profile, load_spec
from golden.player import play
from golden.units import lut

EW_ON_NV_SMALL = ["sdp_3x3x32_ew_lo_lin_int8", "sdp_3x3x33_ew_int8_reg_0", "sdp_3x3x33_ew_le_exp_int8",
                  "sdp_3x3x33_ew_le_lin_int8"]


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


@pytest.mark.parametrize("name", ["sdp_3x3x33_bn_int8_reg_2"])
def test_prelu_after_alu_warns_but_is_computed(nvdla_data, name):
    """nv_small/sdp_3x3x33_bn_int8_reg_2 breaks Limitation/SDP (PReLU with the ALU on); its CRC
    matches the datapath, so the rule is advisory (a LimitationWarning, reported in the result's warnings)."""
    result = play(_cfg(nvdla_data, "nv_small", name), get_profile("nv_small"))
    assert result.status == "passed", result.detail
    assert any("BN_MUL_PRELU" in warning and "Limitation/SDP" in warning for warning in result.warnings)
