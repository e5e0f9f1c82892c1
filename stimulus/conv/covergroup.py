"""The conv covergroup: every convolution's precision, mode, kernel, stride, dilation, padding, channels and
kernels against the MAC atoms, weight compression, CBUF banks and reuse, batches, image input (pixel format,
post-extension, convertor), feature convertor, and NVIDIA's conv_cg meanings (_parity_points)."""

from __future__ import annotations

from golden.config import Profile
from golden.formats import pixel
from golden.units.conv.config import decode
from stimulus.conv.modes import POST_EXTENSIONS, image_formats
from stimulus.covergroups.common import (
    ALIGN_CLASSES,
    BATCH_CLASSES,
    CHANNEL_CLASSES,
    SIZE_CLASSES,
    align,
    batch_class,
    channel_class,
    memories,
    ram,
    size_class,
    stack,
    when_run,
)


def covergroup(coverage, group: str):
    return when_run(("CDMA", "CONV"), decode, _points(coverage, group))


def _points(coverage, g: str):
    p = coverage.profile
    five = list(range(1, 6))
    eight = list(range(1, 9))
    decorators = [
        coverage.point(g, "precision", lambda c: c.precision, sorted(p.feature_types & p.weight_types)),
        coverage.point(g, "mode", lambda c: "image" if c.image else c.conv_mode, ("direct", "winograd", "image")
                       if p.winograd else ("direct", "image")),
        coverage.point(g, "kernel_w", lambda c: c.weight_width_ext, five),
        coverage.point(g, "kernel_h", lambda c: c.weight_height_ext, five),
        coverage.point(g, "stride_x", lambda c: c.stride_x, eight),
        coverage.point(g, "dilation_x", lambda c: _dilation_class(c.dilation_x), DILATION_CLASSES),
        coverage.point(g, "pad", lambda c: "none" if not (c.pad_left or c.pad_top or c.pad_right or c.pad_bottom)
                       else "some", ("none", "some")),
        coverage.point(g, "channels", lambda c: channel_class(c.channels, p.mac_atomic_c), CHANNEL_CLASSES),
        coverage.point(g, "kernels", lambda c: channel_class(c.kernels, p.mac_atomic_k), CHANNEL_CLASSES),
        coverage.point(g, "compressed", lambda c: c.weight_format, ("uncompressed", "compressed")
                       if p.weight_compression else ("uncompressed",)),
        coverage.point(g, "reuse", _reuse, ("none", "data", "weight", "both")),
        coverage.point(g, "data_banks", lambda c: _bank_class(c, p), ("1", "2+", "all-but-one")),
        coverage.point(g, "batches", lambda c: batch_class(c.batches, p.max_batch_size), BATCH_CLASSES
                       if p.batch else ("1",)),
        coverage.point(g, "pixel_format", lambda c: c.pixel_format if c.image else None, image_formats(p)),
        coverage.point(g, "post_extension", lambda c: c.post_y_extension if c.image else None,
                       POST_EXTENSIONS),
        coverage.point(g, "image_cvt", lambda c: _image_cvt(c) if c.image else None, ("off", "offset", "mean")),
        # feature data passes the convertor too (golden.units.conv.cdma; rule CONV-FEATURE-CONVERTOR)
        coverage.point(g, "feature_cvt", lambda c: None if c.image or c.winograd or c.in_precision == "fp16"
                       else ("on" if c.cvt_en else "off"), ("off", "on")),
        coverage.cross(g, "kernel_w_x_stride_x", ["kernel_w", "stride_x"]),
        coverage.cross(g, "precision_x_mode", ["precision", "mode"]),
    ]
    if p.batch:
        decorators.append(coverage.cross(g, "precision_x_batches", ["precision", "batches"]))
    return stack(decorators + _parity_points(coverage, g))


def _parity_points(coverage, g: str) -> list:
    """NVIDIA's conv_cg meanings the points above do not hold (stimulus/coverage_parity.json): the CDMA/CSC
    register fields by value class, the memory side (RAM type, address alignment and high word, line /
    surface / pixel-pitch gaps, packed flags), the release and reuse flags and the precision crossings."""
    p = coverage.profile
    atom = p.memory_atomic_size
    precisions = sorted(p.feature_types & p.weight_types)
    pixel_precisions = sorted({pixel.pixel_format(name).precision for name in image_formats(p)})
    rams = memories(p)
    off_on = ("off", "on")
    families = sorted({_pixel_bytes(pixel.pixel_format(name)) for name in image_formats(p)})
    planar = sorted({_pixel_bytes(pixel.pixel_format(name)) for name in image_formats(p)
                     if pixel.pixel_format(name).planes == 2})
    decorators = [
        coverage.point(g, "in_precision", lambda c: c.in_precision,
                       sorted(set(precisions) | set(pixel_precisions))),
        coverage.point(g, "proc_precision", lambda c: c.proc_precision, precisions),
        coverage.point(g, "datain_format", lambda c: c.datain_format, ("feature", "pixel")),
        coverage.cross(g, "datain_format_x_in_precision", ["datain_format", "in_precision"],
                       [("feature", x) for x in sorted(set(pixel_precisions) - set(precisions))]),
        coverage.cross(g, "datain_format_x_proc_precision", ["datain_format", "proc_precision"]),
        # feature input is processed in its own precision (CONV-FEATURE-PRECISION); fp16 pixels only in fp16
        coverage.cross(g, "in_x_proc_precision_feature", ["in_precision", "proc_precision", "datain_format"],
                       [(None, None, "pixel")] + [(i, o, None) for i in precisions for o in precisions if i != o]),
        coverage.cross(g, "in_x_proc_precision_pixel", ["in_precision", "proc_precision", "datain_format"],
                       [(None, None, "feature")] + [("fp16", o, None) for o in precisions if o != "fp16"]),
        coverage.cross(g, "channels_x_datain_format", ["channels", "datain_format"],
                       [(k, "pixel") for k in CHANNEL_CLASSES if k not in ("1", "part-atom")]),
        # image input
        coverage.point(g, "pixel_mapping", lambda c: c.pixel_mapping if c.image else None, ("PITCH_LINEAR",)),
        coverage.cross(g, "pixel_format_x_pixel_mapping", ["pixel_format", "pixel_mapping"]),
        coverage.point(g, "pixel_bytes", lambda c: _pixel_bytes(pixel.pixel_format(c.pixel_format)) if c.image
                       else None, families),
        coverage.point(g, "pixel_x_offset", lambda c: None if not c.image else
                       4 * c.pixel_x_offset // atom, range(4)),
        coverage.cross(g, "pixel_bytes_x_pixel_x_offset", ["pixel_bytes", "pixel_x_offset"],
                       [(b, q) for b in families for q in range(4) if q * atom // 4 > atom // b - 1]),
        # PITCH_LINEAR is the only mapping (CONV-PIXEL-MAPPING) and its Y offset is 0 (CONV-PIXEL-Y-OFFSET)
        coverage.point(g, "pixel_y_offset", lambda c: c.pixel_y_offset if c.image else None, (0,)),
        coverage.cross(g, "pixel_mapping_x_pixel_y_offset", ["pixel_mapping", "pixel_y_offset"]),
        coverage.point(g, "pixel_sign_override", lambda c: c.pixel_sign_override if c.image else None,
                       ("UNSIGNED_INT", "SIGNED_INT")),
        # sizes (NVIDIA: 13-bit register ranges; here size classes)
        coverage.point(g, "width", lambda c: size_class(c.width), SIZE_CLASSES),
        coverage.point(g, "height", lambda c: size_class(c.height), SIZE_CLASSES),
        coverage.point(g, "width_ext", lambda c: size_class(c.csc_width_ext), SIZE_CLASSES),
        coverage.point(g, "height_ext", lambda c: size_class(c.csc_height_ext), SIZE_CLASSES),
        coverage.point(g, "channels_ext", lambda c: channel_class(c.csc_channel_ext, p.mac_atomic_c),
                       CHANNEL_CLASSES),
        coverage.point(g, "weight_channels_ext", lambda c: channel_class(c.weight_channel_ext, p.mac_atomic_c),
                       CHANNEL_CLASSES),
        coverage.point(g, "out_width", lambda c: size_class(c.csc_out_width), SIZE_CLASSES),
        coverage.point(g, "out_height", lambda c: size_class(c.csc_out_height), SIZE_CLASSES),
        coverage.point(g, "out_area", _out_area, ("1x1", "line", "wide")),
        # kernel placement
        coverage.point(g, "stride_y", lambda c: c.stride_y, range(1, 9)),
        coverage.point(g, "dilation_y", lambda c: _dilation_class(c.dilation_y), DILATION_CLASSES),
        coverage.cross(g, "mode_x_dilation_x", ["mode", "dilation_x"], [("winograd", None), ("image", None)]),
        coverage.cross(g, "mode_x_dilation_y", ["mode", "dilation_y"], [("winograd", None), ("image", None)]),
        coverage.point(g, "pad_left", lambda c: _pad_class(c.pad_left, PAD_BEFORE), PAD_BEFORE),
        coverage.point(g, "pad_top", lambda c: _pad_class(c.pad_top, PAD_BEFORE), PAD_BEFORE),
        coverage.point(g, "pad_right", lambda c: _pad_class(c.pad_right, PAD_AFTER), PAD_AFTER),
        coverage.point(g, "pad_bottom", lambda c: _pad_class(c.pad_bottom, PAD_AFTER), PAD_AFTER),
        coverage.point(g, "padded_width_mod_atom", lambda c: (c.pad_left + c.width + c.pad_right) % atom,
                       range(atom)),
        coverage.point(g, "padded_width_quarter", lambda c: None if not c.image or
                       pixel.pixel_format(c.pixel_format).planes != 2 else
                       4 * ((c.pad_left + c.width + c.pad_right) % atom) // atom, range(4)),
        coverage.point(g, "planar_pixel_bytes", lambda c: None if not c.image or
                       pixel.pixel_format(c.pixel_format).planes != 2 else
                       _pixel_bytes(pixel.pixel_format(c.pixel_format)), planar),
        coverage.cross(g, "planar_pixel_bytes_x_padded_width_quarter", ["planar_pixel_bytes",
                       "padded_width_quarter"]),
        # CBUF: banks, release and reuse
        coverage.point(g, "weight_banks", lambda c: _weight_bank_class(c, p), ("1", "2+", "all-but-one")),
        coverage.point(g, "data_reuse", lambda c: off_on[c.data_reuse], off_on),
        coverage.point(g, "weight_reuse", lambda c: off_on[c.weight_reuse], off_on),
        coverage.cross(g, "data_reuse_x_data_banks", ["data_reuse", "data_banks"], [("on", None)]),
        coverage.cross(g, "weight_reuse_x_weight_banks", ["weight_reuse", "weight_banks"], [("on", None)]),
        coverage.point(g, "skip_data_rls", lambda c: off_on[c.skip_data_rls], off_on),
        coverage.point(g, "skip_weight_rls", lambda c: off_on[c.skip_weight_rls], off_on),
        coverage.cross(g, "skip_data_rls_x_skip_weight_rls", ["skip_data_rls", "skip_weight_rls"]),
        # the input's memory side (feature input: gaps in atoms; image input: bytes beyond the pixels' line)
        coverage.point(g, "line_stride_gap", lambda c: None if c.image else
                       _atom_gap(c.line_stride // atom - c.width), ATOM_GAPS),
        coverage.point(g, "surface_stride_gap", lambda c: None if c.image else
                       _atom_gap(c.surf_stride // atom - c.line_stride // atom * c.height), ATOM_GAPS),
        coverage.point(g, "line_packed", lambda c: None if c.image else ("unpacked", "packed")[c.line_packed],
                       ("unpacked", "packed")),
        coverage.point(g, "surface_packed", lambda c: None if c.image else ("unpacked", "packed")[c.surf_packed],
                       ("unpacked", "packed")),
        coverage.point(g, "pitch_gap", lambda c: _pitch_gap(c, "single"), BYTE_GAPS),
        coverage.point(g, "pitch_gap_y", lambda c: _pitch_gap(c, "planar"), BYTE_GAPS),
        coverage.point(g, "pitch_gap_uv", lambda c: _pitch_gap(c, "uv"), BYTE_GAPS),
        coverage.point(g, "cacc_line_packed", lambda c: ("unpacked", "packed")[c.cacc_line_packed],
                       ("unpacked", "packed")),
        coverage.point(g, "cacc_surface_packed", lambda c: ("unpacked", "packed")[c.cacc_surf_packed],
                       ("unpacked", "packed")),
    ]
    # NVIDIA keeps, of the reuse crosses, only the layers that fetch (reuse off)
    fetch = [("on", None)]
    for item in ("line_stride_gap", "surface_stride_gap", "line_packed", "surface_packed", "pitch_gap",
                 "pitch_gap_y", "pitch_gap_uv"):
        decorators.append(coverage.cross(g, f"data_reuse_x_{item}", ["data_reuse", item], fetch))
    # CACC's packed flags go with a 1x1 output, unpacked with one of 2+ lines of 2+ pixels
    for item in ("cacc_line_packed", "cacc_surface_packed"):
        decorators.append(coverage.cross(g, f"data_reuse_x_{item}_x_out_area", ["data_reuse", item, "out_area"],
                                         [("on", None, None), (None, None, "line"), (None, "packed", "wide"),
                                          (None, "unpacked", "1x1")]))
    if "int16" in p.feature_types:
        decorators += [coverage.point(g, "pitch_gap_10bit", lambda c: _pitch_gap(c, "10bit"), BYTE_GAPS),
                       coverage.cross(g, "data_reuse_x_pitch_gap_10bit", ["data_reuse", "pitch_gap_10bit"], fetch)]
    if p.winograd:
        integer = [x for x in precisions if x != "fp16"]
        decorators += [
            coverage.point(g, "pra_truncate", lambda c: c.pra_truncate if c.winograd and c.precision != "fp16"
                           else None, (0, 1, 2)),
            coverage.cross(g, "in_precision_x_pra_truncate", ["in_precision", "pra_truncate"],
                           [(x, None) for x in sorted(set(precisions) | set(pixel_precisions)) if x not in integer]),
        ]
    # where the input and the weights are read from
    surfaces = [("data", lambda c: c.data_addr, lambda c: c.data_ram, "data_reuse"),
                ("data_1", lambda c: c.data_addr_1 if c.image and pixel.pixel_format(c.pixel_format).planes == 2
                 else None, lambda c: c.data_ram, "data_reuse"),
                ("weight", lambda c: c.weight_addr, lambda c: c.weight_ram, "weight_reuse")]
    if p.weight_compression:
        compressed = lambda c, a: getattr(c, a) if c.weight_format == "compressed" else None  # noqa: E731
        surfaces += [("wgs", lambda c: compressed(c, "wgs_addr"), lambda c: c.weight_ram, "weight_reuse"),
                     ("wmb", lambda c: compressed(c, "wmb_addr"), lambda c: c.weight_ram, "weight_reuse")]
    for name, address, ram_of, reuse in surfaces:
        memory = "data_ram" if name.startswith("data") else "weight_ram"
        if name in ("data", "weight"):
            decorators += [coverage.point(g, memory, lambda c, r=ram_of: ram(r(c) == "sec"), rams),
                           coverage.cross(g, f"{memory}_x_{reuse}", [memory, reuse], [(None, "on")])]
        decorators += [
            coverage.point(g, f"{name}_align", lambda c, a=address: None if a(c) is None else align(a(c)),
                           ALIGN_CLASSES),
            coverage.cross(g, f"{reuse}_x_{name}_align_x_{memory}", [reuse, f"{name}_align", memory],
                           [("on", None, None)]),
        ]
        if p.mem_address_width > 32:
            decorators += [
                coverage.point(g, f"{name}_addr_high", lambda c, a=address: None if a(c) is None else
                               "zero" if a(c) >> 32 == 0 else "nonzero", ("zero", "nonzero")),
                # the traceplayer addresses CV-SRAM at 0x5xxxxxxx (golden/trace.py): no high word there
                coverage.cross(g, f"{reuse}_x_{name}_addr_high_x_{memory}", [reuse, f"{name}_addr_high", memory],
                               [("on", None, None), (None, "nonzero", "sec_mem")]),
            ]
    return decorators


def _reuse(cfg) -> str:
    """What a convolution takes from the CBUF the previous layer left (needs traces of 2+ layers)."""
    return {(False, False): "none", (True, False): "data", (False, True): "weight",
            (True, True): "both"}[cfg.data_reuse, cfg.weight_reuse]


def _bank_class(cfg, profile: Profile) -> str:
    """CBUF banks the input takes: one, several, or all but the weights' one (and the WMB's)."""
    largest = profile.cbuf_bank_number - 1 - (cfg.weight_format == "compressed")
    return "all-but-one" if cfg.data_bank >= largest else "1" if cfg.data_bank == 1 else "2+"


DILATION_CLASSES = (1, 2, 3, "4-32")


#: NVIDIA's 8 ranges of PAD_LEFT / PAD_TOP (0-3, 4-7, ...) and of PAD_RIGHT / PAD_BOTTOM (0-7, 8-15, ...), the
#: first split at 0 and the upper ones merged.
PAD_BEFORE = ("0", "1-3", "4-7", "8-31")


PAD_AFTER = ("0", "1-7", "8-15", "16-63")


#: NVIDIA's line / surface gaps in atoms (0, each of 1..7, 8..16 in two) and pixel-line gaps in bytes (0,
#: 1..255 in seven, 256..512 in two), its auto-bin ranges.
ATOM_GAPS = (0, 1, 2, 3, 4, 5, 6, 7, "8-11", "12-16")


BYTE_GAPS = (0, "1-36", "37-72", "73-108", "109-144", "145-180", "181-216", "217-255", "256-383", "384-512")


def _dilation_class(dilation: int) -> int | str:
    return dilation if dilation <= 3 else "4-32"


def _pad_class(pad: int, classes: tuple) -> str:
    for name in classes:
        low, _, high = name.partition("-")
        if int(low) <= pad <= int(high or low):
            return name
    return None


def _atom_gap(gap: int):
    return gap if 0 <= gap <= 7 else "8-11" if 8 <= gap <= 11 else "12-16" if 12 <= gap <= 16 else None


def _byte_gap(gap: int):
    for name in BYTE_GAPS:
        low, _, high = str(name).partition("-")
        if int(low) <= gap <= int(high or low):
            return name
    return None


def _pixel_bytes(fmt) -> int:
    """Bytes of one pixel in the format's first plane (1, 2, 4 or 8)."""
    return fmt.plane_bytes[0]


#: NVIDIA's pixel-pitch cover points by the formats their crosses keep (codes of Table 33).
PITCH_GROUPS = {"10bit": range(20, 26), "single": [*range(0, 20), 26, 27], "planar": range(28, 36),
                "uv": range(28, 36)}


def _pitch_gap(cfg, group: str):
    """An image line's stride minus its pixels' bytes ((x offset + width) pixels of the plane), for the formats of
    NVIDIA's `group`; the UV plane's with UV_LINE_STRIDE."""
    if not cfg.image:
        return None
    fmt = pixel.pixel_format(cfg.pixel_format)
    if fmt.code not in PITCH_GROUPS[group]:
        return None
    stride, plane = (cfg.uv_line_stride, 1) if group == "uv" else (cfg.line_stride, 0)
    return _byte_gap(stride - (cfg.pixel_x_offset + cfg.width) * fmt.plane_bytes[plane])


def _out_area(cfg) -> str:
    """A 1x1 output, one line or column, or 2+ lines of 2+ pixels."""
    if cfg.csc_out_width == 1 and cfg.csc_out_height == 1:
        return "1x1"
    return "wide" if cfg.csc_out_width > 1 and cfg.csc_out_height > 1 else "line"


def _weight_bank_class(cfg, profile: Profile) -> str:
    """CBUF banks the weights take: one, several, or all but the data's one (and the WMB's)."""
    largest = profile.cbuf_bank_number - 1 - (cfg.weight_format == "compressed")
    return "all-but-one" if cfg.weight_bank >= largest else "1" if cfg.weight_bank == 1 else "2+"


def _image_cvt(cfg) -> str:
    return "off" if not cfg.cvt_en else "mean" if cfg.mean_format else "offset"
