"""The PDP's limitation rules (programming guide "Limitation/PDP" and "PDP programming", Table 32).

Each predicate takes the decoded PdpConfig and the facts (register values, profile); None means the layer keeps
the rule.
"""

from __future__ import annotations

from golden.rules import rule

GUIDE = "programming-guide: Limitation/PDP"
SPLIT = f"{GUIDE} (split_num == 2 and split_num > 2)"
TABLE32 = "in-memory-data-formats: Table 32 (precision conversion for pooling layer)"
KERNEL = "PDP.D_POOLING_KERNEL_CFG"
PADDING = "PDP.D_POOLING_PADDING_CFG"
OUT_FIELDS = ("PDP.D_PARTIAL_WIDTH_OUT.PARTIAL_WIDTH_OUT_FIRST", "PDP.D_PARTIAL_WIDTH_OUT.PARTIAL_WIDTH_OUT_MID",
              "PDP.D_PARTIAL_WIDTH_OUT.PARTIAL_WIDTH_OUT_LAST", "PDP.D_DATA_CUBE_OUT_WIDTH.CUBE_OUT_WIDTH")
IN_FIELDS = ("PDP.D_PARTIAL_WIDTH_IN.PARTIAL_WIDTH_IN_FIRST", "PDP.D_PARTIAL_WIDTH_IN.PARTIAL_WIDTH_IN_MID",
             "PDP.D_PARTIAL_WIDTH_IN.PARTIAL_WIDTH_IN_LAST", f"{KERNEL}.KERNEL_WIDTH", f"{KERNEL}.KERNEL_STRIDE_WIDTH")
#: PDP_RDMA fields that must repeat the PDP's in offline mode (the split ones only when SPLIT_NUM > 0).
MIRRORED = (("D_DATA_CUBE_IN_WIDTH", "CUBE_IN_WIDTH"), ("D_DATA_CUBE_IN_HEIGHT", "CUBE_IN_HEIGHT"),
            ("D_DATA_CUBE_IN_CHANNEL", "CUBE_IN_CHANNEL"), ("D_DATA_FORMAT", "INPUT_DATA"))
MIRRORED_SPLIT = (("D_OPERATION_MODE_CFG", "SPLIT_NUM"), ("D_PARTIAL_WIDTH_IN", "PARTIAL_WIDTH_IN_FIRST"),
                  ("D_PARTIAL_WIDTH_IN", "PARTIAL_WIDTH_IN_MID"), ("D_PARTIAL_WIDTH_IN", "PARTIAL_WIDTH_IN_LAST"),
                  ("D_POOLING_KERNEL_CFG", "KERNEL_WIDTH"), ("D_POOLING_KERNEL_CFG", "KERNEL_STRIDE_WIDTH"))
#: Sign bit index + 1 of PAD_VALUE_1X..7X per precision: the cmod sign-extends 8,9,10,10,11,11,11 bits
#: for int8 and 16,17,18,18,19,19,19 for int16 (n x pad value needs log2(n) more bits).
PAD_VALUE_BITS = {"int8": (8, 9, 10, 10, 11, 11, 11), "int16": (16, 17, 18, 18, 19, 19, 19)}
#: Width of each PAD_VALUE_nX field (register map: bits [18:0]).
PAD_VALUE_FIELD_BITS = 19
PAD_VALUES = tuple(f"PDP.D_POOLING_PADDING_VALUE_{n}_CFG.PAD_VALUE_{n}X" for n in range(1, 8))


#: RECIP_KERNEL_WIDTH / RECIP_KERNEL_HEIGHT are unsigned 0.16 fixed point in 17-bit fields: 1/1 is 0x10000.
RECIP_ONE = 1 << 16
RECIPS = ("PDP.D_RECIP_KERNEL_WIDTH.RECIP_KERNEL_WIDTH", "PDP.D_RECIP_KERNEL_HEIGHT.RECIP_KERNEL_HEIGHT")


#: PDP's line buffer (NV_NVDLA_PDP_CORE_cal2d.v): 8 banks, each holding 16 output columns of one line ("bank
#: depth follows rule of 16 elements in width in worst case": atom/throughput x 16 entries, on every profile).
LINE_BUFFER_BANKS, BANK_COLUMNS = 8, 16


def max_out_width(kernel_height: int, stride_height: int) -> int:
    """The widest pass (CUBE_OUT_WIDTH, or a split part's out width) PDP's line buffer holds: it keeps
    ceil(kernel_height / stride_height) output lines under way, and one line spans the 8 banks divided by that
    count rounded up to a power of two (cal2d's buffer_lines_num and bank_merge_num)."""
    lines = -(-kernel_height // stride_height)
    return BANK_COLUMNS * (LINE_BUFFER_BANKS // (1 << (lines - 1).bit_length()))


def pooled_size(size: int, pad_before: int, pad_after: int, kernel: int, stride: int) -> int:
    """programming-guide "PDP programming": pooled_width = ceil((width + pad_left + pad_right - kernel) /
    stride) + 1, minus one when the last window would start in the right padding."""
    pooled = -(-(size + pad_before + pad_after - kernel) // stride) + 1
    if (pooled - 1) * stride >= size + pad_before:
        pooled -= 1
    return pooled


@rule("PDP-KERNEL-SIZE", "PDP", GUIDE, (f"{KERNEL}.KERNEL_WIDTH", f"{KERNEL}.KERNEL_HEIGHT"),
      "the pooling kernel is at most 8x8")
def _kernel_size(cfg, facts):
    kw, kh = cfg.kernel
    if kw > 8 or kh > 8:
        return f"kernel {kw}x{kh} exceeds 8x8 (maximum supported pooling kernel size is 8)"


@rule("PDP-PAD-LEFT-RIGHT", "PDP", GUIDE, (f"{PADDING}.PAD_LEFT", f"{PADDING}.PAD_RIGHT", f"{KERNEL}.KERNEL_WIDTH"),
      "PL and PR are less than the kernel width")
def _pad_left_right(cfg, facts):
    pl, pr, kw = cfg.pads[0], cfg.pads[2], cfg.kernel[0]
    if not (pl < kw and pr < kw):
        return f"PL={pl}/PR={pr} must be less than kernel_width={kw}"


# The guide states PL/PR < kernel_width; the same bound on PT/PB keeps every window inside the
# seven padding-value registers (PAD_VALUE_1X..7X), which is how the cmod indexes them.
@rule("PDP-PAD-TOP-BOTTOM", "PDP", GUIDE + " (PL/PR < kernel_width, applied to PT/PB)",
      (f"{PADDING}.PAD_TOP", f"{PADDING}.PAD_BOTTOM", f"{KERNEL}.KERNEL_HEIGHT"),
      "PT and PB are less than the kernel height")
def _pad_top_bottom(cfg, facts):
    pt, pb, kh = cfg.pads[1], cfg.pads[3], cfg.kernel[1]
    if not (pt < kh and pb < kh):
        return f"PT={pt}/PB={pb} must be less than kernel_height={kh}"


@rule("PDP-WIDTH-STRIDE", "PDP", GUIDE,
      (f"{PADDING}.PAD_LEFT", f"{PADDING}.PAD_RIGHT", "PDP.D_DATA_CUBE_IN_WIDTH.CUBE_IN_WIDTH",
       f"{KERNEL}.KERNEL_STRIDE_WIDTH"),
      "(PL+W+PR-Kernel_W) % stride_x == 0 and the padded width holds one kernel")
def _width_stride(cfg, facts):
    (kw, _), (sw, _), (pl, _, pr, _) = cfg.kernel, cfg.stride, cfg.pads
    if (pl + cfg.in_width + pr - kw) % sw or pl + cfg.in_width + pr < kw:
        return f"(PL+W+PR-Kernel_W) % stride_x != 0: ({pl}+{cfg.in_width}+{pr}-{kw}) % {sw}"


@rule("PDP-HEIGHT-STRIDE", "PDP", GUIDE + " ((PL+W+PR-Kernel_W)%stride_x == 0, applied to the height)",
      (f"{PADDING}.PAD_TOP", f"{PADDING}.PAD_BOTTOM", "PDP.D_DATA_CUBE_IN_HEIGHT.CUBE_IN_HEIGHT",
       f"{KERNEL}.KERNEL_STRIDE_HEIGHT"),
      "(PT+H+PB-Kernel_H) % stride_y == 0 and the padded height holds one kernel")
def _height_stride(cfg, facts):
    (_, kh), (_, sh), (_, pt, _, pb) = cfg.kernel, cfg.stride, cfg.pads
    if (pt + cfg.in_height + pb - kh) % sh or pt + cfg.in_height + pb < kh:
        return f"(PT+H+PB-Kernel_H) % stride_y != 0: ({pt}+{cfg.in_height}+{pb}-{kh}) % {sh}"


# The guide writes CUBE_IN_WIDTH + PL == (CUBE_OUT_WIDTH-1)*stride_x + kernel_width; NVIDIA's own
# traces (e.g. nv_small/pdp_8x8x64_2x2_ave_int8_0, PR=1) satisfy it only with PR added, which is what
# the guide's pooled_width calculation gives once (PL+W+PR-Kernel_W) % stride_x == 0 holds.
@rule("PDP-OUT-WIDTH", "PDP", GUIDE,
      ("PDP.D_DATA_CUBE_IN_WIDTH.CUBE_IN_WIDTH", "PDP.D_DATA_CUBE_OUT_WIDTH.CUBE_OUT_WIDTH",
       f"{PADDING}.PAD_LEFT", f"{PADDING}.PAD_RIGHT"),
      "CUBE_OUT_WIDTH is the pooled width of the padded input")
def _out_width(cfg, facts):
    expected = pooled_size(cfg.in_width, cfg.pads[0], cfg.pads[2], cfg.kernel[0], cfg.stride[0])
    if cfg.out_width != expected:
        return (f"CUBE_OUT_WIDTH={cfg.out_width} but pooled_width = {expected} "
                f"(CUBE_IN_WIDTH+PL+PR = (CUBE_OUT_WIDTH-1)*stride_x + kernel_width)")


@rule("PDP-OUT-HEIGHT", "PDP", GUIDE,
      ("PDP.D_DATA_CUBE_IN_HEIGHT.CUBE_IN_HEIGHT", "PDP.D_DATA_CUBE_OUT_HEIGHT.CUBE_OUT_HEIGHT",
       f"{PADDING}.PAD_TOP", f"{PADDING}.PAD_BOTTOM"),
      "CUBE_OUT_HEIGHT is the pooled height of the padded input")
def _out_height(cfg, facts):
    expected = pooled_size(cfg.in_height, cfg.pads[1], cfg.pads[3], cfg.kernel[1], cfg.stride[1])
    if cfg.out_height != expected:
        return (f"CUBE_OUT_HEIGHT={cfg.out_height} but the pooled height = {expected} "
                f"(CUBE_IN_HEIGHT+PT+PB = (CUBE_OUT_HEIGHT-1)*stride_y + kernel_height)")


# The guide (Limitation/PDP) bounds "first/mid/last_out_width" by the maximum flying width "for any mode" and
# refers to calculate_pdp_max_width (10.1.4), which it does not print. NVIDIA's RTL gives the number:
# NV_NVDLA_PDP_CORE_cal2d.v (nv_small preprocessed lines 796-834, master template 739-780) keeps
# ceil(kernel_height / stride_height) lines and merges 8, 4, 2 or 1 banks of 16 columns per line for 1, 2,
# 3-4, 5-8 lines; its asserts "PDP cube_out_width setting out of range" (nv_small lines 653-656, master 596-599)
# fire when the pass's out width - 1 exceeds 127, 63, 31, 15. On nv_small a wider pass never raises PDP's done
# (kernel height 8, stride 1, on the fly: 16 columns finish, 17 hang).
@rule("PDP-LINE-BUFFER-WIDTH", "PDP", f"{GUIDE} (first/mid/last_out_width below the maximum flying width), with "
      "NVIDIA RTL NV_NVDLA_PDP_CORE_cal2d.v (8 line-buffer banks of 16 columns)",
      OUT_FIELDS + (f"{KERNEL}.KERNEL_HEIGHT", f"{KERNEL}.KERNEL_STRIDE_HEIGHT"),
      "each pass's out width (CUBE_OUT_WIDTH, or first/mid/last_out_width when split) is at most 128, 64, 32 or 16 "
      "as ceil(kernel_height / stride_y) is 1, 2, 3-4 or 5-8")
def _line_buffer_width(cfg, facts):
    limit = max_out_width(cfg.kernel[1], cfg.stride[1])
    if cfg.split is None:
        widths = {"CUBE_OUT_WIDTH": cfg.out_width}
    else:
        sp = cfg.split
        widths = {"first_out_width": sp.out_first, "last_out_width": sp.out_last}
        if sp.count > 2:
            widths["mid_out_width"] = sp.out_mid
    for name, width in widths.items():
        if width > limit:
            return (f"{name}={width} exceeds the {limit} columns PDP's line buffer holds for kernel_height="
                    f"{cfg.kernel[1]}, stride_y={cfg.stride[1]} ({-(-cfg.kernel[1] // cfg.stride[1])} lines under way)")


@rule("PDP-OUT-CHANNEL", "PDP", TABLE32,
      ("PDP.D_DATA_CUBE_OUT_CHANNEL.CUBE_OUT_CHANNEL", "PDP.D_DATA_CUBE_IN_CHANNEL.CUBE_IN_CHANNEL"),
      "pooling keeps the channel count")
def _out_channel(cfg, facts):
    if facts.regs.field("PDP", "D_DATA_CUBE_OUT_CHANNEL", "CUBE_OUT_CHANNEL") + 1 != cfg.channels:
        return "pooling does not change the channel count: CUBE_OUT_CHANNEL must equal CUBE_IN_CHANNEL"


@rule("PDP-SPLIT-OFFLINE", "PDP", "programming-guide: PDP programming (On-the-fly processing: SPLIT_NUM=0)",
      ("PDP.D_OPERATION_MODE_CFG.SPLIT_NUM", "PDP.D_OPERATION_MODE_CFG.FLYING_MODE"),
      "split width needs offline mode")
def _split_offline(cfg, facts):
    if cfg.split is not None and cfg.on_the_fly:
        return "split width needs offline mode (FLYING_MODE=OFF_FLYING)"


def _split(cfg):
    """(split, mids, kernel_w, stride_x, PL, PR) of a split layer that may be checked, or None."""
    if cfg.split is None or cfg.on_the_fly:
        return None
    return cfg.split, cfg.split.count - 2, cfg.kernel[0], cfg.stride[0], cfg.pads[0], cfg.pads[2]


@rule("PDP-SPLIT-OUT-SUM", "PDP", SPLIT, OUT_FIELDS,
      "first_out_width + last_out_width + mid_out_width*(split_num-2) = CUBE_OUT_WIDTH")
def _split_out_sum(cfg, facts):
    if (split := _split(cfg)) is None:
        return None
    sp, mids = split[:2]
    total = sp.out_first + sp.out_last + sp.out_mid * mids
    if total != cfg.out_width:
        return (f"first_out_width + last_out_width + mid_out_width*(split_num-2) = {total} != "
                f"CUBE_OUT_WIDTH = {cfg.out_width}")


@rule("PDP-SPLIT-FIRST-IN", "PDP", SPLIT, IN_FIELDS + OUT_FIELDS[:1],
      "first_in_width + PL = (first_out_width-1)*stride_x + kernel_w")
def _split_first(cfg, facts):
    if (split := _split(cfg)) is None:
        return None
    sp, _, kw, sw, pl, _ = split
    if sp.in_first + pl != (sp.out_first - 1) * sw + kw:
        return (f"first_in_width + PL = {sp.in_first + pl} != (first_out_width-1)*stride_x + kernel_w = "
                f"{(sp.out_first - 1) * sw + kw}")


@rule("PDP-SPLIT-MID-IN", "PDP", SPLIT, IN_FIELDS + OUT_FIELDS[1:2],
      "mid_in_width + overlap = (mid_out_width-1)*stride_x + kernel_w (split_num > 2)")
def _split_mid(cfg, facts):
    if (split := _split(cfg)) is None or not split[1]:
        return None
    sp, _, kw, sw, _, _ = split
    if sp.in_mid + kw - sw != (sp.out_mid - 1) * sw + kw:
        return (f"mid_in_width + overlap = {sp.in_mid + kw - sw} != (mid_out_width-1)*stride_x + kernel_w = "
                f"{(sp.out_mid - 1) * sw + kw}")


@rule("PDP-SPLIT-LAST-IN", "PDP", SPLIT, IN_FIELDS + OUT_FIELDS[2:3],
      "last_in_width + PR + overlap = (last_out_width-1)*stride_x + kernel_w")
def _split_last(cfg, facts):
    if (split := _split(cfg)) is None:
        return None
    sp, _, kw, sw, _, pr = split
    if sp.in_last + pr + kw - sw != (sp.out_last - 1) * sw + kw:
        return (f"last_in_width + PR + overlap = {sp.in_last + pr + kw - sw} != (last_out_width-1)*stride_x + "
                f"kernel_w = {(sp.out_last - 1) * sw + kw}")


@rule("PDP-SPLIT-OVERLAP", "PDP", SPLIT, IN_FIELDS,
      "kernel_w - stride_x <= first/mid_in_width, or stride_x - kernel_w < last/mid_in_width")
def _split_overlap(cfg, facts):
    if (split := _split(cfg)) is None:
        return None
    sp, mids, kw, sw, _, _ = split
    mid = [sp.in_mid] if mids else []
    if kw >= sw and not all(kw - sw <= width for width in [sp.in_first] + mid):
        return f"kernel_w - stride_x = {kw - sw} must be <= first/mid_in_width {[sp.in_first] + mid}"
    if kw < sw and not all(sw - kw < width for width in [sp.in_last] + mid):
        return f"stride_x - kernel_w = {sw - kw} must be < last/mid_in_width {[sp.in_last] + mid}"


@rule("PDP-SPLIT-IN-SUM", "PDP", SPLIT, IN_FIELDS + ("PDP.D_DATA_CUBE_IN_WIDTH.CUBE_IN_WIDTH",),
      "the split input widths add up to CUBE_IN_WIDTH")
def _split_in_sum(cfg, facts):
    if (split := _split(cfg)) is None:
        return None
    sp, mids = split[:2]
    if sp.in_first + sp.in_mid * mids + sp.in_last != cfg.in_width:
        return (f"the split input widths {sp.in_first}+{sp.in_mid}*{mids}+{sp.in_last} do not add up to "
                f"CUBE_IN_WIDTH={cfg.in_width}")


@rule("PDP-RDMA-MIRROR", "PDP", "programming-guide: PDP programming (offline: PDP-RDMA reads the input cube)",
      tuple(f"{unit}.{reg}.{name}" for reg, name in MIRRORED + MIRRORED_SPLIT for unit in ("PDP_RDMA", "PDP")),
      "offline, PDP_RDMA is programmed with the PDP's input cube (and split widths)")
def _rdma_mirror(cfg, facts):
    if cfg.on_the_fly:
        return None
    pairs = list(MIRRORED)
    if cfg.split is not None:
        # The RDMA computes each split's read window from its own copy of these fields.
        pairs += [p for p in MIRRORED_SPLIT if not (cfg.split.count == 2 and p[1] == "PARTIAL_WIDTH_IN_MID")]
    for reg, name in pairs:
        rdma, pdp = facts.regs.field("PDP_RDMA", reg, name), facts.regs.field("PDP", reg, name)
        if rdma != pdp:
            return f"PDP_RDMA.{reg}.{name}={rdma} differs from PDP.{reg}.{name}={pdp}"


@rule("PDP-RDMA-OFFLINE", "PDP", "programming-guide: PDP programming (Offline processing)",
      ("PDP_RDMA.D_FLYING_MODE.FLYING_MODE", "PDP.D_OPERATION_MODE_CFG.FLYING_MODE"),
      "offline PDP needs PDP_RDMA.D_FLYING_MODE=OFF_FLYING")
def _rdma_offline(cfg, facts):
    if not cfg.on_the_fly and facts.regs.enum("PDP_RDMA", "D_FLYING_MODE", "FLYING_MODE") != "OFF_FLYING":
        return "offline PDP needs PDP_RDMA.D_FLYING_MODE=OFF_FLYING"


# The guide ("Register definition": D_POOLING_PADDING_VALUE_*_CFG is "the padded value", used in AVE mode)
# gives no width. NVIDIA's cmod sign-extends PAD_VALUE_nX from its low 8..11 bits (int8; PAD_VALUE_BITS),
# while the nv_small RTL (vmod/nvdla/pdp/NV_NVDLA_PDP_CORE_cal2d.v: pad_table_out =
# reg2dp_pad_value_nx_cfg[18:0], then $signed(pad_table_out) * kernel_width) reads the whole 19-bit field as
# signed: -3 written as 0xFD pads with -3 on the cmod and +253 on the RTL. The two agree only when the bits
# above the cmod's sign bit repeat it. Advisory: NVIDIA's split max-pooling traces write random values there
# (unused outside AVE mode, and the cmod's reading is what the golden model computes).
@rule("PDP-PAD-VALUE-SIGN", "PDP", "programming-guide: PDP programming/Register definition "
      "(D_POOLING_PADDING_VALUE_*_CFG)", PAD_VALUES,
      "integer average pooling: the bits of PAD_VALUE_nX above the cmod's sign bit repeat the sign", advisory=True)
def _pad_value_sign(cfg, facts):
    if cfg.method != "average" or cfg.precision not in PAD_VALUE_BITS:
        return None
    for n, (value, bits) in enumerate(zip(cfg.pad_values, PAD_VALUE_BITS[cfg.precision], strict=True), start=1):
        high = value >> (bits - 1)  # the sign bit and everything above it
        if high not in (0, (1 << (PAD_VALUE_FIELD_BITS - bits + 1)) - 1):
            return (f"PAD_VALUE_{n}X=0x{value:x}: bits [18:{bits - 1}] differ (the cmod reads {bits} signed bits, "
                    "the RTL all 19)")


# Integer average pooling multiplies the window sum by RECIP_KERNEL_WIDTH, rounds off 16 bits, multiplies by
# RECIP_KERNEL_HEIGHT and rounds off 16 bits again. PDP has no convertor (precision-preservation) and converts
# no precision (Table 32), so the average must stay inside the input's range, and the documents say nothing
# more. NVIDIA's RTL fixes the bound: vmod/nvdla/pdp/NV_NVDLA_PDP_CORE_cal2d.v (nv_small preprocessed lines
# 5174-5183 and 5252-5261; master template lines 4768-4778 and 4822-4832) keeps the first rounded product in
# 8+3 bits (int8) and the second in 8, without saturating: the disabled asserts at lines 5183 and 5261 say that
# the bits above them only repeat the sign. Positive rounding adds its carry into the bits it keeps, so a
# result past the top wraps differently from the cmod's static_cast (132 comes out 4, not -124). With
# recip x kernel <= 2**16 on both axes, a sum of int8 values (padding included: n x one int8 pad value) gives
# at most 128 x kernel_height in magnitude after the first product (11 bits hold it) and at most the
# input's range after the second. Just above the bound, only windows near the range's ends overflow
# (kernel height 8 with 0x2080 instead of 0x2000: 8 x 127 x 0x2080 / 2**16 rounds to 129). The bound is not
# tight: with the other reciprocal exact, the first value that wraps some int8 window is about 0.4% higher
# (kernel height 8: 0x2020, the all -128 window's -128.5), but that frontier moves with both registers and
# the data's range; the rule keeps the reciprocal software computes, 0x10000 // kernel, as the largest.
@rule("PDP-RECIP-KERNEL", "PDP", "precision-preservation: PDP (no convertor in PDP), with NVIDIA RTL "
      "NV_NVDLA_PDP_CORE_cal2d.v (1/kernel products kept in 8+3 and 8 bits)",
      RECIPS + (f"{KERNEL}.KERNEL_WIDTH", f"{KERNEL}.KERNEL_HEIGHT", "PDP.D_OPERATION_MODE_CFG.POOLING_METHOD"),
      "integer average pooling: RECIP_KERNEL_WIDTH x kernel_width <= 2**16 and RECIP_KERNEL_HEIGHT x "
      "kernel_height <= 2**16 (each reciprocal at most 1/kernel)")
def _recip_kernel(cfg, facts):
    if cfg.method != "average" or cfg.precision == "fp16":  # fp16 programs fp17 patterns; max/min ignore them
        return None
    for axis, recip, kernel in zip(("WIDTH", "HEIGHT"), cfg.recip, cfg.kernel, strict=True):
        if recip * kernel > RECIP_ONE:
            return (f"RECIP_KERNEL_{axis}=0x{recip:x} is more than 1/{kernel} (kernel_{axis.lower()}={kernel}: at "
                    f"most 0x{RECIP_ONE // kernel:x}): the average can leave the input's range, and the RTL wraps it")
