"""The SDP's limitation rules (programming guide "Limitation/SDP", "SDP programming", Table 30).

Each predicate takes the decoded SdpConfig and the facts (register values, profile); None means the layer
keeps the rule. PReLU with an active ALU is advisory (NVIDIA's own traces program it with a defined result).
"""

from __future__ import annotations

from golden.formats import auxiliary
from golden.formats.feature import element_bytes
from golden.rules import rule

GENERAL = "programming-guide: Limitation/SDP/General"
DC = "programming-guide: Limitation/SDP/DC"
BATCH = "programming-guide: Limitation/SDP/Winograd/Batch"
TABLE30 = "in-memory-data-formats: Table 30 (precision conversion for SDP layer)"
EQL_NOTE = "programming-guide: SDP programming/Compare mode"
FORMAT = "programming-guide: Limitation/Data Format"
USE_RULE = "programming-guide: SDP programming (RDMA DATA_USE of bias / batch normalization / element-wise)"
RDMA_RULE = "programming-guide: SDP programming (SDP_RDMA is programmed with the SDP's cube and precisions)"
BIAS_FORMAT = "in-memory-data-formats: Bias Data Format"
PRECISION_FIELDS = ("SDP_RDMA.D_FEATURE_MODE_CFG.IN_PRECISION", "SDP.D_DATA_FORMAT.PROC_PRECISION",
                    "SDP.D_DATA_FORMAT.OUT_PRECISION")
INVALID_OFFLINE = {("int8", "fp16"), ("fp16", "int8")}
#: (SDP_RDMA field, SDP field, SdpConfig attribute, rdma dict key)
MIRROR = (("D_DATA_CUBE_WIDTH.WIDTH", "D_DATA_CUBE_WIDTH.WIDTH", "width"),
          ("D_DATA_CUBE_HEIGHT.HEIGHT", "D_DATA_CUBE_HEIGHT.HEIGHT", "height"),
          ("D_DATA_CUBE_CHANNEL.CHANNEL", "D_DATA_CUBE_CHANNEL.CHANNEL", "channel"),
          ("D_FEATURE_MODE_CFG.FLYING_MODE", "D_FEATURE_MODE_CFG.FLYING_MODE", "flying"),
          ("D_FEATURE_MODE_CFG.PROC_PRECISION", "D_DATA_FORMAT.PROC_PRECISION", "proc_precision"),
          ("D_FEATURE_MODE_CFG.OUT_PRECISION", "D_DATA_FORMAT.OUT_PRECISION", "out_precision"))
STAGES = (("x1", "B", "BS"), ("x2", "N", "BN"), ("y", "E", "EW"))


@rule("SDP-PRECISION-CONVERSION", "SDP", TABLE30, PRECISION_FIELDS,
      "int8 input with fp16 output and fp16 input with int8 output are invalid cases")
def _conversion(cfg, facts):
    pipe_in = cfg.proc_precision if cfg.flying else cfg.in_precision
    if (pipe_in, cfg.out_precision) in INVALID_OFFLINE:
        return f"{pipe_in} input with {cfg.out_precision} output is an invalid case"


@rule("SDP-INPUT-PROCESSING", "SDP", TABLE30, PRECISION_FIELDS,
      "offline, an fp16 input is processed as fp16 and an integer input as an integer")
def _input_processing(cfg, facts):
    if not cfg.flying and (cfg.in_precision == "fp16") != (cfg.proc_precision == "fp16"):
        return f"{cfg.in_precision} input cannot be processed as {cfg.proc_precision}"


@rule("SDP-INT16-TO-INT8", "SDP", f"{TABLE30} and nvdlav1 RTL NV_NVDLA_SDP_MRDMA_EG_cmd.v (cfg_mode_16to8)",
      PRECISION_FIELDS, "offline, int16 input to int8 output is programmed with PROC_PRECISION INT8")
def _int16_to_int8(cfg, facts):
    # The RTL's read DMA packs int16 input for an int8 output only in its 16-to-8 mode, IN_PRECISION INT16 with
    # PROC_PRECISION INT8 (NVIDIA's C model likewise); with PROC_PRECISION INT16 its output disagrees with the
    # documents' arithmetic (nvdlav1 C model against this model: every such generated layer)
    if not cfg.flying and cfg.in_precision == "int16" and cfg.out_precision == "int8" and cfg.proc_precision != "int8":
        return f"int16 input to int8 output is processed as int8 (PROC_PRECISION INT8), not {cfg.proc_precision}"


@rule("SDP-WINOGRAD-MEMORY-OUTPUT", "SDP", "programming-guide: Limitation/SDP/Winograd/Batch and nvdlav1 C model "
      "NV_NVDLA_sdp.cpp SdpWdmaThread assertion", ("SDP.D_FEATURE_MODE_CFG.OUTPUT_DST",),
      "a Winograd layer's SDP writes its output to memory (never on the fly to PDP)")
def _winograd_memory_output(cfg, facts):
    # CACC delivers Winograd outputs in 2x2 tiles; only SDP's write DMA puts them back in line order
    # (vmod NV_NVDLA_SDP_WDMA_DAT_in.v cfg_mode_winograd), and the C model asserts OUTPUT_DST == MEM
    if cfg.winograd and cfg.output_pdp:
        return "a Winograd layer's SDP output goes to memory, not on the fly to PDP (OUTPUT_DST=PDP)"


@rule("SDP-NO-CONVERSION-TO-PDP-OR-EQL", "SDP", DC, PRECISION_FIELDS[1:] + ("SDP.D_FEATURE_MODE_CFG.OUTPUT_DST",),
      "no precision conversion when SDP outputs to PDP or in EQL mode")
def _no_conversion(cfg, facts):
    if (cfg.output_pdp or cfg.y.eql) and cfg.proc_precision != cfg.out_precision:
        return "precision conversion is not allowed when SDP outputs to PDP or in EQL mode"


def _rdma_runs(cfg) -> bool:
    """SDP_RDMA runs for offline input or an operand read (on-the-fly layers may leave it alone)."""
    return not cfg.flying or not all(dma.disable for dma in cfg.dmas.values())


def _mirror_rule(rdma_field: str, sdp_field: str, key: str) -> None:
    @rule(f"SDP-RDMA-{key.upper().replace('_', '-')}", "SDP", RDMA_RULE,
          (f"SDP_RDMA.{rdma_field}", f"SDP.{sdp_field}"), f"SDP_RDMA's {key} is the SDP's")
    def check(cfg, facts):
        value = getattr(cfg, key)
        if _rdma_runs(cfg) and cfg.rdma[key] != value:
            return f"SDP_RDMA {key} {cfg.rdma[key]} differs from the SDP's {value}"


for _rdma_field, _sdp_field, _key in MIRROR:
    _mirror_rule(_rdma_field, _sdp_field, _key)


def _memory_users(stage) -> tuple[bool, bool]:
    return stage.alu_active and stage.alu_src == "MEM", stage.mul_active and stage.mul_src == "MEM"


def _operand_rules(attr: str, letter: str, name: str) -> None:
    cfg_field = f"SDP_RDMA.D_{letter}RDMA_CFG"

    @rule(f"SDP-{letter}RDMA-UNUSED", "SDP", GENERAL, (f"{cfg_field}.{letter}RDMA_DISABLE",),
          f"{letter}RDMA is disabled unless a {name} operand comes from memory")
    def unused(cfg, facts):
        if not any(_memory_users(getattr(cfg, attr))) and not cfg.dmas[letter].disable:
            return f"{letter}RDMA is enabled but no {name} operand comes from memory (SRC=REG or bypassed)"

    @rule(f"SDP-{letter}RDMA-NEEDED", "SDP", USE_RULE, (f"{cfg_field}.{letter}RDMA_DISABLE",),
          f"{letter}RDMA is enabled when a {name} operand comes from memory")
    def needed(cfg, facts):
        if any(_memory_users(getattr(cfg, attr))) and cfg.dmas[letter].disable:
            return f"{name} reads an operand from memory but {letter}RDMA is disabled"

    @rule(f"SDP-{letter}RDMA-DATA-USE", "SDP", USE_RULE, (f"{cfg_field}.{letter}RDMA_DATA_USE",),
          f"{letter}RDMA DATA_USE names the {name} operands read from memory (ALU, MUL or BOTH)")
    def data_use(cfg, facts):
        alu, mul = _memory_users(getattr(cfg, attr))
        dma = cfg.dmas[letter]
        expected = "BOTH" if alu and mul else ("ALU" if alu else "MUL")
        if (alu or mul) and not dma.disable and dma.use != expected:
            return f"{letter}RDMA DATA_USE is {dma.use} but the {name} operands from memory need {expected}"

    @rule(f"SDP-{letter}RDMA-FP16-SIZE", "SDP", BIAS_FORMAT, (f"{cfg_field}.{letter}RDMA_DATA_SIZE",),
          "FP16 operands are two bytes")
    def fp16_size(cfg, facts):
        dma = cfg.dmas[letter]
        if any(_memory_users(getattr(cfg, attr))) and not dma.disable and cfg.proc_precision == "fp16" \
                and dma.size != "TWO_BYTE":
            return "FP16 operands are two bytes"

    @rule(f"SDP-{letter}RDMA-INT16-SIZE", "SDP", f"{BIAS_FORMAT} and nvdlav1 RTL NV_NVDLA_SDP_{letter}RDMA_ig.v",
          (f"{cfg_field}.{letter}RDMA_DATA_SIZE",), "INT16 operands are two bytes")
    def int16_size(cfg, facts):
        # The read DMA sizes a one-byte operand of a 16-bit pipeline as "illegal" (vmod/nvdla/sdp
        # NV_NVDLA_SDP_{B,N,E}RDMA_ig.v, size_of_straight), and NVIDIA's C model asserts DATA_SIZE TWO_BYTE
        # (cmod/sdp/NV_NVDLA_sdp.cpp:415, 418) or hangs (nv_full campaign: 29 asserts, 10 hangs in 3,146 layers)
        dma = cfg.dmas[letter]
        if any(_memory_users(getattr(cfg, attr))) and not dma.disable and cfg.proc_precision == "int16" \
                and dma.size != "TWO_BYTE":
            return "INT16 operands are two bytes (a one-byte operand of a 16-bit pipeline is illegal)"


for _attr, _letter, _name in STAGES:
    _operand_rules(_attr, _letter, _name)


def _x_rules(attr: str, name: str) -> None:
    @rule(f"SDP-{name}-NO-EQL", "SDP", "register map: D_DP_BS_CFG/D_DP_BN_CFG ALU_ALGO enum",
          (f"SDP.D_DP_{name}_CFG.{name}_ALU_ALGO",), f"{name}_ALU_ALGO is MAX, MIN or SUM (EQL exists only in Y)")
    def no_eql(cfg, facts):
        stage = getattr(cfg, attr)
        if stage.alu_active and stage.alu_algo == "EQL":
            return f"{name}_ALU_ALGO=3 (EQL) exists only in Y"


for _attr, _, _name in STAGES[:2]:
    _x_rules(_attr, _name)


def _prelu_rule(attr: str, name: str) -> None:
    @rule(f"SDP-{name}-PRELU-ALU", "SDP", GENERAL,
          (f"SDP.D_DP_{name}_CFG.{name}_MUL_PRELU", f"SDP.D_DP_{name}_CFG.{name}_ALU_BYPASS"),
          f"PReLU in {name} needs its ALU bypassed (advisory: NVIDIA's nv_small/sdp_3x3x33_bn_int8_reg_2 programs "
          "PReLU after a MIN ALU and its CRC matches PReLU on the ALU result)", advisory=True)
    def prelu(cfg, facts):
        stage = getattr(cfg, attr)
        if stage.mul_active and stage.mul_prelu and not stage.alu_bypass:
            return f"PReLU in {name} needs its ALU bypassed"


for _attr, _, _name in STAGES:
    _prelu_rule(_attr, _name)


def _fp16_cvt_rule(which: str) -> None:
    @rule(f"SDP-EW-FP16-{which}-CVT", "SDP", GENERAL, (f"SDP.D_DP_EW_{which}_CFG.EW_{which}_CVT_BYPASS",),
          f"FP16 EW {which} operands from memory go through the operand convertor")
    def fp16_cvt(cfg, facts):
        y = cfg.y
        active = y.alu_active if which == "ALU" else y.mul_active
        src = y.alu_src if which == "ALU" else y.mul_src
        bypass = y.alu_cvt_bypass if which == "ALU" else y.mul_cvt_bypass
        if cfg.proc_precision == "fp16" and active and src == "MEM" and bypass:
            return f"FP16 EW {which} operands from memory need EW_{which}_CVT_BYPASS=NO"


for _which in ("ALU", "MUL"):
    _fp16_cvt_rule(_which)


@rule("SDP-EQL-ALU-CVT", "SDP", GENERAL, ("SDP.D_DP_EW_ALU_CFG.EW_ALU_CVT_BYPASS",),
      "EQL mode (integer, operand from memory) needs the Y ALU convertor bypassed")
def _eql_cvt(cfg, facts):
    y = cfg.y
    if y.eql and cfg.proc_precision != "fp16" and not y.alu_cvt_bypass and y.alu_src == "MEM":
        return "EQL mode needs the Y ALU convertor bypassed"


@rule("SDP-EQL-LUT", "SDP", GENERAL, ("SDP.D_DP_EW_CFG.EW_LUT_BYPASS",),
      "EQL mode needs every operation after the ALU bypassed (the LUT)")
def _eql_lut(cfg, facts):
    if cfg.y.eql and not cfg.y.lut_bypass:
        return "EQL mode needs every operation after the ALU bypassed (LUT)"


@rule("SDP-EQL-OUTPUT-CVT", "SDP", GENERAL,
      ("SDP.D_CVT_OFFSET.CVT_OFFSET", "SDP.D_CVT_SCALE.CVT_SCALE", "SDP.D_CVT_SHIFT.CVT_SHIFT"),
      "EQL mode (integer) needs the output convertor to be identity")
def _eql_output(cfg, facts):
    if cfg.y.eql and (cfg.cvt.offset, cfg.cvt.scale, cfg.cvt.shift) != (0, 1, 0) and cfg.proc_precision != "fp16":
        return "EQL mode needs the output convertor to be identity (offset 0, scale 1, shift 0)"


@rule("SDP-EQL-NO-WINOGRAD-BATCH", "SDP", EQL_NOTE,
      ("SDP.D_FEATURE_MODE_CFG.WINOGRAD", "SDP.D_FEATURE_MODE_CFG.BATCH_NUMBER"),
      "EQL mode needs WINOGRAD off and one batch")
def _eql_batch(cfg, facts):
    if cfg.y.eql and (cfg.winograd or cfg.batch > 1):
        return "EQL mode needs WINOGRAD off and BATCH_NUMBER 0"


@rule("SDP-BATCH-ON-THE-FLY", "SDP", BATCH,
      ("SDP.D_FEATURE_MODE_CFG.FLYING_MODE", "SDP.D_FEATURE_MODE_CFG.BATCH_NUMBER"),
      "multi-batch SDP works on the fly with the convolution pipeline only")
def _batch_flying(cfg, facts):
    if cfg.batch > 1 and not cfg.flying:
        return "multi-batch SDP works on the fly with the convolution pipeline only"


@rule("SDP-BATCH-ALIGNMENT", "SDP", BATCH,
      ("SDP.D_DST_BASE_ADDR_LOW.DST_BASE_ADDR_LOW", "SDP.D_DST_LINE_STRIDE.DST_LINE_STRIDE",
       "SDP.D_DST_SURFACE_STRIDE.DST_SURFACE_STRIDE", "SDP_RDMA.D_BS_BASE_ADDR_LOW.BS_BASE_ADDR_LOW",
       "SDP_RDMA.D_BN_BASE_ADDR_LOW.BN_BASE_ADDR_LOW", "SDP_RDMA.D_EW_BASE_ADDR_LOW.EW_BASE_ADDR_LOW"),
      "in multi-batch mode the destination and the operand surfaces are 64-byte aligned")
def _batch_alignment(cfg, facts):
    if cfg.batch == 1 or not cfg.flying:
        return None
    values = [("SDP.D_DST_BASE_ADDR_LOW", cfg.dst.base), ("SDP.D_DST_LINE_STRIDE", cfg.dst.line_stride),
              ("SDP.D_DST_SURFACE_STRIDE", cfg.dst.surface_stride)]
    values += [(f"SDP_RDMA.D_{n}_BASE_ADDR_LOW", cfg.dmas[letter].base)
               for _, letter, n in STAGES if not cfg.dmas[letter].disable]
    for name, value in values:
        if value % 64:
            return f"{name} 0x{value:x} is not 64-byte aligned in multi-batch mode"


def layout_surfaces(cfg) -> list:
    """(register prefix, surface, precision) of the feature surfaces the layer reads or writes."""
    surfaces = [("SDP.D_DST", cfg.dst, cfg.out_precision)] if not cfg.output_pdp and not cfg.y.eql else []
    if not cfg.flying:
        surfaces.append(("SDP_RDMA.D_SRC", cfg.src, cfg.in_precision))
    return surfaces


def _layout_rules(prefix: str, which: str) -> None:
    line_field = f"{prefix}_LINE_STRIDE.{which}_LINE_STRIDE"
    surface_field = f"{prefix}_SURFACE_STRIDE.{which}_SURFACE_STRIDE"

    def surface(cfg):
        found = [(s, p) for name, s, p in layout_surfaces(cfg) if name == prefix]
        return found[0] if found else (None, None)

    @rule(f"SDP-{which}-LINE-STRIDE", "SDP", FORMAT, (line_field,),
          f"the {which.lower()} line stride holds one line of atoms")
    def line_stride(cfg, facts):
        surf, _ = surface(cfg)
        if surf is None:
            return None
        atom = facts.atom
        if cfg.height > 1 and surf.line_stride < cfg.width * atom:
            return f"{prefix}_LINE_STRIDE {surf.line_stride} is smaller than one line ({cfg.width * atom} bytes)"

    @rule(f"SDP-{which}-1X1XC-PACKED", "SDP", FORMAT, (line_field, surface_field),
          f"a 1x1xC {which.lower()} cube of more than one atom is line and surface packed")
    def packed(cfg, facts):
        surf, precision = surface(cfg)
        if surf is None:
            return None
        atom = facts.atom
        per_atom = atom // element_bytes(precision)
        if cfg.width == 1 and cfg.height == 1 and cfg.channel > per_atom \
                and (surf.line_stride, surf.surface_stride) != (atom, atom):
            return "a 1x1xC cube must be line packed and surface packed"


for _prefix, _which in (("SDP.D_DST", "DST"), ("SDP_RDMA.D_SRC", "SRC")):
    _layout_rules(_prefix, _which)


# "For 1x1xC cube, it should always be line_packed and surf_packed" holds for the per-element operands too: the
# nv_small RTL's operand DMA (vmod/nvdla/sdp/NV_NVDLA_SDP_RDMA_ig.v, shared by BRDMA/NRDMA/ERDMA) reads a 1x1
# cube (cfg_mode_1x1_pack = width==0 & height==0) as one straight request from the base address and never adds
# the surface stride, so an unpacked 1x1xC operand reads other bytes on the RTL than the strides describe.
def _operand_packed_rule(attr: str, letter: str, name: str) -> None:
    line_field = f"SDP_RDMA.D_{name}_LINE_STRIDE.{name}_LINE_STRIDE"
    surface_field = f"SDP_RDMA.D_{name}_SURFACE_STRIDE.{name}_SURFACE_STRIDE"

    @rule(f"SDP-{letter}RDMA-1X1XC-PACKED", "SDP", FORMAT,
          (f"SDP_RDMA.D_{letter}RDMA_CFG.{letter}RDMA_DATA_MODE", line_field, surface_field),
          f"a per-element {name} operand of a 1x1xC cube of more than one atom is line and surface packed")
    def packed(cfg, facts):
        dma = cfg.dmas[letter]
        if dma.disable or dma.mode != "PER_ELEMENT" or not any(_memory_users(getattr(cfg, attr))):
            return None
        if cfg.width != 1 or cfg.height != 1 or cfg.channel <= auxiliary.element_per_atom(cfg.proc_precision,
                                                                                          facts.atom):
            return None
        packed_bytes = auxiliary.bytes_per_atom(cfg.proc_precision, dma.use, dma.size, facts.atom)
        if (dma.line_stride, dma.surface_stride) != (packed_bytes, packed_bytes):
            return (f"a 1x1xC per-element {name} operand must be line and surface packed: strides "
                    f"{dma.line_stride}/{dma.surface_stride}, one operand atom is {packed_bytes} bytes")


for _attr, _letter, _name in STAGES:
    _operand_packed_rule(_attr, _letter, _name)
