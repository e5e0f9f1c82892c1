"""CDMA: fetch the input cube and the weights from memory into the convolution buffer.

The model keeps what the CBUF holds as arrays: the input cube (N, C, H, W) of the in-memory element
type (int8/int16 as int64, fp16 as np.float16) and the weights (K, C, R, S) as stored. Layouts are
golden.formats.feature (Feature Data Format) and golden.formats.weight (Weight Format).

Compressed weights (in-memory-data-formats: Sparse Compression option) are three surfaces: WGS (one
32-bit compressed byte count per kernel group) at D_WGS_ADDR, WMB (one bit per weight element) at
D_WMB_ADDR, the non-zero weights at D_WEIGHT_ADDR. D_WEIGHT_BYTES stays the uncompressed size
("Regardless of weight compress mode or uncompressed mode"); the compressed weight bytes fetched are
the sum of the WGS entries.

The CDMA convertor (CVT_EN) runs on what CDMA writes into the CBUF, feature data included: NVIDIA's RTL feeds
the direct (dc2cvt) and Winograd (wg2cvt) writes through the same convertor cells as pixels (nvdla/hw
NV_NVDLA_CDMA_cvt.v, cvt_cell_en gated by cfg_cvt_en alone) and the C model converts direct-convolution data
with the feature's own sign (NV_NVDLA_cdma.cpp, DirectConvDataResponseSequencerCommon). precision-preservation's
cc_cvt row says feature input does not use it; the RTL is followed (rule CONV-FEATURE-CONVERTOR keeps it to
the integer direct convolution both of NVIDIA's models agree on).
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigurationError
from golden.formats import compression, feature, weight, winograd
from golden.formats.feature import element_bits, element_bytes
from golden.numerics import corners, fp
from golden.numerics.integer import pixel_to_int, shift_right_round
from golden.units.base import LayerContext
from golden.units.conv.config import ConvConfig

COMPRESSION_RULE = "in-memory-data-formats: Sparse Compression option"
#: in-memory-data-formats "FP16 Supporting / Infinity": INF inputs of the convolution pipeline.
INF_DC = 65536.0
INF_WINOGRAD = 65504.0

def memory_of(ctx: LayerContext, ram: str):
    return ctx.memory.pri if ram == "pri" else ctx.memory.sec


def read_bytes(ctx: LayerContext, ram: str, address: int, size: int) -> np.ndarray:
    # Gaps between lines/surfaces and the padding channels of an atom are read by the DMA but never
    # used; a test need not have written them.
    return memory_of(ctx, ram).read(address, size, unwritten="allow", who="CDMA")


def _decompressed(ctx: LayerContext, cfg: ConvConfig, stored: int) -> np.ndarray:
    """The uncompressed direct-convolution weight stream (np.uint8, `stored` bytes)."""
    precision = cfg.proc_precision
    per_kernel = stored // element_bytes(precision) // cfg.csc_kernels
    groups = compression.group_elements(cfg.csc_kernels, per_kernel, precision, ctx.profile.mac_atomic_k)
    total = int(groups.sum())
    mask_bytes = -(-total // 8)
    if cfg.wmb_bytes < mask_bytes:
        raise ConfigurationError(f"WMB_BYTES {cfg.wmb_bytes} cannot hold the {total}-bit weight mask",
                                 fields=("CDMA.D_WMB_BYTES.WMB_BYTES", "CSC.D_WMB_BYTES.WMB_BYTES"),
                                 rule=COMPRESSION_RULE)
    wgs = read_bytes(ctx, cfg.weight_ram, cfg.wgs_addr, 4 * groups.size)
    wmb = read_bytes(ctx, cfg.weight_ram, cfg.wmb_addr, mask_bytes)
    compressed = int(wgs.view("<u4").astype(np.int64).sum())
    weight = read_bytes(ctx, cfg.weight_ram, cfg.weight_addr, compressed)
    return compression.decompress(wgs, wmb, weight, precision, groups)


def weight_bytes(ctx: LayerContext, cfg: ConvConfig, stored: int) -> np.ndarray:
    """The `stored` bytes of the weight set as the layout stores them, decompressed when compressed."""
    if cfg.weight_format == "compressed":
        return _decompressed(ctx, cfg, stored)
    return read_bytes(ctx, cfg.weight_ram, cfg.weight_addr, stored)


def as_values(cube: np.ndarray, precision: str) -> np.ndarray:
    """int8/int16 elements as int64; fp16 stays np.float16."""
    return cube if precision == "fp16" else cube.astype(np.int64)


def load_feature(ctx: LayerContext, cfg: ConvConfig, channels: int | None = None) -> np.ndarray:
    """The (N, C, H, W) feature cube of a direct or Winograd layer as CDMA fetches it; `channels` more than C
    reads the rest of the last atoms too (what their padding lanes hold in memory)."""
    atom = ctx.profile.memory_atomic_size
    shape = (cfg.batches, channels or cfg.channels, cfg.height, cfg.width)
    batch_stride = cfg.batch_stride if cfg.batches > 1 else None
    span = feature.feature_span(shape, cfg.in_precision, cfg.line_stride, cfg.surf_stride, atom, batch_stride)
    buf = read_bytes(ctx, cfg.data_ram, cfg.data_addr, span)
    cube = feature.unpack_feature(buf, 0, shape, cfg.in_precision, cfg.line_stride, cfg.surf_stride, atom,
                                  batch_stride)
    if cfg.cvt_en and cfg.in_precision != "fp16":
        return convert(cube.astype(np.int64), cfg.cvt_offset, cfg)
    return as_values(cube, cfg.in_precision)


def convert(values: np.ndarray, offset, cfg: ConvConfig) -> np.ndarray:
    """The CDMA convertor on 17-bit signed values: saturate(round((x - offset) * CVT_SCALE >> CVT_TRUNCATE)) into
    the processing precision, int8/int16 as int64, or through int17 to np.float16 in an fp16 pipeline.
    `offset` is CVT_OFFSET or, for pixels with MEAN_FORMAT, each channel's mean shaped to broadcast."""
    precision = cfg.proc_precision
    if corners.active():
        centred = (values.astype(np.int64) - offset) * cfg.cvt_scale
        corners.convertor("cdma.cvt", centred, cfg.cvt_truncate, 17)
        if precision != "fp16":
            corners.saturation("cdma.cvt.narrow", shift_right_round(centred, cfg.cvt_truncate),
                               element_bits(precision))
    if precision == "fp16":
        bits, _ = fp.pixel_to_fp16(values, offset, cfg.cvt_scale, cfg.cvt_truncate)
        return np.asarray(bits, dtype=np.uint16).view(np.float16)
    out, _ = pixel_to_int(values, offset, cfg.cvt_scale, cfg.cvt_truncate, element_bits(precision))
    return out.astype(np.int64)


def weight_shape(cfg: ConvConfig) -> tuple[int, int, int, int]:
    """(K, C, R, S) of the weights as stored (after any pre-extension)."""
    return cfg.csc_kernels, cfg.weight_channel_ext, cfg.weight_height_ext, cfg.weight_width_ext


def load_winograd_weights(ctx: LayerContext, cfg: ConvConfig) -> np.ndarray:
    """The (K, C'*sx*sy, 4, 4) pre-transformed Winograd weights (phase 2 layout)."""
    shape = (cfg.csc_kernels, cfg.weight_channel_ext, 4, 4)
    stored = weight.dc_weight_bytes(shape, cfg.proc_precision)
    raw = weight_bytes(ctx, cfg, stored)
    values = winograd.unpack_winograd_weights(raw, 0, shape, cfg.proc_precision, ctx.profile.mac_atomic_k)
    return as_values(values, cfg.proc_precision)


def load_weights(ctx: LayerContext, cfg: ConvConfig) -> np.ndarray:
    """The (K, C, R, S) weights in the direct-convolution layout (uncompressed or compressed)."""
    shape = weight_shape(cfg)
    precision = cfg.proc_precision
    stored = weight.dc_weight_bytes(shape, precision)
    if cfg.weight_format != "compressed" and cfg.weight_bytes < stored:
        raise ConfigurationError(
            f"WEIGHT_BYTES {cfg.weight_bytes} is smaller than K*R*S*C*bytes = {stored}",
            fields=("CDMA.D_WEIGHT_BYTES.WEIGHT_BYTES",),
            rule="programming-guide: Register definition, <CDMA|CSC>.WEIGHT_BYTES")
    raw = weight_bytes(ctx, cfg, stored)
    atomic_c, atomic_k = ctx.profile.mac_atomic_c, ctx.profile.mac_atomic_k
    values = weight.unpack_dc_weights(raw, 0, shape, precision, atomic_c, atomic_k)
    return as_values(values, precision)


def fp16_operands(values: np.ndarray, flush_nan: bool, inf_value: float) -> tuple[np.ndarray, int, int]:
    """fp16 operands as the datapath sees them: (float64 values, NaN count, INF count).

    in-memory-data-formats "FP16 Supporting": an INF input becomes +/-65536 in DC and image mode and
    +/-65504 in Winograd mode; NaN propagates unless NAN_TO_ZERO flushes it to 0. CDMA counts both
    (D_NAN_INPUT_*_NUM, D_INF_INPUT_*_NUM).
    """
    wide = values.astype(np.float64)
    nan = np.isnan(wide)
    inf = np.isinf(wide)
    wide[inf] = np.copysign(inf_value, wide[inf])
    if flush_nan:
        wide[nan] = 0.0
    return wide, int(nan.sum()), int(inf.sum())
