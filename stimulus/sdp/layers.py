"""Random legal offline SDP layers: every stage on or bypassed, operands from registers or memory.

Choices (programming-guide "SDP programming", in-memory-data-formats Table 30 and the Bias / Batch
Normalization / Element-Wise Data Formats): input, processing and output precision among the
profile's feature types and Table 30's valid cases (int16 -> int8 processed as int8: SDP-INT16-TO-INT8); every
surface in DRAM or, where the profile has them, in CV-SRAM and above 4 GiB;
X1 (BS) and X2 (BN) each bypassed or ALU (MAX, MIN,
SUM) and/or MUL (or PReLU with the ALU bypassed) then ReLU or not; Y (EW) bypassed or MUL and/or ALU
with per-operand convertors, then the LUT (the trace's stimulus/sdp/lut.py LUT, on profiles with SDP_LUT, for
layers of its precision), or EQL compare mode (no conversion, ALU convertor bypassed for integers, LUT
bypassed, identity output convertor: Limitation/SDP/General and DC; nothing written, D_STATUS read back);
every operand from a register or from memory per channel (PER_KERNEL) or
per element (PER_ELEMENT), one or two bytes, ALU, MUL or BOTH; the output convertor; padded or packed
strides. Stages the profile lacks (SDP_BS/BN/EW/LUT) stay bypassed. Generated elsewhere: on-the-fly input
(stimulus/conv/layers.py), output to PDP (stimulus/sdp_pdp/layers.py); not generated: multi-batch.
"""

from __future__ import annotations

from types import SimpleNamespace

from golden.config import Profile
from golden.formats import auxiliary as aux
from golden.formats.feature import feature_span
from golden.regs.regmap import RegisterMap
from golden.units.sdp import rules as sdp_rules
from stimulus import data
from stimulus.layer import Image, Layer, Region
from stimulus.registry import keeps

SLOT = 0x1000000
BASE = 0x80000000
#: Where a surface in CV-SRAM (secondary memory, on profiles with SECONDARY_MEMIF) starts, as for BDMA.
SEC_BASE = 0x50000000
#: Offsets inside a layer's slot: source, destination, and the B/N/E operand surfaces.
OFFSETS = {"src": 0, "dst": 0x400000, "B": 0x800000, "N": 0xA00000, "E": 0xC00000}
#: The registry's rules over an offline layer's three precisions (golden/units/sdp/rules.py: Table 30's invalid
#: cases, an fp16 input processed as fp16, int16 -> int8 processed as int8).
PRECISION_RULES = ("SDP-PRECISION-CONVERSION", "SDP-INPUT-PROCESSING", "SDP-INT16-TO-INT8")
STAGES = (("BS", "B", "SDP_BS"), ("BN", "N", "SDP_BN"), ("EW", "E", "SDP_EW"))
#: The decoded configuration's attribute of each stage (golden/units/sdp/config.py SdpConfig: x1, x2, y).
STAGE_ATTRIBUTES = {name: attribute for attribute, _, name in sdp_rules.STAGES}
OPERAND_DMA = {"B": "BS", "N": "BN", "E": "EW"}


def processing(in_precision: str, out_precision: str) -> str | None:
    """The pipeline precision of an offline layer: the first of the input's own, int8, int16 and fp16 that keeps
    the registry's precision rules (int8 for int16 -> int8, which the RTL runs with PROC_PRECISION INT8 only);
    None for a pair no processing precision makes legal."""
    for proc in dict.fromkeys((in_precision, "int8", "int16", "fp16")):
        if keeps(PRECISION_RULES, flying=False, in_precision=in_precision, proc_precision=proc,
                 out_precision=out_precision):
            return proc
    return None


def precisions(profile: Profile) -> list[tuple[str, str]]:
    """(input, output) pairs the profile can run offline."""
    types = sorted(profile.feature_types)
    return [(i, o) for i in types for o in types if processing(i, o) is not None]


def _address(choose, slot: int, what: str, atom: int) -> int:
    return BASE + slot * SLOT + OFFSETS[what] + atom * choose.size(0, 63)


def _place(choose, profile: Profile, slot: int, what: str, atom: int) -> tuple[str, int]:
    """(memory, address) of a surface: in DRAM, or on profiles that have them sometimes in CV-SRAM
    (SECONDARY_MEMIF) and sometimes in DRAM above 4 GiB (MEM_ADDRESS_WIDTH > 32; NVIDIA's *_BASE_ADDR_HIGH cover
    points), but not in CV-SRAM above 4 GiB on nvdlav1 (nv_full): its traceplayer tells CV-SRAM by its 0x5xxxxxxx
    addresses (stimulus/export.py)."""
    memory, address = "pri_mem", _address(choose, slot, what, atom)
    if profile.secondary_memif and choose.flag(0.3):
        memory, address = "sec_mem", address - BASE + SEC_BASE
    high_allowed = memory == "pri_mem" or profile.layout != "nvdlav1"
    if profile.mem_address_width > 32 and high_allowed and choose.flag(0.2):
        address += 1 << 32
    return memory, address


class _Builder:
    def __init__(self, choose, profile: Profile, slot: int):
        self.choose, self.profile, self.slot = choose, profile, slot
        self.atom = profile.memory_atomic_size
        self.regmap = RegisterMap.for_profile(profile)
        self.rng = choose.data()
        self.fields: dict = {}
        self.images: list[Image] = []
        self.choices: dict = {}
        self.lut_writes: list = []

    def put(self, unit: str, register: str, **values) -> None:
        for name, value in values.items():
            self.fields[f"{unit}.{register}.{name}"] = value


def _algorithms(b: _Builder, name: str) -> list[str]:
    """The ALU algorithms a stage draws from: its ALU_ALGO field's enum (the register map), those of X1/X2 that
    the registry's SDP-{BS,BN}-NO-EQL keep; Y's EQL is compare mode, drawn apart (random_layer's `eql`)."""
    names = list(b.regmap.get("SDP", f"D_DP_{name}_CFG").field(f"{name}_ALU_ALGO").enum)
    if name == "EW":
        return [a for a in names if a != "EQL"]
    return [a for a in names if keeps((f"SDP-{name}-NO-EQL",), **{STAGE_ATTRIBUTES[name]: SimpleNamespace(
        alu_active=True, alu_algo=a)})]


def _prelu(b: _Builder, name: str, alu: bool) -> bool:
    """Whether the registry's SDP-{stage}-PRELU-ALU lets the stage's multiplier be a PReLU beside this ALU."""
    return keeps((f"SDP-{name}-PRELU-ALU",), **{STAGE_ATTRIBUTES[name]: SimpleNamespace(
        mul_active=True, mul_prelu=True, alu_bypass=not alu)})


def _x_stage(b: _Builder, name: str, proc: str, memory: bool = True) -> dict:
    """Fields of X1/X2; returns which operands come from memory: {"ALU": bool, "MUL": bool}."""
    c = b.choose
    cfg = f"D_DP_{name}_CFG"
    if c.flag(0.2):
        b.put("SDP", cfg, **{f"{name}_BYPASS": 1})
        b.choices[name] = "bypass"
        return {}
    alu = c.flag(0.7)
    mul = c.flag(0.7)
    prelu = mul and _prelu(b, name, alu) and c.flag(0.4)
    algo = c.choice(_algorithms(b, name))
    b.put("SDP", cfg, **{f"{name}_BYPASS": 0, f"{name}_ALU_BYPASS": int(not alu), f"{name}_ALU_ALGO": algo,
                         f"{name}_MUL_BYPASS": int(not mul), f"{name}_MUL_PRELU": int(prelu),
                         f"{name}_RELU_BYPASS": int(c.flag())})
    sources = {"ALU": alu and memory and c.flag(0.4), "MUL": mul and memory and c.flag(0.4)}
    b.put("SDP", f"D_DP_{name}_ALU_CFG", **{f"{name}_ALU_SRC": "MEM" if sources["ALU"] else "REG",
                                             f"{name}_ALU_SHIFT_VALUE": c.size(0, 63 if proc != "fp16" else 0)})
    b.put("SDP", f"D_DP_{name}_MUL_CFG", **{f"{name}_MUL_SRC": "MEM" if sources["MUL"] else "REG",
                                             f"{name}_MUL_SHIFT_VALUE": c.size(0, 255 if proc != "fp16" else 0)})
    b.put("SDP", f"D_DP_{name}_ALU_SRC_VALUE", **{f"{name}_ALU_OPERAND": _operand(b, proc, 16)})
    b.put("SDP", f"D_DP_{name}_MUL_SRC_VALUE", **{f"{name}_MUL_OPERAND": _operand(b, proc, 16)})
    b.choices[name] = {"alu": algo if alu else "bypass", "mul": ("prelu" if prelu else "mul") if mul else "bypass",
                       "alu_src": "MEM" if sources["ALU"] else "REG", "mul_src": "MEM" if sources["MUL"] else "REG"}
    return sources


def _operand(b: _Builder, proc: str, bits: int) -> int:
    if proc == "fp16":
        return int(data.values(b.rng, "fp16", (1,), edges=0.0, scale=2.0).view("<u2")[0])
    return b.choose.size(-(1 << (bits - 1)), (1 << (bits - 1)) - 1) & ((1 << bits) - 1)


def _y_stage(b: _Builder, proc: str, memory: bool = True, lut=None, eql: bool = False) -> dict:
    """Fields of Y; `lut` (stimulus.sdp.lut.SdpLut of this precision) may be switched on, `eql` forces the ALU's
    compare mode (programming-guide Limitation/SDP/General: the ALU convertor bypassed for integers, nothing
    after the ALU: LUT bypassed)."""
    c = b.choose
    lut_on = lut is not None and keeps(("SDP-EQL-LUT",), y=SimpleNamespace(eql=eql, lut_bypass=False)) \
        and c.flag(0.7)
    if not lut_on and not eql and c.flag(0.25):
        b.put("SDP", "D_DP_EW_CFG", EW_BYPASS=1, EW_LUT_BYPASS=1)
        b.choices["EW"] = "bypass"
        return {}
    alu, mul = eql or c.flag(0.7), not eql and c.flag(0.7)
    prelu = mul and _prelu(b, "EW", alu) and c.flag(0.4)
    algo = "EQL" if eql else c.choice(_algorithms(b, "EW"))
    b.put("SDP", "D_DP_EW_CFG", EW_BYPASS=0, EW_ALU_BYPASS=int(not alu), EW_ALU_ALGO=algo,
          EW_MUL_BYPASS=int(not mul), EW_MUL_PRELU=int(prelu), EW_LUT_BYPASS=int(not lut_on))
    sources = {"ALU": alu and memory and (eql or c.flag(0.5)), "MUL": mul and memory and c.flag(0.5)}
    for which, active in (("ALU", alu), ("MUL", mul)):
        operand = which.lower()
        bypassed = SimpleNamespace(**{f"{operand}_active": active, f"{operand}_cvt_bypass": True,
                                      f"{operand}_src": "MEM" if sources[which] else "REG"})
        cvt_bypass = int(c.flag()) if keeps((f"SDP-EW-FP16-{which}-CVT",), proc_precision=proc, y=bypassed) else 0
        # stricter than SDP-EQL-ALU-CVT, which asks it of an operand from memory only: a register operand's
        # convertor is bypassed too, so the registry's predicate cannot decide it without changing those layers
        if eql and which == "ALU" and proc != "fp16":
            cvt_bypass = 1
        b.put("SDP", f"D_DP_EW_{which}_CFG", **{f"EW_{which}_SRC": "MEM" if sources[which] else "REG",
                                                f"EW_{which}_CVT_BYPASS": cvt_bypass})
        b.put("SDP", f"D_DP_EW_{which}_SRC_VALUE", **{f"EW_{which}_OPERAND": _operand(b, proc, 32)})
        b.put("SDP", f"D_DP_EW_{which}_CVT_OFFSET_VALUE", **{f"EW_{which}_CVT_OFFSET": _operand(b, proc, 32)})
        b.put("SDP", f"D_DP_EW_{which}_CVT_SCALE_VALUE", **{f"EW_{which}_CVT_SCALE": _operand(b, proc, 16)})
        b.put("SDP", f"D_DP_EW_{which}_CVT_TRUNCATE_VALUE",
              **{f"EW_{which}_CVT_TRUNCATE": c.size(0, 63 if proc != "fp16" else 0)})
    b.put("SDP", "D_DP_EW_TRUNCATE_VALUE", EW_TRUNCATE=c.size(0, 1023 if proc != "fp16" else 0))
    b.choices["EW"] = {"alu": algo if alu else "bypass", "mul": ("prelu" if prelu else "mul") if mul else "bypass",
                       "alu_src": "MEM" if sources["ALU"] else "REG", "mul_src": "MEM" if sources["MUL"] else "REG",
                       "lut": lut.choices["le_function"] if lut_on else "bypass"}
    if lut_on:
        b.fields.update(lut.fields)
        b.put("SDP", "D_PERF_ENABLE", PERF_LUT_EN=1)
        b.lut_writes = list(lut.writes)
    return sources


def _operand_dma(b: _Builder, letter: str, sources: dict, proc: str, shape: tuple, same=None) -> None:
    """The operand DMA of a stage; `same` (the input cube) makes it read exactly the input, element by element."""
    cfg = f"D_{letter}RDMA_CFG"
    if not any(sources.values()):
        b.put("SDP_RDMA", cfg, **{f"{letter}RDMA_DISABLE": 1})
        return
    c = b.choose
    use = "BOTH" if all(sources.values()) else ("ALU" if sources.get("ALU") else "MUL")
    # 16-bit pipelines read two-byte operands only (SDP-xRDMA-FP16-SIZE, SDP-xRDMA-INT16-SIZE)
    stage = SimpleNamespace(alu_active=bool(sources.get("ALU")), alu_src="MEM", mul_active=bool(sources.get("MUL")),
                            mul_src="MEM")
    sizes = [size for size in ("ONE_BYTE", "TWO_BYTE")
             if keeps((f"SDP-{letter}RDMA-FP16-SIZE", f"SDP-{letter}RDMA-INT16-SIZE"), proc_precision=proc,
                      dmas={letter: SimpleNamespace(disable=False, size=size)}, x1=stage, x2=stage, y=stage)]
    size = c.choice(sizes) if len(sizes) > 1 else sizes[0]
    mode = c.choice(("PER_KERNEL", "PER_ELEMENT"))
    if same is not None:
        size, mode = "ONE_BYTE" if proc == "int8" else "TWO_BYTE", "PER_ELEMENT"
    channels, height, width = shape
    atom = aux.bytes_per_atom(proc, use, size, b.atom)
    line, surface = (None, None)
    spatial = (channels,)
    if mode == "PER_ELEMENT":
        spatial = shape
        line = width * atom + atom * c.size(0, 2)
        surface = line * height + atom * c.size(0, 2)
        if width == 1 and height == 1:  # rule SDP-{B,N,E}RDMA-1X1XC-PACKED
            line, surface = atom, atom
    components = aux.COMPONENTS_PER_ELEMENT[use]
    dtype_precision = "fp16" if proc == "fp16" else ("int8" if size == "ONE_BYTE" else "int16")
    values = data.values(b.rng, dtype_precision, (*spatial, components), scale=2.0)
    if same is not None:
        values = same.reshape(*spatial, 1)
    if proc == "fp16":
        values = values.view("<u2")
    memory, base = _place(c, b.profile, b.slot, letter, b.atom)
    packed = aux.pack_aux(values, proc, use, size, mode, line, surface, b.atom)
    b.images.append(Image(memory, base, packed.tobytes(), f"{letter.lower()}rdma"))
    reg = OPERAND_DMA[letter]
    b.put("SDP_RDMA", cfg, **{f"{letter}RDMA_DISABLE": 0, f"{letter}RDMA_DATA_USE": use,
                              f"{letter}RDMA_DATA_SIZE": size, f"{letter}RDMA_DATA_MODE": mode,
                              f"{letter}RDMA_RAM_TYPE": "CV" if memory == "sec_mem" else "MC"})
    b.put("SDP_RDMA", f"D_{reg}_BASE_ADDR_LOW", **{f"{reg}_BASE_ADDR_LOW": base & 0xFFFFFFFF})
    b.put("SDP_RDMA", f"D_{reg}_BASE_ADDR_HIGH", **{f"{reg}_BASE_ADDR_HIGH": base >> 32})
    b.put("SDP_RDMA", f"D_{reg}_LINE_STRIDE", **{f"{reg}_LINE_STRIDE": line or 0})
    b.put("SDP_RDMA", f"D_{reg}_SURFACE_STRIDE", **{f"{reg}_SURFACE_STRIDE": surface or 0})
    b.choices[f"{letter}RDMA"] = {"use": use, "size": size, "mode": mode}


def _convertor(b: _Builder, out: str, identity: bool = False) -> None:
    """The output convertor: identity, random or saturating (identity in EQL mode: Limitation/SDP/General)."""
    c = b.choose
    kind = c.choice(("identity", "random", "saturate")) if out != "fp16" and not identity else "identity"
    offset, scale, shift = 0, 1, 0
    if kind == "random":
        offset = c.integer(-(1 << 12), 1 << 12)
        scale = c.size(-(1 << 15), (1 << 15) - 1)
        shift = c.size(0, 63)
    elif kind == "saturate":
        scale, shift = c.choice((-(1 << 15), (1 << 15) - 1)), 0
    b.put("SDP", "D_CVT_OFFSET", CVT_OFFSET=offset & 0xFFFFFFFF)
    b.put("SDP", "D_CVT_SCALE", CVT_SCALE=scale & 0xFFFF)
    b.put("SDP", "D_CVT_SHIFT", CVT_SHIFT=shift)
    b.choices["cvt"] = kind


def random_layer(choose, profile: Profile, slot: int = 0, max_size: tuple = (32, 20, 72),
                 memory_operands: bool = True, shape: tuple | None = None, to_pdp: str | None = None,
                 lut=None) -> Layer:
    """One legal offline SDP layer for the profile; `max_size` is (width, height, channels).

    Without `memory_operands` every operand comes from a register (the RTL fixture's subset on nv_small).
    `shape` (C, H, W) fixes the cube; `to_pdp` (a precision) sends the output on the fly to PDP in that
    precision, unconverted (Limitation/SDP/DC), and leaves the destination to the PDP layer. `lut` (the trace's
    stimulus.sdp.lut.SdpLut) may be used by a layer of its precision. A layer in EQL (compare) mode writes
    nothing: its D_STATUS is read back (Layer.reads); in some the operand is the input cube itself (equal).
    """
    b = _Builder(choose, profile, slot)
    c, atom = choose, b.atom
    eql = not to_pdp and profile.has("SDP_EW") and c.flag(0.12)
    pairs = precisions(profile)
    if eql:  # no precision conversion in EQL mode (Limitation/SDP/DC)
        pairs = [(i, o) for i, o in pairs if i == o]
    elif lut is not None and c.flag(0.6):
        pairs = [(i, o) for i, o in pairs if i == lut.precision]
    inp, out = (to_pdp, to_pdp) if to_pdp else c.choice(pairs)
    proc = processing(inp, out)
    lut = lut if lut is not None and lut.precision == proc and not to_pdp else None
    same = eql and memory_operands and c.flag(0.4)
    shape = shape or (c.size(1, max(max_size[2], 2 * atom + atom // 2)), c.size(1, max_size[1]),
                      c.size(1, max_size[0]))
    channels, height, width = shape
    b.choices.update(precision=f"{inp}->{out}", shape=shape)
    for unit in ("SDP", "SDP_RDMA"):
        b.put(unit, "D_DATA_CUBE_WIDTH", WIDTH=width - 1)
        b.put(unit, "D_DATA_CUBE_HEIGHT", HEIGHT=height - 1)
        b.put(unit, "D_DATA_CUBE_CHANNEL", CHANNEL=channels - 1)
    b.put("SDP_RDMA", "D_FEATURE_MODE_CFG", FLYING_MODE="OFF", WINOGRAD="OFF", IN_PRECISION=inp.upper(),
          PROC_PRECISION=proc.upper(), OUT_PRECISION=out.upper(), BATCH_NUMBER=0)
    b.put("SDP", "D_FEATURE_MODE_CFG", FLYING_MODE="OFF", OUTPUT_DST="PDP" if to_pdp else "MEM", WINOGRAD="OFF",
          NAN_TO_ZERO=int(proc == "fp16" and c.flag(0.3)), BATCH_NUMBER=0)
    b.put("SDP", "D_DATA_FORMAT", PROC_PRECISION=proc.upper(), OUT_PRECISION=out.upper())
    src_line, src_surface = data.strides(c, shape, atom)
    dst_line, dst_surface = data.strides(c, shape, atom)
    (src_mem, src), (dst_mem, dst) = _place(c, profile, slot, "src", atom), _place(c, profile, slot, "dst", atom)
    b.put("SDP_RDMA", "D_SRC_BASE_ADDR_LOW", SRC_BASE_ADDR_LOW=src & 0xFFFFFFFF)
    b.put("SDP_RDMA", "D_SRC_BASE_ADDR_HIGH", SRC_BASE_ADDR_HIGH=src >> 32)
    b.put("SDP_RDMA", "D_SRC_LINE_STRIDE", SRC_LINE_STRIDE=src_line)
    b.put("SDP_RDMA", "D_SRC_SURFACE_STRIDE", SRC_SURFACE_STRIDE=src_surface)
    b.put("SDP_RDMA", "D_SRC_DMA_CFG", SRC_RAM_TYPE="CV" if src_mem == "sec_mem" else "MC")
    b.put("SDP", "D_DST_BASE_ADDR_LOW", DST_BASE_ADDR_LOW=dst & 0xFFFFFFFF)
    b.put("SDP", "D_DST_BASE_ADDR_HIGH", DST_BASE_ADDR_HIGH=dst >> 32)
    b.put("SDP", "D_DST_LINE_STRIDE", DST_LINE_STRIDE=dst_line)
    b.put("SDP", "D_DST_SURFACE_STRIDE", DST_SURFACE_STRIDE=dst_surface)
    b.put("SDP", "D_DST_DMA_CFG", DST_RAM_TYPE="CV" if dst_mem == "sec_mem" else "MC")
    cube = data.values(b.rng, inp, shape)
    for name, letter, switch in STAGES:
        if not profile.has(switch) or (same and name != "EW"):
            b.put("SDP", f"D_DP_{name}_CFG", **{f"{name}_BYPASS": 1})
            if name == "EW":
                b.put("SDP", "D_DP_EW_CFG", EW_LUT_BYPASS=1)
            b.choices[name] = "absent" if not profile.has(switch) else "bypass"
            sources = {}
        else:
            sources = (_y_stage(b, proc, memory_operands, lut, eql) if name == "EW"
                       else _x_stage(b, name, proc, memory_operands))
        _operand_dma(b, letter, sources, proc, shape, cube if same and name == "EW" else None)
    if same:  # the compared operand passes unchanged: an identity convertor however the pipe treats it
        b.put("SDP", "D_DP_EW_ALU_CVT_OFFSET_VALUE", EW_ALU_CVT_OFFSET=0)
        b.put("SDP", "D_DP_EW_ALU_CVT_SCALE_VALUE", EW_ALU_CVT_SCALE=0x3C00 if proc == "fp16" else 1)
        b.put("SDP", "D_DP_EW_ALU_CVT_TRUNCATE_VALUE", EW_ALU_CVT_TRUNCATE=0)
    # the registry's SDP-EQL-OUTPUT-CVT: does this EQL layer keep a convertor that is not identity?
    _convertor(b, out, identity=not keeps(("SDP-EQL-OUTPUT-CVT",), y=SimpleNamespace(eql=eql), proc_precision=proc,
                                          cvt=SimpleNamespace(offset=1, scale=1, shift=0)))
    b.images.insert(0, Image(src_mem, src, data.surface_bytes(b.rng, cube, inp, src_line, src_surface, atom),
                             "src"))
    if to_pdp:
        return Layer("sdp", b.fields, b.images, [], "SDP", ("SDP", "SDP_RDMA"), b.choices)
    if eql:
        b.choices["eql"] = "same operand" if same else "random operand"
        return Layer("sdp", b.fields, b.images, [], "SDP", ("SDP", "SDP_RDMA"), b.choices, writes=b.lut_writes,
                     reads=[("SDP", "D_STATUS", 1)])
    dst_size = feature_span(shape, out, dst_line, dst_surface, atom)
    b.images.append(Image(dst_mem, dst, b.rng.integers(0, 256, dst_size, dtype="u1").tobytes(), "dst"))
    return Layer("sdp", b.fields, b.images, [Region(dst_mem, dst, dst_size, "dst")], "SDP", ("SDP", "SDP_RDMA"),
                 b.choices, writes=b.lut_writes)
