"""Rubik: split/merge round trips, contract against a numpy transposed convolution, limitations, profiles."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from golden.config import get_profile
from golden.errors import ConfigurationError, ProfileFeatureError
from golden.formats.feature import pack_feature, unpack_feature, unpack_feature_padded
from golden.memory import MemorySystem
from golden.regs.regmap import RegisterMap
from golden.regs.values import RegisterValues
from golden.units import rubik
from golden.units.base import LayerContext
from golden.verdict import surface_span

FULL = get_profile("nv_full")
REGMAP = RegisterMap.for_layout("nvdlav1")
BYTES = {"int8": 1, "int16": 2, "fp16": 2}
DTYPES = {"int8": np.int8, "int16": np.int16, "fp16": np.float16}
IN_BASE, OUT_BASE = 0x80000000, 0x90000000


def regs(mode, precision, *, width, height, in_channels, out_channels, in_addr=IN_BASE, out_addr=OUT_BASE,
         in_line=0, in_surf=0, in_planar=0, out_line=0, out_surf=0, out_planar=0, contract0=0, contract1=0,
         stride_x=1, stride_y=1, in_mc=True, out_mc=True, regmap=REGMAP) -> RegisterValues:
    """Register values from byte quantities (the test's own encoding of the RDL fields)."""
    values = RegisterValues.encode(regmap, {
        "RBK.D_MISC_CFG.RUBIK_MODE": {"CONTRACT": 0, "SPLIT": 1, "MERGE": 2}[mode],
        "RBK.D_MISC_CFG.IN_PRECISION": {"int8": 0, "int16": 1, "fp16": 2}[precision],
        "RBK.D_DAIN_RAM_TYPE.DATAIN_RAM_TYPE": int(in_mc),
        "RBK.D_DAOUT_RAM_TYPE.DATAOUT_RAM_TYPE": int(out_mc),
        "RBK.D_DATAIN_SIZE_0.DATAIN_WIDTH": width - 1, "RBK.D_DATAIN_SIZE_0.DATAIN_HEIGHT": height - 1,
        "RBK.D_DATAIN_SIZE_1.DATAIN_CHANNEL": in_channels - 1,
        "RBK.D_DATAOUT_SIZE_1.DATAOUT_CHANNEL": out_channels - 1,
        "RBK.D_DAIN_ADDR_HIGH.DAIN_ADDR_HIGH": in_addr >> 32, "RBK.D_DAOUT_ADDR_HIGH.DAOUT_ADDR_HIGH": out_addr >> 32,
        "RBK.D_DECONV_STRIDE.DECONV_X_STRIDE": stride_x - 1, "RBK.D_DECONV_STRIDE.DECONV_Y_STRIDE": stride_y - 1,
    })
    raw = {"D_DAIN_ADDR_LOW": in_addr & 0xFFFFFFFF, "D_DAOUT_ADDR_LOW": out_addr & 0xFFFFFFFF,
           "D_DAIN_LINE_STRIDE": in_line, "D_DAIN_SURF_STRIDE": in_surf, "D_DAIN_PLANAR_STRIDE": in_planar,
           "D_DAOUT_LINE_STRIDE": out_line, "D_DAOUT_SURF_STRIDE": out_surf, "D_DAOUT_PLANAR_STRIDE": out_planar,
           "D_CONTRACT_STRIDE_0": contract0, "D_CONTRACT_STRIDE_1": contract1}
    return values.with_values({("RBK", name): value for name, value in raw.items()})


def random_cube(rng, shape, precision):
    bits = rng.integers(0, 1 << (8 * BYTES[precision]), size=shape, dtype=np.uint32)
    if precision == "int8":
        return bits.astype(np.uint8).view(np.int8)
    raw = bits.astype(np.uint16)
    if precision == "fp16":
        raw[(raw & 0x7C00) == 0x7C00] &= 0x3FFF  # no NaN: comparisons below stay exact
        return raw.view(np.float16)
    return raw.view(np.int16)


def bits(array):
    array = np.asarray(array)
    return array.view(np.uint16) if array.dtype == np.float16 else array


def run(values, memory, profile=FULL):
    return rubik.run(LayerContext(profile, values, memory))


# -- split and merge -------------------------------------------------------------------------------------
@st.composite
def planar_cases(draw):
    precision = draw(st.sampled_from(["int8", "int16", "fp16"]))
    channels = draw(st.integers(1, 40))
    height = draw(st.integers(1, 4))
    width = draw(st.integers(1, 80))
    row = -(-width * BYTES[precision] // 32) * 32
    plane_line = -(-row // 64) * 64 + 64 * draw(st.integers(0, 2))
    in_line = width * 32 + 32 * draw(st.integers(0, 2))
    case = dict(precision=precision, channels=channels, height=height, width=width,
                in_line=in_line, in_surf=height * in_line + 32 * draw(st.integers(0, 2)),
                plane_line=plane_line, planar=height * plane_line + 64 * draw(st.integers(0, 2)),
                out_line=in_line + 32 * draw(st.integers(0, 1)), seed=draw(st.integers(0, 2**32 - 1)))
    if width == height == 1:  # Limitation/Data Format: a 1x1xC cube is line- and surface-packed
        case.update(in_line=32, in_surf=32, out_line=32)
    return case


@settings(max_examples=40, deadline=None)
@given(planar_cases())
def test_split_then_merge_is_identity(case):
    precision, channels, height, width = case["precision"], case["channels"], case["height"], case["width"]
    rng = np.random.default_rng(case["seed"])
    cube = random_cube(rng, (channels, height, width), precision)
    memory = MemorySystem()
    memory.pri.write(IN_BASE, pack_feature(cube, precision, case["in_line"], case["in_surf"], 32,
                                           pad_value=int(rng.integers(0, 256))))
    planes_at = 0x88000000
    run(regs("SPLIT", precision, width=width, height=height, in_channels=channels, out_channels=channels,
             out_addr=planes_at, in_line=case["in_line"], in_surf=case["in_surf"], out_line=case["plane_line"],
             out_planar=case["planar"]), memory)
    # The planes, element by element from the document's rule: c*PLANAR + y*LINE + x*BPE.
    size = BYTES[precision]
    for c in range(channels):
        plane = memory.pri.read(planes_at + c * case["planar"], (height - 1) * case["plane_line"] + width * size,
                                unwritten="allow")
        rows = np.lib.stride_tricks.as_strided(plane, (height, width * size), (case["plane_line"], 1))
        np.testing.assert_array_equal(rows.copy().view(DTYPES[precision]).view(bits(cube).dtype),
                                      bits(cube[c]))
    row = -(-width * size // 32) * 32
    tail = memory.pri.read(planes_at + (channels - 1) * case["planar"] + (height - 1) * case["plane_line"]
                           + width * size, row - width * size)
    assert not tail.any()  # the rest of the last atom of a plane line is written as 0

    out_surf = height * case["out_line"]
    result = run(regs("MERGE", precision, width=width, height=height, in_channels=channels,
                      out_channels=channels, in_addr=planes_at, in_line=case["plane_line"],
                      in_planar=case["planar"], out_line=case["out_line"], out_surf=out_surf), memory)
    surface = result.surfaces[0]
    span = (surface.shape, surface.line_stride, surface.surface_stride)
    assert span == ((channels, height, width), case["out_line"], out_surf)
    per_atom = 32 // size
    total = (-(-channels // per_atom) - 1) * out_surf + (height - 1) * case["out_line"] + width * 32
    window = memory.pri.read(OUT_BASE, total, unwritten="allow")
    back = unpack_feature(window, 0, (channels, height, width), precision, case["out_line"], out_surf, 32)
    np.testing.assert_array_equal(bits(back), bits(cube))
    padded = unpack_feature_padded(window, 0, (channels, height, width), precision, case["out_line"], out_surf, 32)
    assert not bits(padded[channels:]).any()  # merge writes padding channels as 0


def test_split_into_fewer_planes_than_channels_is_refused():
    """The guide and NVIDIA's C model split DATAOUT_CHANNEL+1 planes; nvdlav1's RTL writes one per input channel
    (NV_NVDLA_RUBIK_seq_gen.v: remain_wr_channel from reg2dp_datain_channel). Measured on nvdlav1's RTL: a split
    of 12 channels with DATAOUT_CHANNEL=2 wrote 13 planes (gen_rubik_s2615_71, 10 planes past the golden
    model's)."""
    with pytest.raises(ConfigurationError) as info:
        run(regs("SPLIT", "int8", width=3, height=2, in_channels=20, out_channels=7, in_line=96, in_surf=192,
                 out_line=64, out_planar=128), MemorySystem())
    assert info.value.rule.startswith("RUBIK-SPLIT-CHANNELS")
    assert "RBK.D_DATAOUT_SIZE_1.DATAOUT_CHANNEL" in info.value.fields


# -- contract against a transposed convolution ------------------------------------------------------------
def transposed_convolution(x, w, sx, sy):
    """Reference: out[k, y*sy + r, x*sx + s] += sum_c w[k, c, r, s] * in[c, y, x]."""
    k, _, kh, kw = w.shape
    _, h, wd = x.shape
    out = np.zeros((k, (h - 1) * sy + kh, (wd - 1) * sx + kw), np.int64)
    for r in range(kh):
        for s in range(kw):
            out[:, r:r + (h - 1) * sy + 1:sy, s:s + (wd - 1) * sx + 1:sx] += np.einsum("kc,chw->khw", w[:, :, r, s], x)
    return out


def phase_convolutions(x, w, sx, sy):
    """The stride_x*stride_y convolution layers of the guide's deconvolution phase I, in numpy.

    Kernel phase (py, px) takes taps w[:, :, py + sy*j, px + sx*i], flipped; the input is padded by
    R'-1 / S'-1 zeros on each side and correlated with stride 1. Returns cubes[py * sx + px].
    """
    k, c, kh, kw = w.shape
    rp, sp = -(-kh // sy), -(-kw // sx)
    wide = np.zeros((k, c, rp * sy, sp * sx), np.int64)
    wide[:, :, :kh, :kw] = w
    padded = np.pad(x.astype(np.int64), ((0, 0), (rp - 1, rp - 1), (sp - 1, sp - 1)))
    h_out, w_out = x.shape[1] + rp - 1, x.shape[2] + sp - 1
    cubes = []
    for py in range(sy):
        for px in range(sx):
            sub = wide[:, :, py::sy, px::sx][:, :, ::-1, ::-1]
            out = np.zeros((k, h_out, w_out), np.int64)
            for j in range(rp):
                for i in range(sp):
                    out += np.einsum("kc,chw->khw", sub[:, :, j, i], padded[:, j:j + h_out, i:i + w_out])
            cubes.append(out)
    return cubes


@st.composite
def deconvolutions(draw):
    sx, sy = draw(st.sampled_from([1, 2, 3, 4, 9])), draw(st.integers(1, 4))
    return dict(precision=draw(st.sampled_from(["int8", "int16", "fp16"])), sx=sx, sy=sy,
                kernel=(draw(st.integers(1, 2 * sy + 1)), draw(st.integers(1, min(2 * sx + 1, 10)))),
                channels=draw(st.integers(1, 3)), k=draw(st.integers(1, 40)),
                size=(draw(st.integers(1, 4)), draw(st.integers(1, 5))), pad=draw(st.integers(0, 2)),
                seed=draw(st.integers(0, 2**32 - 1)))


@settings(max_examples=40, deadline=None)
@given(deconvolutions())
def test_contract_gives_transposed_convolution(case):
    precision, sx, sy, k = case["precision"], case["sx"], case["sy"], case["k"]
    rng = np.random.default_rng(case["seed"])
    x = rng.integers(-2, 3, (case["channels"], *case["size"]))
    w = rng.integers(-2, 3, (k, case["channels"], *case["kernel"]))
    cubes = phase_convolutions(x, w, sx, sy)
    _, height, width = cubes[0].shape
    per_atom = 32 // BYTES[precision]
    surfaces = -(-k // per_atom)
    pad = 0 if width == height == 1 else case["pad"]  # a 1x1xC cube is line- and surface-packed
    in_line = width * 32 + 32 * pad
    in_surf = height * in_line + 32 * pad
    contract0 = surfaces * in_surf  # the guide's Ceil((DATAOUT_CHANNEL+1)*BPE/32) * DAIN_SURF_STRIDE
    memory = MemorySystem()
    for index, cube in enumerate(cubes):
        memory.pri.write(IN_BASE + index * contract0,
                         pack_feature(cube.astype(DTYPES[precision]), precision, in_line, in_surf, 32))
    out_line = width * sx * 32 + 32 * pad
    out_surf = height * sy * out_line + 64 * pad
    result = run(regs("CONTRACT", precision, width=width, height=height, in_channels=k * sx * sy, out_channels=k,
                      in_line=in_line, in_surf=in_surf, out_line=out_line, out_surf=out_surf, contract0=contract0,
                      contract1=sy * out_line, stride_x=sx, stride_y=sy), memory)
    shape = (k, height * sy, width * sx)
    assert result.surfaces[0].shape == shape
    window = memory.pri.read(OUT_BASE, (surfaces - 1) * out_surf + (shape[1] - 1) * out_line + shape[2] * 32,
                             unwritten="allow")
    got = unpack_feature(window, 0, shape, precision, out_line, out_surf, 32).astype(np.int64)
    expected = transposed_convolution(x, w, sx, sy)
    full = np.zeros(shape, np.int64)
    full[:, :expected.shape[1], :expected.shape[2]] = expected  # the phase layers cover a few more lines
    np.testing.assert_array_equal(got, full)


def test_contract_moves_padding_channels_with_their_atoms():
    """Atoms move whole: bytes of the padding channels travel too (cmod/rubik copies 32-byte atoms)."""
    memory = MemorySystem()
    atoms = np.arange(4 * 32, dtype=np.uint8).reshape(4, 32)  # 2x2 phases of a 1x1 cube, 1 surface
    memory.pri.write(IN_BASE, atoms.reshape(-1))
    run(regs("CONTRACT", "int8", width=1, height=1, in_channels=4 * 3, out_channels=3, in_line=32, in_surf=32,
             out_line=64, out_surf=128, contract0=32, contract1=128, stride_x=2, stride_y=2), memory)
    out = memory.pri.read(OUT_BASE, 128).reshape(2, 2, 32)  # (y, x, atom)
    np.testing.assert_array_equal(out, atoms.reshape(2, 2, 32))


# -- limitations -------------------------------------------------------------------------------------------
def contract_case(**change):
    case = dict(width=2, height=2, in_channels=8, out_channels=2, in_line=64, in_surf=128, out_line=128,
                out_surf=512, contract0=128, contract1=256, stride_x=2, stride_y=2)
    case.update(change)
    return case


def split_case(**change):
    case = dict(width=2, height=2, in_channels=3, out_channels=3, in_line=64, in_surf=128, out_line=64,
                out_planar=128)
    case.update(change)
    return case


def merge_case(**change):
    case = dict(width=2, height=2, in_channels=3, out_channels=3, in_line=64, in_planar=128, out_line=64,
                out_surf=128)
    case.update(change)
    return case


def filled_memory():
    memory = MemorySystem()
    memory.pri.write(IN_BASE, np.zeros(0x4000, np.uint8))
    return memory


@pytest.mark.parametrize("mode, case, field, rule", [
    ("CONTRACT", contract_case(in_line=80), "RBK.D_DAIN_LINE_STRIDE", "Limitation/Rubik"),
    ("CONTRACT", contract_case(out_addr=OUT_BASE + 16), "RBK.D_DAOUT_ADDR_LOW", "Limitation/Rubik"),
    ("CONTRACT", contract_case(width=4097, in_line=4097 * 32, in_surf=4097 * 64, contract0=4097 * 64,
                               out_line=4097 * 64, contract1=4097 * 128, out_surf=4097 * 256),
     "RBK.D_DECONV_STRIDE", "Limitation/Rubik"),
    ("CONTRACT", contract_case(in_channels=6), "RBK.D_DATAOUT_SIZE_1", "D_DATAOUT_SIZE_1"),
    ("CONTRACT", contract_case(contract0=256), "RBK.D_CONTRACT_STRIDE_0", "D_CONTRACT_STRIDE_0"),
    ("CONTRACT", contract_case(contract1=128), "RBK.D_CONTRACT_STRIDE_1", "D_CONTRACT_STRIDE_1"),
    ("CONTRACT", contract_case(out_line=96, contract1=192), "RBK.D_DAOUT_LINE_STRIDE", "LINE_STRIDE"),
    ("CONTRACT", contract_case(out_addr=IN_BASE + 64), "RBK.D_DAIN_ADDR_LOW", "disjoint"),
    ("SPLIT", split_case(out_line=96, out_planar=192), "RBK.D_DAOUT_LINE_STRIDE", "planar"),
    ("SPLIT", split_case(out_addr=OUT_BASE + 32), "RBK.D_DAOUT_ADDR_LOW", "planar"),
    ("SPLIT", split_case(out_planar=96), "RBK.D_DAOUT_PLANAR_STRIDE", "planar"),
    ("SPLIT", split_case(out_channels=4), "RBK.D_DATAOUT_SIZE_1", "Split/Merge"),
    ("SPLIT", split_case(in_line=32), "RBK.D_DAIN_LINE_STRIDE", "LINE_STRIDE"),
    ("MERGE", merge_case(in_addr=IN_BASE + 32), "RBK.D_DAIN_ADDR_LOW", "planar"),
    ("MERGE", merge_case(in_planar=64), "RBK.D_DAIN_PLANAR_STRIDE", "LINE_STRIDE"),
    ("MERGE", merge_case(width=1, height=1, in_channels=40, out_channels=40, out_line=32, out_surf=64),
     "RBK.D_DAOUT_LINE_STRIDE", "1x1xC"),
    ("MERGE", merge_case(in_channels=40, out_channels=40, out_surf=96), "RBK.D_DAOUT_SURF_STRIDE", "LINE_STRIDE"),
])
def test_limitations_name_field_and_rule(mode, case, field, rule):
    with pytest.raises(ConfigurationError) as info:
        run(regs(mode, "int8", **case), filled_memory())
    error = info.value
    assert any(name.startswith(field) for name in error.fields), error
    assert rule in (error.rule or ""), error


def test_legal_limitation_cases_pass():
    for mode, case in (("CONTRACT", contract_case()), ("SPLIT", split_case()), ("MERGE", merge_case())):
        run(regs(mode, "int16", **case), filled_memory())


def test_profiles_without_rubik_reject_it():
    master = RegisterMap.for_layout("master")
    for name in ("nv_small", "nv_large"):
        with pytest.raises(ProfileFeatureError, match="RUBIK") as info:
            run(regs("SPLIT", "int8", regmap=master, **split_case()), filled_memory(), get_profile(name))
        assert name in str(info.value)
    no_reshape = dataclasses.replace(FULL, rubik_reshape=False)
    with pytest.raises(ProfileFeatureError, match="RUBIK_RESHAPE"):
        run(regs("MERGE", "int8", **merge_case()), filled_memory(), no_reshape)
    run(regs("CONTRACT", "int8", **contract_case()), filled_memory(), no_reshape)
    no_contract = dataclasses.replace(FULL, rubik_contract=False)
    with pytest.raises(ProfileFeatureError, match="RUBIK_CONTRACT"):
        run(regs("CONTRACT", "int8", **contract_case()), filled_memory(), no_contract)
    no_cvsram = dataclasses.replace(FULL, secondary_memif=False)
    with pytest.raises(ProfileFeatureError, match="SECONDARY_MEMIF"):
        run(regs("SPLIT", "int8", out_mc=False, **split_case()), filled_memory(), no_cvsram)


def test_cvsram_input_and_output():
    memory = MemorySystem()
    cube = np.arange(2 * 3 * 4, dtype=np.int8).reshape(2, 3, 4)
    memory.sec.write(IN_BASE, pack_feature(cube, "int8", 128, 384, 32))
    run(regs("SPLIT", "int8", width=4, height=3, in_channels=2, out_channels=2, in_line=128, in_surf=384,
             out_line=64, out_planar=192, in_mc=False, out_mc=False), memory)
    assert not memory.pri.is_written(OUT_BASE, 384).any()
    np.testing.assert_array_equal(memory.sec.read(OUT_BASE + 192 + 64, 4).view(np.int8), cube[1, 1])


def test_bad_mode_is_a_register_error():
    values = regs("SPLIT", "int8", **split_case()).with_values({("RBK", "D_MISC_CFG"): 3})
    with pytest.raises(Exception, match="RUBIK_MODE"):
        run(values, filled_memory())


# -- a Rubik layer through the trace player ---------------------------------------------------------------
def txn_writes(values: RegisterValues) -> list[str]:
    lines = []
    for (unit, name), value in values.written().items():
        word = 0xFFFF0000 | REGMAP.address(REGMAP.get(unit, name)) >> 2
        lines.append(f"write_reg {word:#010x} {value:#x} #NVDLA_{unit}.{name}_0")
    return lines


@pytest.mark.parametrize("precision", ["int8", "int16", "fp16"])
def test_split_layer_plays_through_the_player(tmp_path, precision):
    """A hand-written nvdlav1 txn: load a cube, split it, wait, check the interrupt and dump the planes."""
    from golden import player
    from golden.memory import format_byte_lines

    rng = np.random.default_rng(7)
    size = BYTES[precision]
    channels, height, width = 20, 3, 40 // size  # 40-byte plane lines: one 64-byte row each
    cube = random_cube(rng, (channels, height, width), precision)
    source = pack_feature(cube, precision, width * 32, height * width * 32, 32)
    (tmp_path / "cube.dat").write_text(format_byte_lines(source))
    planes = np.zeros((channels, height, 64), np.uint8)
    planes[..., :40] = np.ascontiguousarray(bits(cube)).view(np.uint8).reshape(channels, height, 40)
    (tmp_path / "planes.dat").write_text(format_byte_lines(planes.reshape(-1)))
    values = regs("SPLIT", precision, width=width, height=height, in_channels=channels, out_channels=channels,
                  in_line=width * 32, in_surf=height * width * 32, out_line=64, out_planar=height * 64)
    values = values.with_values({("RBK", "D_OP_ENABLE"): 1})
    txn = [f"load_mem {IN_BASE:#x} {source.size:#x} cube.dat", *txn_writes(values), "wait",
           "read_reg 0xffff0003 0x00000100 0x00000100 #NVDLA_GLB.S_INTR_STATUS_0.RUBIK_DONE_STATUS0",
           f"dump_mem {OUT_BASE:#x} {planes.size:#x} planes.dat"]
    (tmp_path / "input.txn").write_text("\n".join(txn) + "\n")
    result = player.play(tmp_path / "input.txn", FULL)
    assert result.status == "passed", result.detail
    assert [layer.name for layer in result.layers] == ["RUBIK"] and len(result.checks) == 2


def test_huge_addresses_are_reported_not_wrapped():
    from golden.errors import MemoryAccessError

    with pytest.raises(MemoryAccessError, match="2\\*\\*62"):
        run(regs("SPLIT", "int8", in_addr=0x4000_0000_8000_0000, **split_case()), filled_memory())


#: Each Rubik rule of the registry (golden/units/rubik/rules.py) and a layer that breaks it alone. Rubik has no
#: stimulus family yet, so these hand-built layers are its illegal configurations.
RULE_CASES = {
    "RUBIK-DAIN-PLANAR-ALIGN": ("MERGE", merge_case(in_addr=IN_BASE + 32)),
    "RUBIK-DAOUT-PLANAR-ALIGN": ("SPLIT", split_case(out_line=96, out_planar=192)),
    "RUBIK-CONTRACT-WIDTH": ("CONTRACT", contract_case(width=4097, in_line=4097 * 32, in_surf=4097 * 64,
                                                       contract0=4097 * 64, out_line=4097 * 64,
                                                       contract1=4097 * 128, out_surf=4097 * 256)),
    "RUBIK-CONTRACT-CHANNELS": ("CONTRACT", contract_case(in_channels=6)),
    "RUBIK-CONTRACT-STRIDE-0": ("CONTRACT", contract_case(contract0=256)),
    "RUBIK-CONTRACT-STRIDE-1": ("CONTRACT", contract_case(contract1=128)),
    "RUBIK-SPLIT-CHANNELS": ("SPLIT", split_case(out_channels=4)),
    "RUBIK-DAIN-1X1XC-PACKED": ("SPLIT", split_case(width=1, height=1, in_channels=40, out_channels=40, in_line=32,
                                                    in_surf=64)),
    "RUBIK-DAIN-LINE-STRIDE": ("SPLIT", split_case(in_line=32, in_surf=192)),
    "RUBIK-DAIN-SURFACE-STRIDE": ("SPLIT", split_case(in_channels=40, out_channels=40, in_surf=96)),
    "RUBIK-DAIN-PLANAR-STRIDE": ("MERGE", merge_case(in_planar=64)),
    "RUBIK-DAOUT-1X1XC-PACKED": ("MERGE", merge_case(width=1, height=1, in_channels=40, out_channels=40, out_line=32,
                                                     out_surf=64)),
    "RUBIK-DAOUT-LINE-STRIDE": ("CONTRACT", contract_case(out_line=96, contract1=192)),
    "RUBIK-DAOUT-SURFACE-STRIDE": ("MERGE", merge_case(in_channels=40, out_channels=40, out_surf=96)),
    "RUBIK-DAOUT-PLANAR-STRIDE": ("SPLIT", split_case(out_planar=64)),
}


def test_every_rubik_rule_has_a_breaking_layer():
    from golden import rules
    assert {r.id for r in rules.all_rules() if r.unit == "RUBIK"} == set(RULE_CASES)


@pytest.mark.parametrize("rule_id", sorted(RULE_CASES))
def test_rubik_rule_rejects_its_layer_alone(rule_id):
    from golden import rules
    mode, case = RULE_CASES[rule_id]
    with pytest.raises(ConfigurationError) as info:
        run(regs(mode, "int8", **case), filled_memory())
    assert info.value.rule == rules.REGISTRY[rule_id].label  # this rule and no other
    assert set(rules.REGISTRY[rule_id].fields) == set(info.value.fields)


def test_split_planes_cover_their_lines_whole_atoms():
    """nvdlav1's RTL writes each plane line as whole 32-byte atoms (NV_NVDLA_RUBIK_seq_gen.v: split_wr_size
    counts atoms), zeros past the last element; the reported surface covers them, or the write check flags the
    last line's tail (measured: gen_rubik_s2615_8, 30 bytes at sec_mem 0x508000c2 after a 2-byte line)."""
    memory = filled_memory()
    memory.pri.write(OUT_BASE, np.full(0x200, 0xEE, np.uint8))
    result = run(regs("SPLIT", "int16", **split_case(width=1, height=3, in_channels=1, out_channels=1)), memory)
    start, end = surface_span(result.surfaces[0])
    assert (start, end) == (OUT_BASE, OUT_BASE + 2 * 64 + 32)  # lines at 0, 64, 128 of 32 bytes each
    assert (memory.pri.read(OUT_BASE + 2 * 64 + 2, 30) == 0).all()


def test_split_output_may_end_where_its_input_starts():
    """17 int16 elements (34 bytes) per plane line are written as two whole 32-byte atoms; three lines 64 bytes
    apart end 2*64 + 64 = 192 bytes after DAOUT_ADDR: ending at DAIN_ADDR is disjoint, a line later overlaps."""
    case = split_case(width=17, height=3, in_channels=1, out_channels=1, in_line=17 * 32, in_surf=3 * 17 * 32)
    run(regs("SPLIT", "int16", **{**case, "out_addr": IN_BASE - 192}), filled_memory())
    with pytest.raises(ConfigurationError, match="overlap"):
        run(regs("SPLIT", "int16", **{**case, "out_addr": IN_BASE - 128}), filled_memory())
