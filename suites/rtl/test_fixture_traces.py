"""NVIDIA nv_small SDP traces on the fixture DUT through the pyuvm bench, judged by the one verdict path
(scoreboards/verdict.py verify): the traces' CRCs and, through the scoreboards, the golden model's bytes."""


import pytest

pytest.importorskip("cocotb")  # rtl/build.py and rtl/runner.py import it (the `rtl` extra)

from golden.config import get_profile  # noqa: E402
from golden.implementation import Golden  # noqa: E402
from golden.player import play  # noqa: E402
from golden.settings import override  # noqa: E402
from rtl.implementation import Rtl  # noqa: E402
from rtl.suite import ALL_SUPPORTED, NVIDIA_TRACES, UNSUPPORTED, nvidia_trace  # noqa: E402
from scoreboards.verdict import verify  # noqa: E402

FULL = override("NVDLA_RTL_FULL") == "1"


def _trace(name):
    path = nvidia_trace(name)
    if not path.exists():
        pytest.skip("NVIDIA traces not available")
    return path


def _assert_passes(name, nv_small):
    result = verify(_trace(name), nv_small, Rtl(), Golden())
    assert result.status == "passed", f"{name}: {result.detail}"
    commands = [c.command for c in result.checks]
    assert "check_crc" in commands and all(c.passed for c in result.checks)
    regions = sum(c.command == "check_crc" for c in result.checks)
    assert commands.count("scoreboard vs golden") == regions, "the golden model's bytes were not compared"
    assert result.cycles > 0


@pytest.mark.parametrize("name", NVIDIA_TRACES)
def test_default_traces_pass_on_the_fixture(name, fixture_build, nv_small):
    _assert_passes(name, nv_small)


@pytest.mark.skipif(not FULL, reason="nightly: set NVDLA_RTL_FULL=1 for every supported trace")
@pytest.mark.parametrize("name", [n for n in ALL_SUPPORTED if n not in NVIDIA_TRACES])
def test_every_supported_trace_passes_on_the_fixture(name, fixture_build, nv_small):
    _assert_passes(name, nv_small)


@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
def test_traces_outside_the_subset_are_unsupported(name, nv_small):
    result = verify(_trace(name), nv_small, Rtl())
    assert result.status == "unsupported" and UNSUPPORTED[name] in result.detail


def test_the_rtl_implementation_against_the_golden_reference(fixture_build, nv_small):
    passed = verify(_trace("sdp_3x3x33_bs_int8_reg_1"), nv_small, Rtl(), Golden())
    assert passed.status == "passed", passed.detail
    assert [c.command for c in passed.checks] == ["scoreboard vs golden", "check_crc", "memory writes"]
    assert passed.reports and all(r.rule == "bit-exact" for r in passed.reports)
    unsupported = play(_trace("sdp_23x13x42_bs_int8_mem_0"), nv_small, Rtl())
    assert unsupported.status == "unsupported" and "BS operands from memory" in unsupported.detail
    invalid = verify(_trace("sdp_3x3x33_ew_int8_reg_0"), nv_small, Rtl(), Golden())
    assert invalid.status == "invalid" and "on the reference golden" in invalid.detail


def test_a_trace_invalid_on_the_golden_model_is_invalid_on_rtl_without_simulating(nv_small, tmp_path):
    # nv_small has no SDP EW stage (nv_small.spec): the golden model calls the trace invalid
    golden = play(_trace("sdp_3x3x33_ew_int8_reg_0"), nv_small)
    assert golden.status == "invalid"
    rtl = Rtl(work_dir=tmp_path, keep=True)
    on_rtl = verify(_trace("sdp_3x3x33_ew_int8_reg_0"), nv_small, rtl, Golden())
    assert on_rtl.status == "invalid" and golden.detail in on_rtl.detail
    assert (on_rtl.cycles, rtl.last_run) == (None, None)
    assert not list(tmp_path.iterdir()), "nothing is simulated"


def test_the_agent_copes_with_csb_ready_toggling_between_requests(fixture_build, nv_small):
    # the fixture's csb2nvdla_ready drops for one to three cycles after requests and at random
    rtl = Rtl()
    result = verify(_trace("sdp_3x3x33_bs_bn_int8_0"), nv_small, rtl, Golden())
    assert result.status == "passed", result.detail
    assert rtl.last_run.csb_stall_cycles > 10, "ready never deasserted while a request waited"


def test_random_axi_back_pressure(fixture_build, nv_small, monkeypatch):
    plain = verify(_trace("sdp_8x8x32_bypass_int8_1"), nv_small, Rtl(), Golden())
    monkeypatch.setenv("NVDLA_RTL_AXI_PAUSE", "0.5")
    paused = verify(_trace("sdp_8x8x32_bypass_int8_1"), nv_small, Rtl(), Golden())
    assert (plain.status, paused.status) == ("passed", "passed"), paused.detail
    assert paused.cycles > plain.cycles, "the pauses did not slow the AXI traffic"


def test_a_corrupted_crc_fails(fixture_build, nv_small, tmp_path):
    # the verdict itself says so: the DUT's bytes match the golden model's, their CRC is not the trace's
    source = _trace("sdp_8x8x32_bypass_int8_1")
    for path in source.iterdir():
        text = path.read_text().replace("0x9F5EDD58", "0x9F5EDD59") if path.suffix == ".cfg" else path.read_text()
        (tmp_path / path.name).write_text(text)
    result = verify(tmp_path, nv_small, Rtl(), Golden())
    assert result.status == "failed"
    checks = {c.command: c for c in result.checks}
    assert checks["scoreboard vs golden"].passed and not checks["check_crc"].passed
    # the trace's own bytes (NVIDIA's CRC of the bypassed layer, 0x9F5EDD58) and the one it now expects
    assert "CRC 0x9f5edd58, expected 0x9f5edd59" in checks["check_crc"].message


def test_a_profile_with_wider_atoms_is_unsupported_on_the_fixture(nvdla_data):
    result = verify(nvdla_data / "trace_tests/nv_large/sdp_passthrough_8x8x32_pack_inc_int8",
                       get_profile("nv_large"), Rtl(), Golden())
    assert result.status == "unsupported" and "8-byte memory atoms, profile nv_large has 32-byte ones" in result.detail
