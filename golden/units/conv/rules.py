"""The convolution pipeline's limitation rules (CDMA, CSC, CMAC, CACC), in the registry of golden/rules.py.

Sources: programming guide "Convolution pipeline programming" (Register definition, Features) and "Limitation"
(Convolution/General, Image, Winograd, supported feature crossing), in-memory-data-formats Table 29 (precision
conversion), Table 33 (pixel formats) and Weight Channel Post-extension, precision-preservation (cc_out_trunc,
pra_trunc). Each predicate takes the decoded ConvConfig and the facts (profile); None means the layer keeps the
rule. Registered in checking order (golden/units/conv/limits.py runs them). The CDMA reads' Table 35 and stride
rules are golden/units/dma_rules.py's.
"""

from __future__ import annotations

from golden.errors import ConfigurationError
from golden.formats import pixel
from golden.formats.feature import element_bytes
from golden.formats.weight import kernels_per_group
from golden.rules import rule
from golden.units.conv.cbuf import data_key, weight_key

GENERAL = "programming-guide: Limitation/Convolution/General"
REGDEF = "programming-guide: Convolution pipeline programming/Register definition"
TABLE29 = "in-memory-data-formats: Table 29 (precision conversion for convolutional layer)"
CROSSING = "programming-guide: Limitation/Convolution, supported feature crossing"
WINOGRAD = "programming-guide: Limitation/Convolution/Winograd"
IMAGE = "programming-guide: Limitation/Convolution/Image"
TRUNC = "precision-preservation: cc_out_trunc"
FP16_PIXELS = ("T_R16_F", "T_A16B16G16R16_F", "T_A16Y16U16V16_F")

#: Stage copies that must agree: rule id suffix, what, {register field: ConvConfig attribute}, source.
MIRRORS = (
    ("CONV-MODE", "convolution modes", {
        "CDMA.D_MISC_CFG.CONV_MODE": "conv_mode", "CSC.D_MISC_CFG.CONV_MODE": "csc_conv_mode",
        "CMAC_A.D_MISC_CFG.CONV_MODE": ("cmac_a", 0), "CMAC_B.D_MISC_CFG.CONV_MODE": ("cmac_b", 0),
        "CACC.D_MISC_CFG.CONV_MODE": "cacc_conv_mode"}, REGDEF),
    ("PROC-PRECISION", "processing precisions", {
        "CDMA.D_MISC_CFG.PROC_PRECISION": "proc_precision", "CSC.D_MISC_CFG.PROC_PRECISION": "csc_proc_precision",
        "CMAC_A.D_MISC_CFG.PROC_PRECISION": ("cmac_a", 1), "CMAC_B.D_MISC_CFG.PROC_PRECISION": ("cmac_b", 1),
        "CACC.D_MISC_CFG.PROC_PRECISION": "cacc_precision"}, REGDEF),
    ("IN-PRECISION", "input precisions", {
        "CDMA.D_MISC_CFG.IN_PRECISION": "in_precision", "CSC.D_MISC_CFG.IN_PRECISION": "csc_in_precision"}, REGDEF),
    ("DATAIN-FORMAT", "input formats", {
        "CDMA.D_DATAIN_FORMAT.DATAIN_FORMAT": "datain_format",
        "CSC.D_DATAIN_FORMAT.DATAIN_FORMAT": "csc_datain_format"}, REGDEF),
    ("BATCHES", "batch numbers", {
        "CDMA.D_BATCH_NUMBER.BATCHES": "batches", "CSC.D_BATCH_NUMBER.BATCHES": "csc_batches",
        "CACC.D_BATCH_NUMBER.BATCHES": "cacc_batches"}, REGDEF),
    ("WEIGHT-FORMAT", "weight formats", {
        "CDMA.D_WEIGHT_FORMAT.WEIGHT_FORMAT": "weight_format",
        "CSC.D_WEIGHT_FORMAT.WEIGHT_FORMAT": "csc_weight_format"}, REGDEF),
    ("KERNELS", "kernel / output channel counts", {
        "CDMA.D_WEIGHT_SIZE_1.WEIGHT_KERNEL": "kernels", "CSC.D_WEIGHT_SIZE_EXT_1.WEIGHT_KERNEL": "csc_kernels",
        "CSC.D_DATAOUT_SIZE_1.DATAOUT_CHANNEL": "csc_out_channel",
        "CACC.D_DATAOUT_SIZE_1.DATAOUT_CHANNEL": "out_channel"}, REGDEF),
    ("WEIGHT-BYTES", "weight byte counts", {
        "CDMA.D_WEIGHT_BYTES.WEIGHT_BYTES": "weight_bytes", "CSC.D_WEIGHT_BYTES.WEIGHT_BYTES": "csc_weight_bytes"},
     REGDEF),
    ("DATA-BANK", "data banks", {"CDMA.D_BANK.DATA_BANK": "data_bank", "CSC.D_BANK.DATA_BANK": "csc_data_bank"},
     REGDEF),
    ("WEIGHT-BANK", "weight banks", {
        "CDMA.D_BANK.WEIGHT_BANK": "weight_bank", "CSC.D_BANK.WEIGHT_BANK": "csc_weight_bank"}, REGDEF),
    ("OUT-WIDTH", "output widths", {
        "CSC.D_DATAOUT_SIZE_0.DATAOUT_WIDTH": "csc_out_width", "CACC.D_DATAOUT_SIZE_0.DATAOUT_WIDTH": "out_width"},
     REGDEF),
    ("OUT-HEIGHT", "output heights", {
        "CSC.D_DATAOUT_SIZE_0.DATAOUT_HEIGHT": "csc_out_height",
        "CACC.D_DATAOUT_SIZE_0.DATAOUT_HEIGHT": "out_height"}, REGDEF),
    ("PAD-LEFT", "left paddings", {
        "CDMA.D_ZERO_PADDING.PAD_LEFT": "pad_left", "CSC.D_ZERO_PADDING.PAD_LEFT": "csc_pad_left"}, REGDEF),
    ("PAD-TOP", "top paddings", {
        "CDMA.D_ZERO_PADDING.PAD_TOP": "pad_top", "CSC.D_ZERO_PADDING.PAD_TOP": "csc_pad_top"}, REGDEF),
)


def _value(cfg, attr):
    return getattr(cfg, attr[0])[attr[1]] if isinstance(attr, tuple) else getattr(cfg, attr)


def _mirror(suffix: str, what: str, fields: dict, source: str, applies=None) -> None:
    @rule(f"CONV-STAGES-{suffix}", "CONV", source, tuple(fields), f"the pipeline stages' copies of the {what} agree")
    def same(cfg, facts):
        if applies is not None and not applies(cfg):
            return None
        values = {name: _value(cfg, attr) for name, attr in fields.items()}
        if len(set(values.values())) > 1:
            shown = ", ".join(f"{k}={v}" for k, v in values.items())
            return f"{what} differ between pipeline stages: {shown}"


for _mirror_args in MIRRORS:
    _mirror(*_mirror_args)


@rule("CONV-ATOMICS", "CONV", f"{REGDEF}, CSC.D_ATOMICS",
      ("CSC.D_ATOMICS.ATOMICS", "CSC.D_DATAOUT_SIZE_0.DATAOUT_WIDTH", "CSC.D_DATAOUT_SIZE_0.DATAOUT_HEIGHT"),
      "D_ATOMICS + 1 is the output width * height")
def _atomics(cfg, facts):
    if cfg.atomics != cfg.csc_out_width * cfg.csc_out_height:
        return f"D_ATOMICS + 1 = {cfg.atomics} must be output width * height = {cfg.csc_out_width * cfg.csc_out_height}"


# -- precision ---------------------------------------------------------------------------------------------------
@rule("CONV-FEATURE-PRECISION", "CONV", TABLE29, ("CDMA.D_MISC_CFG.IN_PRECISION", "CDMA.D_MISC_CFG.PROC_PRECISION"),
      "feature input is processed in its own precision (no conversion for feature input)")
def _feature_precision(cfg, facts):
    if not cfg.image and cfg.in_precision != cfg.proc_precision:
        return (f"{cfg.in_precision} feature data with {cfg.proc_precision} processing is an invalid case "
                "(no precision conversion for feature input)")


@rule("CONV-PIXEL-PRECISION", "CONV", TABLE29,
      ("CDMA.D_MISC_CFG.IN_PRECISION", "CDMA.D_MISC_CFG.PROC_PRECISION", "CDMA.D_DATAIN_FORMAT.PIXEL_FORMAT"),
      "fp16 pixel formats are processed in fp16")
def _pixel_precision(cfg, facts):
    if cfg.image and cfg.pixel_format in FP16_PIXELS and cfg.proc_precision != "fp16":
        return f"fp16 image input ({cfg.pixel_format}) with {cfg.proc_precision} output is an invalid case"


@rule("CONV-PIXEL-CONVERTOR", "CONV",
      "in-memory-data-formats: Table 29 (image input precision) and programming-guide: Register definition "
      "(CDMA.PIXEL_SIGN_OVERRIDE)",
      ("CDMA.D_CVT_CFG.CVT_EN", "CDMA.D_MISC_CFG.IN_PRECISION", "CDMA.D_MISC_CFG.PROC_PRECISION"),
      "image input changes precision only through the CDMA convertor")
def _pixel_convertor(cfg, facts):
    # nvdla/hw NV_NVDLA_CDMA_cvt.v asserts "cvt mode is not enable when format change" for this case
    if cfg.image and not cfg.cvt_en and cfg.in_precision != cfg.proc_precision:
        return (f"{cfg.in_precision} pixels into a {cfg.proc_precision} pipeline need the CDMA convertor "
                "(CVT_EN)")


@rule("CONV-FEATURE-CONVERTOR", "CONV", "precision-preservation: Convolution convertors (cc_cvt)",
      ("CDMA.D_CVT_CFG.CVT_EN", "CDMA.D_MISC_CFG.IN_PRECISION", "CSC.D_MISC_CFG.CONV_MODE"),
      "feature input passes the CDMA convertor only in an int8/int16 direct convolution")
def _feature_convertor(cfg, facts):
    # cc_cvt is "not used" for feature input and "INT8/INT16 only". NVIDIA's RTL converts direct and Winograd
    # feature data alike (golden.units.conv.cdma); its C model rejects fp16 ("Incorrect configuration on
    # conversion on precision in CDMA") and skips the convertor in Winograd mode, so those two stay out.
    if cfg.image or not cfg.cvt_en:
        return None
    if cfg.in_precision == "fp16":
        return "fp16 feature input cannot pass the CDMA convertor (CVT_EN): cc_cvt is INT8/INT16 only"
    if cfg.winograd:
        return "Winograd feature input does not pass the CDMA convertor (CVT_EN)"


@rule("CONV-CLIP-TRUNCATE-FP16", "CONV", TRUNC, ("CACC.D_CLIP_CFG.CLIP_TRUNCATE",),
      "cc_out_trunc applies to INT8/INT16 pipelines only")
def _clip_fp16(cfg, facts):
    if cfg.proc_precision == "fp16" and cfg.clip_truncate:
        return "cc_out_trunc applies to INT8/INT16 pipelines only"


@rule("CONV-CLIP-TRUNCATE-RANGE", "CONV", TRUNC, ("CACC.D_CLIP_CFG.CLIP_TRUNCATE",),
      "CLIP_TRUNCATE drops at most the 48-bit accumulator minus 32 bits")
def _clip_range(cfg, facts):
    if cfg.clip_truncate > 16:
        return f"CLIP_TRUNCATE {cfg.clip_truncate} drops more than the 48-bit accumulator minus 32 bits"


# -- feature crossing ------------------------------------------------------------------------------------------
ALLOWED = {frozenset(("image input", "channel post-extension")), frozenset(("multi-batch", "dilation"))}


@rule("CONV-FEATURE-CROSSING", "CONV", CROSSING,
      ("CDMA.D_DATAIN_FORMAT.DATAIN_FORMAT", "CSC.D_POST_Y_EXTENSION.Y_EXTENSION", "CDMA.D_BATCH_NUMBER.BATCHES",
       "CSC.D_DILATION_EXT.X_DILATION_EXT", "CSC.D_DILATION_EXT.Y_DILATION_EXT", "CSC.D_MISC_CFG.CONV_MODE"),
      "only the Y cells of the feature-crossing matrix combine (image + post-extension, multi-batch + dilation)")
def _crossing(cfg, facts):
    features = {"image input": cfg.image, "channel post-extension": cfg.post_y_extension > 1,
                "multi-batch": cfg.batches > 1, "dilation": cfg.dilation_x > 1 or cfg.dilation_y > 1,
                "Winograd": cfg.winograd}
    on = [name for name, active in features.items() if active]
    for i, first in enumerate(on):
        for second in on[i + 1:]:
            if frozenset((first, second)) not in ALLOWED:
                return f"{first} cannot be combined with {second}"


@rule("CONV-POST-EXTENSION-RESERVED", "CONV", "in-memory-data-formats: Weight Channel Post-extension",
      ("CSC.D_POST_Y_EXTENSION.Y_EXTENSION",), "post-extension is 1, 2 or 4 lines (Y_EXTENSION 3 is reserved)")
def _post_extension(cfg, facts):
    if cfg.post_y_extension > 4:
        return "Y_EXTENSION 3 is reserved: post-extension is 1, 2 or 4 lines"


# -- image input -------------------------------------------------------------------------------------------------
@rule("CONV-PIXEL-SETTINGS", "CONV", "in-memory-data-formats: Table 33 (pixel formats)",
      ("CDMA.D_DATAIN_FORMAT.PIXEL_FORMAT", "CDMA.D_DATAIN_SIZE_1.DATAIN_CHANNEL",
       "CDMA.D_PIXEL_OFFSET.PIXEL_X_OFFSET"),
      "the pixel format's channel count, precision and x offset (the offset range scaled to the memory atom)")
def _pixel_settings(cfg, facts):
    if not cfg.image:
        return None
    try:
        pixel.check_settings(pixel.pixel_format(cfg.pixel_format), cfg.channels, cfg.in_precision, cfg.pixel_x_offset,
                             facts.profile.memory_atomic_size)
    except ConfigurationError as exc:
        return f"{exc.message} ({exc.rule})"


@rule("CONV-PIXEL-Y-OFFSET", "CONV", IMAGE, ("CDMA.D_PIXEL_OFFSET.PIXEL_Y_OFFSET",),
      "pixel_y_offset is 0 for pitch linear input")
def _pixel_y_offset(cfg, facts):
    if cfg.image and cfg.pixel_mapping == "PITCH_LINEAR" and cfg.pixel_y_offset:
        return "PIXEL_Y_OFFSET must be 0 for pitch linear input"


@rule("CONV-PIXEL-MAPPING", "CONV", IMAGE, ("CDMA.D_DATAIN_FORMAT.PIXEL_MAPPING",),
      "only PITCH_LINEAR pixel mapping is defined")
def _pixel_mapping(cfg, facts):
    if cfg.image and cfg.pixel_mapping != "PITCH_LINEAR":
        return "only PITCH_LINEAR pixel mapping is defined"


@rule("CONV-POST-EXTENSION-CHANNELS", "CONV", "in-memory-data-formats: Weight Channel Post-extension for image input",
      ("CSC.D_POST_Y_EXTENSION.Y_EXTENSION", "CSC.D_WEIGHT_SIZE_EXT_1.WEIGHT_CHANNEL_EXT"),
      "P-line post-extension needs pre-extended channels <= MAC atomic C / P (32 and 16 for a 64-channel atom)")
def _post_extension_channels(cfg, facts):
    # the document gives 32 (2 lines) and 16 (4 lines) for nv_full's 64-channel atom; the P lines of one output
    # pixel share one MAC atom (nvdla/hw cmod NV_NVDLA_csc.cpp: "only one block operation in one channel
    # operation when post_y_extension>1"), so a smaller atom lowers both
    if cfg.image and cfg.post_y_extension > 1:
        limit = facts.profile.mac_atomic_c // cfg.post_y_extension
        if cfg.weight_channel_ext > limit:
            return (f"{cfg.post_y_extension}-line post-extension needs pre-extended channels <= {limit} "
                    f"(MAC atomic C {facts.profile.mac_atomic_c} / {cfg.post_y_extension}), got "
                    f"{cfg.weight_channel_ext}")


# -- sizes (direct and image modes) -------------------------------------------------------------------------------
def kernel_size(cfg) -> tuple[int, int]:
    """(R, S) of the original kernel as CSC sees it for direct and image modes."""
    if cfg.image:
        return cfg.weight_height_ext, cfg.weight_channel_ext // cfg.channels
    return cfg.weight_height_ext, cfg.weight_width_ext


def _not_winograd(cfg) -> bool:
    return not cfg.winograd


@rule("CONV-IMAGE-WEIGHT-CHANNELS", "CONV", f"{REGDEF}, CSC.WEIGHT_SIZE_EXT",
      ("CSC.D_WEIGHT_SIZE_EXT_1.WEIGHT_CHANNEL_EXT",), "image weights are pre-extended: WEIGHT_CHANNEL_EXT = C * S")
def _image_weight_channels(cfg, facts):
    if cfg.image and not cfg.winograd and cfg.weight_channel_ext % cfg.channels:
        return "image weights are pre-extended: WEIGHT_CHANNEL_EXT must be C * S"


@rule("CONV-IMAGE-WEIGHT-SIZE", "CONV", f"{REGDEF}, CSC.WEIGHT_SIZE_EXT",
      ("CSC.D_WEIGHT_SIZE_EXT_0.WEIGHT_WIDTH_EXT", "CSC.D_WEIGHT_SIZE_EXT_0.WEIGHT_HEIGHT_EXT",
       "CSC.D_WEIGHT_SIZE_EXT_1.WEIGHT_CHANNEL_EXT"), "image WEIGHT_SIZE_EXT (W, H, C) is (1, R, C*S)")
def _image_weight_size(cfg, facts):
    if not cfg.image or cfg.winograd or cfg.weight_channel_ext % cfg.channels:
        return None
    rows, cols = kernel_size(cfg)
    expect = (1, rows, cols * cfg.channels)
    got = (cfg.weight_width_ext, cfg.weight_height_ext, cfg.weight_channel_ext)
    if got != expect:
        return f"image WEIGHT_SIZE_EXT (W, H, C) must be (1, R, C*S) = {expect}, got {got}"


@rule("CONV-WEIGHT-CHANNELS", "CONV", f"{REGDEF}, CSC.WEIGHT_SIZE_EXT",
      ("CSC.D_WEIGHT_SIZE_EXT_1.WEIGHT_CHANNEL_EXT", "CDMA.D_DATAIN_SIZE_1.DATAIN_CHANNEL"),
      "direct convolution: WEIGHT_CHANNEL_EXT is the input channel count")
def _weight_channels(cfg, facts):
    if not cfg.image and not cfg.winograd and cfg.weight_channel_ext != cfg.channels:
        return f"WEIGHT_CHANNEL_EXT {cfg.weight_channel_ext} must be the input channels {cfg.channels}"


def kernel_bytes(cfg) -> int:
    """The bytes of one kernel's weights, R*S*C*BPE."""
    return cfg.weight_width_ext * cfg.weight_height_ext * cfg.weight_channel_ext * element_bytes(cfg.proc_precision)


@rule("CONV-BYTE-PER-KERNEL", "CONV", f"{REGDEF}, <CDMA|CSC>.WEIGHT_BYTES", ("CDMA.D_WEIGHT_SIZE_0.BYTE_PER_KERNEL",),
      "BYTE_PER_KERNEL + 1 is R*S*C*BPE")
def _byte_per_kernel(cfg, facts):
    per_kernel = kernel_bytes(cfg)
    if not cfg.winograd and cfg.byte_per_kernel != per_kernel:
        return f"BYTE_PER_KERNEL + 1 = {cfg.byte_per_kernel} must be R*S*C*BPE = {per_kernel}"


# The traces program R*S*C*BPE*K rounded up to the 128-byte data size alignment of Table 35.
@rule("CONV-WEIGHT-BYTES", "CONV", f"{REGDEF}, <CDMA|CSC>.WEIGHT_BYTES",
      ("CDMA.D_WEIGHT_BYTES.WEIGHT_BYTES", "CSC.D_WEIGHT_BYTES.WEIGHT_BYTES"),
      "WEIGHT_BYTES is R*S*C*BPE*K rounded up to 128 bytes")
def _weight_bytes(cfg, facts):
    per_kernel = kernel_bytes(cfg)
    total = -(-per_kernel * cfg.kernels // 128) * 128
    if not cfg.winograd and cfg.weight_bytes != total:
        return f"WEIGHT_BYTES {cfg.weight_bytes} must be R*S*C*BPE*K rounded up to 128 bytes = {total}"


@rule("CONV-WMB-BYTES", "CONV", "in-memory-data-formats: Sparse Compression option and nvdlav1 RTL "
      "NV_NVDLA_CDMA_wt.v assertion \"wmb bytes is not match the require size\"",
      ("CDMA.D_WMB_BYTES.WMB_BYTES", "CSC.D_WMB_BYTES.WMB_BYTES"),
      "WMB_BYTES is the weight mask (one bit per weight) rounded up to 128 bytes (compressed weights)")
def _wmb_bytes(cfg, facts):
    # nvdlav1's CDMA and CSC keep bits 27:7 (hardware_fields.json) and fetch that many 128-byte units; the RTL
    # asserts it equals ceil(BYTE_PER_KERNEL * K / BPE / 1024). A byte count such as 0xbd keeps 0x80: the C
    # model then waits for mask bits that never come.
    if cfg.weight_format != "compressed":
        return None
    bits = cfg.byte_per_kernel * cfg.kernels // element_bytes(cfg.proc_precision)
    need = -(-bits // 1024) * 128
    for name, value in (("CDMA", cfg.wmb_bytes), ("CSC", cfg.csc_wmb_bytes)):
        if value != need:
            return f"{name} WMB_BYTES {value} must be the {bits}-bit weight mask rounded up to 128 bytes = {need}"


for _suffix, _what, _fields, _source in (
        ("DATAIN-WIDTH", "input widths", {"CDMA.D_DATAIN_SIZE_0.DATAIN_WIDTH": "width",
                                          "CSC.D_DATAIN_SIZE_EXT_0.DATAIN_WIDTH_EXT": "csc_width_ext"},
         f"{REGDEF}, CSC.DATAIN_SIZE_EXT"),
        ("DATAIN-CHANNEL", "input channels", {"CDMA.D_DATAIN_SIZE_1.DATAIN_CHANNEL": "channels",
                                              "CSC.D_DATAIN_SIZE_EXT_1.DATAIN_CHANNEL_EXT": "csc_channel_ext"},
         f"{REGDEF}, CSC.DATAIN_SIZE_EXT"),
        ("X-STRIDE", "x strides", {"CDMA.D_CONV_STRIDE.CONV_X_STRIDE": "stride_x",
                                   "CSC.D_CONV_STRIDE_EXT.CONV_X_STRIDE_EXT": "csc_stride_x"},
         f"{REGDEF}, CSC.CONV_STRIDE_X/Y_EXT"),
        ("Y-STRIDE", "y strides", {"CDMA.D_CONV_STRIDE.CONV_Y_STRIDE": "stride_y",
                                   "CSC.D_CONV_STRIDE_EXT.CONV_Y_STRIDE_EXT": "csc_stride_y"},
         f"{REGDEF}, CSC.CONV_STRIDE_X/Y_EXT")):
    _mirror(_suffix, _what, _fields, _source, _not_winograd)
_mirror("DATAIN-HEIGHT", "input heights", {"CDMA.D_DATAIN_SIZE_0.DATAIN_HEIGHT": "height",
                                           "CSC.D_DATAIN_SIZE_EXT_0.DATAIN_HEIGHT_EXT": "csc_height_ext"},
        f"{REGDEF}, CSC.DATAIN_SIZE_EXT", lambda cfg: not cfg.winograd and not cfg.data_reuse)


@rule("CONV-RELEASE-SLICES", "CONV", GENERAL, ("CSC.D_RELEASE.RLS_SLICES", "CSC.D_DATAIN_SIZE_EXT_0.DATAIN_HEIGHT_EXT"),
      "RLS_SLICES never exceeds DATAIN_HEIGHT_EXT")
def _release(cfg, facts):
    if not cfg.winograd and cfg.rls_slices > cfg.csc_height_ext:
        return f"RLS_SLICES + 1 = {cfg.rls_slices} exceeds DATAIN_HEIGHT_EXT + 1 = {cfg.csc_height_ext}"


# -- padding (direct and image modes) ----------------------------------------------------------------------------
def _dilated(size: int, dilation: int) -> int:
    return (size - 1) * dilation + 1


def dilated_spans(cfg) -> tuple[int, int]:
    """(S', R'): the dilated kernel width and height."""
    rows, cols = kernel_size(cfg)
    return _dilated(cols, cfg.dilation_x), _dilated(rows, cfg.dilation_y)


def _pad_rule(name: str, attr: str, axis: int) -> None:
    @rule(f"CONV-{name.replace('_', '-')}", "CONV", GENERAL, (f"CDMA.D_ZERO_PADDING.{name}",),
          f"{name} is less than the (dilated) kernel {'width' if axis == 0 else 'height'}")
    def pad(cfg, facts):
        if cfg.winograd or (cfg.image and cfg.weight_channel_ext < cfg.channels):
            return None
        limit = dilated_spans(cfg)[axis]
        if getattr(cfg, attr) >= limit:
            return f"{name} {getattr(cfg, attr)} must be less than the (dilated) kernel size {limit}"


for _pad_name, _attr, _axis in (("PAD_LEFT", "pad_left", 0), ("PAD_RIGHT", "pad_right", 0),
                                ("PAD_TOP", "pad_top", 1), ("PAD_BOTTOM", "pad_bottom", 1)):
    _pad_rule(_pad_name, _attr, _axis)


@rule("CONV-OUT-WIDTH", "CONV", GENERAL, ("CSC.D_DATAOUT_SIZE_0.DATAOUT_WIDTH", "CDMA.D_ZERO_PADDING.PAD_RIGHT"),
      "(Output_Width - 1) * stride_x + S' == PL + Input_Width + PR")
def _out_width(cfg, facts):
    if cfg.winograd or (cfg.image and cfg.weight_channel_ext < cfg.channels):
        return None
    span = dilated_spans(cfg)[0]
    width = cfg.pad_left + cfg.csc_width_ext + cfg.pad_right
    if (cfg.csc_out_width - 1) * cfg.csc_stride_x + span != width:
        return (f"(Output_Width - 1) * stride_x + S' = {(cfg.csc_out_width - 1) * cfg.csc_stride_x + span} must "
                f"equal PL + Input_Width + PR = {width}")


@rule("CONV-OUT-HEIGHT", "CONV", GENERAL, ("CSC.D_DATAOUT_SIZE_0.DATAOUT_HEIGHT", "CDMA.D_ZERO_PADDING.PAD_BOTTOM"),
      "(Output_Height - 1) * stride_y + R' == PT + Input_Height + PB")
def _out_height(cfg, facts):
    if cfg.winograd:
        return None
    span = dilated_spans(cfg)[1]
    height = cfg.pad_top + cfg.csc_height_ext + cfg.pad_bottom
    if (cfg.csc_out_height - 1) * cfg.csc_stride_y + span != height:
        return (f"(Output_Height - 1) * stride_y + R' = {(cfg.csc_out_height - 1) * cfg.csc_stride_y + span} "
                f"must equal PT + Input_Height + PB = {height}")


_mirror("PAD-VALUE", "padding values (feature input)", {"CDMA.D_ZERO_PADDING_VALUE.PAD_VALUE": "pad_value",
                                                        "CSC.D_ZERO_PADDING_VALUE.PAD_VALUE": "csc_pad_value"},
        f"{REGDEF}, <CDMA|CSC>.ZERO_PADDING_VALUE", lambda cfg: not cfg.winograd and not cfg.image)


# -- Winograd ----------------------------------------------------------------------------------------------------
def _winograd_rule(suffix: str, source: str, fields: tuple, text: str):
    def register(check):
        return rule(f"CONV-WINOGRAD-{suffix}", "CONV", source, fields, text)(
            lambda cfg, facts: check(cfg) if cfg.winograd else None)
    return register


@_winograd_rule("FEATURE-INPUT", CROSSING, ("CDMA.D_DATAIN_FORMAT.DATAIN_FORMAT",), "Winograd takes feature input only")
def _winograd_feature(cfg):
    if cfg.image:
        return "Winograd takes feature input only"


@_winograd_rule("WEIGHT-SIZE", f"{REGDEF}, CSC.WEIGHT_SIZE_EXT",
                ("CSC.D_WEIGHT_SIZE_EXT_0.WEIGHT_WIDTH_EXT", "CSC.D_WEIGHT_SIZE_EXT_0.WEIGHT_HEIGHT_EXT"),
                "Winograd weights are 4x4 after the pre-transform")
def _winograd_weight(cfg):
    ext = (cfg.weight_width_ext, cfg.weight_height_ext)
    if ext != (4, 4):
        return f"Winograd weights are 4x4 after the pre-transform, WEIGHT_SIZE_EXT gives {ext}"


@_winograd_rule("OUTPUT-SIZE", WINOGRAD, ("CSC.D_DATAOUT_SIZE_0.DATAOUT_WIDTH", "CSC.D_DATAOUT_SIZE_0.DATAOUT_HEIGHT"),
                "Winograd output width and height are divisible by 4 and at least 8")
def _winograd_output(cfg):
    for name, size in (("DATAOUT_WIDTH", cfg.csc_out_width), ("DATAOUT_HEIGHT", cfg.csc_out_height)):
        if size % 4 or size < 8:
            return f"Winograd output {name} + 1 = {size} must be divisible by 4 and >= 8"


@_winograd_rule("DATAIN-SIZE", f"{REGDEF}, CSC.DATAIN_SIZE_EXT",
                ("CSC.D_DATAIN_SIZE_EXT_0.DATAIN_WIDTH_EXT", "CSC.D_DATAIN_SIZE_EXT_0.DATAIN_HEIGHT_EXT"),
                "Winograd DATAIN_SIZE_EXT is the input plus padding divided by the strides, rounded up")
def _winograd_datain(cfg):
    sx, sy = cfg.stride_x, cfg.stride_y
    expect = (-(-(cfg.width + cfg.pad_left + cfg.pad_right) // sx), -(-(cfg.height + cfg.pad_top + cfg.pad_bottom)
                                                                      // sy))
    got = (cfg.csc_width_ext, cfg.csc_height_ext)
    if got != expect:
        return f"Winograd DATAIN_SIZE_EXT (W, H) must be (ceil((W+PL+PR)/sx), ceil((H+PT+PB)/sy)) = {expect}, got {got}"


def _aligned_channels(cfg) -> int:
    per_atom = 32 // element_bytes(cfg.proc_precision)
    return -(-cfg.channels // per_atom) * per_atom


@_winograd_rule("WEIGHT-CHANNELS", f"{REGDEF}, CSC.WEIGHT_SIZE_EXT", ("CSC.D_WEIGHT_SIZE_EXT_1.WEIGHT_CHANNEL_EXT",),
                "Winograd WEIGHT_CHANNEL_EXT is C' * sx * sy (C' = C rounded up to 32 bytes)")
def _winograd_weight_channels(cfg):
    need = _aligned_channels(cfg) * cfg.stride_x * cfg.stride_y
    if cfg.weight_channel_ext != need:
        return (f"Winograd WEIGHT_CHANNEL_EXT must be C' * sx * sy = {need} (C' = C rounded up to 32 bytes), got "
                f"{cfg.weight_channel_ext}")


@_winograd_rule("DATAIN-CHANNELS", f"{REGDEF}, CSC.DATAIN_SIZE_EXT", ("CSC.D_DATAIN_SIZE_EXT_1.DATAIN_CHANNEL_EXT",),
                "Winograd DATAIN_CHANNEL_EXT is C * sx * sy")
def _winograd_datain_channels(cfg):
    sx, sy = cfg.stride_x, cfg.stride_y
    if cfg.csc_channel_ext not in (cfg.channels * sx * sy, _aligned_channels(cfg) * sx * sy):
        return f"Winograd DATAIN_CHANNEL_EXT must be C * sx * sy = {cfg.channels * sx * sy}, got {cfg.csc_channel_ext}"


@_winograd_rule("CSC-STRIDES", f"{REGDEF}, CSC.CONV_STRIDE_X/Y_EXT",
                ("CSC.D_CONV_STRIDE_EXT.CONV_X_STRIDE_EXT", "CSC.D_CONV_STRIDE_EXT.CONV_Y_STRIDE_EXT"),
                "Winograd CSC strides are 1")
def _winograd_strides(cfg):
    if (cfg.csc_stride_x, cfg.csc_stride_y) != (1, 1):
        return "Winograd CSC strides must be 1"


@_winograd_rule("OUTPUT", f"{REGDEF}, CACC.D_DATAOUT_SIZE_0",
                ("CSC.D_DATAOUT_SIZE_0.DATAOUT_WIDTH", "CSC.D_DATAOUT_SIZE_0.DATAOUT_HEIGHT"),
                "Winograd output is DATAIN_SIZE_EXT - 4")
def _winograd_out(cfg):
    if (cfg.csc_out_width, cfg.csc_out_height) != (cfg.csc_width_ext - 4, cfg.csc_height_ext - 4):
        return (f"Winograd output must be DATAIN_SIZE_EXT - 4 = {(cfg.csc_width_ext - 4, cfg.csc_height_ext - 4)}, "
                f"got {(cfg.csc_out_width, cfg.csc_out_height)}")


@_winograd_rule("PRA-TRUNCATE", "precision-preservation: pra_trunc", ("CSC.D_PRA_CFG.PRA_TRUNCATE",),
                "pra_trunc is for INT8/INT16 Winograd only")
def _winograd_pra(cfg):
    if cfg.pra_truncate and cfg.proc_precision == "fp16":
        return "pra_trunc is for INT8/INT16 Winograd only"


# -- CBUF banks and entries --------------------------------------------------------------------------------------
def entry_bytes(profile) -> int:
    """One CBUF entry: 128 bytes in the nvdlav1 C model (CBUF_ENTRY_SIZE), the bank width in master."""
    return 128 if profile.layout == "nvdlav1" else profile.cbuf_bank_width


def dc_entries_per_slice(profile, width: int, channels: int, precision: str) -> int:
    """CBUF entries of one input line (nvdla/hw cmod csc: full entries, then 1/2 or 1/4 packed atoms)."""
    atom = profile.memory_atomic_size
    per_entry = entry_bytes(profile) // atom
    atoms = -(-channels * element_bytes(precision) // atom)
    full, cripple = divmod(atoms, per_entry)
    entries = full * width
    if cripple * 2 > per_entry:
        entries += width
    elif cripple * 2 == per_entry:
        entries += (width + 1) // 2
    elif cripple:
        entries += (width + 3) // 4
    return entries


@rule("CONV-BANKS", "CONV", GENERAL, ("CDMA.D_BANK.DATA_BANK", "CDMA.D_BANK.WEIGHT_BANK"),
      "DATA_BANK + WEIGHT_BANK fit the CBUF's banks (one fewer with compressed weights: bank 15 holds the WMB)")
def _banks(cfg, facts):
    banks = facts.profile.cbuf_bank_number - (1 if cfg.weight_format == "compressed" else 0)
    if cfg.data_bank + cfg.weight_bank > banks:
        return (f"DATA_BANK + WEIGHT_BANK = {cfg.data_bank + cfg.weight_bank} banks exceed the {banks} available"
                + (" (bank 15 holds the WMB)" if cfg.weight_format == "compressed" else ""))


_mirror("ENTRIES", "entries per slice", {"CDMA.D_ENTRY_PER_SLICE.ENTRIES": "entries",
                                         "CSC.D_ENTRY_PER_SLICE.ENTRIES": "csc_entries"}, REGDEF)


@rule("CONV-ENTRY-PER-SLICE", "CONV", f"{REGDEF}, <CDMA|CSC>.D_ENTRY_PER_SLICE",
      ("CDMA.D_ENTRY_PER_SLICE.ENTRIES", "CSC.D_ENTRY_PER_SLICE.ENTRIES"),
      "ENTRY_PER_SLICE + 1 is the CBUF entries of one input line (direct convolution)")
def _entry_per_slice(cfg, facts):
    if cfg.image or cfg.winograd:
        return None
    need = dc_entries_per_slice(facts.profile, cfg.width, cfg.channels, cfg.in_precision)
    if cfg.entries != need:
        return (f"ENTRY_PER_SLICE + 1 = {cfg.entries}, a {cfg.width}-wide line of {cfg.channels} "
                f"{cfg.in_precision} channels takes {need} entries")


def image_entries_per_slice(profile, pad_left: int, width: int, pad_right: int, channels: int,
                            precision: str) -> int:
    """CBUF entries of one image line as CDMA stores it: the padding pixels too (nvdla/hw
    NV_NVDLA_CDMA_IMG_pack.v writes pad_left + width + pad_right converted pixels per line)."""
    return -(-(pad_left + width + pad_right) * channels * element_bytes(precision) // entry_bytes(profile))


@rule("CONV-IMAGE-ENTRY-PER-SLICE", "CONV", f"{REGDEF}, <CDMA|CSC>.D_ENTRY_PER_SLICE",
      ("CDMA.D_ENTRY_PER_SLICE.ENTRIES", "CSC.D_ENTRY_PER_SLICE.ENTRIES", "CDMA.D_ZERO_PADDING.PAD_LEFT",
       "CDMA.D_ZERO_PADDING.PAD_RIGHT"),
      "ENTRY_PER_SLICE + 1 is exactly an image line with its left and right padding (image input)")
def _image_entry_per_slice(cfg, facts):
    # NVIDIA's 11 image traces (unpadded) set exactly this many. On the nv_small RTL, image layers whose count
    # left the padding out gave other outputs (27 of 152 with more than one atom of left padding), none with it.
    # One entry more agreed on the nv_small RTL (171 layers) but not on nvdlav1's C model (14 of 72 generated
    # nv_full image layers disagree; both count lines by the register, IMG_sg.v and cdma.cpp:2144): exact
    # until nvdlav1's RTL says more.
    if not cfg.image:
        return None
    need = image_entries_per_slice(facts.profile, cfg.pad_left, cfg.width, cfg.pad_right, cfg.channels,
                                   cfg.proc_precision)
    if cfg.entries != need:
        return (f"ENTRY_PER_SLICE + 1 = {cfg.entries}, an image line of {cfg.pad_left} + {cfg.width} + "
                f"{cfg.pad_right} pixels of {cfg.channels} {cfg.proc_precision} channels takes {need} entries")


def data_banks_needed(cfg, profile) -> int:
    """The CBUF banks the layer's input fills from bank 0: entries per slice x lines x batches."""
    bank_entries = profile.cbuf_bank_bytes // entry_bytes(profile)
    return -(-cfg.entries * cfg.csc_height_ext * cfg.batches // bank_entries)


@rule("CONV-DATA-BANKS", "CONV", "programming-guide: Convolution pipeline programming/Features (banks_for_data)",
      ("CDMA.D_BANK.DATA_BANK",), "DATA_BANK holds the input's entries (entries x lines x batches)")
def _data_banks(cfg, facts):
    need = data_banks_needed(cfg, facts.profile)
    if need > cfg.data_bank:
        return (f"the input needs {need} data banks ({cfg.entries} entries x {cfg.csc_height_ext} lines x "
                f"{cfg.batches} batches), DATA_BANK gives {cfg.data_bank}")


def first_kernel_group(cfg, profile) -> int:
    """Kernels in the layer's first kernel group: atomic K (halved for two-byte weights), or all if fewer."""
    return min(kernels_per_group(cfg.proc_precision, profile.mac_atomic_k), cfg.kernels)


@rule("CONV-WEIGHT-BANKS", "CONV", GENERAL, ("CDMA.D_BANK.WEIGHT_BANK",),
      "WEIGHT_BANK holds one kernel group plus 128 bytes (uncompressed weights)")
def _weight_banks(cfg, facts):
    profile = facts.profile
    group_bytes = cfg.byte_per_kernel * first_kernel_group(cfg, profile)
    if cfg.weight_format == "uncompressed" and group_bytes + 128 > cfg.weight_bank * profile.cbuf_bank_bytes:
        return f"WEIGHT_BANK {cfg.weight_bank} cannot hold one kernel group ({group_bytes} bytes) plus 128 bytes"


@rule("CONV-KEPT-WEIGHT-BANKS", "CONV", f"{REGDEF} (SKIP_WEIGHT_RLS), as nvdla/hw's CSC_sg releases weights",
      ("CDMA.D_MISC_CFG.SKIP_WEIGHT_RLS", "CDMA.D_WEIGHT_BYTES.WEIGHT_BYTES", "CDMA.D_BANK.WEIGHT_BANK"),
      "a layer that keeps its weights (SKIP_WEIGHT_RLS) holds all of them in its weight banks")
def _kept_weight_banks(cfg, facts):
    # NV_NVDLA_CSC_sg.v (nvdlav1 :8346-8354): wt_release = pkg_adv & ~reg2dp_skip_weight_rls & pkg_group_end_w,
    # so CSC frees no weights during such a layer and CDMA, streaming WEIGHT_BYTES through WEIGHT_BANK, waits for
    # room forever: NVIDIA's C model stops there as the RTL would (the oracle campaign's gen_conv_s2611_531 on
    # nv_full: 422,400 weight bytes in 393,216 bytes of banks)
    room = cfg.weight_bank * facts.profile.cbuf_bank_bytes
    if cfg.skip_weight_rls and cfg.weight_bytes > room:
        return (f"SKIP_WEIGHT_RLS keeps all {cfg.weight_bytes} weight bytes, WEIGHT_BANK + 1 = {cfg.weight_bank} "
                f"banks hold {room}: CSC releases no weights during the layer, so CDMA cannot fetch the rest")


# -- what the layers before left in the CBUF (facts.cbuf: golden/units/conv/cbuf.py; None for a layer run alone) --
REUSE = f"{GENERAL} (data re-use) and {REGDEF} (WEIGHT/DATA_REUSE, SKIP_RELEASE)"


def _reusing_data(cfg, facts) -> bool:
    return cfg.data_reuse and facts.cbuf is not None and not cfg.image and not cfg.winograd


@rule("CONV-DATA-REUSE-KEPT", "CONV", REUSE,
      ("CDMA.D_MISC_CFG.DATA_REUSE", "CDMA.D_MISC_CFG.SKIP_DATA_RLS", "CSC.D_RELEASE.RLS_SLICES"),
      "DATA_REUSE needs input slices the previous layer left unreleased")
def _data_reuse_kept(cfg, facts):
    if _reusing_data(cfg, facts) and not facts.cbuf.slices:
        return "DATA_REUSE, but the previous layer released all its input slices (or there was none)"


@rule("CONV-DATA-REUSE-SAME", "CONV", REUSE,
      ("CDMA.D_MISC_CFG.DATA_REUSE", "CDMA.D_MISC_CFG.CONV_MODE", "CDMA.D_BANK.DATA_BANK",
       "CDMA.D_MISC_CFG.PROC_PRECISION", "CDMA.D_DATAIN_SIZE_1.DATAIN_CHANNEL", "CDMA.D_DATAIN_SIZE_0.DATAIN_WIDTH"),
      "DATA_REUSE keeps the previous layer's conv mode, DATA_BANK, precision, channels and width")
def _data_reuse_same(cfg, facts):
    if _reusing_data(cfg, facts) and facts.cbuf.slices and facts.cbuf.data_key != data_key(cfg):
        names = ("conv mode", "DATA_BANK", "precision", "channels", "width")
        changed = ", ".join(f"{name} {was} -> {now}" for name, was, now in
                            zip(names, facts.cbuf.data_key, data_key(cfg), strict=True) if was != now)
        return f"DATA_REUSE, but the layer changes what the kept slices were stored with: {changed}"


@rule("CONV-DATA-REUSE-HEIGHT", "CONV", REUSE,
      ("CSC.D_DATAIN_SIZE_EXT_0.DATAIN_HEIGHT_EXT", "CDMA.D_DATAIN_SIZE_0.DATAIN_HEIGHT"),
      "DATAIN_HEIGHT_EXT + 1 <= the kept slices, or the kept slices plus CDMA's DATAIN_HEIGHT + 1 fetched")
def _data_reuse_height(cfg, facts):
    if not _reusing_data(cfg, facts) or not facts.cbuf.slices or facts.cbuf.data_key != data_key(cfg):
        return None
    kept = facts.cbuf.slices
    if cfg.csc_height_ext > kept + cfg.height:
        return (f"DATAIN_HEIGHT_EXT + 1 = {cfg.csc_height_ext}, but the CBUF holds {kept} kept slices and CDMA "
                f"fetches {cfg.height}")


@rule("CONV-WEIGHT-REUSE-KEPT", "CONV", REUSE,
      ("CDMA.D_MISC_CFG.WEIGHT_REUSE", "CDMA.D_MISC_CFG.SKIP_WEIGHT_RLS", "CSC.D_WEIGHT_SIZE_EXT_0.WEIGHT_WIDTH_EXT",
       "CSC.D_WEIGHT_SIZE_EXT_0.WEIGHT_HEIGHT_EXT", "CSC.D_WEIGHT_SIZE_EXT_1.WEIGHT_CHANNEL_EXT",
       "CSC.D_WEIGHT_SIZE_EXT_1.WEIGHT_KERNEL"),
      "WEIGHT_REUSE needs the same weights kept by the previous layer (SKIP_WEIGHT_RLS)")
def _weight_reuse_kept(cfg, facts):
    if not cfg.weight_reuse or facts.cbuf is None or cfg.image or cfg.winograd:
        return None
    if facts.cbuf.weight_key is None:
        return "WEIGHT_REUSE, but the previous layer released its weights (SKIP_WEIGHT_RLS=0) or there were none"
    if facts.cbuf.weight_key != weight_key(cfg):
        return (f"WEIGHT_REUSE, but the kept weights are (K, C, R, S, precision) {facts.cbuf.weight_key}, "
                f"this layer's {weight_key(cfg)}")


# NVIDIA's nv_small RTL, not the guide: CDMA_wt writes all WEIGHT_BYTES into the weight banks, its write index
# running on from layer to layer, while CSC_wl moves its read start on only by the entries it read, fewer when
# WEIGHT_BYTES holds padding; a later layer on the same banks reads the padding as weights (a generated 2-layer
# trace wrote 0 for every output). A WEIGHT_BANK change sends both through their pending state, which restarts
# both pointers (CSC_sg need_pending, CDMA_wt clear_all).
@rule("CONV-WEIGHT-RING", "CONV", f"{REGDEF} (WEIGHT_BANK, SKIP_RELEASE), as nvdla/hw's CDMA_wt and CSC_wl keep "
      "the CBUF weight ring",
      ("CDMA.D_BANK.WEIGHT_BANK", "CDMA.D_WEIGHT_BYTES.WEIGHT_BYTES", "CDMA.D_MISC_CFG.WEIGHT_REUSE"),
      "after a layer that released weights with padding in WEIGHT_BYTES, the next one that fetches weights "
      "takes another WEIGHT_BANK")
def _weight_ring(cfg, facts):
    if facts.cbuf is None or cfg.weight_reuse or facts.cbuf.ring_bank != cfg.weight_bank:
        return None
    return (f"WEIGHT_BANK + 1 = {cfg.weight_bank} again after a layer whose WEIGHT_BYTES held padding: CDMA's and "
            "CSC's weight pointers stay apart, the layer would read that padding as weights")
