"""Random SDP layers: legal for the golden model's strict validation, exported traces replay, seeds reproduce."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from golden.config import get_profile
from golden.player import play
from golden.regs.regmap import RegisterMap
from golden.rules import Facts
from golden.units.sdp import checks as sdp_checks
from golden.units.sdp import config as sdp_config
from stimulus.choose import Drawn, Seeded
from stimulus.export import write_trace
from stimulus.sdp import layers as sdp

ROOT = Path(__file__).resolve().parents[3]


def _strictly_valid(layer, profile):
    regs = layer.values(RegisterMap.for_profile(profile))
    sdp_checks.validate(sdp_config.decode(regs), Facts(profile=profile), strict=True)


@pytest.mark.parametrize("profile_name", ["nv_small", "nv_large", "nv_full"])
def test_random_layers_pass_strict_validation(profile_name):
    profile = get_profile(profile_name)
    seen = set()
    for seed in range(60):
        layer = sdp.random_layer(Seeded(seed), profile)
        _strictly_valid(layer, profile)
        seen.add(layer.choices["precision"])
    assert seen == {f"{i}->{o}" for i, o in sdp.precisions(profile)}


def test_precisions_come_from_the_registry_as_table_30_says():
    """in-memory-data-formats Table 30: of the offline (input, output) pairs only int8 -> fp16 and fp16 -> int8
    are invalid; an input is processed in its own precision, int16 -> int8 as int8 (SDP-INT16-TO-INT8)."""
    types = ("fp16", "int16", "int8")
    expected = [(i, o) for i in types for o in types if {i, o} != {"int8", "fp16"}]
    assert sdp.precisions(get_profile("nv_full")) == expected
    assert [sdp.processing(i, o) for i, o in expected] == ["fp16", "fp16", "int16", "int16", "int8", "int8", "int8"]
    assert sdp.processing("int8", "fp16") is None and sdp.processing("fp16", "int8") is None
    assert sdp.keeps(("SDP-BRDMA-INT16-SIZE",), proc_precision="int16", x1=_memory_alu(),
                     dmas={"B": _dma("ONE_BYTE")}) is False
    assert sdp.keeps(("SDP-BRDMA-INT16-SIZE",), proc_precision="int16", x1=_memory_alu(), dmas={"B": _dma("TWO_BYTE")})


def _memory_alu():
    return SimpleNamespace(alu_active=True, alu_src="MEM", mul_active=False, mul_src="REG")


def _dma(size):
    return SimpleNamespace(disable=False, size=size)


def test_nv_small_layers_keep_to_its_features():
    profile = get_profile("nv_small")
    for seed in range(40):
        layer = sdp.random_layer(Seeded(seed), profile)
        assert layer.choices["precision"] == "int8->int8"
        assert layer.choices["EW"] == "absent"
        assert layer.fields["SDP.D_DP_EW_CFG.EW_BYPASS"] == 1


def _pass_through(layer):
    """The layer with X1/X2 bypassed and an identity convertor: every input byte reaches the output."""
    fields = dict(layer.fields, **{"SDP.D_DP_BS_CFG.BS_BYPASS": 1, "SDP.D_DP_BN_CFG.BN_BYPASS": 1,
                                   "SDP_RDMA.D_BRDMA_CFG.BRDMA_DISABLE": 1, "SDP_RDMA.D_NRDMA_CFG.NRDMA_DISABLE": 1,
                                   "SDP.D_CVT_OFFSET.CVT_OFFSET": 0, "SDP.D_CVT_SCALE.CVT_SCALE": 1,
                                   "SDP.D_CVT_SHIFT.CVT_SHIFT": 0})
    return type(layer)(layer.family, fields, [i for i in layer.images if i.label in ("src", "dst")],
                       layer.checks, layer.interrupt, layer.enable, layer.choices)


def _flip_payload(dat: Path) -> None:
    lines = dat.read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if "payload:" in line)
    head, payload = lines[index].split("payload:")
    words = [f"0x{int(w[:4], 16) ^ 0x5A:02x}{w[4:]}" if w.startswith("0x") else w for w in payload.split(" ")]
    lines[index] = head + "payload:" + " ".join(words)
    dat.write_text("\n".join(lines) + "\n")


def test_exported_trace_replays_and_its_crcs_check_the_data(tmp_path):
    profile = get_profile("nv_small")
    layers = [_pass_through(sdp.random_layer(Seeded(7), profile, slot=0)),
              sdp.random_layer(Seeded(8), profile, slot=1)]
    cfg = write_trace(layers, tmp_path / "nv_small" / "gen_sdp", "gen_sdp", profile)
    text = cfg.read_text()
    assert text.count("check_crc(") == 2 and "intr_notify(SDP_0, layer0_done)" in text
    assert "intr_notify(SDP_1, layer1_done)" in text
    assert play(cfg, profile).status == "passed"
    # the first layer's input bytes changed: its CRC no longer matches, so the CRCs do check the data
    _flip_payload(cfg.parent / "gen_sdp_0_src.dat")
    result = play(cfg, profile)
    assert result.status == "failed" and [c.passed for c in result.checks] == [False, True]


DIGEST = """
import hashlib, sys
from pathlib import Path
from types import SimpleNamespace
from golden.config import get_profile
from golden.units.sdp import checks as sdp_checks
from stimulus.sdp import layers as sdp
from stimulus.choose import Seeded
from stimulus.export import write_trace
from stimulus.families import available, write_generated
seed, folder = int(sys.argv[1]), Path(sys.argv[2])
digest = hashlib.sha256()
for profile, family in [(get_profile("nv_large"), f) for f in available(get_profile("nv_large"))] + [
        (get_profile("nv_full"), f) for f in ("sdp", "cdp", "rubik")]:
    cfg = write_generated(family, profile, seed, 0, folder, count=2)
    for path in sorted(cfg.parent.iterdir()):
        digest.update(path.name.encode() + path.read_bytes())
print(digest.hexdigest())
"""


def _digest_in_new_process(seed: int, folder: Path) -> str:
    return subprocess.run([sys.executable, "-c", DIGEST, str(seed), str(folder)], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout.strip()


@pytest.mark.slow
def test_same_seed_same_bytes_in_two_processes(tmp_path):
    first = _digest_in_new_process(1234, tmp_path / "a")
    assert len(first) == 64
    assert _digest_in_new_process(1234, tmp_path / "b") == first
    assert _digest_in_new_process(1235, tmp_path / "c") != first


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_hypothesis_layers_are_legal(drawn):
    profile = get_profile("nv_large")
    _strictly_valid(sdp.random_layer(Drawn(drawn.draw), profile), profile)


def test_a_failing_property_shrinks_to_a_minimal_layer():
    """Hypothesis shrinks a layer that fails a property (here: 'no PDP kernel wider than 2') to the smallest."""
    from hypothesis import find

    from stimulus.strategies import layers
    profile = get_profile("nv_small")
    smallest = find(layers("pdp", profile), lambda layer: layer.choices["kernel"][0] > 2,
                    settings=settings(max_examples=300, deadline=None, database=None))
    assert smallest.choices["kernel"] == (3, 1) and smallest.choices["stride"] == (1, 1)
    assert smallest.choices["shape"][0] == 1
