"""Program a convolution hardware layer from arrays: the registers and memory images a driver would set up.

The inverse of config.read_config, for tests, benchmarks and stimulus: `direct_layer` lays out the cube
and the weights in memory (feature and weight formats of golden/formats, optionally compressed) and
encodes every CDMA/CSC/CMAC/CACC field, choosing legal derived values (right/bottom padding, entries per
slice, banks) the way the programming guide's formulas give them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from golden.config import Profile
from golden.errors import ConfigurationError
from golden.formats import compression, feature, weight
from golden.memory import MemorySystem
from golden.regs.regmap import RegisterMap
from golden.regs.values import RegisterValues
from golden.units.base import LayerContext
from golden.units.conv.limits import GENERAL, REGDEF, WINOGRAD, dc_entries_per_slice, entry_bytes

PRECISION_CODES = {"int8": 0, "int16": 1, "fp16": 2}
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
    return packed.wmb_bytes


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
    misc = {"CONV_MODE": 0, "IN_PRECISION": mode, "PROC_PRECISION": mode}
    fields: dict[str, int] = {}

    def put(unit: str, reg: str, **values: int) -> None:
        for name, value in values.items():
            fields[f"{unit}.{reg}.{name}"] = int(value)

    for unit in ("CDMA", "CSC"):
        put(unit, "D_MISC_CFG", **misc)
        put(unit, "D_BATCH_NUMBER", BATCHES=batches - 1)
        put(unit, "D_ENTRY_PER_SLICE", ENTRIES=entries - 1)
        put(unit, "D_WEIGHT_FORMAT", WEIGHT_FORMAT=int(layer.compressed))
        put(unit, "D_WEIGHT_BYTES", WEIGHT_BYTES=weight_total)
        put(unit, "D_WMB_BYTES", WMB_BYTES=wmb_bytes)
        put(unit, "D_ZERO_PADDING_VALUE", PAD_VALUE=layer.pad_value & 0xFFFF)
        put(unit, "D_BANK", DATA_BANK=data_banks - 1, WEIGHT_BANK=weight_banks - 1)
    put("CDMA", "D_DATAIN_SIZE_0", DATAIN_WIDTH=width - 1, DATAIN_HEIGHT=height - 1)
    put("CDMA", "D_DATAIN_SIZE_1", DATAIN_CHANNEL=channels - 1)
    put("CDMA", "D_DATAIN_SIZE_EXT_0", DATAIN_WIDTH_EXT=width - 1, DATAIN_HEIGHT_EXT=height - 1)
    put("CDMA", "D_DAIN_RAM_TYPE", DATAIN_RAM_TYPE=1)
    put("CDMA", "D_DAIN_ADDR_LOW_0", DATAIN_ADDR_LOW_0=DATA_BASE)
    put("CDMA", "D_LINE_STRIDE", LINE_STRIDE=line_stride)
    put("CDMA", "D_SURF_STRIDE", SURF_STRIDE=surf_stride)
    put("CDMA", "D_DAIN_MAP", LINE_PACKED=1, SURF_PACKED=1)
    put("CDMA", "D_BATCH_STRIDE", BATCH_STRIDE=batch_stride)
    put("CDMA", "D_WEIGHT_SIZE_0", BYTE_PER_KERNEL=channels * rows * cols * bpe - 1)
    put("CDMA", "D_WEIGHT_SIZE_1", WEIGHT_KERNEL=kernels - 1)
    put("CDMA", "D_WEIGHT_RAM_TYPE", WEIGHT_RAM_TYPE=1)
    put("CDMA", "D_WEIGHT_ADDR_LOW", WEIGHT_ADDR_LOW=WEIGHT_BASE)
    put("CDMA", "D_WMB_ADDR_LOW", WMB_ADDR_LOW=WMB_BASE)
    put("CDMA", "D_WGS_ADDR_LOW", WGS_ADDR_LOW=WGS_BASE)
    put("CDMA", "D_CONV_STRIDE", CONV_X_STRIDE=sx - 1, CONV_Y_STRIDE=sy - 1)
    put("CDMA", "D_ZERO_PADDING", PAD_LEFT=pl, PAD_RIGHT=pr, PAD_TOP=pt, PAD_BOTTOM=pb)
    put("CDMA", "D_NAN_FLUSH_TO_ZERO", NAN_TO_ZERO=int(layer.nan_to_zero))
    put("CSC", "D_DATAIN_SIZE_EXT_0", DATAIN_WIDTH_EXT=width - 1, DATAIN_HEIGHT_EXT=height - 1)
    put("CSC", "D_DATAIN_SIZE_EXT_1", DATAIN_CHANNEL_EXT=channels - 1)
    put("CSC", "D_WEIGHT_SIZE_EXT_0", WEIGHT_WIDTH_EXT=cols - 1, WEIGHT_HEIGHT_EXT=rows - 1)
    put("CSC", "D_WEIGHT_SIZE_EXT_1", WEIGHT_CHANNEL_EXT=channels - 1, WEIGHT_KERNEL=kernels - 1)
    put("CSC", "D_DATAOUT_SIZE_0", DATAOUT_WIDTH=out_w - 1, DATAOUT_HEIGHT=out_h - 1)
    put("CSC", "D_DATAOUT_SIZE_1", DATAOUT_CHANNEL=kernels - 1)
    put("CSC", "D_ATOMICS", ATOMICS=out_w * out_h - 1)
    put("CSC", "D_RELEASE", RLS_SLICES=height - 1)
    put("CSC", "D_CONV_STRIDE_EXT", CONV_X_STRIDE_EXT=sx - 1, CONV_Y_STRIDE_EXT=sy - 1)
    put("CSC", "D_DILATION_EXT", X_DILATION_EXT=dx - 1, Y_DILATION_EXT=dy - 1)
    put("CSC", "D_ZERO_PADDING", PAD_LEFT=pl, PAD_TOP=pt)
    for unit in ("CMAC_A", "CMAC_B"):
        put(unit, "D_MISC_CFG", CONV_MODE=0, PROC_PRECISION=mode)
    put("CACC", "D_MISC_CFG", CONV_MODE=0, PROC_PRECISION=mode)
    put("CACC", "D_DATAOUT_SIZE_0", DATAOUT_WIDTH=out_w - 1, DATAOUT_HEIGHT=out_h - 1)
    put("CACC", "D_DATAOUT_SIZE_1", DATAOUT_CHANNEL=kernels - 1)
    put("CACC", "D_BATCH_NUMBER", BATCHES=batches - 1)
    put("CACC", "D_CLIP_CFG", CLIP_TRUNCATE=layer.clip_truncate)
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
    from golden.formats import winograd
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
    fields: dict[str, int] = {}

    def put(unit: str, reg: str, **values: int) -> None:
        for name, value in values.items():
            fields[f"{unit}.{reg}.{name}"] = int(value)

    for unit in ("CDMA", "CSC"):
        put(unit, "D_MISC_CFG", CONV_MODE=1, IN_PRECISION=mode, PROC_PRECISION=mode)
        put(unit, "D_ENTRY_PER_SLICE", ENTRIES=entries - 1)
        put(unit, "D_WEIGHT_FORMAT", WEIGHT_FORMAT=int(layer.compressed))
        put(unit, "D_WMB_BYTES", WMB_BYTES=wmb_bytes)
        put(unit, "D_WEIGHT_BYTES", WEIGHT_BYTES=weight.aligned_size(transformed.nbytes))
        put(unit, "D_ZERO_PADDING_VALUE", PAD_VALUE=layer.pad_value & 0xFFFF)
        put(unit, "D_BANK", DATA_BANK=data_banks - 1, WEIGHT_BANK=weight_banks - 1)
    put("CDMA", "D_DATAIN_SIZE_0", DATAIN_WIDTH=width - 1, DATAIN_HEIGHT=height - 1)
    put("CDMA", "D_DATAIN_SIZE_1", DATAIN_CHANNEL=channels - 1)
    put("CDMA", "D_DATAIN_SIZE_EXT_0", DATAIN_WIDTH_EXT=ext_w - 1, DATAIN_HEIGHT_EXT=ext_h - 1)
    put("CDMA", "D_DAIN_RAM_TYPE", DATAIN_RAM_TYPE=1)
    put("CDMA", "D_DAIN_ADDR_LOW_0", DATAIN_ADDR_LOW_0=DATA_BASE)
    put("CDMA", "D_LINE_STRIDE", LINE_STRIDE=line_stride)
    put("CDMA", "D_SURF_STRIDE", SURF_STRIDE=surf_stride)
    put("CDMA", "D_DAIN_MAP", LINE_PACKED=1, SURF_PACKED=1)
    put("CDMA", "D_WEIGHT_SIZE_0", BYTE_PER_KERNEL=ext_channels * 16 * bpe - 1)
    put("CDMA", "D_WEIGHT_SIZE_1", WEIGHT_KERNEL=kernels - 1)
    put("CDMA", "D_WEIGHT_RAM_TYPE", WEIGHT_RAM_TYPE=1)
    put("CDMA", "D_WEIGHT_ADDR_LOW", WEIGHT_ADDR_LOW=WEIGHT_BASE)
    put("CDMA", "D_WMB_ADDR_LOW", WMB_ADDR_LOW=WMB_BASE)
    put("CDMA", "D_WGS_ADDR_LOW", WGS_ADDR_LOW=WGS_BASE)
    put("CDMA", "D_CONV_STRIDE", CONV_X_STRIDE=sx - 1, CONV_Y_STRIDE=sy - 1)
    put("CDMA", "D_ZERO_PADDING", PAD_LEFT=pl, PAD_RIGHT=pr, PAD_TOP=pt, PAD_BOTTOM=pb)
    put("CSC", "D_DATAIN_SIZE_EXT_0", DATAIN_WIDTH_EXT=ext_w - 1, DATAIN_HEIGHT_EXT=ext_h - 1)
    put("CSC", "D_DATAIN_SIZE_EXT_1", DATAIN_CHANNEL_EXT=ext_channels - 1)
    put("CSC", "D_WEIGHT_SIZE_EXT_0", WEIGHT_WIDTH_EXT=3, WEIGHT_HEIGHT_EXT=3)
    put("CSC", "D_WEIGHT_SIZE_EXT_1", WEIGHT_CHANNEL_EXT=ext_channels - 1, WEIGHT_KERNEL=kernels - 1)
    put("CSC", "D_DATAOUT_SIZE_0", DATAOUT_WIDTH=out_w - 1, DATAOUT_HEIGHT=out_h - 1)
    put("CSC", "D_DATAOUT_SIZE_1", DATAOUT_CHANNEL=kernels - 1)
    put("CSC", "D_ATOMICS", ATOMICS=out_w * out_h - 1)
    put("CSC", "D_RELEASE", RLS_SLICES=ext_h - 1)
    put("CSC", "D_ZERO_PADDING", PAD_LEFT=pl, PAD_TOP=pt)
    put("CSC", "D_PRA_CFG", PRA_TRUNCATE=layer.pra_truncate)
    for unit in ("CMAC_A", "CMAC_B", "CACC"):
        put(unit, "D_MISC_CFG", CONV_MODE=1, PROC_PRECISION=mode)
    put("CACC", "D_DATAOUT_SIZE_0", DATAOUT_WIDTH=out_w - 1, DATAOUT_HEIGHT=out_h - 1)
    put("CACC", "D_DATAOUT_SIZE_1", DATAOUT_CHANNEL=kernels - 1)
    put("CACC", "D_CLIP_CFG", CLIP_TRUNCATE=layer.clip_truncate)
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


IMAGE_BASE_1 = 0x8200_0000


def image_layer(profile: Profile, pixels: np.ndarray, weights: np.ndarray, layer: ImageLayer,
                memory: MemorySystem | None = None) -> LayerContext:
    """A LayerContext convolving (K, C, R, S) `weights` over the raw (C, H, W) `pixels` of `pixel_format`."""
    from golden.formats import pixel
    fmt = pixel.pixel_format(layer.pixel_format)
    precision = layer.precision
    raw = np.asarray(pixels)
    channels, height, width = raw.shape
    weights = feature.as_elements(np.asarray(weights), precision)
    kernels, _, rows, cols = weights.shape
    bpe = feature.element_bytes(precision)
    line_stride = -(-(layer.x_offset + width) * fmt.plane_bytes[0] // 32) * 32
    uv_stride = -(-(layer.x_offset + width) * fmt.plane_bytes[-1] // 32) * 32
    memory = memory or MemorySystem()
    planes = pixel.pack_pixels(raw, fmt, line_stride, uv_stride if fmt.planes == 2 else None, layer.x_offset)
    memory.pri.write(DATA_BASE, planes[0])
    if fmt.planes == 2:
        memory.pri.write(IMAGE_BASE_1, planes[1])
    stream = weight.pack_image_weights(weights, precision, profile.mac_atomic_c, profile.mac_atomic_k,
                                       layer.post_extension)
    wmb_bytes = store_weights(profile, memory, stream, weights.shape, precision, layer.compressed)
    (sy, sx), (pt, pl) = layer.stride, layer.pad
    out_h, pb = output_size(height, pt, rows, sy, 1)
    out_w, pr = output_size(width, pl, cols, sx, 1)
    entries = -(-width * channels * bpe // entry_bytes(profile)) + 1
    bank_entries = profile.cbuf_bank_bytes // entry_bytes(profile)
    data_banks = -(-entries * height // bank_entries)
    mode = PRECISION_CODES[precision]
    in_mode = PRECISION_CODES[fmt.precision]
    fields: dict[str, int] = {}

    def put(unit: str, reg: str, **values: int) -> None:
        for name, value in values.items():
            fields[f"{unit}.{reg}.{name}"] = int(value)

    for unit in ("CDMA", "CSC"):
        put(unit, "D_MISC_CFG", CONV_MODE=0, IN_PRECISION=in_mode, PROC_PRECISION=mode)
        put(unit, "D_DATAIN_FORMAT", DATAIN_FORMAT=1)
        put(unit, "D_ENTRY_PER_SLICE", ENTRIES=entries - 1)
        put(unit, "D_WEIGHT_BYTES", WEIGHT_BYTES=weight.aligned_size(weight.dc_weight_bytes(weights.shape,
                                                                                            precision)))
        put(unit, "D_ZERO_PADDING_VALUE", PAD_VALUE=layer.pad_value & 0xFFFF)
        put(unit, "D_BANK", DATA_BANK=data_banks - 1,
            WEIGHT_BANK=profile.cbuf_bank_number - data_banks - 1 - int(layer.compressed))
        put(unit, "D_WEIGHT_FORMAT", WEIGHT_FORMAT=int(layer.compressed))
        put(unit, "D_WMB_BYTES", WMB_BYTES=wmb_bytes)
    put("CDMA", "D_DATAIN_FORMAT", PIXEL_FORMAT=fmt.code, PIXEL_MAPPING=0,
        PIXEL_SIGN_OVERRIDE=int(layer.sign_override == "SIGNED_INT"))
    put("CDMA", "D_PIXEL_OFFSET", PIXEL_X_OFFSET=layer.x_offset)
    put("CDMA", "D_DATAIN_SIZE_0", DATAIN_WIDTH=width - 1, DATAIN_HEIGHT=height - 1)
    put("CDMA", "D_DATAIN_SIZE_1", DATAIN_CHANNEL=channels - 1)
    put("CDMA", "D_DATAIN_SIZE_EXT_0", DATAIN_WIDTH_EXT=width - 1, DATAIN_HEIGHT_EXT=height - 1)
    put("CDMA", "D_DAIN_RAM_TYPE", DATAIN_RAM_TYPE=1)
    put("CDMA", "D_DAIN_ADDR_LOW_0", DATAIN_ADDR_LOW_0=DATA_BASE)
    put("CDMA", "D_DAIN_ADDR_LOW_1", DATAIN_ADDR_LOW_1=IMAGE_BASE_1)
    put("CDMA", "D_LINE_STRIDE", LINE_STRIDE=line_stride)
    put("CDMA", "D_LINE_UV_STRIDE", UV_LINE_STRIDE=uv_stride)
    put("CDMA", "D_WEIGHT_SIZE_0", BYTE_PER_KERNEL=channels * rows * cols * bpe - 1)
    put("CDMA", "D_WEIGHT_SIZE_1", WEIGHT_KERNEL=kernels - 1)
    put("CDMA", "D_WEIGHT_RAM_TYPE", WEIGHT_RAM_TYPE=1)
    put("CDMA", "D_WEIGHT_ADDR_LOW", WEIGHT_ADDR_LOW=WEIGHT_BASE)
    put("CDMA", "D_WMB_ADDR_LOW", WMB_ADDR_LOW=WMB_BASE)
    put("CDMA", "D_WGS_ADDR_LOW", WGS_ADDR_LOW=WGS_BASE)
    put("CDMA", "D_CVT_CFG", CVT_EN=int(layer.cvt_en), CVT_TRUNCATE=layer.cvt_truncate)
    put("CDMA", "D_CVT_OFFSET", CVT_OFFSET=layer.cvt_offset & 0xFFFF)
    put("CDMA", "D_CVT_SCALE", CVT_SCALE=layer.cvt_scale & 0xFFFF)
    if layer.mean is not None:
        ry, gu, bv, ax = (m & 0xFFFF for m in layer.mean)
        put("CDMA", "D_MEAN_FORMAT", MEAN_FORMAT=1)
        put("CDMA", "D_MEAN_GLOBAL_0", MEAN_RY=ry, MEAN_GU=gu)
        put("CDMA", "D_MEAN_GLOBAL_1", MEAN_BV=bv, MEAN_AX=ax)
    put("CDMA", "D_CONV_STRIDE", CONV_X_STRIDE=sx - 1, CONV_Y_STRIDE=sy - 1)
    put("CDMA", "D_ZERO_PADDING", PAD_LEFT=pl, PAD_RIGHT=pr, PAD_TOP=pt, PAD_BOTTOM=pb)
    put("CSC", "D_DATAIN_SIZE_EXT_0", DATAIN_WIDTH_EXT=width - 1, DATAIN_HEIGHT_EXT=height - 1)
    put("CSC", "D_DATAIN_SIZE_EXT_1", DATAIN_CHANNEL_EXT=channels - 1)
    put("CSC", "D_POST_Y_EXTENSION", Y_EXTENSION={1: 0, 2: 1, 4: 2}[layer.post_extension])
    put("CSC", "D_WEIGHT_SIZE_EXT_0", WEIGHT_WIDTH_EXT=0, WEIGHT_HEIGHT_EXT=rows - 1)
    put("CSC", "D_WEIGHT_SIZE_EXT_1", WEIGHT_CHANNEL_EXT=channels * cols - 1, WEIGHT_KERNEL=kernels - 1)
    put("CSC", "D_DATAOUT_SIZE_0", DATAOUT_WIDTH=out_w - 1, DATAOUT_HEIGHT=out_h - 1)
    put("CSC", "D_DATAOUT_SIZE_1", DATAOUT_CHANNEL=kernels - 1)
    put("CSC", "D_ATOMICS", ATOMICS=out_w * out_h - 1)
    put("CSC", "D_RELEASE", RLS_SLICES=height - 1)
    put("CSC", "D_CONV_STRIDE_EXT", CONV_X_STRIDE_EXT=sx - 1, CONV_Y_STRIDE_EXT=sy - 1)
    put("CSC", "D_ZERO_PADDING", PAD_LEFT=pl, PAD_TOP=pt)
    for unit in ("CMAC_A", "CMAC_B", "CACC"):
        put(unit, "D_MISC_CFG", CONV_MODE=0, PROC_PRECISION=mode)
    put("CACC", "D_DATAOUT_SIZE_0", DATAOUT_WIDTH=out_w - 1, DATAOUT_HEIGHT=out_h - 1)
    put("CACC", "D_DATAOUT_SIZE_1", DATAOUT_CHANNEL=kernels - 1)
    put("CACC", "D_CLIP_CFG", CLIP_TRUNCATE=layer.clip_truncate)
    regs = RegisterValues.encode(RegisterMap.for_profile(profile), fields)
    return LayerContext(profile, regs, memory)
