"""Random convolution layers on the fly into SDP: direct, multi-batch, Winograd and image input.

The convolution registers and memory images come from golden/units/conv/program.py's builders, drawn by
stimulus/conv/modes.py (sizes against the profile's atoms and CBUF, kernel, stride, dilation, padding,
batches, pixel format and CDMA convertor, CACC clip); this module moves the layer into its address slot
and adds the SDP that writes the result: on the fly, WINOGRAD and BATCH_NUMBER as the convolution has
them, X1/X2/Y bypassed with an output convertor with or without a shift, or (in half of the traces,
direct and image layers only) SDP's X1/X2/Y stages, operand DMAs and convertor as stimulus/sdp/layers.py draws them.
A mode the profile lacks is never drawn; asking for it (`mode=`) raises ProfileFeatureError. On a profile
with PDP, a share of the single-batch layers send SDP's output on the fly to PDP (OUTPUT_DST=PDP, no precision
conversion: programming-guide Limitation/SDP/DC), pooling drawn for the convolution's output size
(Limitation/PDP: kernel up to 8, padding below the kernel, (PL + W + PR - kernel) % stride == 0, an output
width the line buffer holds for the kernel height and stride: PDP-LINE-BUFFER-WIDTH; no split width on the
fly: "PDP programming", On-the-fly processing); only PDP writes memory then. Back to back in
one trace, a direct layer may skip releasing its data and/or weights (SKIP_DATA_RLS / SKIP_WEIGHT_RLS) and
the next direct layer reuse them from the CBUF (DATA_REUSE / WEIGHT_REUSE; conv_modes.reuse). Deconvolution is a
sequence of layers: stimulus/deconv/layers.py.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from golden import rules
from golden.config import Profile
from golden.errors import ConfigurationError, ProfileFeatureError
from golden.formats.feature import feature_span
from golden.regs.regmap import RegisterMap
from golden.units.conv import UNIT as CONV
from golden.units.conv import program
from golden.units.conv.cbuf import Left
from golden.units.conv.config import decode as conv_decode
from golden.units.pdp.rules import max_out_width
from golden.units.sdp.config import decode as sdp_decode
from stimulus import data
from stimulus.conv import modes as conv_modes
from stimulus.layer import Image, Layer, Region
from stimulus.pdp import layers as pdp
from stimulus.sdp import layers as sdp

SLOT = 0x1000000
#: Where the builders' regions (program.DATA_BASE ...) go inside a layer's 16 MiB slot, clear of the SDP
#: destination (0x400000), stimulus/sdp/layers.py's operand surfaces (0x800000..0xDFFFFF) and PDP's (0xE00000).
REGIONS = ((program.WGS_BASE, 0xF80000), (program.WMB_BASE, 0xF00000), (program.WEIGHT_BASE, 0x600000),
           (program.DATA_BASE, 0))
#: SDP's destination inside the slot, clear of stimulus/sdp/layers.py's operand surfaces (0x800000..0xDFFFFF).
DST_OFFSET = 0x400000
#: Address fields the program builders set from their fixed bases, moved by the slot offset.
ADDRESS_FIELDS = ("CDMA.D_DAIN_ADDR_LOW_0.DATAIN_ADDR_LOW_0", "CDMA.D_WEIGHT_ADDR_LOW.WEIGHT_ADDR_LOW",
                  "CDMA.D_WMB_ADDR_LOW.WMB_ADDR_LOW", "CDMA.D_WGS_ADDR_LOW.WGS_ADDR_LOW",
                  "CDMA.D_DAIN_ADDR_LOW_1.DATAIN_ADDR_LOW_1")
#: Multi-batch and Winograd SDP writes 64-byte aligned addresses and strides (programming-guide:
#: Limitation/SDP/Winograd/Batch).
WIDE_ALIGN = 64
#: Chance that a single-batch layer pools its SDP output on the fly in PDP (profiles with PDP).
TO_PDP = 0.25
#: PDP's destination inside the slot, clear of SDP's.
PDP_DST_OFFSET = 0xE00000
#: Chance that SDP's stages are drawn (stimulus/sdp/layers.py's X1/X2/Y with operands from registers or memory)
#: instead of all bypassed; never for Winograd or multi-batch (operand order and batch strides not drawn).
STAGES = 0.5
#: Chance that a direct layer of a trace skips its release, so that the next one reuses its data or weights.
KEEP = 0.3

modes = conv_modes.modes
RING = rules.REGISTRY["CONV-WEIGHT-RING"]
#: The units whose registers the CONV rules read.
CONV_UNITS = CONV.groups


def set_both(register: str, field: str, value: int) -> dict:
    """One value for a register field that CDMA and CSC both hold (the two copies agree)."""
    return {f"CDMA.{register}.{field}": value, f"CSC.{register}.{field}": value}


def place(address: int, slot: int) -> int:
    """A builder address moved into the slot: regions keep their offsets inside (REGIONS)."""
    for base, inside in REGIONS:
        if address >= base:
            return program.DATA_BASE + slot * SLOT + inside + address - base
    raise ValueError(f"{address:#x} is below the builders' regions")


def written_fields(ctx) -> dict:
    """The written registers of a LayerContext as "UNIT.REGISTER.FIELD" values."""
    fields = {}
    for (unit, name), value in ctx.regs.written().items():
        reg = ctx.regs.register(unit, name)
        for fld in reg.fields:
            fields[f"{unit}.{name}.{fld.name}"] = fld.decode(value)
    return fields


def sdp_fields(choose, drawn: conv_modes.ConvDraw, shape: tuple, dst: tuple) -> dict:
    channels, height, width = shape
    mode = drawn.precision.upper()
    cvt = choose.choice(("identity", "shift"))
    base, line, surface, batch_stride = dst
    fields = {
        "SDP.D_DATA_CUBE_WIDTH.WIDTH": width - 1, "SDP.D_DATA_CUBE_HEIGHT.HEIGHT": height - 1,
        "SDP.D_DATA_CUBE_CHANNEL.CHANNEL": channels - 1,
        "SDP.D_FEATURE_MODE_CFG.FLYING_MODE": "ON", "SDP.D_FEATURE_MODE_CFG.OUTPUT_DST": "MEM",
        "SDP.D_FEATURE_MODE_CFG.WINOGRAD": "ON" if drawn.winograd else "OFF",
        "SDP.D_FEATURE_MODE_CFG.BATCH_NUMBER": drawn.batches - 1,
        "SDP.D_DATA_FORMAT.PROC_PRECISION": mode, "SDP.D_DATA_FORMAT.OUT_PRECISION": mode,
        "SDP.D_DST_BASE_ADDR_LOW.DST_BASE_ADDR_LOW": base & 0xFFFFFFFF,
        "SDP.D_DST_BASE_ADDR_HIGH.DST_BASE_ADDR_HIGH": base >> 32,
        "SDP.D_DST_LINE_STRIDE.DST_LINE_STRIDE": line, "SDP.D_DST_SURFACE_STRIDE.DST_SURFACE_STRIDE": surface,
        "SDP.D_DST_DMA_CFG.DST_RAM_TYPE": "MC",
        "SDP.D_DP_BS_CFG.BS_BYPASS": 1, "SDP.D_DP_BN_CFG.BN_BYPASS": 1,
        "SDP.D_DP_EW_CFG.EW_BYPASS": 1, "SDP.D_DP_EW_CFG.EW_LUT_BYPASS": 1,
        "SDP.D_CVT_OFFSET.CVT_OFFSET": 0, "SDP.D_CVT_SCALE.CVT_SCALE": 1,
        "SDP.D_CVT_SHIFT.CVT_SHIFT": choose.size(1, 20) if cvt == "shift" and drawn.precision != "fp16" else 0,
    }
    if drawn.batches > 1:
        fields["SDP.D_DST_BATCH_STRIDE.DST_BATCH_STRIDE"] = batch_stride
    return fields


def _destination(choose, drawn: conv_modes.ConvDraw, shape: tuple, atom: int, base: int) -> tuple:
    """(base, line, surface, batch stride) of the SDP output: packed or a few atoms of gap, 64-byte aligned
    for Winograd and multi-batch."""
    channels, height, width = shape
    align = WIDE_ALIGN if drawn.winograd or drawn.batches > 1 else atom
    if width == 1 and height == 1 and align == atom:
        line = surface = atom  # a 1x1xC cube is packed (programming-guide: Limitation/Data Format)
    else:
        line = -(-(width * atom + atom * choose.size(0, 2)) // align) * align
        surface = -(-(line * height + atom * choose.size(0, 2)) // align) * align
    span = feature_span(shape, drawn.precision, line, surface, atom)
    batch_stride = -(-(span + atom * choose.size(0, 2)) // WIDE_ALIGN) * WIDE_ALIGN if drawn.batches > 1 else 0
    return base + align * choose.size(0, 15), line, surface, batch_stride


@dataclass
class Chain:
    """The layers of one trace so far: what the last one left in the CBUF (its draw and what it kept)."""
    kept: tuple | None = None  # (ConvDraw, "data" | "weight" | "both")
    queue: list = field(default_factory=list)  # the rest of a multi-layer sequence (stimulus/deconv/layers.py)
    left: Left = field(default_factory=Left)  # what the layers so far leave in the CBUF (see follow)


def random_layer(choose, profile: Profile, slot: int = 0, mode: str | None = None, to_pdp: bool | None = None,
                 operands: bool | None = None, chain: Chain | None = None, attempts: int = 20) -> Layer:
    """One legal convolution into SDP: `mode` one of conv_modes.DRAWS, or drawn among the profile's modes;
    `to_pdp` True/False pools on the fly in PDP or never does, `operands` True/False draws SDP's stages with
    at least one operand from memory (SDP_RDMA) or keeps them bypassed; None draws either. With a `chain`
    (one per trace), a direct layer may skip its release and the next one reuse its data and/or weights."""
    if mode is not None and mode not in modes(profile):
        if mode in conv_modes.NEEDS:
            profile.require(conv_modes.NEEDS[mode], f"{mode} convolution")
        raise ValueError(f"unknown convolution mode {mode!r}; known: {', '.join(conv_modes.DRAWS)}")
    if to_pdp and mode in ("batch", "winograd"):
        raise ValueError(f"{mode} layers are not pooled on the fly: ask for to_pdp=False")
    if operands and mode in ("batch", "winograd"):
        raise ValueError(f"{mode} layers do not read SDP operands from memory here: ask for operands=False")
    # Winograd output reaches memory only, never PDP on the fly (SDP-WINOGRAD-MEMORY-OUTPUT)
    excluded = ({"batch", "winograd"} if to_pdp else set()) | ({"batch", "winograd"} if operands else set())
    # a layer that skipped its release is always followed by one that reuses what it kept (the CBUF's
    # entries stay taken otherwise)
    kept = chain.kept if chain is not None and mode in (None, "direct") else None
    if chain is not None:
        chain.kept = None
    mode = "direct" if kept else mode or choose.choice([m for m in modes(profile) if m not in excluded])
    precisions = sorted(profile.feature_types & profile.weight_types)
    for _ in range(attempts):
        try:
            if kept is not None:
                previous, what = kept
                drawn = conv_modes.reuse(choose, profile, previous, what != "weight", what != "data")
            else:
                drawn = conv_modes.DRAWS[mode](choose, profile, choose.choice(precisions))
            layer = complete(conv_layer(choose, profile, slot, drawn, to_pdp, operands), profile)
            keep = drawn.arrays is not None and chain is not None and choose.flag(KEEP)
            what = _keep(layer, choose.choice(("data", "weight", "both"))) if keep else None
            follow(layer, Chain() if chain is None else chain, profile)
            if keep:
                chain.kept = (drawn, what)
            return layer
        except ProfileFeatureError:
            raise
        except ConfigurationError:
            continue  # a draw the CBUF cannot hold: draw again (the builder names why)
    raise ConfigurationError(f"no {mode} convolution of {attempts} drawn fits profile {profile.name}'s CBUF",
                             fields=("CDMA.D_BANK.DATA_BANK",), rule="programming-guide: CBUF allocation")


def follow(layer: Layer, chain: Chain, profile: Profile) -> None:
    """Give the layer another WEIGHT_BANK where CONV-WEIGHT-RING asks for one (the last layer released weights
    whose WEIGHT_BYTES held padding: golden/units/conv/rules.py), check it against every CONV rule of the
    registry and every SDP rule (ConfigurationError: the caller draws again), then note what the layer leaves in
    the CBUF. The registry's own predicates decide, so the generator and the golden model's check cannot drift apart."""
    regmap = RegisterMap.for_profile(profile)
    regs = layer.values(regmap, CONV_UNITS)
    cfg = conv_decode(regs)
    if RING.check(cfg, rules.Facts(profile=profile, cbuf=chain.left)) is not None:
        cfg = _another_weight_bank(layer, chain.left, profile, regmap)
    else:  # a draw the builders could not size within every rule (e.g. a kernel group larger than its banks)
        broken = rules.violations("CONV", cfg, rules.Facts(regs, profile, chain.left))
        if broken:
            raise broken[0][0].error(broken[0][1])
    # and SDP's rules over the whole layer: a register that keeps fewer bits on the profile's RTL (nvdlav1's
    # 32-byte strides: golden/regs/hardware_fields.json) can break one the SDP builder's values keep
    everything = layer.values(regmap)
    broken = rules.violations("SDP", sdp_decode(everything), rules.Facts(everything, profile))
    if broken:
        raise broken[0][0].error(broken[0][1])
    chain.left = chain.left.after(cfg)


def _another_weight_bank(layer: Layer, left: Left, profile: Profile, regmap: RegisterMap):
    """Move the layer to one WEIGHT_BANK fewer than the builder gave, or one more where the data leaves a bank
    free: the first that keeps every CONV rule (one kernel group must still fit, CONV-WEIGHT-BANKS). Returns the
    decoded configuration; ConfigurationError (the caller draws again) when neither does."""
    given = layer.fields["CDMA.D_BANK.WEIGHT_BANK"]
    for bank in (given - 1, given + 1):
        if bank < 0:
            continue
        layer.fields.update(set_both("D_BANK", "WEIGHT_BANK", bank))
        regs = layer.values(regmap, CONV_UNITS)
        cfg = conv_decode(regs)
        if not rules.violations("CONV", cfg, rules.Facts(regs, profile, left)):
            return cfg
    layer.fields.update(set_both("D_BANK", "WEIGHT_BANK", given))
    raise RING.error(f"no WEIGHT_BANK next to {given + 1} holds the weights and restarts the weight ring")


def _keep(layer: Layer, what: str) -> str:
    """Mark the layer to skip releasing its data and/or weights (CDMA and CSC D_MISC_CFG)."""
    layer.fields.update(set_both("D_MISC_CFG", "SKIP_DATA_RLS", int(what != "weight")))
    layer.fields.update(set_both("D_MISC_CFG", "SKIP_WEIGHT_RLS", int(what != "data")))
    layer.choices["keep"] = what
    return what


@functools.cache
def _reset_fields(regmap: RegisterMap, units: tuple[str, ...]) -> dict:
    """Every writable field of the units' D_ registers (D_OP_ENABLE aside) at its reset value."""
    return {f"{unit}.{reg.name}.{fld.name}": fld.reset for unit in units for reg in regmap.registers(unit)
            if reg.name.startswith("D_") and reg.name != "D_OP_ENABLE" for fld in reg.fields if "w" in fld.sw}


def complete(layer: Layer, profile: Profile) -> Layer:
    """The layer writing every field of its units' register group: a field it leaves out would keep what an
    earlier layer of the trace wrote into the same group (e.g. a direct layer's dilation under an image one)."""
    units = tuple(unit for unit in layer.enable)
    layer.fields = _reset_fields(RegisterMap.for_profile(profile), units) | layer.fields
    return layer


def _reuse_fields(reused: tuple) -> dict:
    return {f"{unit}.D_MISC_CFG.{kind.upper()}_REUSE": 1 for unit in ("CDMA", "CSC") for kind in reused}


def shared(choose, profile: Profile) -> dict:
    """What the layers of one trace share: the chain along which a layer may reuse the previous one's CBUF,
    and whether SDP reads operands: in every layer or in none, because the golden model reads SDP_RDMA's
    consumer group to learn whether a layer's SDP reads memory, and with layers launched back to back a later
    layer's SDP_RDMA values may already sit in that group (multi-batch and Winograd are then not drawn)."""
    return {"chain": Chain(), "operands": has_stages(profile) and choose.flag(STAGES)}


def conv_layer(choose, profile: Profile, slot: int, drawn: conv_modes.ConvDraw, to_pdp: bool | None,
               operands: bool | None) -> Layer:
    ctx = drawn.ctx
    offset = slot * SLOT
    fields = written_fields(ctx) | _reuse_fields(drawn.choices.get("reuse", ()))
    where = _placement(choose, profile, slot)
    for key in ADDRESS_FIELDS:
        if key in fields:
            address = _relocate(fields[key], where)
            fields[key], fields[key.replace("LOW", "HIGH")] = address & 0xFFFFFFFF, address >> 32
    images = [Image(_memory(where, address), _relocate(address, where), bytes(chunk), f"conv{n}")
              for n, (address, chunk) in enumerate(ctx.memory.pri.written_runs())]
    fields.update(_ram_fields(where))
    out_w = fields["CACC.D_DATAOUT_SIZE_0.DATAOUT_WIDTH"] + 1
    out_h = fields["CACC.D_DATAOUT_SIZE_0.DATAOUT_HEIGHT"] + 1
    # CACC's packed flags as NVIDIA's traces set them: packed for a 1x1 output (flopped, unused by its RTL)
    packed = int(out_w == out_h == 1)
    fields.update({"CACC.D_DATAOUT_MAP.LINE_PACKED": packed, "CACC.D_DATAOUT_MAP.SURF_PACKED": packed})
    out_shape = (fields["CACC.D_DATAOUT_SIZE_1.DATAOUT_CHANNEL"] + 1, out_h, out_w)
    atom = profile.memory_atomic_size
    dst = _destination(choose, drawn, out_shape, atom, program.DATA_BASE + offset + DST_OFFSET)
    fields.update(sdp_fields(choose, drawn, out_shape, dst))
    units = ("SDP", "CACC", "CMAC_A", "CMAC_B", "CSC", "CDMA")
    if operands is None:
        operands = has_stages(profile) and drawn.batches == 1 and not drawn.winograd and choose.flag(STAGES)
    if operands:
        stage_fields, operand_images = _sdp_stages(choose, profile, slot, drawn.precision, out_shape)
        fields.update(stage_fields)
        images += operand_images
        units = ("SDP", "SDP_RDMA", *units[1:])
    size = feature_span(((drawn.batches, *out_shape) if drawn.batches > 1 else out_shape), drawn.precision,
                        dst[1], dst[2], atom, dst[3] or None)
    rng = np.random.default_rng(choose.integer(0, (1 << 32) - 1))
    if to_pdp is None:
        to_pdp = profile.pdp and drawn.batches == 1 and not drawn.winograd and choose.flag(TO_PDP)
    if to_pdp:
        spec = pool(choose, profile, drawn.precision, out_shape, program.DATA_BASE + offset + PDP_DST_OFFSET)
        fields.update(pool_fields(spec))
        pooled = (spec.shape[0], *spec.out_hw)
        size = feature_span(pooled, spec.precision, spec.dst[1], spec.dst[2], atom)
        images.append(Image("pri_mem", spec.dst[0], rng.integers(0, 256, size, dtype=np.uint8).tobytes(), "dst"))
        choices = {**drawn.choices, "pdp": {"method": spec.method, "kernel": spec.kernel, "stride": spec.stride}}
        return Layer("conv", fields, images, [Region("pri_mem", spec.dst[0], size, "dst")], "PDP",
                     ("PDP", *units), choices)
    images.append(Image("pri_mem", dst[0], rng.integers(0, 256, size, dtype=np.uint8).tobytes(), "dst"))
    return Layer("conv", fields, images, [Region("pri_mem", dst[0], size, "dst")], "SDP", units, drawn.choices)


#: Where a layer's CONV surfaces may go: CV-SRAM (the traceplayer's 0x5xxxxxxx) on profiles with a secondary
#: memory interface, DRAM above 4 GiB on profiles with wider addresses, each surface 0..7 x 32 bytes past its
#: slot place (the CDMA reads' start addresses align to 32 bytes: golden/units/dma_rules.py, CONV-CDMA-*).
CVSRAM_BASE = 0x5000_0000
HIGH_DRAM = 1 << 32
ELSEWHERE = 0.2
#: The builders' surfaces by base: input (first plane), second image plane, weights, WMB, WGS.
SURFACES = ((program.WGS_BASE, "wgs"), (program.WMB_BASE, "wmb"), (program.WEIGHT_BASE, "weight"),
            (program.IMAGE_BASE_1, "data_1"), (program.DATA_BASE, "data"))


def _placement(choose, profile: Profile, slot: int) -> dict:
    """The input's and the weights' memory (pri_mem or sec_mem), whether DRAM surfaces sit above 4 GiB, and each
    surface's shift in 32-byte steps."""
    c = choose
    where = {"slot": slot, "high": profile.mem_address_width > 32 and c.flag(ELSEWHERE)}
    for side in ("data", "weight"):
        where[side] = "sec_mem" if profile.secondary_memif and c.flag(ELSEWHERE) else "pri_mem"
    where["shift"] = {name: 32 * c.integer(0, 7) for _, name in SURFACES}
    return where


def _surface(address: int) -> str:
    return next(name for base, name in SURFACES if address >= base)


def _memory(where: dict, address: int) -> str:
    return where["data" if _surface(address).startswith("data") else "weight"]


def _relocate(address: int, where: dict) -> int:
    """A builder address in the layer's slot (`place`), moved to its memory and shifted."""
    placed = place(address, where["slot"]) + where["shift"][_surface(address)]
    if _memory(where, address) == "sec_mem":
        return placed - program.DATA_BASE + CVSRAM_BASE
    return placed + (HIGH_DRAM if where["high"] else 0)


def _ram_fields(where: dict) -> dict:
    ram = {"pri_mem": "MCIF", "sec_mem": "CVIF"}
    return {"CDMA.D_DAIN_RAM_TYPE.DATAIN_RAM_TYPE": ram[where["data"]],
            "CDMA.D_WEIGHT_RAM_TYPE.WEIGHT_RAM_TYPE": ram[where["weight"]]}


def has_stages(profile: Profile) -> bool:
    return any(profile.has(switch) for _, _, switch in sdp.STAGES)


def _sdp_stages(choose, profile: Profile, slot: int, precision: str, shape: tuple,
                attempts: int = 12) -> tuple[dict, list]:
    """SDP's X1/X2/Y stages and output convertor as stimulus/sdp/layers.py draws them for this cube, without its
    offline source, drawn until at least one operand comes from memory (per channel or per element): the
    fields of the stages, their operand DMAs and the convertor, and the operand images."""
    for _ in range(attempts):
        drawn = sdp.random_layer(choose, profile, slot, shape=shape, to_pdp=precision)
        keep = ("SDP.D_DP_", "SDP.D_CVT_", "SDP_RDMA.D_BRDMA", "SDP_RDMA.D_NRDMA", "SDP_RDMA.D_ERDMA",
                "SDP_RDMA.D_BS_", "SDP_RDMA.D_BN_", "SDP_RDMA.D_EW_")
        fields = {key: value for key, value in drawn.fields.items() if key.startswith(keep)}
        if any(key.endswith("RDMA_DISABLE") and not fields[key] for key in fields):
            break
    else:
        raise ConfigurationError(f"no SDP stages of {attempts} drawn read an operand from memory",
                                 fields=("SDP_RDMA.D_BRDMA_CFG.BRDMA_DISABLE",), rule="stimulus: SDP operands")
    mode = precision.upper()
    channels, height, width = shape
    fields.update({"SDP_RDMA.D_FEATURE_MODE_CFG.FLYING_MODE": "ON", "SDP_RDMA.D_FEATURE_MODE_CFG.WINOGRAD": "OFF",
                   "SDP_RDMA.D_FEATURE_MODE_CFG.IN_PRECISION": mode, "SDP_RDMA.D_FEATURE_MODE_CFG.PROC_PRECISION": mode,
                   "SDP_RDMA.D_FEATURE_MODE_CFG.OUT_PRECISION": mode, "SDP_RDMA.D_FEATURE_MODE_CFG.BATCH_NUMBER": 0,
                   "SDP_RDMA.D_DATA_CUBE_WIDTH.WIDTH": width - 1, "SDP_RDMA.D_DATA_CUBE_HEIGHT.HEIGHT": height - 1,
                   "SDP_RDMA.D_DATA_CUBE_CHANNEL.CHANNEL": channels - 1})
    return fields, [image for image in drawn.images if image.label.endswith("rdma")]


def _pool_axis(choose, size: int) -> tuple[int, int, int, int, int]:
    """(kernel, stride, pad before, pad after, output) pooling an axis of `size` legally (see module)."""
    for _ in range(8):
        kernel, stride = choose.size(1, pdp.kernel_max()), choose.size(1, 8)
        before = choose.size(0, pdp.pad_max(kernel))
        for after in range(pdp.pad_max(kernel) + 1):
            if pdp.strided(kernel, stride, before, after, size):
                return kernel, stride, before, after, (before + size + after - kernel) // stride + 1
    return 1, 1, 0, 0, size


def pool_fields(spec: pdp.PdpSpec) -> dict:
    """The PDP and SDP fields that pool SDP's output on the fly with `spec`."""
    fields = {k: v for k, v in pdp.fields(spec).items() if not k.startswith("PDP_RDMA.")}
    fields["PDP.D_OPERATION_MODE_CFG.FLYING_MODE"] = "ON_FLYING"
    fields["SDP.D_FEATURE_MODE_CFG.OUTPUT_DST"] = "PDP"
    return fields


def pool(choose, profile: Profile, precision: str, shape: tuple, base: int) -> pdp.PdpSpec:
    channels, height, width = shape
    kw, sw, pl, pr, ow = _pool_axis(choose, width)
    kh, sh, pt, pb, oh = _pool_axis(choose, height)
    for _ in range(8):  # PDP-LINE-BUFFER-WIDTH: the lines a kernel height keeps bound the output width
        if ow <= max_out_width(kh, sh):
            break
        kh, sh, pt, pb, oh = _pool_axis(choose, height)
    else:
        kh, sh, pt, pb, oh = 1, 1, 0, 0, height
    if ow > max_out_width(kh, sh):  # the caller draws the convolution again
        raise rules.REGISTRY["PDP-LINE-BUFFER-WIDTH"].error(f"{ow} pooled columns are more than PDP's line buffer "
                                                            f"holds ({max_out_width(1, 1)})")
    atom = profile.memory_atomic_size
    line, surface = data.strides(choose, (channels, oh, ow), atom)
    low, high = data.INT_RANGES.get(precision, (0, 0))
    return pdp.PdpSpec(precision, choose.choice(sorted(pdp.METHODS)), shape, (oh, ow), (kw, kh), (sw, sh),
                       (pl, pt, pr, pb), pad_value=choose.size(low, high) if precision != "fp16" else 0,
                       dst=(base + atom * choose.size(0, 15), line, surface))
