"""Programming checks run before an SDP layer: profile features, Table 30, and the guide's limitations."""

from __future__ import annotations

import warnings

from golden.errors import ConfigurationError, NotModelledError
from golden.units import lut
from golden.units.dma import check_feature_dma
from golden.units.sdp.config import SdpConfig

GENERAL = "programming-guide: Limitation/SDP/General"
DC = "programming-guide: Limitation/SDP/DC"
BATCH = "programming-guide: Limitation/SDP/Winograd/Batch"
TABLE30 = "in-memory-data-formats: Table 30 (precision conversion for SDP layer)"
EQL_NOTE = "programming-guide: SDP programming/Compare mode"
FORMAT = "programming-guide: Limitation/Data Format"
USE_RULE = "programming-guide: SDP programming (RDMA DATA_USE of bias / batch normalization / element-wise)"
RDMA_RULE = "programming-guide: SDP programming (SDP_RDMA is programmed with the SDP's cube and precisions)"

_INVALID_OFFLINE = {("int8", "fp16"), ("fp16", "int8")}


class LimitationWarning(UserWarning):
    """A documented limitation that NVIDIA's own traces break with a defined, modelled result."""


def _fail(message, fields, rule):
    raise ConfigurationError(message, fields=tuple(fields), rule=rule)


def _advise(message, fields, rule, strict):
    """Raise in strict mode (stimulus legality); otherwise warn and compute the defined result."""
    if strict:
        _fail(message, fields, rule)
    warnings.warn(f"{', '.join(fields)}: {message} [rule: {rule}]", LimitationWarning, stacklevel=3)


def check_profile(cfg: SdpConfig, profile) -> None:
    what = "this SDP layer"
    for precision, field in ((cfg.proc_precision, "SDP.D_DATA_FORMAT.PROC_PRECISION"),
                             (cfg.out_precision, "SDP.D_DATA_FORMAT.OUT_PRECISION")):
        profile.require_precision(precision, what, fields=(field,))
    if not cfg.flying:
        profile.require_precision(cfg.in_precision, what, fields=("SDP_RDMA.D_FEATURE_MODE_CFG.IN_PRECISION",))
    stages = (("SDP_BS", not cfg.x1.bypass, "SDP.D_DP_BS_CFG.BS_BYPASS", "X1 (BS)"),
              ("SDP_BN", not cfg.x2.bypass, "SDP.D_DP_BN_CFG.BN_BYPASS", "X2 (BN)"),
              ("SDP_EW", not cfg.y.bypass, "SDP.D_DP_EW_CFG.EW_BYPASS", "Y (EW)"),
              ("SDP_LUT", cfg.y.lut_active, "SDP.D_DP_EW_CFG.EW_LUT_BYPASS", "the Y LUT"))
    for switch, used, field, name in stages:
        if used:
            profile.require(switch, f"this SDP layer uses {name}", fields=(field,))
    if cfg.batch > 1:
        profile.require("BATCH", "this SDP layer is multi-batch", fields=("SDP.D_FEATURE_MODE_CFG.BATCH_NUMBER",))
        if profile.max_batch_size and cfg.batch > profile.max_batch_size:
            _fail(f"{cfg.batch} batches exceed the profile's MAX_BATCH_SIZE {profile.max_batch_size}",
                  ("SDP.D_FEATURE_MODE_CFG.BATCH_NUMBER",), BATCH)
    if cfg.winograd:
        profile.require("WINOGRAD", "this SDP layer is Winograd", fields=("SDP.D_FEATURE_MODE_CFG.WINOGRAD",))
        raise NotModelledError("SDP Winograd output (on the fly from CACC) is not modelled", unit="SDP")


def check_precisions(cfg: SdpConfig) -> None:
    fields = ("SDP_RDMA.D_FEATURE_MODE_CFG.IN_PRECISION", "SDP.D_DATA_FORMAT.PROC_PRECISION",
              "SDP.D_DATA_FORMAT.OUT_PRECISION")
    pipe_in = cfg.proc_precision if cfg.flying else cfg.in_precision
    if (pipe_in, cfg.out_precision) in _INVALID_OFFLINE:
        _fail(f"{pipe_in} input with {cfg.out_precision} output is an invalid case", fields, TABLE30)
    if not cfg.flying and (cfg.in_precision == "fp16") != (cfg.proc_precision == "fp16"):
        _fail(f"{cfg.in_precision} input cannot be processed as {cfg.proc_precision}", fields, TABLE30)
    if (cfg.output_pdp or cfg.y.eql) and cfg.proc_precision != cfg.out_precision:
        _fail("precision conversion is not allowed when SDP outputs to PDP or in EQL mode",
              fields[1:] + ("SDP.D_FEATURE_MODE_CFG.OUTPUT_DST",), DC)


def check_rdma_mirror(cfg: SdpConfig) -> None:
    """Only when SDP_RDMA runs: offline input, or an operand read (on-the-fly layers may leave it alone)."""
    if cfg.flying and all(dma.disable for dma in cfg.dmas.values()):
        return
    mirror = cfg.rdma
    pairs = (("width", cfg.width, "D_DATA_CUBE_WIDTH.WIDTH"), ("height", cfg.height, "D_DATA_CUBE_HEIGHT.HEIGHT"),
             ("channel", cfg.channel, "D_DATA_CUBE_CHANNEL.CHANNEL"),
             ("flying", cfg.flying, "D_FEATURE_MODE_CFG.FLYING_MODE"),
             ("proc_precision", cfg.proc_precision, "D_FEATURE_MODE_CFG.PROC_PRECISION"),
             ("out_precision", cfg.out_precision, "D_FEATURE_MODE_CFG.OUT_PRECISION"))
    for key, value, field in pairs:
        if mirror[key] != value:
            sdp_field = field.replace("D_FEATURE_MODE_CFG.PROC", "D_DATA_FORMAT.PROC") \
                .replace("D_FEATURE_MODE_CFG.OUT", "D_DATA_FORMAT.OUT")
            _fail(f"SDP_RDMA {key} {mirror[key]} differs from the SDP's {value}",
                  (f"SDP_RDMA.{field}", f"SDP.{sdp_field}"), RDMA_RULE)


def _stage_users(stage) -> tuple[bool, bool]:
    return stage.alu_active and stage.alu_src == "MEM", stage.mul_active and stage.mul_src == "MEM"


def check_operand_dmas(cfg: SdpConfig) -> None:
    for stage, letter in ((cfg.x1, "B"), (cfg.x2, "N"), (cfg.y, "E")):
        dma = cfg.dmas[letter]
        alu, mul = _stage_users(stage)
        cfg_field = f"SDP_RDMA.D_{letter}RDMA_CFG"
        if not (alu or mul):
            if not dma.disable:
                _fail(f"{letter}RDMA is enabled but no {stage.name} operand comes from memory (SRC=REG or "
                      f"bypassed)", (f"{cfg_field}.{letter}RDMA_DISABLE",), GENERAL)
            continue
        if dma.disable:
            _fail(f"{stage.name} reads an operand from memory but {letter}RDMA is disabled",
                  (f"{cfg_field}.{letter}RDMA_DISABLE",), USE_RULE)
        expected = "BOTH" if alu and mul else ("ALU" if alu else "MUL")
        if dma.use != expected:
            _fail(f"{letter}RDMA DATA_USE is {dma.use} but the {stage.name} operands from memory need {expected}",
                  (f"{cfg_field}.{letter}RDMA_DATA_USE",), USE_RULE)
        if cfg.proc_precision == "fp16" and dma.size != "TWO_BYTE":
            _fail("FP16 operands are two bytes", (f"{cfg_field}.{letter}RDMA_DATA_SIZE",),
                  "in-memory-data-formats: Bias Data Format")


def check_stages(cfg: SdpConfig, strict: bool) -> None:
    for stage in (cfg.x1, cfg.x2):
        if stage.alu_active and stage.alu_algo == "EQL":
            _fail(f"{stage.name}_ALU_ALGO=3 (EQL) exists only in Y",
                  (f"SDP.D_DP_{stage.name}_CFG.{stage.name}_ALU_ALGO",),
                  "register map: D_DP_BS_CFG/D_DP_BN_CFG ALU_ALGO enum")
    for stage in (cfg.x1, cfg.x2, cfg.y):
        if stage.mul_active and stage.mul_prelu and not stage.alu_bypass:
            # Advisory: NVIDIA's own trace nv_small/sdp_3x3x33_bn_int8_reg_2 programs PReLU after a
            # MIN ALU and its CRC matches the datapath (PReLU on the ALU result), so the result is defined.
            _advise(f"PReLU in {stage.name} needs its ALU bypassed",
                    (f"SDP.D_DP_{stage.name}_CFG.{stage.name}_MUL_PRELU",
                     f"SDP.D_DP_{stage.name}_CFG.{stage.name}_ALU_BYPASS"), GENERAL, strict)
    y = cfg.y
    if cfg.proc_precision == "fp16":
        for active, src, bypass, which in ((y.alu_active, y.alu_src, y.alu_cvt_bypass, "ALU"),
                                           (y.mul_active, y.mul_src, y.mul_cvt_bypass, "MUL")):
            if active and src == "MEM" and bypass:
                _fail(f"FP16 EW {which} operands from memory need EW_{which}_CVT_BYPASS=NO",
                      (f"SDP.D_DP_EW_{which}_CFG.EW_{which}_CVT_BYPASS",), GENERAL)
    if y.eql:
        check_eql(cfg)


def check_eql(cfg: SdpConfig) -> None:
    y = cfg.y
    if cfg.proc_precision != "fp16" and not y.alu_cvt_bypass and y.alu_src == "MEM":
        _fail("EQL mode needs the Y ALU convertor bypassed", ("SDP.D_DP_EW_ALU_CFG.EW_ALU_CVT_BYPASS",), GENERAL)
    if not y.lut_bypass:
        _fail("EQL mode needs every operation after the ALU bypassed (LUT)", ("SDP.D_DP_EW_CFG.EW_LUT_BYPASS",),
              GENERAL)
    if (cfg.cvt.offset, cfg.cvt.scale, cfg.cvt.shift) != (0, 1, 0) and cfg.proc_precision != "fp16":
        _fail("EQL mode needs the output convertor to be identity (offset 0, scale 1, shift 0)",
              ("SDP.D_CVT_OFFSET.CVT_OFFSET", "SDP.D_CVT_SCALE.CVT_SCALE", "SDP.D_CVT_SHIFT.CVT_SHIFT"), GENERAL)
    if cfg.winograd or cfg.batch > 1:
        _fail("EQL mode needs WINOGRAD off and BATCH_NUMBER 0",
              ("SDP.D_FEATURE_MODE_CFG.WINOGRAD", "SDP.D_FEATURE_MODE_CFG.BATCH_NUMBER"), EQL_NOTE)


def check_batch(cfg: SdpConfig) -> None:
    if cfg.batch == 1:
        return
    if not cfg.flying:
        _fail("multi-batch SDP works on the fly with the convolution pipeline only",
              ("SDP.D_FEATURE_MODE_CFG.FLYING_MODE", "SDP.D_FEATURE_MODE_CFG.BATCH_NUMBER"), BATCH)
    regs = [("SDP.D_DST_BASE_ADDR_LOW", cfg.dst.base), ("SDP.D_DST_LINE_STRIDE", cfg.dst.line_stride),
            ("SDP.D_DST_SURFACE_STRIDE", cfg.dst.surface_stride)]
    regs += [(f"SDP_RDMA.D_{n}_BASE_ADDR_LOW", cfg.dmas[letter].base)
             for letter, n in (("B", "BS"), ("N", "BN"), ("E", "EW")) if not cfg.dmas[letter].disable]
    for name, value in regs:
        if value % 64:
            _fail(f"{name} 0x{value:x} is not 64-byte aligned in multi-batch mode", (name,), BATCH)


def check_layout(cfg: SdpConfig, atom: int) -> None:
    surfaces = [("SDP.D_DST", cfg.dst, cfg.out_precision)] if not cfg.output_pdp and not cfg.y.eql else []
    if not cfg.flying:
        surfaces.append(("SDP_RDMA.D_SRC", cfg.src, cfg.in_precision))
    for prefix, surf, precision in surfaces:
        check_feature_dma(f"{prefix}_", atom, surf.base, surf.line_stride, surf.surface_stride)
        if cfg.height > 1 and surf.line_stride < cfg.width * atom:
            _fail(f"{prefix}_LINE_STRIDE {surf.line_stride} is smaller than one line ({cfg.width * atom} bytes)",
                  (f"{prefix}_LINE_STRIDE",), FORMAT)
        per_atom = atom // (1 if precision == "int8" else 2)
        if cfg.width == 1 and cfg.height == 1 and cfg.channel > per_atom \
                and (surf.line_stride, surf.surface_stride) != (atom, atom):
            _fail("a 1x1xC cube must be line packed and surface packed",
                  (f"{prefix}_LINE_STRIDE", f"{prefix}_SURFACE_STRIDE"), FORMAT)


def check_lut(cfg: SdpConfig) -> None:
    if cfg.y.lut_active:
        lut.check_limits(cfg.lut, cfg.proc_precision, "SDP")


def validate(cfg: SdpConfig, profile, strict: bool = False) -> None:
    """Raise ProfileFeatureError / ConfigurationError / NotModelledError for an invalid or unmodelled layer.

    Advisory rules (LimitationWarning) raise too when `strict` (what a stimulus generator should use).
    """
    check_profile(cfg, profile)
    check_precisions(cfg)
    check_rdma_mirror(cfg)
    check_operand_dmas(cfg)
    check_stages(cfg, strict)
    check_batch(cfg)
    check_layout(cfg, profile.memory_atomic_size)
    check_lut(cfg)
