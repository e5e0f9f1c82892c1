"""Program a convolution hardware layer from arrays: the registers and memory images a driver would set up.

The inverse of config.decode, for tests, benchmarks and stimulus: `direct_layer` lays out the cube
and the weights in memory (feature and weight formats of golden/formats, optionally compressed) and
encodes every CDMA/CSC/CMAC/CACC field, choosing legal derived values (right/bottom padding, entries per
slice, banks) the way the programming guide's formulas give them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from golden.config import Profile
from golden.errors import ConfigurationError
from golden.formats import compression, feature, pixel, weight, winograd
from golden.formats.feature import PRECISION_CODES
from golden.memory import MemorySystem
from golden.regs.regmap import RegisterMap
from golden.regs.values import RegisterValues
from golden.units.base import LayerContext
from golden.units.conv.limits import (
    GENERAL,
    REGDEF,
    WINOGRAD,
    dc_entries_per_slice,
    entry_bytes,
    image_entries_per_slice,
)

DATA_BASE = 0x8000_0000
WEIGHT_BASE = 0x8400_0000
WMB_BASE = 0x8800_0000
WGS_BASE = 0x8900_0000


@dataclass(frozen=True)
class DirectLayer:
    """Algorithm parameters of one direct-convolution layer (strides, dilation, padding in elements)."""

    precision: str = "int8"
    stride: tuple[int, int] = (1, 1)  # (y, x)
    dilation: tuple[int, int] = (1, 1)  # (y, x)
    pad: tuple[int, int] = (0, 0)  # (top, left); right/bottom follow from the output size
    pad_value: int = 0
    clip_truncate: int = 0
    compressed: bool = False
    nan_to_zero: bool = False
    out_hw: tuple[int, int] | None = None  # a larger output than the input needs: more right/bottom padding
    line_gap: int = 0  # atoms between one line's end and the next line (0: line-packed)
    surface_gap: int = 0  # atoms between one surface's last line and the next surface (0: surface-packed)
    convertor: tuple[int, int, int] | None = None  # (CVT_OFFSET, CVT_SCALE, CVT_TRUNCATE): CDMA converts the data


def output_size(size: int, pad_before: int, kernel: int, stride: int, dilation: int) -> tuple[int, int]:
    """(output size, after-padding) so that every input element is used (Limitation/General)."""
    span = (kernel - 1) * dilation + 1
    out = (pad_before + size - span) // stride + 1
    if out < 1:
        raise ConfigurationError("kernel larger than the padded input",
                                 fields=("CSC.D_WEIGHT_SIZE_EXT_0.WEIGHT_WIDTH_EXT",
                                         "CSC.D_WEIGHT_SIZE_EXT_0.WEIGHT_HEIGHT_EXT", "CDMA.D_ZERO_PADDING.PAD_LEFT",
                                         "CDMA.D_ZERO_PADDING.PAD_TOP"),
                                 rule=GENERAL)
    after = (out - 1) * stride + span - pad_before - size
    if after < 0:
        # the last input lines are not used: drop nothing, add padding up to the next output instead
        out += 1
        after += stride
    return out, after


def store_weights(profile: Profile, memory: MemorySystem, stream: np.ndarray, shape, precision: str,
                  compressed: bool) -> int:
    """Write a mapped weight stream at WEIGHT_BASE, or its WGS/WMB/weight surfaces; returns WMB_BYTES."""
    if not compressed:
        memory.pri.write(WEIGHT_BASE, stream)
        return 0
    kernels, per_kernel = shape[0], int(np.prod(shape[1:]))
    groups = compression.group_elements(kernels, per_kernel, precision, profile.mac_atomic_k)
    packed = compression.compress(stream[:weight.dc_weight_bytes(shape, precision)], precision, groups)
    memory.pri.write(WEIGHT_BASE, packed.weight)
    memory.pri.write(WMB_BASE, packed.wmb)
    memory.pri.write(WGS_BASE, packed.wgs)
    return weight.aligned_size(packed.wmb_bytes, weight.TAIL_ALIGN)  # CONV-WMB-BYTES: whole 128-byte units


@dataclass(frozen=True)
class _Pipeline:
    """The values every convolution mode programs into CDMA, CSC, CMAC_A/B and CACC (counts from 1)."""

    conv_mode: int
    precision: tuple[int, int]  # (IN_PRECISION, PROC_PRECISION) codes
    entries: int
    banks: tuple[int, int]  # (data, weight)
    weight_bytes: int
    wmb_bytes: int
    compressed: bool
    pad_value: int
    datain: tuple[int, int, int]  # (width, height, channels) in memory
    datain_ext: tuple[int, int, int]  # (width, height, channels) as CSC sees them
    line_stride: int
    byte_per_kernel: int
    weight_ext: tuple[int, int, int, int]  # CSC (width, height, channels, kernels)
    dataout: tuple[int, int]  # (width, height)
    stride: tuple[int, int]  # (x, y)
    pad: tuple[int, int, int, int]  # (left, right, top, bottom)
    clip_truncate: int


def _put(fields: dict[str, int], unit: str, reg: str, **values: int) -> None:
    for name, value in values.items():
        fields[f"{unit}.{reg}.{name}"] = int(value)


def _put_convertor(fields: dict[str, int], offset: int, scale: int, truncate: int, enable: bool = True) -> None:
    """The CDMA convertor's offset, scale and truncation (golden.units.conv.cdma.convert) and CVT_EN."""
    _put(fields, "CDMA", "D_CVT_CFG", CVT_EN=int(enable), CVT_TRUNCATE=truncate)
    _put(fields, "CDMA", "D_CVT_OFFSET", CVT_OFFSET=offset & 0xFFFF)
    _put(fields, "CDMA", "D_CVT_SCALE", CVT_SCALE=scale & 0xFFFF)


def _pipeline_fields(p: _Pipeline) -> dict[str, int]:
    """The register fields shared by direct, Winograd and image layers; each builder adds its mode's own."""
    fields: dict[str, int] = {}
    width, height, channels = p.datain
    width_ext, height_ext, channels_ext = p.datain_ext
    out_w, out_h = p.dataout
    sx, sy = p.stride
    pl, pr, pt, pb = p.pad
    kernels = p.weight_ext[3]
    for unit in ("CDMA", "CSC"):
        _put(fields, unit, "D_MISC_CFG", CONV_MODE=p.conv_mode, IN_PRECISION=p.precision[0],
             PROC_PRECISION=p.precision[1])
        _put(fields, unit, "D_ENTRY_PER_SLICE", ENTRIES=p.entries - 1)
        _put(fields, unit, "D_WEIGHT_FORMAT", WEIGHT_FORMAT=int(p.compressed))
        _put(fields, unit, "D_WEIGHT_BYTES", WEIGHT_BYTES=p.weight_bytes)
        _put(fields, unit, "D_WMB_BYTES", WMB_BYTES=p.wmb_bytes)
        _put(fields, unit, "D_ZERO_PADDING_VALUE", PAD_VALUE=p.pad_value & 0xFFFF)
        _put(fields, unit, "D_BANK", DATA_BANK=p.banks[0] - 1, WEIGHT_BANK=p.banks[1] - 1)
    _put(fields, "CDMA", "D_DATAIN_SIZE_0", DATAIN_WIDTH=width - 1, DATAIN_HEIGHT=height - 1)
    _put(fields, "CDMA", "D_DATAIN_SIZE_1", DATAIN_CHANNEL=channels - 1)
    _put(fields, "CDMA", "D_DATAIN_SIZE_EXT_0", DATAIN_WIDTH_EXT=width_ext - 1, DATAIN_HEIGHT_EXT=height_ext - 1)
    _put(fields, "CDMA", "D_DAIN_RAM_TYPE", DATAIN_RAM_TYPE=1)
    _put(fields, "CDMA", "D_DAIN_ADDR_LOW_0", DATAIN_ADDR_LOW_0=DATA_BASE)
    _put(fields, "CDMA", "D_LINE_STRIDE", LINE_STRIDE=p.line_stride)
    _put(fields, "CDMA", "D_WEIGHT_SIZE_0", BYTE_PER_KERNEL=p.byte_per_kernel - 1)
    _put(fields, "CDMA", "D_WEIGHT_SIZE_1", WEIGHT_KERNEL=kernels - 1)
    _put(fields, "CDMA", "D_WEIGHT_RAM_TYPE", WEIGHT_RAM_TYPE=1)
    _put(fields, "CDMA", "D_WEIGHT_ADDR_LOW", WEIGHT_ADDR_LOW=WEIGHT_BASE)
    _put(fields, "CDMA", "D_WMB_ADDR_LOW", WMB_ADDR_LOW=WMB_BASE)
    _put(fields, "CDMA", "D_WGS_ADDR_LOW", WGS_ADDR_LOW=WGS_BASE)
    _put(fields, "CDMA", "D_CONV_STRIDE", CONV_X_STRIDE=sx - 1, CONV_Y_STRIDE=sy - 1)
    _put(fields, "CDMA", "D_ZERO_PADDING", PAD_LEFT=pl, PAD_RIGHT=pr, PAD_TOP=pt, PAD_BOTTOM=pb)
    _put(fields, "CSC", "D_DATAIN_SIZE_EXT_0", DATAIN_WIDTH_EXT=width_ext - 1, DATAIN_HEIGHT_EXT=height_ext - 1)
    _put(fields, "CSC", "D_DATAIN_SIZE_EXT_1", DATAIN_CHANNEL_EXT=channels_ext - 1)
    _put(fields, "CSC", "D_WEIGHT_SIZE_EXT_0", WEIGHT_WIDTH_EXT=p.weight_ext[0] - 1,
         WEIGHT_HEIGHT_EXT=p.weight_ext[1] - 1)
    _put(fields, "CSC", "D_WEIGHT_SIZE_EXT_1", WEIGHT_CHANNEL_EXT=p.weight_ext[2] - 1, WEIGHT_KERNEL=kernels - 1)
    _put(fields, "CSC", "D_DATAOUT_SIZE_0", DATAOUT_WIDTH=out_w - 1, DATAOUT_HEIGHT=out_h - 1)
    _put(fields, "CSC", "D_DATAOUT_SIZE_1", DATAOUT_CHANNEL=kernels - 1)
    _put(fields, "CSC", "D_ATOMICS", ATOMICS=out_w * out_h - 1)
    _put(fields, "CSC", "D_RELEASE", RLS_SLICES=height_ext - 1)
    _put(fields, "CSC", "D_ZERO_PADDING", PAD_LEFT=pl, PAD_TOP=pt)
    for unit in ("CMAC_A", "CMAC_B", "CACC"):
        _put(fields, unit, "D_MISC_CFG", CONV_MODE=p.conv_mode, PROC_PRECISION=p.precision[1])
    _put(fields, "CACC", "D_DATAOUT_SIZE_0", DATAOUT_WIDTH=out_w - 1, DATAOUT_HEIGHT=out_h - 1)
    _put(fields, "CACC", "D_DATAOUT_SIZE_1", DATAOUT_CHANNEL=kernels - 1)
    _put(fields, "CACC", "D_CLIP_CFG", CLIP_TRUNCATE=p.clip_truncate)
    return fields


def _fp16_raw(values: np.ndarray, precision: str) -> np.ndarray:
    return feature.as_elements(values, precision)


def direct_layer(profile: Profile, cube: np.ndarray, weights: np.ndarray, layer: DirectLayer,
                 memory: MemorySystem | None = None) -> LayerContext:
    """A LayerContext running `weights` (K, C, R, S) over `cube` (C, H, W) or (N, C, H, W)."""
    cube = _fp16_raw(np.asarray(cube), layer.precision)
    weights = _fp16_raw(np.asarray(weights), layer.precision)
    cube4 = cube if cube.ndim == 4 else cube[None]
    batches, channels, height, width = cube4.shape
    kernels, wchannels, rows, cols = weights.shape
    if wchannels != channels:
        raise ConfigurationError(f"weights have {wchannels} channels, the cube {channels}",
                                 fields=("CSC.D_WEIGHT_SIZE_EXT_1.WEIGHT_CHANNEL_EXT",
                                         "CDMA.D_DATAIN_SIZE_1.DATAIN_CHANNEL"),
                                 rule=REGDEF)
    atom = profile.memory_atomic_size
    precision = layer.precision
    bpe = feature.element_bytes(precision)
    line_stride, surf_stride = feature.packed_strides(cube4.shape, precision, atom)
    line_stride += layer.line_gap * atom
    surf_stride = line_stride * height + layer.surface_gap * atom
    surfaces = feature.surfaces(channels, atom // bpe)
    batch_stride = -(-(surfaces * surf_stride) // 64) * 64 if batches > 1 else 0
    memory = memory or MemorySystem()
    data = feature.pack_feature(cube4 if batches > 1 else cube4[0], precision, line_stride, surf_stride, atom,
                                batch_stride or None)
    memory.pri.write(DATA_BASE, data)

    stream = weight.pack_dc_weights(weights, precision, profile.mac_atomic_c, profile.mac_atomic_k)
    weight_bytes = weight.dc_weight_bytes(weights.shape, precision)
    weight_total = weight.aligned_size(weight_bytes)
    wmb_bytes = store_weights(profile, memory, stream, weights.shape, precision, layer.compressed)

    (dy, dx), (sy, sx), (pt, pl) = layer.dilation, layer.stride, layer.pad
    out_h, pb = output_size(height, pt, rows, sy, dy)
    out_w, pr = output_size(width, pl, cols, sx, dx)
    if layer.out_hw is not None:
        out_h, out_w = layer.out_hw
        pb = (out_h - 1) * sy + (rows - 1) * dy + 1 - pt - height
        pr = (out_w - 1) * sx + (cols - 1) * dx + 1 - pl - width
    entries = dc_entries_per_slice(profile, width, channels, precision)
    bank_entries = profile.cbuf_bank_bytes // entry_bytes(profile)
    data_banks = -(-entries * height * batches // bank_entries)
    weight_banks = profile.cbuf_bank_number - data_banks - (1 if layer.compressed else 0)
    if weight_banks < 1:
        raise ConfigurationError(f"the input needs {data_banks} CBUF banks, too many for one layer",
                                 fields=("CDMA.D_BANK.DATA_BANK", "CDMA.D_BANK.WEIGHT_BANK"), rule=REGDEF)

    mode = PRECISION_CODES[precision]
    fields = _pipeline_fields(_Pipeline(
        conv_mode=0, precision=(mode, mode), entries=entries, banks=(data_banks, weight_banks),
        weight_bytes=weight_total, wmb_bytes=wmb_bytes, compressed=layer.compressed, pad_value=layer.pad_value,
        datain=(width, height, channels), datain_ext=(width, height, channels), line_stride=line_stride,
        byte_per_kernel=channels * rows * cols * bpe, weight_ext=(cols, rows, channels, kernels),
        dataout=(out_w, out_h), stride=(sx, sy), pad=(pl, pr, pt, pb), clip_truncate=layer.clip_truncate))
    for unit in ("CDMA", "CSC", "CACC"):
        _put(fields, unit, "D_BATCH_NUMBER", BATCHES=batches - 1)
    _put(fields, "CDMA", "D_SURF_STRIDE", SURF_STRIDE=surf_stride)
    # programming-guide: Register definition, CDMA.D_DAIN_MAP: the flags say whether the strides are packed
    _put(fields, "CDMA", "D_DAIN_MAP", LINE_PACKED=int(feature.is_line_packed(cube4.shape, line_stride, atom)),
         SURF_PACKED=int(feature.is_surface_packed(cube4.shape, line_stride, surf_stride)))
    _put(fields, "CDMA", "D_BATCH_STRIDE", BATCH_STRIDE=batch_stride)
    _put(fields, "CDMA", "D_NAN_FLUSH_TO_ZERO", NAN_TO_ZERO=int(layer.nan_to_zero))
    if layer.convertor is not None:
        _put_convertor(fields, *layer.convertor)
    _put(fields, "CSC", "D_CONV_STRIDE_EXT", CONV_X_STRIDE_EXT=sx - 1, CONV_Y_STRIDE_EXT=sy - 1)
    _put(fields, "CSC", "D_DILATION_EXT", X_DILATION_EXT=dx - 1, Y_DILATION_EXT=dy - 1)
    regs = RegisterValues.encode(RegisterMap.for_profile(profile), fields)
    return LayerContext(profile, regs, memory)


@dataclass(frozen=True)
class WinogradLayer:
    """A Winograd layer: stride folds into channels; the output (multiple of 4, >= 8) sets the right and
    bottom padding so that DATAIN_SIZE_EXT = output + 4 (programming guide: CACC.D_DATAOUT_SIZE_0)."""

    precision: str = "int8"
    stride: tuple[int, int] = (1, 1)  # (y, x)
    pad: tuple[int, int] = (1, 1)  # (top, left)
    out_hw: tuple[int, int] = (8, 8)
    pad_value: int = 0
    pra_truncate: int = 0
    clip_truncate: int = 0
    compressed: bool = False


def winograd_layer(profile: Profile, cube: np.ndarray, transformed: np.ndarray, layer: WinogradLayer,
                   memory: MemorySystem | None = None) -> LayerContext:
    """A LayerContext for `transformed` (K, C'*sx*sy, 4, 4) weights (formats.winograd.phase1) over (C, H, W)."""
    precision = layer.precision
    cube = feature.as_elements(np.asarray(cube), precision)
    transformed = feature.as_elements(np.asarray(transformed), precision)
    channels, height, width = cube.shape
    kernels, ext_channels = transformed.shape[:2]
    (sy, sx), (pt, pl), (out_h, out_w) = layer.stride, layer.pad, layer.out_hw
    ext_h, ext_w = out_h + 4, out_w + 4
    pb, pr = ext_h * sy - height - pt, ext_w * sx - width - pl
    if min(pb, pr) < 0 or max(pb, pr) > 63 or max(pt, pl) > 31:
        raise ConfigurationError(f"input {height}x{width} does not give a {out_h}x{out_w} Winograd output",
                                 fields=("CDMA.D_ZERO_PADDING.PAD_RIGHT", "CDMA.D_ZERO_PADDING.PAD_BOTTOM",
                                         "CSC.D_DATAOUT_SIZE_0.DATAOUT_WIDTH", "CSC.D_DATAOUT_SIZE_0.DATAOUT_HEIGHT"),
                                 rule=WINOGRAD)
    atom = profile.memory_atomic_size
    bpe = feature.element_bytes(precision)
    memory = memory or MemorySystem()
    line_stride, surf_stride = feature.packed_strides(cube.shape, precision, atom)
    memory.pri.write(DATA_BASE, feature.pack_feature(cube, precision, line_stride, surf_stride, atom))
    stream = winograd.pack_winograd_weights(transformed, precision, profile.mac_atomic_k)
    wmb_bytes = store_weights(profile, memory, stream, transformed.shape, precision, layer.compressed)
    entries = ext_w * bpe * ext_channels // 128
    bank_entries = profile.cbuf_bank_bytes // entry_bytes(profile)
    data_banks = -(-entries * ext_h // bank_entries)
    weight_banks = profile.cbuf_bank_number - data_banks - (1 if layer.compressed else 0)
    mode = PRECISION_CODES[precision]
    fields = _pipeline_fields(_Pipeline(
        conv_mode=1, precision=(mode, mode), entries=entries, banks=(data_banks, weight_banks),
        weight_bytes=weight.aligned_size(transformed.nbytes), wmb_bytes=wmb_bytes, compressed=layer.compressed,
        pad_value=layer.pad_value, datain=(width, height, channels), datain_ext=(ext_w, ext_h, ext_channels),
        line_stride=line_stride, byte_per_kernel=ext_channels * 16 * bpe, weight_ext=(4, 4, ext_channels, kernels),
        dataout=(out_w, out_h), stride=(sx, sy), pad=(pl, pr, pt, pb), clip_truncate=layer.clip_truncate))
    _put(fields, "CDMA", "D_SURF_STRIDE", SURF_STRIDE=surf_stride)
    _put(fields, "CDMA", "D_DAIN_MAP", LINE_PACKED=1, SURF_PACKED=1)
    _put(fields, "CSC", "D_PRA_CFG", PRA_TRUNCATE=layer.pra_truncate)
    regs = RegisterValues.encode(RegisterMap.for_profile(profile), fields)
    return LayerContext(profile, regs, memory)


@dataclass(frozen=True)
class ImageLayer:
    """An image-input layer: pixel format, CDMA convertor settings and the convolution parameters."""

    pixel_format: str = "T_R8G8B8A8"
    precision: str = "int8"  # processing precision (Table 29)
    stride: tuple[int, int] = (1, 1)
    pad: tuple[int, int] = (0, 0)
    pad_value: int = 0
    x_offset: int = 0
    sign_override: str = "UNSIGNED_INT"
    cvt_en: bool = True
    cvt_offset: int = 0
    cvt_scale: int = 1
    cvt_truncate: int = 0
    mean: tuple[int, int, int, int] | None = None  # MEAN_FORMAT enabled with these RY, GU, BV, AX
    post_extension: int = 1
    clip_truncate: int = 0
    compressed: bool = False
    line_gap: int = 0  # bytes (a multiple of 32) beyond the first plane's line
    uv_gap: int = 0  # bytes (a multiple of 32) beyond the second plane's line


IMAGE_BASE_1 = DATA_BASE + 0x20_0000  # the second (UV) plane, 2 MiB after the first


def image_layer(profile: Profile, pixels: np.ndarray, weights: np.ndarray, layer: ImageLayer,
                memory: MemorySystem | None = None) -> LayerContext:
    """A LayerContext convolving (K, C, R, S) `weights` over the raw (C, H, W) `pixels` of `pixel_format`."""
    fmt = pixel.pixel_format(layer.pixel_format)
    precision = layer.precision
    raw = np.asarray(pixels)
    channels, height, width = raw.shape
    weights = feature.as_elements(np.asarray(weights), precision)
    kernels, _, rows, cols = weights.shape
    bpe = feature.element_bytes(precision)
    atom = profile.memory_atomic_size
    offsets = pixel.plane_offsets(fmt, layer.x_offset, atom)
    line_stride = -(-(offsets[0] + width) * fmt.plane_bytes[0] // 32) * 32 + layer.line_gap
    uv_stride = -(-(offsets[-1] + width) * fmt.plane_bytes[-1] // 32) * 32 + layer.uv_gap
    memory = memory or MemorySystem()
    planes = pixel.pack_pixels(raw, fmt, line_stride, uv_stride if fmt.planes == 2 else None, layer.x_offset,
                               atom=atom)
    memory.pri.write(DATA_BASE, planes[0])
    if fmt.planes == 2:
        memory.pri.write(IMAGE_BASE_1, planes[1])
    stream = weight.pack_image_weights(weights, precision, profile.mac_atomic_c, profile.mac_atomic_k,
                                       layer.post_extension)
    wmb_bytes = store_weights(profile, memory, stream, weights.shape, precision, layer.compressed)
    (sy, sx), (pt, pl) = layer.stride, layer.pad
    out_h, pb = output_size(height, pt, rows, sy, 1)
    out_w, pr = output_size(width, pl, cols, sx, 1)
    entries = image_entries_per_slice(profile, pl, width, pr, channels, precision)
    bank_entries = profile.cbuf_bank_bytes // entry_bytes(profile)
    data_banks = -(-entries * height // bank_entries)
    mode = PRECISION_CODES[precision]
    fields = _pipeline_fields(_Pipeline(
        conv_mode=0, precision=(PRECISION_CODES[fmt.precision], mode), entries=entries,
        banks=(data_banks, profile.cbuf_bank_number - data_banks - int(layer.compressed)),
        weight_bytes=weight.aligned_size(weight.dc_weight_bytes(weights.shape, precision)), wmb_bytes=wmb_bytes,
        compressed=layer.compressed, pad_value=layer.pad_value, datain=(width, height, channels),
        datain_ext=(width, height, channels), line_stride=line_stride, byte_per_kernel=channels * rows * cols * bpe,
        weight_ext=(1, rows, channels * cols, kernels), dataout=(out_w, out_h), stride=(sx, sy),
        pad=(pl, pr, pt, pb), clip_truncate=layer.clip_truncate))
    for unit in ("CDMA", "CSC"):
        _put(fields, unit, "D_DATAIN_FORMAT", DATAIN_FORMAT=1)
    _put(fields, "CDMA", "D_DATAIN_FORMAT", PIXEL_FORMAT=fmt.code, PIXEL_MAPPING=0,
         PIXEL_SIGN_OVERRIDE=int(layer.sign_override == "SIGNED_INT"))
    _put(fields, "CDMA", "D_PIXEL_OFFSET", PIXEL_X_OFFSET=layer.x_offset)
    _put(fields, "CDMA", "D_DAIN_ADDR_LOW_1", DATAIN_ADDR_LOW_1=IMAGE_BASE_1)
    _put(fields, "CDMA", "D_LINE_UV_STRIDE", UV_LINE_STRIDE=uv_stride)
    _put_convertor(fields, layer.cvt_offset, layer.cvt_scale, layer.cvt_truncate, layer.cvt_en)
    if layer.mean is not None:
        ry, gu, bv, ax = (m & 0xFFFF for m in layer.mean)
        _put(fields, "CDMA", "D_MEAN_FORMAT", MEAN_FORMAT=1)
        _put(fields, "CDMA", "D_MEAN_GLOBAL_0", MEAN_RY=ry, MEAN_GU=gu)
        _put(fields, "CDMA", "D_MEAN_GLOBAL_1", MEAN_BV=bv, MEAN_AX=ax)
    _put(fields, "CSC", "D_POST_Y_EXTENSION", Y_EXTENSION={1: 0, 2: 1, 4: 2}[layer.post_extension])
    _put(fields, "CSC", "D_CONV_STRIDE_EXT", CONV_X_STRIDE_EXT=sx - 1, CONV_Y_STRIDE_EXT=sy - 1)
    regs = RegisterValues.encode(RegisterMap.for_profile(profile), fields)
    return LayerContext(profile, regs, memory)
