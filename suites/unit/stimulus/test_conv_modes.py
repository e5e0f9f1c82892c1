"""Convolution modes of the conv family: each runs on the golden model on every profile that has it, a
profile without it refuses by name, exported traces replay with their CRCs, the same seed gives the same
bytes in another process, and the corners are reached."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from golden.config import PROFILES, get_profile
from golden.errors import ProfileFeatureError
from golden.formats import pixel
from golden.player import play
from golden.regs.regmap import RegisterMap
from golden.units.conv.config import decode
from stimulus import families
from stimulus.choose import Seeded
from stimulus.conv import layers as conv
from stimulus.conv import modes as conv_modes
from stimulus.export import play_layers, write_trace

ROOT = Path(__file__).resolve().parents[3]
CASES = [(name, mode) for name in sorted(PROFILES) for mode in conv.modes(PROFILES[name])]


@pytest.mark.parametrize(("profile_name", "mode"), CASES)
def test_every_mode_runs_on_the_golden_model(profile_name, mode, tmp_path):
    profile = get_profile(profile_name)
    for seed in range(3):
        layer = conv.random_layer(Seeded([41, seed]), profile, mode=mode)
        cfg = decode(layer.values(RegisterMap.for_profile(profile)))
        assert (cfg.winograd, cfg.image, cfg.batches > 1) == (mode == "winograd", mode == "image", mode == "batch")
        result = play_layers([layer], tmp_path / f"{mode}{seed}", "t", profile)
        # the checks hold CRC 0 (no golden run wrote them): the layer ran when the memory came back
        assert result.memory is not None, (result.status, result.detail)


def test_modes_follow_the_profile():
    assert conv.modes(get_profile("nv_full")) == ["direct", "winograd", "image", "batch"]
    assert conv.modes(get_profile("nv_small")) == ["direct", "image"]
    small = get_profile("nv_small")
    with pytest.raises(ProfileFeatureError, match="WINOGRAD_ENABLE"):
        conv.random_layer(Seeded(1), small, mode="winograd")
    with pytest.raises(ProfileFeatureError, match="BATCH_ENABLE"):
        conv.random_layer(Seeded(1), small, mode="batch")
    with pytest.raises(ProfileFeatureError, match="FP16"):
        conv_modes.image(Seeded(1), small, "int8", pixel_format="T_A16B16G16R16_F")
    assert "T_R16_F" not in conv_modes.image_formats(small)
    assert set(conv_modes.image_formats(get_profile("nv_full"))) == set(pixel.FORMATS)


def _master(profile_name: str):
    """nv_full's features on the master register layout, so the layers can be written as .cfg traces."""
    full = get_profile("nv_full")
    return dataclasses.replace(get_profile(profile_name), name=f"{profile_name}_wg", winograd=True, batch=True,
                               max_batch_size=full.max_batch_size, feature_types=full.feature_types,
                               weight_types=full.weight_types)


@pytest.mark.parametrize("mode", ["direct", "winograd", "image", "batch"])
def test_exported_traces_replay_with_their_crcs(mode, tmp_path):
    profile = _master("nv_large")
    # both layers read SDP operands or neither, as in a family's trace (stimulus.conv.layers.shared says why)
    operands = mode in ("direct", "image")
    chain = conv.Chain()  # what the first layer leaves in the CBUF (reuse, the weight ring) shapes the second
    layers = [conv.random_layer(Seeded([7, len(mode), slot]), profile, slot, mode=mode, operands=operands,
                                chain=chain) for slot in range(2)]
    cfg = write_trace(layers, tmp_path / profile.name / f"gen_{mode}", f"gen_{mode}", profile)
    result = play(cfg, profile)
    assert result.status == "passed", result.detail


DIGEST = """
import hashlib, sys
from golden.config import get_profile
from stimulus.conv import layers as conv
from stimulus.choose import Seeded
from stimulus.families import layers
digest = hashlib.sha256()
for name in ("nv_full", "nv_small"):
    profile = get_profile(name)
    for mode in conv.modes(profile):
        for index in range(3):
            layer = conv.random_layer(Seeded([int(sys.argv[1]), index]), profile, index % 2, mode=mode)
            digest.update(repr(sorted(layer.fields.items())).encode())
            for image in layer.images:
                digest.update(f"{image.memory}{image.base}".encode() + image.data)
# traces with reuse chains, pooling and operands, and a deconvolution's sequence
for family, name in (("conv", "nv_full"), ("conv", "nv_small"), ("deconv", "nv_full")):
    for layer in layers(family, get_profile(name), int(sys.argv[1]), 0, 4):
        digest.update(repr(sorted(layer.fields.items())).encode() + repr(layer.waits).encode())
        for image in layer.images:
            digest.update(f"{image.memory}{image.base}".encode() + image.data)
print(digest.hexdigest())
"""


def _digest(seed: int) -> str:
    return subprocess.run([sys.executable, "-c", DIGEST, str(seed)], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_same_seed_same_bytes_in_two_processes():
    first = _digest(77)
    assert len(first) == 64 and _digest(77) == first and _digest(78) != first


@pytest.mark.slow
def test_distributions_reach_the_corners():
    profile = get_profile("nv_full")
    regmap = RegisterMap.for_profile(profile)
    formats, batches, strides, outs, banks = set(), set(), set(), set(), set()
    for seed in range(400):
        layer = conv.random_layer(Seeded([3, seed]), profile)
        cfg = decode(layer.values(regmap))
        if cfg.image:
            formats.add(cfg.pixel_format)
        batches.add(cfg.batches)
        strides.add(cfg.stride_x)
        outs.add(cfg.out_width)
        banks.add(cfg.data_bank)
    assert len(formats) >= 30 and {1, 2, profile.max_batch_size} <= batches
    assert {1, 4} <= strides and 1 in outs
    assert profile.cbuf_bank_number - 1 in banks or profile.cbuf_bank_number - 2 in banks


@pytest.mark.parametrize("profile_name", ["nv_small", "nv_full"])
@pytest.mark.parametrize("operands", [False, True])
def test_pooled_and_operand_layers_run_and_replay(profile_name, operands, tmp_path):
    """PDP on the fly after SDP, with SDP's stages bypassed or reading operands from memory."""
    profile = get_profile(profile_name)
    chains = (conv.Chain(), conv.Chain())  # one per trace below
    layers = [conv.random_layer(Seeded([5, seed]), profile, seed % 2, to_pdp=True, operands=operands,
                                chain=chains[seed // 2]) for seed in range(4)]
    regmap = RegisterMap.for_profile(profile)
    for layer in layers:
        values = layer.values(regmap)
        assert layer.interrupt == "PDP" and values.enum("SDP", "D_FEATURE_MODE_CFG", "OUTPUT_DST") == "PDP"
        assert values.enum("PDP", "D_OPERATION_MODE_CFG", "FLYING_MODE") == "ON_FLYING"
        reads = [dma for dma in ("BRDMA", "NRDMA", "ERDMA") if not values.field("SDP_RDMA", f"D_{dma}_CFG",
                                                                                  f"{dma}_DISABLE")]
        assert bool(reads) == operands and ("SDP_RDMA" in layer.enable) == operands
    assert play_layers(layers[:2], tmp_path / "run", "t", profile).memory is not None
    if profile.layout == "master":
        cfg = write_trace(layers[2:], tmp_path / profile.name / "pooled", "pooled", profile)
        assert play(cfg, profile).status == "passed"
    if profile.batch:
        with pytest.raises(ValueError, match="to_pdp"):
            conv.random_layer(Seeded(1), profile, mode="batch", to_pdp=True)
        with pytest.raises(ValueError, match="operands"):
            conv.random_layer(Seeded(1), profile, mode="winograd", operands=True)


@pytest.mark.parametrize("profile_name", ["nv_small", "nv_full"])
def test_reuse_layers_compute_what_fetching_computes(profile_name, tmp_path, monkeypatch):
    """A layer that reuses the CBUF's data/weights writes the same bytes as the same layer fetching them
    (its own memory holds the same cube and weights); the one before it skipped its release."""
    monkeypatch.setattr(conv, "KEEP", 1.0)
    profile = get_profile(profile_name)
    seen = set()
    for index in range(60):
        first, second = families.layers("conv", profile, 21, index, 2)
        if "reuse" not in second.choices or second.choices["reuse"] in seen:
            continue
        seen.add(second.choices["reuse"])
        assert first.choices["keep"] == {("data",): "data", ("weight",): "weight"}.get(second.choices["reuse"], "both")
        fetched = dataclasses.replace(second, fields={k: (0 if k.endswith("_REUSE") else v)
                                                      for k, v in second.fields.items()})
        crcs = []
        for name, pair in (("reuse", [first, second]), ("fetch", [first, fetched])):
            result = play_layers(pair, tmp_path / f"{name}{index}", "t", profile)
            assert result.memory is not None, (result.status, result.detail)
            region = second.checks[0]
            crcs.append(result.memory.by_name(region.memory).crc32(region.base, region.size))
        assert crcs[0] == crcs[1]
    assert seen == {("data",), ("weight",), ("data", "weight")}


@pytest.mark.parametrize("profile_name", ["nv_small", "nv_full"])
def test_layers_of_a_trace_stay_in_their_slots(profile_name):
    """Back-to-back layers are loaded before earlier ones run: each layer's bytes stay in its own slot."""
    profile = get_profile(profile_name)
    # a slot's window in each place a surface may go: DRAM, DRAM above 4 GiB, CV-SRAM (stimulus/conv/layers.py)
    windows = (conv.program.DATA_BASE, conv.program.DATA_BASE + (1 << 32), 0x5000_0000)
    for index in range(40):
        spans = []
        for slot, layer in enumerate(families.layers("conv", profile, 13, index, 4)):
            parts = [(i.base, i.base + len(i.data)) for i in layer.images]
            parts += [(r.base, r.base + r.size) for r in layer.checks if r.label != "dst"]
            lows = [base + slot * conv.SLOT for base in windows]
            assert all(any(low <= a and b <= low + conv.SLOT for low in lows) for a, b in parts), \
                (slot, [hex(a) for a, _ in parts])
            spans += parts
        spans.sort()
        assert all(b <= a2 for (_, b), (a2, _) in zip(spans, spans[1:], strict=False)), index


@pytest.mark.parametrize("profile_name", ["nv_small", "nv_full"])
def test_post_extension_keeps_neighbouring_outputs_in_one_atom(profile_name):
    """2- and 4-line post-extension are drawn, and never past what NVIDIA's nv_small RTL computes: the elements of
    `lines` neighbouring output pixels, (lines - 1) * stride_x * channels + C_ext, fit one MAC atom."""
    profile = get_profile(profile_name)
    regmap = RegisterMap.for_profile(profile)
    lines = set()
    for seed in range(150):
        cfg = decode(conv.random_layer(Seeded([9, seed]), profile, mode="image").values(regmap))
        lines.add(cfg.post_y_extension)
        if cfg.post_y_extension > 1:
            group = (cfg.post_y_extension - 1) * cfg.stride_x * cfg.channels + cfg.weight_channel_ext
            assert group <= profile.mac_atomic_c, (seed, cfg.pixel_format, cfg.stride_x, cfg.weight_channel_ext)
    assert lines == {1, 2, 4}


def test_post_extension_limit_measured_on_nv_small():
    """The cases of the nv_small RTL runs: 4 components at x stride 1 with a 1x1 kernel fit 2 lines (4 + 4 = 8);
    at x stride 2 they do not (8 + 4), nor 4 lines of one component at x stride 3 (9 + 1)."""
    small = get_profile("nv_small")
    assert conv_modes.post_extension_fits(small, 2, channels=4, stride_x=1, wide=4)
    assert not conv_modes.post_extension_fits(small, 2, channels=4, stride_x=2, wide=4)
    assert not conv_modes.post_extension_fits(small, 4, channels=1, stride_x=3, wide=1)
    assert conv_modes.post_extension_fits(small, 4, channels=1, stride_x=2, wide=2)
    assert not conv_modes.post_extension_fits(small, 2, channels=1, stride_x=1, wide=5)  # 2 x 5 > 8 channels


def test_a_draw_breaking_a_rule_is_drawn_again(tmp_path):
    """`coverage --profile nv_full -n 2000 --seed 2026 --layers 2 --run` stopped at trace 1856: its second layer,
    fp16 multi-batch, had a kernel group of 16 x 6400 bytes on 2 weight banks (CONV-WEIGHT-BANKS). The generator
    now checks each layer against the registry's CONV rules and draws again."""
    profile = get_profile("nv_full")
    drawn = families.layers("conv", profile, 2026, 1856, 2)
    result = play_layers(drawn, tmp_path, "t", profile)
    # the in-memory trace's checks hold CRC 0: both layers ran when only those fail
    assert result.status == "failed" and "expected 0x00000000" in result.detail, result.detail
