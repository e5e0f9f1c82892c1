"""CDMA: fetch the input cube and the weights from memory into the convolution buffer.

The model keeps what the CBUF holds as arrays: the input cube (N, C, H, W) of the in-memory element
type (int8/int16 as int64, fp16 as np.float16) and the weights (K, C, R, S) as stored. Layouts are
golden.formats.feature (Feature Data Format) and golden.formats.weight (Weight Format).
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigurationError
from golden.formats import feature, weight
from golden.units.base import LayerContext
from golden.units.conv.config import ConvConfig


def memory_of(ctx: LayerContext, ram: str):
    return ctx.memory.pri if ram == "pri" else ctx.memory.sec


def read_bytes(ctx: LayerContext, ram: str, address: int, size: int) -> np.ndarray:
    # Gaps between lines/surfaces and the padding channels of an atom are read by the DMA but never
    # used; a test need not have written them.
    return memory_of(ctx, ram).read(address, size, unwritten="allow", who="CDMA")


def as_values(cube: np.ndarray, precision: str) -> np.ndarray:
    """int8/int16 elements as int64; fp16 stays np.float16."""
    return cube if precision == "fp16" else cube.astype(np.int64)


def load_feature(ctx: LayerContext, cfg: ConvConfig) -> np.ndarray:
    """The (N, C, H, W) feature cube of a direct or Winograd layer as CDMA fetches it."""
    atom = ctx.profile.memory_atomic_size
    shape = (cfg.batches, cfg.channels, cfg.height, cfg.width)
    batch_stride = cfg.batch_stride if cfg.batches > 1 else None
    span = feature.feature_span(shape, cfg.in_precision, cfg.line_stride, cfg.surf_stride, atom, batch_stride)
    buf = read_bytes(ctx, cfg.data_ram, cfg.data_addr, span)
    cube = feature.unpack_feature(buf, 0, shape, cfg.in_precision, cfg.line_stride, cfg.surf_stride, atom,
                                  batch_stride)
    return as_values(cube, cfg.in_precision)


def weight_shape(cfg: ConvConfig) -> tuple[int, int, int, int]:
    """(K, C, R, S) of the weights as stored (after any pre-extension)."""
    return cfg.csc_kernels, cfg.weight_channel_ext, cfg.weight_height_ext, cfg.weight_width_ext


def load_winograd_weights(ctx: LayerContext, cfg: ConvConfig) -> np.ndarray:
    """The (K, C'*sx*sy, 4, 4) pre-transformed Winograd weights (phase 2 layout)."""
    from golden.formats import winograd
    shape = (cfg.csc_kernels, cfg.weight_channel_ext, 4, 4)
    stored = weight.dc_weight_bytes(shape, cfg.proc_precision)
    if cfg.weight_format == "compressed":
        from golden.units.conv import compression
        raw = compression.decompress(ctx, cfg, stored)
    else:
        raw = read_bytes(ctx, cfg.weight_ram, cfg.weight_addr, stored)
    values = winograd.unpack_winograd_weights(raw, 0, shape, cfg.proc_precision, ctx.profile.mac_atomic_k)
    return as_values(values, cfg.proc_precision)


def load_weights(ctx: LayerContext, cfg: ConvConfig) -> np.ndarray:
    """The (K, C, R, S) weights in the direct-convolution layout (uncompressed or compressed)."""
    shape = weight_shape(cfg)
    precision = cfg.proc_precision
    stored = weight.dc_weight_bytes(shape, precision)
    if cfg.weight_format == "compressed":
        from golden.units.conv import compression
        raw = compression.decompress(ctx, cfg, stored)
    else:
        if cfg.weight_bytes < stored:
            raise ConfigurationError(
                f"WEIGHT_BYTES {cfg.weight_bytes} is smaller than K*R*S*C*bytes = {stored}",
                fields=("CDMA.D_WEIGHT_BYTES.WEIGHT_BYTES",),
                rule="programming-guide: Register definition, <CDMA|CSC>.WEIGHT_BYTES")
        raw = read_bytes(ctx, cfg.weight_ram, cfg.weight_addr, stored)
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
