import dataclasses

import pytest

from golden.config import PROFILES, get_profile, infer_profile_name, load_spec, parse_spec
from golden.errors import ProfileError, ProfileFeatureError

MASTER_SPECS = ["nv_small", "nv_small_256", "nv_small_256_full", "nv_medium_512", "nv_medium_1024_full",
                "nv_large"]


def _differences(a, b):
    return {f.name: (getattr(a, f.name), getattr(b, f.name))
            for f in dataclasses.fields(a) if getattr(a, f.name) != getattr(b, f.name)}


@pytest.mark.parametrize("name", MASTER_SPECS)
def test_builtin_profile_equals_nvidia_spec(nvdla_data, name):
    assert _differences(load_spec(nvdla_data / "configs" / f"{name}.spec"), PROFILES[name]) == {}


def test_nv_full_is_nvdlav1_spec_plus_all_precisions(nvdla_data):
    # nvdlav1's nv_full.spec has no data type, address width or DMA client lines (nvdla README).
    spec = load_spec(nvdla_data / "configs" / "nvdlav1" / "nv_full.spec", name="nv_full", layout="nvdlav1",
                     defaults=dict(feature_types={"int8", "int16", "fp16"},
                                   weight_types={"int8", "int16", "fp16"}, mem_address_width=64))
    assert _differences(spec, PROFILES["nv_full"]) == {}


def test_nv_large_is_int8_only_and_lacks_nv_full_features():
    large = get_profile("nv_large")
    assert large.feature_types == {"int8"}
    assert not (large.winograd or large.batch or large.weight_compression or large.bdma or large.rubik)
    assert large.layout == "master" and get_profile("nv_full").layout == "nvdlav1"


def test_memory_atom_sizes():
    assert [get_profile(n).memory_atomic_size for n in ("nv_full", "nv_large", "nv_small", "nv_medium_512")] \
        == [32, 32, 8, 16]


def test_require_names_profile_and_switch():
    with pytest.raises(ProfileFeatureError) as info:
        get_profile("nv_small").require("SDP_EW", "SDP element-wise stage", fields=("SDP.D_DP_EW_CFG.EW_BYPASS",))
    assert info.value.profile == "nv_small" and info.value.switch == "SDP_EW_ENABLE"
    assert "nv_small" in str(info.value) and "SDP_EW_ENABLE" in str(info.value)
    get_profile("nv_large").require("SDP_EW", "SDP element-wise stage")


def test_require_precision():
    with pytest.raises(ProfileFeatureError, match="FEATURE_DATA_TYPE_INT16"):
        get_profile("nv_large").require_precision("int16", "SDP input")
    get_profile("nv_full").require_precision("fp16", "SDP input")


def test_unknown_profile_lists_known_ones():
    with pytest.raises(ProfileError, match="nv_small"):
        get_profile("nv_tiny")


def test_spec_errors_name_file_and_line(tmp_path):
    bad = tmp_path / "mine.spec"
    bad.write_text("#define WINOGRAD_ENABLE\n#define FROBNICATOR_SIZE_3\n")
    with pytest.raises(ProfileError, match=r"mine.spec:2: unknown parameter FROBNICATOR_SIZE_3"):
        load_spec(bad)
    with pytest.raises(ProfileError, match="cannot read"):
        load_spec(tmp_path / "absent.spec")


def test_user_spec_enables_a_stage(nvdla_data):
    text = (nvdla_data / "configs" / "nv_small.spec").read_text()
    text = text.replace("SDP_EW_DISABLE", "SDP_EW_ENABLE").replace("SDP_LUT_DISABLE", "SDP_LUT_ENABLE")
    profile = parse_spec(text, name="nv_small_ew")
    assert profile.sdp_ew and profile.sdp_lut and profile.memory_atomic_size == 8


def test_incomplete_spec_is_rejected():
    with pytest.raises(ProfileError, match="does not define"):
        parse_spec("#define WINOGRAD_ENABLE\n", name="partial")


def test_infer_profile_name():
    assert infer_profile_name("/x/trace_tests/nv_small/sdp_a/sdp_a.cfg") == "nv_small"
    assert infer_profile_name("/x/trace_tests/nv_small_256/t/t.cfg") == "nv_small_256"
    assert infer_profile_name("/x/traceplayer/sanity0/input.txn") == "nv_full"
    assert infer_profile_name("/tmp/mine.cfg") is None



def _defines(path) -> set[str]:
    return {line.split()[1] for line in path.read_text().splitlines() if line.startswith("#define")}


SPEC_GEOMETRY = {"MAC_ATOMIC_C_SIZE": "MAC_ATOMIC_C", "MAC_ATOMIC_K_SIZE": "MAC_ATOMIC_K",
                 "MEMORY_ATOMIC_SIZE": "MEMORY_ATOMIC_SIZE", "CBUF_BANK_NUMBER": "CBUF_BANK_NUMBER",
                 "CBUF_BANK_WIDTH": "CBUF_BANK_WIDTH", "CBUF_BANK_DEPTH": "CBUF_BANK_DEPTH"}


@pytest.mark.parametrize("dut, made_for", [("nv_small_256_full", "nv_small_256"), ("nv_large", "nv_small"),
                                           ("nv_small", "nv_medium_1024_full"), ("nv_small", "nv_large")])
def test_what_a_profile_lacks_for_another_is_what_their_spec_files_say(nvdla_data, dut, made_for):
    """Read from NVIDIA's .spec files here, not through golden/config.py: every geometry define that differs,
    every switch the layer's configuration enables and the DUT's does not (retiming changes no function)."""
    mine, theirs = (_defines(nvdla_data / "configs" / f"{name}.spec") for name in (dut, made_for))
    expected = []
    for define in sorted(theirs - mine):
        key, _, value = define.rpartition("_")
        if key in SPEC_GEOMETRY:
            has = next(d.rpartition("_")[2] for d in mine if d.rpartition("_")[0] == key)
            expected.append(f"{SPEC_GEOMETRY[key]} {value} (it has {has})")
        elif value == "ENABLE" and key != "RETIMING":
            expected.append(define)
        elif key in ("FEATURE_DATA_TYPE", "WEIGHT_DATA_TYPE"):
            expected.append(f"{key.split('_')[0].lower()} data {value.lower()}")
    assert sorted(get_profile(dut).lacks(get_profile(made_for))) == sorted(expected)
    assert (not expected) == (dut == "nv_small_256_full")


def test_a_layer_made_for_another_register_layout_never_applies():
    assert get_profile("nv_full").lacks(get_profile("nv_large")) == ["the master register layout"]
