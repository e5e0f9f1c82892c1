"""SDP LUT and EQL layers, fp16 CDP layers and Rubik layers: legal, run on the golden model, do what they say."""

from __future__ import annotations

from collections import Counter
from functools import partial

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from golden.config import PROFILES, get_profile
from golden.errors import ProfileFeatureError
from golden.regs.regmap import RegisterMap
from golden.rules import Facts
from golden.units.sdp import checks as sdp_checks
from golden.units.sdp import config as sdp_config
from stimulus import families
from stimulus.export import play_layers, write_trace

FULL = get_profile("nv_full")
LUT_PROFILES = sorted(name for name, profile in PROFILES.items() if profile.has("SDP_LUT"))


def _lut(layer) -> str:
    ew = layer.choices["EW"]
    return ew["lut"] if isinstance(ew, dict) else "bypass"


@pytest.mark.parametrize("profile_name", LUT_PROFILES)
def test_sdp_layers_with_lut_and_eql_are_strictly_legal_and_run(profile_name, tmp_path):
    profile = get_profile(profile_name)
    regmap = RegisterMap.for_profile(profile)
    seen = Counter()
    for index in range(20):
        pair = families.layers("sdp", profile, 21, index, count=2)
        for layer in pair:
            sdp_checks.validate(sdp_config.decode(layer.values(regmap)), Facts(profile=profile), strict=True)
            seen[_lut(layer)] += 1
            seen["eql"] += "eql" in layer.choices
        write_trace(pair, tmp_path / f"t{index}", f"t{index}", profile)  # GenerationError unless the golden runs it
    assert seen["LINEAR"] and seen["EXPONENT"] and seen["bypass"] and seen["eql"]


def test_profiles_without_the_lut_never_program_it():
    profile = get_profile("nv_small")
    for index in range(30):
        layer = families.layers("sdp", profile, 3, index)[0]
        assert _lut(layer) == "bypass" and "eql" not in layer.choices and not layer.writes


def _status(layer, tmp_path, name):
    result = play_layers([layer], tmp_path / name, name, FULL)
    assert result.status in ("passed", "failed"), result.detail  # failed: the unchecked CRC 0 of play_layers
    return result.layers[0].status


def test_eql_of_the_input_with_itself_reads_equal_and_random_operands_unequal(tmp_path):
    found = {"same operand": [], "random operand": []}
    for index in range(300):
        layer = families.layers("sdp", FULL, 5, index)[0]
        kind = layer.choices.get("eql")
        if kind is None or len(found[kind]) >= 4:
            continue
        assert not layer.checks and layer.reads == [("SDP", "D_STATUS", 1)]  # EQL writes nothing
        found[kind].append(_status(layer, tmp_path, f"e{index}")["SDP", "D_STATUS"])
    assert found["same operand"] and set(found["same operand"]) == {0}
    assert 1 in found["random operand"]


@pytest.mark.parametrize("profile_name", ["nv_full", "nv_large"])
def test_an_exported_eql_layer_checks_its_status_register(profile_name, tmp_path, capsys):
    """nv_full: read_reg in the input.txn; nv_large: poll_field_equal in the .cfg (after check_nothing)."""
    from ci.cli import main
    profile = get_profile(profile_name)
    layer = next(x for i in range(300) for x in families.layers("sdp", profile, 5, i) if "eql" in x.choices)
    trace = write_trace([layer], tmp_path / profile_name / "eql", "eql", profile)
    text = trace.read_text()
    if profile_name == "nv_full":
        reads = [line for line in text.splitlines() if line.startswith("read_reg") and "GLB" not in line]
        assert len(reads) == 1 and reads[0].endswith("#NVDLA_SDP.D_STATUS_0")
        word, mask, expected = reads[0].split()[1:4]
        broken = f"read_reg {word} {mask} {int(expected, 16) ^ 1:#010x}"
    else:
        reads = [line for line in text.splitlines() if line.startswith("poll_field_equal")]
        assert len(reads) == 1 and reads[0].startswith("poll_field_equal(NVDLA_SDP.D_STATUS_0.STATUS_UNEQUAL, ")
        assert "check_nothing(layer0_done);" in text
        broken = reads[0].replace("0x0)", "0x2)").replace("0x1)", "0x0)").replace("0x2)", "0x1)")
    assert main(["conform", str(tmp_path)]) == 0
    trace.write_text(text.replace(reads[0], broken))
    capsys.readouterr()
    assert main(["conform", str(tmp_path)]) == 1 and " FAILED " in capsys.readouterr().out


def _f32(bits: int) -> float:
    return float(np.array([bits], np.uint32).view(np.float32)[0])


def _fp_bound(fields: dict, name: str) -> float:
    assert fields[f"CDP.S_LUT_{name}_HIGH.LUT_{name}_HIGH"] == 0
    return _f32(fields[f"CDP.S_LUT_{name}_LOW.LUT_{name}_LOW"])


def _signed8(fields: dict, name: str) -> int:
    return (fields[f"CDP.S_LUT_INFO.LUT_{name}"] + 128) % 256 - 128


def test_fp16_cdp_layers_reach_every_local_size_and_lut_function_within_the_lut_bounds(tmp_path):
    seen = set()
    for index in range(80):
        layer = families.layers("cdp", FULL, 9, index)[0]
        if layer.choices["precision"] != "fp16":
            continue
        seen.add((layer.choices["local_size"], layer.choices["lut"]))
        f = layer.fields
        bound, signed8 = partial(_fp_bound, f), partial(_signed8, f)
        # programming-guide Limitation/LUT, FP16: END = START + 2**(SELECT+6|8) (fp32), 2**(OFFSET+64) exponent
        spans = [("LO", 2.0 ** (signed8("LO_INDEX_SELECT") + 8))]
        spans.append(("LE", 2.0 ** (signed8("LE_INDEX_SELECT") + 6) if layer.choices["lut"] == "LINEAR"
                      else 2.0 ** (signed8("LE_INDEX_OFFSET") + 64)))
        for name, span in spans:
            start, end = bound(f"{name}_START"), bound(f"{name}_END")
            assert end == np.float32(min(start + span, float(np.finfo(np.float32).max))) and end > start
        if len(seen) < 8 or index % 8 == 0:
            write_trace([layer], tmp_path / f"c{index}", f"c{index}", FULL)
    assert seen == {(size, function) for size in (3, 5, 7, 9) for function in ("LINEAR", "EXPONENT")}


# -- Rubik -------------------------------------------------------------------------------------------------------

def _rubik_registers(layer) -> dict:
    """The layer's RBK fields by field name (addresses and strides in 32-byte units)."""
    return {key.split(".")[2]: value for key, value in layer.fields.items() if key.startswith("RBK.")}


def _element_bytes(memory, base, count, size):
    return memory.read(base, count * size, unwritten="allow").reshape(count, size)


def _check_rubik_output(layer, memory_system):
    """Every element where the guide puts it, from the input image, pixel by pixel (test code: loops)."""
    f = _rubik_registers(layer)
    mode, precision = layer.choices["mode"], layer.choices["precision"]
    bpe = 1 if precision == "int8" else 2
    per_atom = 32 // bpe
    src_mem, dst_mem = (memory_system.by_name(m) for m in layer.choices["memories"])
    channels, height, width = layer.choices["shape"]
    src, dst = f["DAIN_ADDR_LOW"] << 5, f["DAOUT_ADDR_LOW"] << 5
    if mode == "CONTRACT":
        sx, sy = layer.choices["stride"]
        surfaces = -(-layer.choices["out_channels"] // per_atom)
        for k in range(sx * sy):
            py, px = divmod(k, sx)
            for s in range(surfaces):
                for y in range(height):
                    got_at = dst + s * (f["DAOUT_SURF_STRIDE"] << 5) + (y * sy + py) * (f["DAOUT_LINE_STRIDE"] << 5)
                    want_at = src + k * (f["CONTRACT_STRIDE_0"] << 5) + s * (f["DAIN_SURF_STRIDE"] << 5) \
                        + y * (f["DAIN_LINE_STRIDE"] << 5)
                    got = dst_mem.read(got_at, width * sx * 32, unwritten="allow").reshape(width, sx, 32)[:, px]
                    want = src_mem.read(want_at, width * 32, unwritten="allow").reshape(width, 32)
                    np.testing.assert_array_equal(got, want)
        return
    planes = layer.choices["out_channels"]
    for c in range(planes if mode == "SPLIT" else channels):
        surface, lane = divmod(c, per_atom)
        for y in range(height):
            if mode == "SPLIT":
                cube_at = src + surface * (f["DAIN_SURF_STRIDE"] << 5) + y * (f["DAIN_LINE_STRIDE"] << 5)
                plane_at = dst + c * (f["DAOUT_PLANAR_STRIDE"] << 5) + y * (f["DAOUT_LINE_STRIDE"] << 5)
                cube, plane = _element_bytes(src_mem, cube_at, width, 32), _element_bytes(dst_mem, plane_at, width, bpe)
            else:
                plane_at = src + c * (f["DAIN_PLANAR_STRIDE"] << 5) + y * (f["DAIN_LINE_STRIDE"] << 5)
                cube_at = dst + surface * (f["DAOUT_SURF_STRIDE"] << 5) + y * (f["DAOUT_LINE_STRIDE"] << 5)
                cube, plane = _element_bytes(dst_mem, cube_at, width, 32), _element_bytes(src_mem, plane_at, width, bpe)
            np.testing.assert_array_equal(cube[:, lane * bpe:(lane + 1) * bpe], plane)


def test_rubik_layers_of_every_mode_move_every_element_where_the_guide_says(tmp_path):
    seen = Counter()
    for index in range(36):
        layer = families.layers("rubik", FULL, 13, index)[0]
        result = play_layers([layer], tmp_path / f"r{index}", f"r{index}", FULL)
        assert result.status in ("passed", "failed"), result.detail  # failed: the unchecked CRC 0 only
        _check_rubik_output(layer, result.memory)
        seen[layer.choices["mode"], layer.choices["precision"]] += 1
        seen[layer.choices["memories"]] += 1
    assert {(m, p) for m in ("CONTRACT", "SPLIT", "MERGE") for p in ("int8", "int16", "fp16")} <= set(seen)
    assert ("sec_mem", "pri_mem") in seen and ("pri_mem", "sec_mem") in seen


def test_rubik_needs_a_profile_with_rubik():
    assert "rubik" in families.available(FULL) and "rubik" not in families.available(get_profile("nv_large"))
    with pytest.raises(ProfileFeatureError, match="RUBIK"):
        families.layers("rubik", get_profile("nv_large"), 1, 0)


# -- nv_full export ----------------------------------------------------------------------------------------------

def test_nv_full_traces_are_traceplayer_input_txn_that_conform_replays(tmp_path, capsys):
    from ci.cli import main
    units = ("sdp", "cdp", "rubik", "pdp", "bdma")
    for unit in units:
        assert main(["generate", "--unit", unit, "--profile", "nv_full", "--seed", "5", "-n", "2", "--layers", "2",
                     "--out", str(tmp_path)]) == 0
    txns = sorted((tmp_path / "nv_full").glob("*/input.txn"))
    assert len(txns) == 2 * len(units) and not list(tmp_path.rglob("*.cfg"))
    sdp_text = next(t for t in txns if "gen_sdp_" in str(t)).read_text()
    # NVIDIA's traceplayer/sdp_relu_int16 launches SDP with this line (CSB word address 0x2c0e | 0xffff0000)
    assert "write_reg 0xffff2c0e 0x1 #NVDLA_SDP.D_OP_ENABLE_0" in sdp_text and "\nwait\n" in sdp_text
    capsys.readouterr()
    assert main(["conform", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.count(" PASSED ") == 2 * len(units) and " FAILED " not in out
    golden = sorted(tmp_path.glob("nv_full/gen_rubik_*/*_golden_0.dat"))[0]
    text = golden.read_text()
    golden.write_text(("0x00" if not text.startswith("0x00") else "0x01") + text[4:])
    assert main(["conform", str(golden.parent)]) == 1


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_hypothesis_drawn_lut_cdp_and_rubik_layers_run(drawn):
    """Every decision drawn by hypothesis (so a failure shrinks): still legal layers the golden model runs."""
    import tempfile

    from stimulus.strategies import layers
    family = drawn.draw(st.sampled_from(["sdp", "cdp", "rubik"]))
    pair = drawn.draw(layers(family, FULL, count=2))
    with tempfile.TemporaryDirectory() as folder:
        result = play_layers(pair, folder, "drawn", FULL)
    assert result.status in ("passed", "failed"), result.detail  # failed: the unchecked CRC 0 only


@pytest.mark.parametrize("family, profile_name", [("cdp", "nv_small"), ("sdp", "nv_large")])
def test_a_traces_shared_lut_is_written_once(family, profile_name, tmp_path):
    """The LUT RAM is one per unit: its LE and LO tables are written before the first layer, not again."""
    profile = get_profile(profile_name)
    pair = next(p for i in range(200) for p in [families.layers(family, profile, 17, i, count=2)]
                if all(layer.writes for layer in p))
    assert pair[0].writes == pair[1].writes
    trace = write_trace(pair, tmp_path / "lut", "lut", profile)
    lines = trace.read_text().splitlines()
    # LE then LO, once (a LUT may end with the port set up to read a table back: a third CFG write)
    assert sum("S_LUT_ACCESS_CFG" in line for line in lines) == sum(w[1] == "S_LUT_ACCESS_CFG" for w in pair[0].writes)
    assert sum(w[1] == "S_LUT_ACCESS_CFG" and w[2] >> 17 & 1 for w in pair[0].writes) == 2
    first_enable = next(i for i, line in enumerate(lines) if "D_OP_ENABLE" in line)
    # (a CDP LUT read back: its S_LUT_ACCESS_DATA reads come after the layer, its writes before)
    assert max(i for i, line in enumerate(lines) if "reg_write" in line and "S_LUT_ACCESS_DATA" in line) < first_enable
