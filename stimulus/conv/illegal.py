"""Breakers of the convolution's rules (golden/units/conv/rules.py): each changes a legal convolution layer's fields.

A change (stimulus/breakers.py) takes the legal layer's fields (a copy), its decoded ConvConfig, the chooser and the
profile, and returns the changed fields or None when this layer cannot be changed that way (another legal layer is
drawn). A stage copy
is broken in the copy no other rule reads (CACC's, or CSC's where the rules read CDMA's), and a change that would
also break an equation moves its partner too (a padding grown on the left shrinks on the right), so that the
registry's own predicates see exactly the one rule broken (stimulus/illegal.py checks it).
Image-input rules are broken on the image layers the generator draws.
"""

from __future__ import annotations

from dataclasses import replace

from golden.formats import pixel
from golden.formats.feature import PRECISION_CODES, element_bytes
from golden.regs.regmap import RegisterMap
from golden.units.conv import program
from golden.units.conv.rules import dc_entries_per_slice, dilated_spans, first_kernel_group, image_entries_per_slice
from stimulus.breakers import Fields, declare
from stimulus.conv.layers import PDP_DST_OFFSET, pool, pool_fields, set_both


def _bump(*names: str, by: int = 1):
    """Move one field (the first of `names` the layer programs) by `by`, up or, at the top of its width, down."""
    def breaker(fields, cfg, choose, profile):
        for name in names:
            if name in fields:
                unit, register, field = name.split(".")
                top = (1 << RegisterMap.for_profile(profile).get(unit, register).field(field).width) - 1
                value = int(fields[name])
                fields[name] = value + by if value + by <= top else value - by
                return fields
        return None
    return breaker


def _step(name: str):
    """One down, or one up from 0 (a bank count stays a count)."""
    def breaker(fields, cfg, choose, profile):
        fields[name] = int(fields[name]) - 1 if int(fields[name]) > 0 else 1
        return fields
    return breaker


def _other(name: str, choices: int = 2):
    """Another value of an enum field (unwritten: at its reset, 0)."""
    def breaker(fields, cfg, choose, profile):
        fields[name] = (int(fields.get(name, 0)) + 1) % choices
        return fields
    return breaker


def _feature_precision(fields, cfg, choose, profile):
    other = (PRECISION_CODES[cfg.in_precision] + 1) % 3
    fields.update({"CDMA.D_MISC_CFG.IN_PRECISION": other, "CSC.D_MISC_CFG.IN_PRECISION": other})
    return fields


def _clip_fp16(fields, cfg, choose, profile):
    if cfg.proc_precision != "fp16":
        return None
    fields["CACC.D_CLIP_CFG.CLIP_TRUNCATE"] = choose.size(1, 16)
    return fields


def _clip_range(fields, cfg, choose, profile):
    if cfg.proc_precision == "fp16":
        return None
    fields["CACC.D_CLIP_CFG.CLIP_TRUNCATE"] = choose.size(17, 31)
    return fields


def _crossing(fields, cfg, choose, profile):
    """Channel post-extension with dilation: an N cell of the matrix (nothing else reads Y_EXTENSION here)."""
    if cfg.dilation_x == 1 and cfg.dilation_y == 1:
        return None
    fields["CSC.D_POST_Y_EXTENSION.Y_EXTENSION"] = choose.choice((1, 2))
    return fields


def _post_extension_reserved(fields, cfg, choose, profile):
    if cfg.dilation_x > 1 or cfg.dilation_y > 1:
        return None
    fields["CSC.D_POST_Y_EXTENSION.Y_EXTENSION"] = 3
    return fields


def _weights_of(cfg, channel_ext: int, fields: dict) -> dict:
    """Move BYTE_PER_KERNEL and WEIGHT_BYTES along with a new WEIGHT_CHANNEL_EXT."""
    per_kernel = cfg.weight_width_ext * cfg.weight_height_ext * channel_ext * element_bytes(cfg.proc_precision)
    fields["CDMA.D_WEIGHT_SIZE_0.BYTE_PER_KERNEL"] = per_kernel - 1
    fields.update(set_both("D_WEIGHT_BYTES", "WEIGHT_BYTES", -(-per_kernel * cfg.kernels // 128) * 128))
    return fields


def _weight_channels(fields, cfg, choose, profile):
    channel_ext = cfg.weight_channel_ext + 1
    fields["CSC.D_WEIGHT_SIZE_EXT_1.WEIGHT_CHANNEL_EXT"] = channel_ext - 1
    return _weights_of(cfg, channel_ext, fields)


def _weight_bytes(fields, cfg, choose, profile):
    fields.update(set_both("D_WEIGHT_BYTES", "WEIGHT_BYTES", cfg.weight_bytes + 128))
    return fields


def _datain_width(fields, cfg, choose, profile):
    """CSC's width one more, the right padding one less: PL + W + PR stays."""
    if cfg.pad_right < 1:
        return None
    fields["CSC.D_DATAIN_SIZE_EXT_0.DATAIN_WIDTH_EXT"] = cfg.csc_width_ext  # count + 1
    fields["CDMA.D_ZERO_PADDING.PAD_RIGHT"] = cfg.pad_right - 1
    return fields


def _datain_height(fields, cfg, choose, profile):
    if cfg.height < 2:
        return None
    fields["CDMA.D_DATAIN_SIZE_0.DATAIN_HEIGHT"] = cfg.height - 2  # one line fewer than CSC's
    return fields


def _release(fields, cfg, choose, profile):
    if cfg.csc_height_ext > 0xFFF:  # a 4096-line input: the 12-bit field cannot count one slice more
        return None
    fields["CSC.D_RELEASE.RLS_SLICES"] = cfg.csc_height_ext  # count DATAIN_HEIGHT_EXT + 1 + 1
    return fields


def _pad(side: str):
    """PAD_<side> becomes the dilated kernel size, the opposite padding shrinks by as much (PL+W+PR stays)."""
    opposite = {"LEFT": "RIGHT", "RIGHT": "LEFT", "TOP": "BOTTOM", "BOTTOM": "TOP"}[side]

    def breaker(fields, cfg, choose, profile):
        span = dilated_spans(cfg)[0 if side in ("LEFT", "RIGHT") else 1]
        pad, other = getattr(cfg, f"pad_{side.lower()}"), getattr(cfg, f"pad_{opposite.lower()}")
        delta = span - pad
        if other < delta:
            return None
        for name, value in ((side, span), (opposite, other - delta)):
            fields[f"CDMA.D_ZERO_PADDING.PAD_{name}"] = value
            if name in ("LEFT", "TOP"):
                fields[f"CSC.D_ZERO_PADDING.PAD_{name}"] = value
        return fields
    return breaker


def _out_size(side: str):
    """The right (bottom) padding one less or one more than the output size needs."""
    def breaker(fields, cfg, choose, profile):
        span = dilated_spans(cfg)[0 if side == "RIGHT" else 1]
        pad = getattr(cfg, f"pad_{side.lower()}")
        fields[f"CDMA.D_ZERO_PADDING.PAD_{side}"] = pad - 1 if pad > 0 else pad + 1
        return fields if pad > 0 or pad + 1 < span else None
    return breaker


def _banks(fields, cfg, choose, profile):
    banks = profile.cbuf_bank_number - (1 if cfg.weight_format == "compressed" else 0)
    fields.update(set_both("D_BANK", "WEIGHT_BANK", banks - cfg.data_bank))  # count: one bank too many
    return fields


def _entry_per_slice(fields, cfg, choose, profile):
    need = dc_entries_per_slice(profile, cfg.width, cfg.channels, cfg.in_precision)
    fields.update(set_both("D_ENTRY_PER_SLICE", "ENTRIES", need))  # count need + 1
    return fields


def _data_banks(fields, cfg, choose, profile):
    bank_entries = profile.cbuf_bank_bytes // (128 if profile.layout == "nvdlav1" else profile.cbuf_bank_width)
    need = -(-cfg.entries * cfg.csc_height_ext * cfg.batches // bank_entries)
    if need < 2:
        return None
    fields.update(set_both("D_BANK", "DATA_BANK", need - 2))  # count need - 1
    return fields


def _weight_banks(fields, cfg, choose, profile):
    """One weight bank, and kernels tall enough that one kernel group plus 128 bytes overflows it: WEIGHT_HEIGHT_EXT
    grows (BYTE_PER_KERNEL and WEIGHT_BYTES with it) and the bottom padding by as many dilated rows, so that
    (Output_Height - 1) * stride_y + R' == PT + Input_Height + PB still holds."""
    if cfg.weight_format != "uncompressed" or cfg.winograd:
        return None
    group = first_kernel_group(cfg, profile)
    row_bytes = cfg.byte_per_kernel // cfg.weight_height_ext  # S * C * BPE of one kernel row
    rows = max(cfg.weight_height_ext, -(-(profile.cbuf_bank_bytes - 127) // (row_bytes * group)))
    pad_bottom = cfg.pad_bottom + (rows - cfg.weight_height_ext) * cfg.dilation_y
    if rows > 32 or pad_bottom > 63:  # the fields' widths (5 and 6 bits)
        return None
    per_kernel = row_bytes * rows
    fields["CSC.D_WEIGHT_SIZE_EXT_0.WEIGHT_HEIGHT_EXT"] = rows - 1
    fields["CDMA.D_WEIGHT_SIZE_0.BYTE_PER_KERNEL"] = per_kernel - 1
    fields.update(set_both("D_WEIGHT_BYTES", "WEIGHT_BYTES", -(-per_kernel * cfg.kernels // 128) * 128))
    fields["CDMA.D_ZERO_PADDING.PAD_BOTTOM"] = pad_bottom
    fields.update(set_both("D_BANK", "WEIGHT_BANK", 0))  # count 1
    return fields


def _kept_weight_banks(fields, cfg, choose, profile):
    """Keep the weights (SKIP_WEIGHT_RLS) in the fewest weight banks that still hold one kernel group plus 128
    bytes (CONV-WEIGHT-BANKS), when the layer's weights need more than those."""
    if cfg.weight_format != "uncompressed" or cfg.winograd:
        return None
    group = first_kernel_group(cfg, profile)
    banks = -(-(cfg.byte_per_kernel * group + 128) // profile.cbuf_bank_bytes)
    if cfg.weight_bytes <= banks * profile.cbuf_bank_bytes:
        return None
    fields.update(set_both("D_MISC_CFG", "SKIP_WEIGHT_RLS", 1))
    fields.update(set_both("D_BANK", "WEIGHT_BANK", banks - 1))
    return fields


def _image_only(breaker):
    """A breaker of an image-input rule: other layers the generator draws are passed over (None)."""
    def only(fields, cfg, choose, profile):
        return breaker(fields, cfg, choose, profile) if cfg.image else None
    return only


@_image_only
def _pixel_x_offset(fields, cfg, choose, profile):
    limit = pixel.x_offset_limit(pixel.pixel_format(cfg.pixel_format), profile.memory_atomic_size)
    if limit >= 31:  # PIXEL_X_OFFSET has 5 bits: R8 / Y8 on a 32-byte atom cannot go past their range
        return None
    fields["CDMA.D_PIXEL_OFFSET.PIXEL_X_OFFSET"] = choose.integer(limit + 1, 31)
    return fields


@_image_only
def _pixel_convertor(fields, cfg, choose, profile):
    if cfg.in_precision == cfg.proc_precision:
        return None
    fields["CDMA.D_CVT_CFG.CVT_EN"] = 0
    return fields


def _feature_convertor(fields, cfg, choose, profile):
    """The convertor on the feature data of an fp16 or a Winograd layer."""
    if cfg.image or not (cfg.winograd or cfg.in_precision == "fp16"):
        return None
    fields["CDMA.D_CVT_CFG.CVT_EN"] = 1
    return fields


def _winograd_only(breaker):
    """A breaker of a Winograd rule: other layers the generator draws are passed over (None)."""
    def only(fields, cfg, choose, profile):
        return breaker(dict(fields), cfg, choose, profile) if cfg.winograd else None
    return only


def _set(name: str, value):
    """The field set to `value`, or to value(fields, cfg) (None: this layer cannot be changed so)."""
    def breaker(fields, cfg, choose, profile):
        new = value(fields, cfg) if callable(value) else value
        return None if new is None else {**fields, name: new}
    return breaker


def _winograd_sizes(ext: int, out: int, pad_right: int = 0):
    """DATAIN_WIDTH_EXT and the output width (CSC, CACC and D_ATOMICS with it) grown, PAD_RIGHT by `pad_right`
    strides (so that ceil((W + PL + PR) / sx) grows with the extension)."""
    def breaker(fields, cfg, choose, profile):
        fields["CSC.D_DATAIN_SIZE_EXT_0.DATAIN_WIDTH_EXT"] += ext
        for unit in ("CSC", "CACC"):
            fields[f"{unit}.D_DATAOUT_SIZE_0.DATAOUT_WIDTH"] += out
        fields["CSC.D_ATOMICS.ATOMICS"] = ((fields["CSC.D_DATAOUT_SIZE_0.DATAOUT_WIDTH"] + 1)
                                          * (fields["CSC.D_DATAOUT_SIZE_0.DATAOUT_HEIGHT"] + 1) - 1)
        if pad_right:
            fields["CDMA.D_ZERO_PADDING.PAD_RIGHT"] = cfg.pad_right + pad_right * cfg.stride_x
        return fields
    return breaker


#: (precision, channels) -> a pixel format of that input precision and channel count (Table 33)
_PIXEL_OF = {("int8", 1): "T_R8", ("int8", 4): "T_A8B8G8R8", ("int16", 1): "T_R16", ("int16", 4): "T_A16B16G16R16"}


def _winograd_image(fields, cfg, choose, profile):
    """Image input into a Winograd layer whose channels and precision a pixel format has, so that only the
    Winograd rule and its cell of the feature-crossing matrix (a COMPANION) are broken."""
    name = _PIXEL_OF.get((cfg.proc_precision, cfg.channels))
    need = image_entries_per_slice(profile, cfg.pad_left, cfg.width, cfg.pad_right, cfg.channels, cfg.proc_precision)
    if name is None or need > cfg.entries:  # the image line's entries, fewer than the Winograd layer's
        return None
    fields.update(set_both("D_ENTRY_PER_SLICE", "ENTRIES", need - 1))
    fields.update({"CDMA.D_DATAIN_FORMAT.DATAIN_FORMAT": 1, "CSC.D_DATAIN_FORMAT.DATAIN_FORMAT": 1,
                   "CDMA.D_DATAIN_FORMAT.PIXEL_FORMAT": pixel.pixel_format(name).code})
    return fields


def _image_weights(width: int, height: int, channels: int):
    """WEIGHT_SIZE_EXT set to (width, height, channels) as functions of the layer, BYTE_PER_KERNEL and WEIGHT_BYTES
    moved with it (R*S*C*BPE, times K rounded up to 128 bytes), so that only the image weight rule breaks."""
    def breaker(fields, cfg, choose, profile):
        w, h, c = width(cfg), height(cfg), channels(cfg)
        if c is None:
            return None
        fields.update({"CSC.D_WEIGHT_SIZE_EXT_0.WEIGHT_WIDTH_EXT": w - 1,
                       "CSC.D_WEIGHT_SIZE_EXT_0.WEIGHT_HEIGHT_EXT": h - 1,
                       "CSC.D_WEIGHT_SIZE_EXT_1.WEIGHT_CHANNEL_EXT": c - 1})
        per_kernel = w * h * c * element_bytes(cfg.proc_precision)
        fields["CDMA.D_WEIGHT_SIZE_0.BYTE_PER_KERNEL"] = per_kernel - 1
        for unit in ("CDMA", "CSC"):
            fields[f"{unit}.D_WEIGHT_BYTES.WEIGHT_BYTES"] = -(-per_kernel * cfg.csc_kernels // 128) * 128
        return fields
    return breaker


@_image_only
def _post_extension_channels(fields, cfg, choose, profile):
    atomic = profile.mac_atomic_c
    if cfg.weight_channel_ext <= atomic // 4:
        return None
    fields["CSC.D_POST_Y_EXTENSION.Y_EXTENSION"] = 2 if cfg.weight_channel_ext <= atomic // 2 else 1  # 4 lines, or 2
    return fields


@_image_only
def _image_entries(fields, cfg, choose, profile):
    """ENTRY_PER_SLICE one entry short of the padded image line (CDMA and CSC alike)."""
    need = image_entries_per_slice(profile, cfg.pad_left, cfg.width, cfg.pad_right, cfg.channels,
                                   cfg.proc_precision)
    if need < 2:
        return None
    return {**fields, **set_both("D_ENTRY_PER_SLICE", "ENTRIES", need - 2)}


@_image_only
def _fp16_pixels(fields, cfg, choose, profile):
    """T_R16 / T_R16_I become T_R16_F (one channel, as theirs) with its input precision fp16 and the convertor
    on, so that only the fp16-pixels-into-an-integer-pipeline rule (Table 29) breaks."""
    if cfg.pixel_format not in ("T_R16", "T_R16_I") or cfg.proc_precision == "fp16":
        return None
    fields["CDMA.D_DATAIN_FORMAT.PIXEL_FORMAT"] = pixel.pixel_format("T_R16_F").code
    fields["CDMA.D_CVT_CFG.CVT_EN"] = 1
    return {**fields, **set_both("D_MISC_CFG", "IN_PRECISION", PRECISION_CODES["fp16"])}


def _winograd_to_pdp(fields, cfg, choose, profile):
    """The Winograd layer's SDP output pooled on the fly by a legal PDP layer instead of written to memory."""
    if not profile.pdp:
        return None
    shape = (cfg.kernels, cfg.csc_out_height, cfg.csc_out_width)
    spec = pool(choose, profile, cfg.proc_precision, shape, program.DATA_BASE + PDP_DST_OFFSET)
    return {**fields, **pool_fields(spec)}


def _wmb_bytes(fields, cfg, choose, profile):
    """WMB_BYTES one 128-byte unit more (CDMA and CSC alike): still enough mask, no longer the exact size."""
    if cfg.weight_format != "compressed":
        return None
    return {**fields, **set_both("D_WMB_BYTES", "WMB_BYTES", cfg.wmb_bytes + 128)}


CHANGES = {
    "CONV-STAGES-CONV-MODE": _other("CACC.D_MISC_CFG.CONV_MODE"),
    "CONV-STAGES-PROC-PRECISION": _other("CACC.D_MISC_CFG.PROC_PRECISION", 3),
    "CONV-STAGES-IN-PRECISION": _other("CSC.D_MISC_CFG.IN_PRECISION", 3),
    "CONV-STAGES-DATAIN-FORMAT": _other("CDMA.D_DATAIN_FORMAT.DATAIN_FORMAT"),
    "CONV-STAGES-BATCHES": _bump("CACC.D_BATCH_NUMBER.BATCHES"),
    "CONV-STAGES-WEIGHT-FORMAT": _other("CSC.D_WEIGHT_FORMAT.WEIGHT_FORMAT"),
    "CONV-STAGES-KERNELS": _bump("CACC.D_DATAOUT_SIZE_1.DATAOUT_CHANNEL"),
    "CONV-STAGES-WEIGHT-BYTES": _bump("CSC.D_WEIGHT_BYTES.WEIGHT_BYTES", by=128),
    "CONV-STAGES-DATA-BANK": _step("CSC.D_BANK.DATA_BANK"),
    "CONV-STAGES-WEIGHT-BANK": _step("CSC.D_BANK.WEIGHT_BANK"),
    "CONV-STAGES-OUT-WIDTH": _bump("CACC.D_DATAOUT_SIZE_0.DATAOUT_WIDTH"),
    "CONV-STAGES-OUT-HEIGHT": _bump("CACC.D_DATAOUT_SIZE_0.DATAOUT_HEIGHT"),
    "CONV-STAGES-PAD-LEFT": _bump("CSC.D_ZERO_PADDING.PAD_LEFT"),
    "CONV-STAGES-PAD-TOP": _bump("CSC.D_ZERO_PADDING.PAD_TOP"),
    "CONV-ATOMICS": _bump("CSC.D_ATOMICS.ATOMICS"),
    "CONV-FEATURE-PRECISION": _feature_precision,
    "CONV-CLIP-TRUNCATE-FP16": _clip_fp16,
    "CONV-CLIP-TRUNCATE-RANGE": _clip_range,
    "CONV-FEATURE-CROSSING": _crossing,
    "CONV-POST-EXTENSION-RESERVED": _post_extension_reserved,
    "CONV-WEIGHT-CHANNELS": _weight_channels,
    "CONV-BYTE-PER-KERNEL": _bump("CDMA.D_WEIGHT_SIZE_0.BYTE_PER_KERNEL"),
    "CONV-WEIGHT-BYTES": _weight_bytes,
    "CONV-WMB-BYTES": _wmb_bytes,
    "CONV-STAGES-DATAIN-WIDTH": _datain_width,
    "CONV-STAGES-DATAIN-CHANNEL": _bump("CSC.D_DATAIN_SIZE_EXT_1.DATAIN_CHANNEL_EXT"),
    "CONV-STAGES-X-STRIDE": _bump("CDMA.D_CONV_STRIDE.CONV_X_STRIDE"),
    "CONV-STAGES-Y-STRIDE": _bump("CDMA.D_CONV_STRIDE.CONV_Y_STRIDE"),
    "CONV-STAGES-DATAIN-HEIGHT": _datain_height,
    "CONV-RELEASE-SLICES": _release,
    "CONV-PAD-LEFT": _pad("LEFT"),
    "CONV-PAD-RIGHT": _pad("RIGHT"),
    "CONV-PAD-TOP": _pad("TOP"),
    "CONV-PAD-BOTTOM": _pad("BOTTOM"),
    "CONV-OUT-WIDTH": _out_size("RIGHT"),
    "CONV-OUT-HEIGHT": _out_size("BOTTOM"),
    "CONV-STAGES-PAD-VALUE": _bump("CSC.D_ZERO_PADDING_VALUE.PAD_VALUE"),
    "CONV-BANKS": _banks,
    "CONV-STAGES-ENTRIES": _bump("CSC.D_ENTRY_PER_SLICE.ENTRIES"),
    "CONV-ENTRY-PER-SLICE": _entry_per_slice,
    "CONV-DATA-BANKS": _data_banks,
    "CONV-WEIGHT-BANKS": _weight_banks,
    "CONV-KEPT-WEIGHT-BANKS": _kept_weight_banks,
    "CONV-PIXEL-SETTINGS": _pixel_x_offset,
    "CONV-PIXEL-CONVERTOR": _pixel_convertor,
    "CONV-FEATURE-CONVERTOR": _feature_convertor,
    "CONV-PIXEL-Y-OFFSET": _image_only(lambda fields, cfg, choose, profile: {
        **fields, "CDMA.D_PIXEL_OFFSET.PIXEL_Y_OFFSET": choose.integer(1, 7)}),
    "CONV-PIXEL-MAPPING": _image_only(_other("CDMA.D_DATAIN_FORMAT.PIXEL_MAPPING")),
    "CONV-PIXEL-PRECISION": _fp16_pixels,
    "CONV-POST-EXTENSION-CHANNELS": _post_extension_channels,
    "CONV-IMAGE-ENTRY-PER-SLICE": _image_entries,
    "CONV-IMAGE-WEIGHT-SIZE": _image_only(_image_weights(lambda cfg: 2, lambda cfg: cfg.weight_height_ext,
                                                         lambda cfg: cfg.weight_channel_ext)),
    "CONV-IMAGE-WEIGHT-CHANNELS": _image_only(_image_weights(
        lambda cfg: 1, lambda cfg: cfg.weight_height_ext,
        lambda cfg: cfg.weight_channel_ext + 1 if cfg.channels > 1 else None)),
    "CONV-WINOGRAD-FEATURE-INPUT": _winograd_only(_winograd_image),
    "SDP-WINOGRAD-MEMORY-OUTPUT": _winograd_only(_winograd_to_pdp),
    "CONV-WINOGRAD-WEIGHT-SIZE": _winograd_only(_set("CSC.D_WEIGHT_SIZE_EXT_0.WEIGHT_WIDTH_EXT", 2)),
    "CONV-WINOGRAD-OUTPUT-SIZE": _winograd_only(_winograd_sizes(1, 1, pad_right=1)),
    "CONV-WINOGRAD-DATAIN-SIZE": _winograd_only(_winograd_sizes(4, 4)),
    "CONV-WINOGRAD-OUTPUT": _winograd_only(_winograd_sizes(0, 4)),
    "CONV-WINOGRAD-WEIGHT-CHANNELS": _winograd_only(_bump("CSC.D_WEIGHT_SIZE_EXT_1.WEIGHT_CHANNEL_EXT")),
    "CONV-WINOGRAD-DATAIN-CHANNELS": _winograd_only(_bump("CSC.D_DATAIN_SIZE_EXT_1.DATAIN_CHANNEL_EXT")),
    "CONV-WINOGRAD-CSC-STRIDES": _winograd_only(_set("CSC.D_CONV_STRIDE_EXT.CONV_X_STRIDE_EXT", 1)),
    "CONV-WINOGRAD-PRA-TRUNCATE": _winograd_only(_set("CSC.D_PRA_CFG.PRA_TRUNCATE",
                                                      lambda fields, cfg: 1 if cfg.proc_precision == "fp16" else None)),
}
#: Rules a breaker may break along with its own: a Winograd layer reading pixels is also the image x Winograd cell
#: of the feature-crossing matrix (one fact, two sources).
COMPANIONS = {"CONV-WINOGRAD-FEATURE-INPUT": {"CONV-FEATURE-CROSSING"}}


def requires(rule_id: str, profile) -> bool:
    if rule_id == "SDP-WINOGRAD-MEMORY-OUTPUT":
        return profile.winograd and profile.pdp
    if rule_id == "CONV-WMB-BYTES":
        return profile.weight_compression
    if rule_id == "CONV-CLIP-TRUNCATE-FP16":
        return "fp16" in profile.feature_types & profile.weight_types
    if rule_id == "CONV-PIXEL-CONVERTOR":  # pixels of one precision into a pipeline of another
        return len(profile.feature_types) > 1
    if rule_id == "CONV-FEATURE-CONVERTOR":  # fp16 or Winograd feature input
        return profile.winograd or "fp16" in profile.feature_types
    if rule_id == "CONV-PIXEL-PRECISION":  # 16-bit pixels (T_R16) into an integer pipeline
        return "int16" in profile.feature_types
    if rule_id.startswith("CONV-WINOGRAD-"):
        return profile.winograd and (rule_id != "CONV-WINOGRAD-PRA-TRUNCATE" or "fp16" in profile.feature_types)
    return True


def _launch_pdp(legal, layer, profile):
    """A change that pools SDP's output on the fly launches PDP too, and the layer ends on its interrupt."""
    if layer.fields.get("SDP.D_FEATURE_MODE_CFG.OUTPUT_DST") == "PDP" and "PDP" not in legal.enable:
        return replace(layer, enable=("PDP", *legal.enable), interrupt="PDP")
    return layer


BREAKERS = declare(CHANGES, Fields("conv", finish=_launch_pdp), requires, COMPANIONS)
