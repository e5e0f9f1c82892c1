"""NVIDIA's convolution traces played on the golden models (golden/player.py: conv -> SDP on the fly ->
memory): trace_tests/*/dc_* (int8, nv_small and nv_large, CRC checks) and the nvdlav1 traceplayer
convolution tests (int16, nv_full, golden dump_mem files). Traces whose input files are missing from the
snapshot (MISSING_FILES.tsv) are checked as far as their register programming goes."""

from __future__ import annotations

import shutil

import pytest

from golden.config import get_profile
from golden.player import play
from golden.regs.regmap import RegisterMap
from golden.regs.values import RegisterValues
from golden.rules import Facts
from golden.trace import RegWrite, load_trace
from golden.units.conv import limits
from golden.units.conv.config import decode

DC_TRACES = {
    "nv_small": [
        "dc_13x15x64_5x3x64x16_int8_0", "dc_14x7x49_3x4x49x32_int8_0", "dc_1x1x8_1x1x8x1_int8_0",
        "dc_24x33x55_5x5x55x25_int8_0", "dc_24x44x14_5x3x14x41_int8_0", "dc_32x26x76_6x3x76x16_int8_0",
        "dc_35x22x54_6x8x54x29_int8_0", "dc_4x1x8192_1x1x8192x1_int8_0", "dc_6x8x192_3x3x192x32_int8_0",
        "dc_8192x1x1_2x3x1x41_int8_0", "dc_8x16x128_3x3x128x32_int8", "dc_8x8x36_4x4x36x16_dilation_int8_0",
    ],
    "nv_large": ["dc_8x16x128_3x3x128x32_int8", "dc_8x8x32_1x1x32x32_int8_0"],
}
TRACEPLAYER_CONV = ["conv_8x8_fc_int16", "googlenet_conv2_3x3_int16", "sanity3", "sanity3_cvsram"]
PLAYED = [*[(f"trace_tests/{p}/{n}/{n}.cfg", p) for p, names in DC_TRACES.items() for n in names],
          *[(f"traceplayer/{n}/input.txn", "nv_full") for n in TRACEPLAYER_CONV]]


@pytest.mark.parametrize("path,profile", PLAYED, ids=[p.split("/")[-2] + "-" + q for p, q in PLAYED])
def test_conv_trace_passes(nvdla_data, path, profile):
    result = play(nvdla_data / path, get_profile(profile))
    assert result.status == "passed", f"{result.detail}\n{result.mismatch_summary()}"
    assert result.checks and all(check.passed for check in result.checks)


@pytest.mark.parametrize("offset", [5, 0x1234])
def test_a_changed_weight_byte_fails_the_crc(nvdla_data, tmp_path, offset):
    """The CRC check is sensitive: one flipped weight byte must make the trace fail."""
    name = "dc_13x15x64_5x3x64x16_int8_0"
    folder = tmp_path / name
    shutil.copytree(nvdla_data / "trace_tests/nv_small" / name, folder)
    weights = folder / f"{name}_in_wt.dat"
    weights.chmod(0o644)
    lines = weights.read_text().splitlines()
    record = 1 + offset // 4  # wrapped .dat syntax: "{" then one 4-byte record per line
    assert f"offset:{offset // 4 * 4:#x}," in lines[record]
    head, _, payload = lines[record].partition("payload:")
    values, tail = payload.split("}")[0].split(), "}" + payload.split("}", 1)[1]
    values[offset % 4] = f"{int(values[offset % 4], 16) ^ 0x40:#04x}"
    lines[record] = head + "payload:" + " ".join(values) + tail
    weights.write_text("\n".join(lines) + "\n")
    result = play(folder / f"{name}.cfg", get_profile("nv_small"))
    assert result.status == "failed", result.detail


# -- traces whose input files are missing (MISSING_FILES.tsv): their programming is still legal -------------

MISSING_INPUTS = [("nv_small", f"img_51x96x4_1x10x4x32_{f}_int8_0") for f in (
    "A8B8G8R8", "A8R8G8B8", "A8Y8U8V8", "B8G8R8A8", "B8G8R8X8", "R8G8B8A8", "R8G8B8X8", "V8U8Y8A8", "X8B8G8R8",
    "X8R8G8B8")] + [("nv_large", "img_51x96x4_1x10x4x32_R8G8B8A8_int8_0"),
                    ("nv_small", "dc_32x26x76_6x3x76x270_int8_0")]


def _registers(path, profile):
    writes = [(f"{c.register.unit}.{c.register.name}", c.value) for c in load_trace(path).commands
              if isinstance(c, RegWrite)]
    return RegisterValues.from_writes(RegisterMap.for_profile(get_profile(profile)), writes)


@pytest.mark.parametrize("profile,name", MISSING_INPUTS)
def test_programming_of_traces_without_inputs_is_legal(nvdla_data, profile, name):
    cfg = decode(_registers(nvdla_data / "trace_tests" / profile / name / f"{name}.cfg", profile))
    limits.validate(cfg, Facts(profile=get_profile(profile)))
    assert cfg.image == name.startswith("img_")
    if cfg.image:
        assert cfg.pixel_format == "T_" + name.split("_")[3] and cfg.channels == 4


def test_alexnet_programming_is_legal(nvdla_data):
    path = nvdla_data / "traceplayer" / "cc_alexnet_conv5_relu5_int16_dtest_cvsram" / "input.txn"
    cfg = decode(_registers(path, "nv_full"))
    limits.validate(cfg, Facts(profile=get_profile("nv_full")))
    assert cfg.precision == "int16" and cfg.data_ram == "sec"


@pytest.mark.parametrize("profile,name", [("nv_small", "img_51x96x4_1x10x4x32_A8B8G8R8_int8_0")])
def test_missing_input_is_reported_not_passed(nvdla_data, profile, name):
    result = play(nvdla_data / "trace_tests" / profile / name / f"{name}.cfg", get_profile(profile))
    assert result.status == "error" and "missing" in result.detail
