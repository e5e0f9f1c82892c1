"""PDP register decoding and the programming guide's PDP limitations.

Registers count from zero (a field value v means v + 1) for sizes, kernels and strides. The input
surface comes from PDP_RDMA (address, strides, RAM type) in offline mode; the PDP's own
D_SRC_* registers are not used by the datapath (NVIDIA's traces leave them 0).
"""

from __future__ import annotations

from dataclasses import dataclass

from golden.errors import ConfigurationError
from golden.regs.values import RegisterValues

RULE = "programming-guide: Limitation/PDP"
FORMAT_RULE = "in-memory-data-formats: Table 32 (precision conversion for pooling layer)"
METHODS = {"POOLING_METHOD_AVERAGE": "average", "POOLING_METHOD_MAX": "max", "POOLING_METHOD_MIN": "min"}
#: Sign bit index + 1 of PAD_VALUE_1X..7X per precision: the cmod sign-extends 8,9,10,10,11,11,11 bits
#: for int8 and 16,17,18,18,19,19,19 for int16 (n x pad value needs log2(n) more bits).
PAD_VALUE_BITS = {"int8": (8, 9, 10, 10, 11, 11, 11), "int16": (16, 17, 18, 18, 19, 19, 19)}


@dataclass(frozen=True)
class Split:
    """One split-width pass: the input columns it consumes and the output columns it produces."""
    in_first: int
    in_mid: int
    in_last: int
    out_first: int
    out_mid: int
    out_last: int
    count: int


@dataclass(frozen=True)
class PdpConfig:
    precision: str
    method: str
    on_the_fly: bool
    channels: int
    in_height: int
    in_width: int
    out_height: int
    out_width: int
    kernel: tuple[int, int]  # (width, height)
    stride: tuple[int, int]  # (width, height)
    pads: tuple[int, int, int, int]  # (left, top, right, bottom)
    pad_values: tuple[int, ...]  # PAD_VALUE_1X..7X raw field values
    recip: tuple[int, int]  # (RECIP_KERNEL_WIDTH, RECIP_KERNEL_HEIGHT) raw field values
    nan_to_zero: bool
    split: Split | None
    src: tuple[int, int, int, bool]  # (address, line stride, surface stride, in CV-SRAM)
    dst: tuple[int, int, int, bool]


def _field(regs: RegisterValues, unit: str, reg: str, name: str) -> int:
    return regs.field(unit, reg, name)


def _split(regs: RegisterValues, count: int) -> Split | None:
    if count == 0:
        return None
    def part(reg, name):
        return _field(regs, "PDP", reg, name) + 1
    return Split(part("D_PARTIAL_WIDTH_IN", "PARTIAL_WIDTH_IN_FIRST"),
                 part("D_PARTIAL_WIDTH_IN", "PARTIAL_WIDTH_IN_MID"),
                 part("D_PARTIAL_WIDTH_IN", "PARTIAL_WIDTH_IN_LAST"),
                 part("D_PARTIAL_WIDTH_OUT", "PARTIAL_WIDTH_OUT_FIRST"),
                 part("D_PARTIAL_WIDTH_OUT", "PARTIAL_WIDTH_OUT_MID"),
                 part("D_PARTIAL_WIDTH_OUT", "PARTIAL_WIDTH_OUT_LAST"),
                 count + 1)


def decode(regs: RegisterValues) -> PdpConfig:
    """The PDP layer the registers describe (no checks; see validate)."""
    def pdp(reg, name):
        return _field(regs, "PDP", reg, name)
    on_the_fly = regs.enum("PDP", "D_OPERATION_MODE_CFG", "FLYING_MODE") == "ON_FLYING"
    src_unit = "PDP_RDMA"
    src = (regs.address(src_unit, "D_SRC_BASE_ADDR_HIGH", "D_SRC_BASE_ADDR_LOW"),
           _field(regs, src_unit, "D_SRC_LINE_STRIDE", "SRC_LINE_STRIDE"),
           _field(regs, src_unit, "D_SRC_SURFACE_STRIDE", "SRC_SURFACE_STRIDE"),
           regs.enum(src_unit, "D_SRC_RAM_CFG", "SRC_RAM_TYPE") == "CV")
    dst = (regs.address("PDP", "D_DST_BASE_ADDR_HIGH", "D_DST_BASE_ADDR_LOW"),
           pdp("D_DST_LINE_STRIDE", "DST_LINE_STRIDE"), pdp("D_DST_SURFACE_STRIDE", "DST_SURFACE_STRIDE"),
           regs.enum("PDP", "D_DST_RAM_CFG", "DST_RAM_TYPE") == "CV")
    return PdpConfig(
        precision=regs.enum("PDP", "D_DATA_FORMAT", "INPUT_DATA").lower(),
        method=METHODS[regs.enum("PDP", "D_OPERATION_MODE_CFG", "POOLING_METHOD")],
        on_the_fly=on_the_fly,
        channels=pdp("D_DATA_CUBE_IN_CHANNEL", "CUBE_IN_CHANNEL") + 1,
        in_height=pdp("D_DATA_CUBE_IN_HEIGHT", "CUBE_IN_HEIGHT") + 1,
        in_width=pdp("D_DATA_CUBE_IN_WIDTH", "CUBE_IN_WIDTH") + 1,
        out_height=pdp("D_DATA_CUBE_OUT_HEIGHT", "CUBE_OUT_HEIGHT") + 1,
        out_width=pdp("D_DATA_CUBE_OUT_WIDTH", "CUBE_OUT_WIDTH") + 1,
        kernel=(pdp("D_POOLING_KERNEL_CFG", "KERNEL_WIDTH") + 1, pdp("D_POOLING_KERNEL_CFG", "KERNEL_HEIGHT") + 1),
        stride=(pdp("D_POOLING_KERNEL_CFG", "KERNEL_STRIDE_WIDTH") + 1,
                pdp("D_POOLING_KERNEL_CFG", "KERNEL_STRIDE_HEIGHT") + 1),
        pads=tuple(pdp("D_POOLING_PADDING_CFG", f"PAD_{side}") for side in ("LEFT", "TOP", "RIGHT", "BOTTOM")),
        pad_values=tuple(pdp(f"D_POOLING_PADDING_VALUE_{n}_CFG", f"PAD_VALUE_{n}X") for n in range(1, 8)),
        recip=(pdp("D_RECIP_KERNEL_WIDTH", "RECIP_KERNEL_WIDTH"), pdp("D_RECIP_KERNEL_HEIGHT", "RECIP_KERNEL_HEIGHT")),
        nan_to_zero=regs.enum("PDP", "D_NAN_FLUSH_TO_ZERO", "NAN_TO_ZERO") == "ENABLE",
        split=_split(regs, pdp("D_OPERATION_MODE_CFG", "SPLIT_NUM")),
        src=src,
        dst=dst,
    )


def pooled_size(size: int, pad_before: int, pad_after: int, kernel: int, stride: int) -> int:
    """programming-guide "PDP programming": pooled_width = ceil((width + pad_left + pad_right - kernel) /
    stride) + 1, minus one when the last window would start in the right padding."""
    pooled = -(-(size + pad_before + pad_after - kernel) // stride) + 1
    if (pooled - 1) * stride >= size + pad_before:
        pooled -= 1
    return pooled


def _require(ok: bool, message: str, fields: tuple[str, ...], rule: str = RULE) -> None:
    if not ok:
        raise ConfigurationError(message, fields=fields, rule=rule)


def validate(cfg: PdpConfig, regs: RegisterValues) -> None:
    """Every PDP limitation of the programming guide, plus the register consistency the model needs."""
    (kw, kh), (sw, sh), (pl, pt, pr, pb) = cfg.kernel, cfg.stride, cfg.pads
    _require(kw <= 8 and kh <= 8, f"kernel {kw}x{kh} exceeds 8x8 (maximum supported pooling kernel size is 8)",
             ("PDP.D_POOLING_KERNEL_CFG.KERNEL_WIDTH", "PDP.D_POOLING_KERNEL_CFG.KERNEL_HEIGHT"))
    _require(pl < kw and pr < kw, f"PL={pl}/PR={pr} must be less than kernel_width={kw}",
             ("PDP.D_POOLING_PADDING_CFG.PAD_LEFT", "PDP.D_POOLING_PADDING_CFG.PAD_RIGHT",
              "PDP.D_POOLING_KERNEL_CFG.KERNEL_WIDTH"))
    # The guide states PL/PR < kernel_width; the same bound on PT/PB keeps every window inside the
    # seven padding-value registers (PAD_VALUE_1X..7X), which is how the cmod indexes them.
    _require(pt < kh and pb < kh, f"PT={pt}/PB={pb} must be less than kernel_height={kh}",
             ("PDP.D_POOLING_PADDING_CFG.PAD_TOP", "PDP.D_POOLING_PADDING_CFG.PAD_BOTTOM",
              "PDP.D_POOLING_KERNEL_CFG.KERNEL_HEIGHT"), RULE + " (PL/PR < kernel_width, applied to PT/PB)")
    _require((pl + cfg.in_width + pr - kw) % sw == 0 and pl + cfg.in_width + pr >= kw,
             f"(PL+W+PR-Kernel_W) % stride_x != 0: ({pl}+{cfg.in_width}+{pr}-{kw}) % {sw}",
             ("PDP.D_POOLING_PADDING_CFG.PAD_LEFT", "PDP.D_POOLING_PADDING_CFG.PAD_RIGHT",
              "PDP.D_DATA_CUBE_IN_WIDTH.CUBE_IN_WIDTH", "PDP.D_POOLING_KERNEL_CFG.KERNEL_STRIDE_WIDTH"))
    _require((pt + cfg.in_height + pb - kh) % sh == 0 and pt + cfg.in_height + pb >= kh,
             f"(PT+H+PB-Kernel_H) % stride_y != 0: ({pt}+{cfg.in_height}+{pb}-{kh}) % {sh}",
             ("PDP.D_POOLING_PADDING_CFG.PAD_TOP", "PDP.D_POOLING_PADDING_CFG.PAD_BOTTOM",
              "PDP.D_DATA_CUBE_IN_HEIGHT.CUBE_IN_HEIGHT", "PDP.D_POOLING_KERNEL_CFG.KERNEL_STRIDE_HEIGHT"),
             RULE + " ((PL+W+PR-Kernel_W)%stride_x == 0, applied to the height)")
    # The guide writes CUBE_IN_WIDTH + PL == (CUBE_OUT_WIDTH-1)*stride_x + kernel_width; NVIDIA's own
    # traces (e.g. nv_small/pdp_8x8x64_2x2_ave_int8_0, PR=1) satisfy it only with PR added, which is what
    # the guide's pooled_width calculation gives once (PL+W+PR-Kernel_W) % stride_x == 0 holds.
    expected_w = pooled_size(cfg.in_width, pl, pr, kw, sw)
    _require(cfg.out_width == expected_w,
             f"CUBE_OUT_WIDTH={cfg.out_width} but pooled_width = {expected_w} "
             f"(CUBE_IN_WIDTH+PL+PR = (CUBE_OUT_WIDTH-1)*stride_x + kernel_width)",
             ("PDP.D_DATA_CUBE_IN_WIDTH.CUBE_IN_WIDTH", "PDP.D_DATA_CUBE_OUT_WIDTH.CUBE_OUT_WIDTH",
              "PDP.D_POOLING_PADDING_CFG.PAD_LEFT", "PDP.D_POOLING_PADDING_CFG.PAD_RIGHT"))
    expected_h = pooled_size(cfg.in_height, pt, pb, kh, sh)
    _require(cfg.out_height == expected_h,
             f"CUBE_OUT_HEIGHT={cfg.out_height} but the pooled height = {expected_h} "
             f"(CUBE_IN_HEIGHT+PT+PB = (CUBE_OUT_HEIGHT-1)*stride_y + kernel_height)",
             ("PDP.D_DATA_CUBE_IN_HEIGHT.CUBE_IN_HEIGHT", "PDP.D_DATA_CUBE_OUT_HEIGHT.CUBE_OUT_HEIGHT",
              "PDP.D_POOLING_PADDING_CFG.PAD_TOP", "PDP.D_POOLING_PADDING_CFG.PAD_BOTTOM"))
    _require(regs.field("PDP", "D_DATA_CUBE_OUT_CHANNEL", "CUBE_OUT_CHANNEL") + 1 == cfg.channels,
             "pooling does not change the channel count: CUBE_OUT_CHANNEL must equal CUBE_IN_CHANNEL",
             ("PDP.D_DATA_CUBE_OUT_CHANNEL.CUBE_OUT_CHANNEL", "PDP.D_DATA_CUBE_IN_CHANNEL.CUBE_IN_CHANNEL"),
             FORMAT_RULE)
    if cfg.split is not None:
        _require(not cfg.on_the_fly, "split width needs offline mode (FLYING_MODE=OFF_FLYING)",
                 ("PDP.D_OPERATION_MODE_CFG.SPLIT_NUM", "PDP.D_OPERATION_MODE_CFG.FLYING_MODE"),
                 "programming-guide: PDP programming (On-the-fly processing: SPLIT_NUM=0)")
        _validate_split(cfg)
    if not cfg.on_the_fly:
        _validate_rdma(cfg, regs)


def _validate_split(cfg: PdpConfig) -> None:
    sp, kw, sw = cfg.split, cfg.kernel[0], cfg.stride[0]
    pl, pr = cfg.pads[0], cfg.pads[2]
    overlap = kw - sw
    mids = sp.count - 2
    out_fields = ("PDP.D_PARTIAL_WIDTH_OUT.PARTIAL_WIDTH_OUT_FIRST", "PDP.D_PARTIAL_WIDTH_OUT.PARTIAL_WIDTH_OUT_MID",
                  "PDP.D_PARTIAL_WIDTH_OUT.PARTIAL_WIDTH_OUT_LAST", "PDP.D_DATA_CUBE_OUT_WIDTH.CUBE_OUT_WIDTH")
    in_fields = ("PDP.D_PARTIAL_WIDTH_IN.PARTIAL_WIDTH_IN_FIRST", "PDP.D_PARTIAL_WIDTH_IN.PARTIAL_WIDTH_IN_MID",
                 "PDP.D_PARTIAL_WIDTH_IN.PARTIAL_WIDTH_IN_LAST", "PDP.D_POOLING_KERNEL_CFG.KERNEL_WIDTH",
                 "PDP.D_POOLING_KERNEL_CFG.KERNEL_STRIDE_WIDTH")
    rule = f"{RULE} (split_num {'== 2' if sp.count == 2 else '> 2'})"
    _require(sp.out_first + sp.out_last + sp.out_mid * mids == cfg.out_width,
             f"first_out_width + last_out_width + mid_out_width*(split_num-2) = "
             f"{sp.out_first + sp.out_last + sp.out_mid * mids} != CUBE_OUT_WIDTH = {cfg.out_width}", out_fields, rule)
    _require(sp.in_first + pl == (sp.out_first - 1) * sw + kw,
             f"first_in_width + PL = {sp.in_first + pl} != (first_out_width-1)*stride_x + kernel_w = "
             f"{(sp.out_first - 1) * sw + kw}", in_fields + out_fields[:1], rule)
    if mids:
        _require(sp.in_mid + overlap == (sp.out_mid - 1) * sw + kw,
                 f"mid_in_width + overlap = {sp.in_mid + overlap} != (mid_out_width-1)*stride_x + kernel_w = "
                 f"{(sp.out_mid - 1) * sw + kw}", in_fields + out_fields[1:2], rule)
    _require(sp.in_last + pr + overlap == (sp.out_last - 1) * sw + kw,
             f"last_in_width + PR + overlap = {sp.in_last + pr + overlap} != (last_out_width-1)*stride_x + "
             f"kernel_w = {(sp.out_last - 1) * sw + kw}", in_fields + out_fields[2:3], rule)
    inner = [sp.in_first] + ([sp.in_mid] if mids else [])
    if kw >= sw:
        _require(all(kw - sw <= width for width in inner),
                 f"kernel_w - stride_x = {kw - sw} must be <= first/mid_in_width {inner}", in_fields, rule)
    else:
        outer = [sp.in_last] + ([sp.in_mid] if mids else [])
        _require(all(sw - kw < width for width in outer),
                 f"stride_x - kernel_w = {sw - kw} must be < last/mid_in_width {outer}", in_fields, rule)
    _require(sp.in_first + sp.in_mid * mids + sp.in_last == cfg.in_width,
             f"the split input widths {sp.in_first}+{sp.in_mid}*{mids}+{sp.in_last} do not add up to "
             f"CUBE_IN_WIDTH={cfg.in_width}", in_fields + ("PDP.D_DATA_CUBE_IN_WIDTH.CUBE_IN_WIDTH",), rule)


def _validate_rdma(cfg: PdpConfig, regs: RegisterValues) -> None:
    """PDP_RDMA feeds the PDP in offline mode: the cube it reads must be the cube the PDP pools."""
    pairs = [
        ("D_DATA_CUBE_IN_WIDTH", "CUBE_IN_WIDTH", "D_DATA_CUBE_IN_WIDTH", "CUBE_IN_WIDTH"),
        ("D_DATA_CUBE_IN_HEIGHT", "CUBE_IN_HEIGHT", "D_DATA_CUBE_IN_HEIGHT", "CUBE_IN_HEIGHT"),
        ("D_DATA_CUBE_IN_CHANNEL", "CUBE_IN_CHANNEL", "D_DATA_CUBE_IN_CHANNEL", "CUBE_IN_CHANNEL"),
        ("D_DATA_FORMAT", "INPUT_DATA", "D_DATA_FORMAT", "INPUT_DATA"),
    ]
    if cfg.split is not None:
        # The RDMA computes each split's read window from its own copy of these fields.
        pairs += [
            ("D_OPERATION_MODE_CFG", "SPLIT_NUM", "D_OPERATION_MODE_CFG", "SPLIT_NUM"),
            ("D_PARTIAL_WIDTH_IN", "PARTIAL_WIDTH_IN_FIRST", "D_PARTIAL_WIDTH_IN", "PARTIAL_WIDTH_IN_FIRST"),
            ("D_PARTIAL_WIDTH_IN", "PARTIAL_WIDTH_IN_MID", "D_PARTIAL_WIDTH_IN", "PARTIAL_WIDTH_IN_MID"),
            ("D_PARTIAL_WIDTH_IN", "PARTIAL_WIDTH_IN_LAST", "D_PARTIAL_WIDTH_IN", "PARTIAL_WIDTH_IN_LAST"),
            ("D_POOLING_KERNEL_CFG", "KERNEL_WIDTH", "D_POOLING_KERNEL_CFG", "KERNEL_WIDTH"),
            ("D_POOLING_KERNEL_CFG", "KERNEL_STRIDE_WIDTH", "D_POOLING_KERNEL_CFG", "KERNEL_STRIDE_WIDTH"),
        ]
        if cfg.split.count == 2:
            pairs = [pair for pair in pairs if pair[1] != "PARTIAL_WIDTH_IN_MID"]
    for rdma_reg, rdma_field, pdp_reg, pdp_field in pairs:
        rdma, pdp = regs.field("PDP_RDMA", rdma_reg, rdma_field), regs.field("PDP", pdp_reg, pdp_field)
        _require(rdma == pdp, f"PDP_RDMA.{rdma_reg}.{rdma_field}={rdma} differs from PDP.{pdp_reg}.{pdp_field}={pdp}",
                 (f"PDP_RDMA.{rdma_reg}.{rdma_field}", f"PDP.{pdp_reg}.{pdp_field}"),
                 "programming-guide: PDP programming (offline: PDP-RDMA reads the input cube)")
    _require(regs.enum("PDP_RDMA", "D_FLYING_MODE", "FLYING_MODE") == "OFF_FLYING",
             "offline PDP needs PDP_RDMA.D_FLYING_MODE=OFF_FLYING",
             ("PDP_RDMA.D_FLYING_MODE.FLYING_MODE", "PDP.D_OPERATION_MODE_CFG.FLYING_MODE"),
             "programming-guide: PDP programming (Offline processing)")
