"""Limitation checks of the convolution pipeline, run before any data is read.

Each violated rule raises ConfigurationError (or ProfileFeatureError) naming the rule's document and
section and the register fields involved. Sources: programming guide "Convolution pipeline programming"
(Register definition) and "Limitation" (Data Format, Convolution/General, Image, Winograd, Multi-batch,
supported feature crossing), in-memory-data-formats Table 29 (precision conversion), Table 33 (pixel
formats), Table 34 (weight formats and options) and Table 35 (alignment).
"""

from __future__ import annotations

from golden import rules
from golden.config import Profile
from golden.errors import ConfigurationError
from golden.formats import pixel
from golden.units import dma_rules  # noqa: F401  (registers the CDMA reads' rules)
from golden.units.conv.config import ConvConfig

GENERAL = "programming-guide: Limitation/Convolution/General"
REGDEF = "programming-guide: Convolution pipeline programming/Register definition"
TABLE29 = "in-memory-data-formats: Table 29 (precision conversion for convolutional layer)"
CROSSING = "programming-guide: Limitation/Convolution, supported feature crossing"
WINOGRAD = "programming-guide: Limitation/Convolution/Winograd"
IMAGE = "programming-guide: Limitation/Convolution/Image"
BATCH = "programming-guide: Limitation/Convolution/Multi-batch"
BYTES = {"int8": 1, "int16": 2, "fp16": 2}
FP16_PIXELS = ("T_R16_F", "T_A16B16G16R16_F", "T_A16Y16U16V16_F")


def _fail(message: str, fields: tuple[str, ...], rule: str):
    raise ConfigurationError(message, fields=fields, rule=rule)


def _same(values: dict[str, object], what: str, rule: str = REGDEF) -> None:
    if len(set(values.values())) > 1:
        shown = ", ".join(f"{k}={v}" for k, v in values.items())
        _fail(f"{what} differ between pipeline stages: {shown}", tuple(values), rule)


def check(profile: Profile, cfg: ConvConfig) -> None:
    check_stages(cfg)
    check_profile(profile, cfg)
    check_precision(cfg)
    check_crossing(cfg)
    if cfg.image:
        check_image(cfg)
    check_sizes(cfg)
    check_padding(cfg)
    if cfg.winograd:
        check_winograd(cfg)
    check_buffer(profile, cfg)
    check_alignment(profile, cfg)


def check_stages(cfg: ConvConfig) -> None:
    _same({"CDMA.D_MISC_CFG.CONV_MODE": cfg.conv_mode, "CSC.D_MISC_CFG.CONV_MODE": cfg.csc_conv_mode,
           "CMAC_A.D_MISC_CFG.CONV_MODE": cfg.cmac_a[0], "CMAC_B.D_MISC_CFG.CONV_MODE": cfg.cmac_b[0],
           "CACC.D_MISC_CFG.CONV_MODE": cfg.cacc_conv_mode}, "convolution modes")
    _same({"CDMA.D_MISC_CFG.PROC_PRECISION": cfg.proc_precision,
           "CSC.D_MISC_CFG.PROC_PRECISION": cfg.csc_proc_precision,
           "CMAC_A.D_MISC_CFG.PROC_PRECISION": cfg.cmac_a[1], "CMAC_B.D_MISC_CFG.PROC_PRECISION": cfg.cmac_b[1],
           "CACC.D_MISC_CFG.PROC_PRECISION": cfg.cacc_precision}, "processing precisions")
    _same({"CDMA.D_MISC_CFG.IN_PRECISION": cfg.in_precision, "CSC.D_MISC_CFG.IN_PRECISION": cfg.csc_in_precision},
          "input precisions")
    _same({"CDMA.D_DATAIN_FORMAT.DATAIN_FORMAT": cfg.datain_format,
           "CSC.D_DATAIN_FORMAT.DATAIN_FORMAT": cfg.csc_datain_format}, "input formats")
    _same({"CDMA.D_BATCH_NUMBER.BATCHES": cfg.batches, "CSC.D_BATCH_NUMBER.BATCHES": cfg.csc_batches,
           "CACC.D_BATCH_NUMBER.BATCHES": cfg.cacc_batches}, "batch numbers")
    _same({"CDMA.D_WEIGHT_FORMAT.WEIGHT_FORMAT": cfg.weight_format,
           "CSC.D_WEIGHT_FORMAT.WEIGHT_FORMAT": cfg.csc_weight_format}, "weight formats")
    _same({"CDMA.D_WEIGHT_SIZE_1.WEIGHT_KERNEL": cfg.kernels, "CSC.D_WEIGHT_SIZE_EXT_1.WEIGHT_KERNEL": cfg.csc_kernels,
           "CSC.D_DATAOUT_SIZE_1.DATAOUT_CHANNEL": cfg.csc_out_channel,
           "CACC.D_DATAOUT_SIZE_1.DATAOUT_CHANNEL": cfg.out_channel}, "kernel / output channel counts")
    _same({"CDMA.D_WEIGHT_BYTES.WEIGHT_BYTES": cfg.weight_bytes, "CSC.D_WEIGHT_BYTES.WEIGHT_BYTES":
           cfg.csc_weight_bytes}, "weight byte counts")
    _same({"CDMA.D_BANK.DATA_BANK": cfg.data_bank, "CSC.D_BANK.DATA_BANK": cfg.csc_data_bank}, "data banks")
    _same({"CDMA.D_BANK.WEIGHT_BANK": cfg.weight_bank, "CSC.D_BANK.WEIGHT_BANK": cfg.csc_weight_bank},
          "weight banks")
    _same({"CSC.D_DATAOUT_SIZE_0.DATAOUT_WIDTH": cfg.csc_out_width,
           "CACC.D_DATAOUT_SIZE_0.DATAOUT_WIDTH": cfg.out_width}, "output widths")
    _same({"CSC.D_DATAOUT_SIZE_0.DATAOUT_HEIGHT": cfg.csc_out_height,
           "CACC.D_DATAOUT_SIZE_0.DATAOUT_HEIGHT": cfg.out_height}, "output heights")
    _same({"CDMA.D_ZERO_PADDING.PAD_LEFT": cfg.pad_left, "CSC.D_ZERO_PADDING.PAD_LEFT": cfg.csc_pad_left},
          "left paddings")
    _same({"CDMA.D_ZERO_PADDING.PAD_TOP": cfg.pad_top, "CSC.D_ZERO_PADDING.PAD_TOP": cfg.csc_pad_top},
          "top paddings")
    if cfg.atomics != cfg.csc_out_width * cfg.csc_out_height:
        _fail(f"D_ATOMICS + 1 = {cfg.atomics} must be output width * height = "
              f"{cfg.csc_out_width * cfg.csc_out_height}", ("CSC.D_ATOMICS.ATOMICS", "CSC.D_DATAOUT_SIZE_0"),
              f"{REGDEF}, CSC.D_ATOMICS")


def check_profile(profile: Profile, cfg: ConvConfig) -> None:
    profile.require_precision(cfg.proc_precision, "the convolution layer",
                              fields=("CDMA.D_MISC_CFG.PROC_PRECISION",))
    if cfg.winograd:
        profile.require("WINOGRAD", "Winograd convolution", fields=("CSC.D_MISC_CFG.CONV_MODE",))
    if cfg.batches > 1:
        profile.require("BATCH", "multi-batch convolution", fields=("CDMA.D_BATCH_NUMBER.BATCHES",))
        if profile.max_batch_size and cfg.batches > profile.max_batch_size:
            _fail(f"{cfg.batches} batches exceed MAX_BATCH_SIZE {profile.max_batch_size}",
                  ("CDMA.D_BATCH_NUMBER.BATCHES",), BATCH)
    if cfg.weight_format == "compressed":
        profile.require("WEIGHT_COMPRESSION", "compressed weights", fields=("CDMA.D_WEIGHT_FORMAT.WEIGHT_FORMAT",))
    for ram, name in ((cfg.data_ram, "CDMA.D_DAIN_RAM_TYPE.DATAIN_RAM_TYPE"),
                      (cfg.weight_ram, "CDMA.D_WEIGHT_RAM_TYPE.WEIGHT_RAM_TYPE")):
        if ram == "sec":
            profile.require("SECONDARY_MEMIF", "reading from CV-SRAM (CVIF)", fields=(name,))


def check_precision(cfg: ConvConfig) -> None:
    fields = ("CDMA.D_MISC_CFG.IN_PRECISION", "CDMA.D_MISC_CFG.PROC_PRECISION")
    if not cfg.image and cfg.in_precision != cfg.proc_precision:
        _fail(f"{cfg.in_precision} feature data with {cfg.proc_precision} processing is an invalid case "
              "(no precision conversion for feature input)", fields, TABLE29)
    if cfg.image and cfg.pixel_format in FP16_PIXELS and cfg.proc_precision != "fp16":
        _fail(f"fp16 image input ({cfg.pixel_format}) with {cfg.proc_precision} output is an invalid case",
              (*fields, "CDMA.D_DATAIN_FORMAT.PIXEL_FORMAT"), TABLE29)
    if cfg.proc_precision == "fp16" and cfg.clip_truncate:
        _fail("cc_out_trunc applies to INT8/INT16 pipelines only", ("CACC.D_CLIP_CFG.CLIP_TRUNCATE",),
              "precision-preservation: cc_out_trunc")
    if cfg.clip_truncate > 16:
        _fail(f"CLIP_TRUNCATE {cfg.clip_truncate} drops more than the 48-bit accumulator minus 32 bits",
              ("CACC.D_CLIP_CFG.CLIP_TRUNCATE",), "precision-preservation: cc_out_trunc")


def check_crossing(cfg: ConvConfig) -> None:
    features = {
        "image input": cfg.image,
        "channel post-extension": cfg.post_y_extension > 1,
        "multi-batch": cfg.batches > 1,
        "dilation": cfg.dilation_x > 1 or cfg.dilation_y > 1,
        "Winograd": cfg.winograd,
    }
    allowed = {frozenset(("image input", "channel post-extension")), frozenset(("multi-batch", "dilation"))}
    on = [name for name, active in features.items() if active]
    for i, first in enumerate(on):
        for second in on[i + 1:]:
            if frozenset((first, second)) not in allowed:
                _fail(f"{first} cannot be combined with {second}",
                      ("CDMA.D_DATAIN_FORMAT", "CSC.D_POST_Y_EXTENSION", "CDMA.D_BATCH_NUMBER",
                       "CSC.D_DILATION_EXT", "CSC.D_MISC_CFG.CONV_MODE"), CROSSING)
    if cfg.post_y_extension > 4:
        _fail("Y_EXTENSION 3 is reserved: post-extension is 1, 2 or 4 lines",
              ("CSC.D_POST_Y_EXTENSION.Y_EXTENSION",), "in-memory-data-formats: Weight Channel Post-extension")


def check_image(cfg: ConvConfig) -> None:
    fmt = pixel.pixel_format(cfg.pixel_format)
    pixel.check_settings(fmt, cfg.channels, cfg.in_precision, cfg.pixel_x_offset)
    if cfg.pixel_mapping == "PITCH_LINEAR" and cfg.pixel_y_offset:
        _fail("PIXEL_Y_OFFSET must be 0 for pitch linear input", ("CDMA.D_PIXEL_OFFSET.PIXEL_Y_OFFSET",), IMAGE)
    if cfg.pixel_mapping != "PITCH_LINEAR":
        _fail("only PITCH_LINEAR pixel mapping is defined", ("CDMA.D_DATAIN_FORMAT.PIXEL_MAPPING",), IMAGE)
    if cfg.post_y_extension > 1:
        limit = 32 if cfg.post_y_extension == 2 else 16
        if cfg.weight_channel_ext > limit:
            _fail(f"{cfg.post_y_extension}-line post-extension needs pre-extended channels <= {limit}, got "
                  f"{cfg.weight_channel_ext}", ("CSC.D_POST_Y_EXTENSION.Y_EXTENSION",
                                                "CSC.D_WEIGHT_SIZE_EXT_1.WEIGHT_CHANNEL_EXT"),
                  "in-memory-data-formats: Weight Channel Post-extension for image input")


def _dilated(size: int, dilation: int) -> int:
    return (size - 1) * dilation + 1


def kernel_size(cfg: ConvConfig) -> tuple[int, int]:
    """(R, S) of the original kernel as CSC sees it for direct and image modes."""
    if cfg.image:
        return cfg.weight_height_ext, cfg.weight_channel_ext // cfg.channels
    return cfg.weight_height_ext, cfg.weight_width_ext


def check_sizes(cfg: ConvConfig) -> None:
    bpe = BYTES[cfg.proc_precision]
    if cfg.winograd:
        return
    rows, cols = kernel_size(cfg)
    if cfg.image:
        expect_weight = (1, rows, cols * cfg.channels)
        if cfg.weight_channel_ext % cfg.channels:
            _fail("image weights are pre-extended: WEIGHT_CHANNEL_EXT must be C * S",
                  ("CSC.D_WEIGHT_SIZE_EXT_1.WEIGHT_CHANNEL_EXT",), f"{REGDEF}, CSC.WEIGHT_SIZE_EXT")
        got_weight = (cfg.weight_width_ext, cfg.weight_height_ext, cfg.weight_channel_ext)
        if got_weight != expect_weight:
            _fail(f"image WEIGHT_SIZE_EXT (W, H, C) must be (1, R, C*S) = {expect_weight}, got {got_weight}",
                  ("CSC.D_WEIGHT_SIZE_EXT_0", "CSC.D_WEIGHT_SIZE_EXT_1"), f"{REGDEF}, CSC.WEIGHT_SIZE_EXT")
    elif cfg.weight_channel_ext != cfg.channels:
        _fail(f"WEIGHT_CHANNEL_EXT {cfg.weight_channel_ext} must be the input channels {cfg.channels}",
              ("CSC.D_WEIGHT_SIZE_EXT_1.WEIGHT_CHANNEL_EXT", "CDMA.D_DATAIN_SIZE_1.DATAIN_CHANNEL"),
              f"{REGDEF}, CSC.WEIGHT_SIZE_EXT")
    per_kernel = cfg.weight_width_ext * cfg.weight_height_ext * cfg.weight_channel_ext * bpe
    if cfg.byte_per_kernel != per_kernel:
        _fail(f"BYTE_PER_KERNEL + 1 = {cfg.byte_per_kernel} must be R*S*C*BPE = {per_kernel}",
              ("CDMA.D_WEIGHT_SIZE_0.BYTE_PER_KERNEL",), f"{REGDEF}, <CDMA|CSC>.WEIGHT_BYTES")
    # The traces program R*S*C*BPE*K rounded up to the 128-byte data size alignment of Table 35.
    total = -(-per_kernel * cfg.kernels // 128) * 128
    if cfg.weight_bytes != total:
        _fail(f"WEIGHT_BYTES {cfg.weight_bytes} must be R*S*C*BPE*K rounded up to 128 bytes = {total}",
              ("CDMA.D_WEIGHT_BYTES.WEIGHT_BYTES", "CSC.D_WEIGHT_BYTES.WEIGHT_BYTES"),
              f"{REGDEF}, <CDMA|CSC>.WEIGHT_BYTES")
    _same({"CDMA.D_DATAIN_SIZE_0.DATAIN_WIDTH": cfg.width, "CSC.D_DATAIN_SIZE_EXT_0.DATAIN_WIDTH_EXT":
           cfg.csc_width_ext}, "input widths", f"{REGDEF}, CSC.DATAIN_SIZE_EXT")
    _same({"CDMA.D_DATAIN_SIZE_1.DATAIN_CHANNEL": cfg.channels, "CSC.D_DATAIN_SIZE_EXT_1.DATAIN_CHANNEL_EXT":
           cfg.csc_channel_ext}, "input channels", f"{REGDEF}, CSC.DATAIN_SIZE_EXT")
    if not cfg.data_reuse:
        _same({"CDMA.D_DATAIN_SIZE_0.DATAIN_HEIGHT": cfg.height, "CSC.D_DATAIN_SIZE_EXT_0.DATAIN_HEIGHT_EXT":
               cfg.csc_height_ext}, "input heights", f"{REGDEF}, CSC.DATAIN_SIZE_EXT")
    _same({"CDMA.D_CONV_STRIDE.CONV_X_STRIDE": cfg.stride_x, "CSC.D_CONV_STRIDE_EXT.CONV_X_STRIDE_EXT":
           cfg.csc_stride_x}, "x strides", f"{REGDEF}, CSC.CONV_STRIDE_X/Y_EXT")
    _same({"CDMA.D_CONV_STRIDE.CONV_Y_STRIDE": cfg.stride_y, "CSC.D_CONV_STRIDE_EXT.CONV_Y_STRIDE_EXT":
           cfg.csc_stride_y}, "y strides", f"{REGDEF}, CSC.CONV_STRIDE_X/Y_EXT")
    if cfg.rls_slices > cfg.csc_height_ext:
        _fail(f"RLS_SLICES + 1 = {cfg.rls_slices} exceeds DATAIN_HEIGHT_EXT + 1 = {cfg.csc_height_ext}",
              ("CSC.D_RELEASE.RLS_SLICES", "CSC.D_DATAIN_SIZE_EXT_0.DATAIN_HEIGHT_EXT"), GENERAL)


def check_padding(cfg: ConvConfig) -> None:
    if cfg.winograd:
        return
    rows, cols = kernel_size(cfg)
    span_w = _dilated(cols, cfg.dilation_x)
    span_h = _dilated(rows, cfg.dilation_y)
    for name, pad, limit in (("PAD_LEFT", cfg.pad_left, span_w), ("PAD_RIGHT", cfg.pad_right, span_w),
                             ("PAD_TOP", cfg.pad_top, span_h), ("PAD_BOTTOM", cfg.pad_bottom, span_h)):
        if pad >= limit:
            _fail(f"{name} {pad} must be less than the (dilated) kernel size {limit}",
                  (f"CDMA.D_ZERO_PADDING.{name}",), GENERAL)
    width = cfg.pad_left + cfg.csc_width_ext + cfg.pad_right
    height = cfg.pad_top + cfg.csc_height_ext + cfg.pad_bottom
    if (cfg.csc_out_width - 1) * cfg.csc_stride_x + span_w != width:
        _fail(f"(Output_Width - 1) * stride_x + S' = {(cfg.csc_out_width - 1) * cfg.csc_stride_x + span_w} must "
              f"equal PL + Input_Width + PR = {width}",
              ("CSC.D_DATAOUT_SIZE_0.DATAOUT_WIDTH", "CDMA.D_ZERO_PADDING.PAD_RIGHT"), GENERAL)
    if (cfg.csc_out_height - 1) * cfg.csc_stride_y + span_h != height:
        _fail(f"(Output_Height - 1) * stride_y + R' = {(cfg.csc_out_height - 1) * cfg.csc_stride_y + span_h} "
              f"must equal PT + Input_Height + PB = {height}",
              ("CSC.D_DATAOUT_SIZE_0.DATAOUT_HEIGHT", "CDMA.D_ZERO_PADDING.PAD_BOTTOM"), GENERAL)
    if not cfg.image:
        _same({"CDMA.D_ZERO_PADDING_VALUE.PAD_VALUE": cfg.pad_value,
               "CSC.D_ZERO_PADDING_VALUE.PAD_VALUE": cfg.csc_pad_value}, "padding values (feature input)",
              f"{REGDEF}, <CDMA|CSC>.ZERO_PADDING_VALUE")


def check_winograd(cfg: ConvConfig) -> None:
    if cfg.image:
        _fail("Winograd takes feature input only", ("CDMA.D_DATAIN_FORMAT.DATAIN_FORMAT",), CROSSING)
    ext = (cfg.weight_width_ext, cfg.weight_height_ext)
    if ext != (4, 4):
        _fail(f"Winograd weights are 4x4 after the pre-transform, WEIGHT_SIZE_EXT gives {ext}",
              ("CSC.D_WEIGHT_SIZE_EXT_0",), f"{REGDEF}, CSC.WEIGHT_SIZE_EXT")
    for name, size in (("DATAOUT_WIDTH", cfg.csc_out_width), ("DATAOUT_HEIGHT", cfg.csc_out_height)):
        if size % 4 or size < 8:
            _fail(f"Winograd output {name} + 1 = {size} must be divisible by 4 and >= 8",
                  (f"CSC.D_DATAOUT_SIZE_0.{name}",), WINOGRAD)
    sx, sy = cfg.stride_x, cfg.stride_y
    expect = (-(-(cfg.width + cfg.pad_left + cfg.pad_right) // sx),
              -(-(cfg.height + cfg.pad_top + cfg.pad_bottom) // sy))
    got = (cfg.csc_width_ext, cfg.csc_height_ext)
    if got != expect:
        _fail(f"Winograd DATAIN_SIZE_EXT (W, H) must be (ceil((W+PL+PR)/sx), ceil((H+PT+PB)/sy)) = {expect}, "
              f"got {got}", ("CSC.D_DATAIN_SIZE_EXT_0",), f"{REGDEF}, CSC.DATAIN_SIZE_EXT")
    per_atom = 32 // BYTES[cfg.proc_precision]
    aligned = -(-cfg.channels // per_atom) * per_atom
    if cfg.weight_channel_ext != aligned * sx * sy:
        _fail(f"Winograd WEIGHT_CHANNEL_EXT must be C' * sx * sy = {aligned * sx * sy} (C' = C rounded up to "
              f"32 bytes), got {cfg.weight_channel_ext}", ("CSC.D_WEIGHT_SIZE_EXT_1.WEIGHT_CHANNEL_EXT",),
              f"{REGDEF}, CSC.WEIGHT_SIZE_EXT")
    if cfg.csc_channel_ext not in (cfg.channels * sx * sy, aligned * sx * sy):
        _fail(f"Winograd DATAIN_CHANNEL_EXT must be C * sx * sy = {cfg.channels * sx * sy}, got "
              f"{cfg.csc_channel_ext}", ("CSC.D_DATAIN_SIZE_EXT_1.DATAIN_CHANNEL_EXT",),
              f"{REGDEF}, CSC.DATAIN_SIZE_EXT")
    if (cfg.csc_stride_x, cfg.csc_stride_y) != (1, 1):
        _fail("Winograd CSC strides must be 1", ("CSC.D_CONV_STRIDE_EXT",), f"{REGDEF}, CSC.CONV_STRIDE_X/Y_EXT")
    if (cfg.csc_out_width, cfg.csc_out_height) != (cfg.csc_width_ext - 4, cfg.csc_height_ext - 4):
        _fail(f"Winograd output must be DATAIN_SIZE_EXT - 4 = {(cfg.csc_width_ext - 4, cfg.csc_height_ext - 4)}, "
              f"got {(cfg.csc_out_width, cfg.csc_out_height)}", ("CSC.D_DATAOUT_SIZE_0",),
              f"{REGDEF}, CACC.D_DATAOUT_SIZE_0")
    if cfg.pra_truncate and cfg.proc_precision == "fp16":
        _fail("pra_trunc is for INT8/INT16 Winograd only", ("CSC.D_PRA_CFG.PRA_TRUNCATE",),
              "precision-preservation: pra_trunc")


def entry_bytes(profile: Profile) -> int:
    """One CBUF entry: 128 bytes in the nvdlav1 C model (CBUF_ENTRY_SIZE), the bank width in master."""
    return 128 if profile.layout == "nvdlav1" else profile.cbuf_bank_width


def dc_entries_per_slice(profile: Profile, width: int, channels: int, precision: str) -> int:
    """CBUF entries of one input line (nvdla/hw cmod csc: full entries, then 1/2 or 1/4 packed atoms)."""
    atom = profile.memory_atomic_size
    per_entry = entry_bytes(profile) // atom
    atoms = -(-channels * BYTES[precision] // atom)
    full, cripple = divmod(atoms, per_entry)
    entries = full * width
    if cripple * 2 > per_entry:
        entries += width
    elif cripple * 2 == per_entry:
        entries += (width + 1) // 2
    elif cripple:
        entries += (width + 3) // 4
    return entries


def check_buffer(profile: Profile, cfg: ConvConfig) -> None:
    bank_entries = profile.cbuf_bank_bytes // entry_bytes(profile)
    banks = profile.cbuf_bank_number - (1 if cfg.weight_format == "compressed" else 0)
    if cfg.data_bank + cfg.weight_bank > banks:
        _fail(f"DATA_BANK + WEIGHT_BANK = {cfg.data_bank + cfg.weight_bank} banks exceed the {banks} available"
              + (" (bank 15 holds the WMB)" if cfg.weight_format == "compressed" else ""),
              ("CDMA.D_BANK.DATA_BANK", "CDMA.D_BANK.WEIGHT_BANK"), GENERAL)
    _same({"CDMA.D_ENTRY_PER_SLICE.ENTRIES": cfg.entries, "CSC.D_ENTRY_PER_SLICE.ENTRIES": cfg.csc_entries},
          "entries per slice")
    if not cfg.image and not cfg.winograd:
        need = dc_entries_per_slice(profile, cfg.width, cfg.channels, cfg.in_precision)
        if cfg.entries != need:
            _fail(f"ENTRY_PER_SLICE + 1 = {cfg.entries}, a {cfg.width}-wide line of {cfg.channels} "
                  f"{cfg.in_precision} channels takes {need} entries",
                  ("CDMA.D_ENTRY_PER_SLICE.ENTRIES", "CSC.D_ENTRY_PER_SLICE.ENTRIES"),
                  f"{REGDEF}, <CDMA|CSC>.D_ENTRY_PER_SLICE")
    data_banks = -(-cfg.entries * cfg.csc_height_ext * cfg.batches // bank_entries)
    if data_banks > cfg.data_bank:
        _fail(f"the input needs {data_banks} data banks ({cfg.entries} entries x {cfg.csc_height_ext} lines x "
              f"{cfg.batches} batches), DATA_BANK gives {cfg.data_bank}", ("CDMA.D_BANK.DATA_BANK",),
              "programming-guide: Convolution pipeline programming/Features (banks_for_data)")
    group = profile.mac_atomic_k if cfg.proc_precision == "int8" else profile.mac_atomic_k // 2
    group_bytes = cfg.byte_per_kernel * min(group, cfg.kernels)
    if cfg.weight_format == "uncompressed" and group_bytes + 128 > cfg.weight_bank * profile.cbuf_bank_bytes:
        _fail(f"WEIGHT_BANK {cfg.weight_bank} cannot hold one kernel group ({group_bytes} bytes) plus 128 bytes",
              ("CDMA.D_BANK.WEIGHT_BANK",), GENERAL)


def check_alignment(profile: Profile, cfg: ConvConfig) -> None:
    """Table 35 and the stride rules of CDMA's feature / pixel, weight, WMB and WGS reads (dma_rules.py)."""
    rules.enforce("CONV", cfg, rules.Facts(profile=profile))
