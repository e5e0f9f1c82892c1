"""CDMA's weight decompression (in-memory-data-formats: Sparse Compression option).

Three surfaces: WGS (one 32-bit compressed byte count per kernel group) at D_WGS_ADDR, WMB (one bit per
weight element) at D_WMB_ADDR, the non-zero weights at D_WEIGHT_ADDR. D_WEIGHT_BYTES stays the
uncompressed size ("Regardless of weight compress mode or uncompressed mode"); the compressed weight
bytes fetched are the sum of the WGS entries.
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigurationError
from golden.formats import compression
from golden.formats.feature import element_bytes
from golden.units.conv.config import ConvConfig

RULE = "in-memory-data-formats: Sparse Compression option"


def decompress(ctx, cfg: ConvConfig, stored: int) -> np.ndarray:
    """The uncompressed direct-convolution weight stream (np.uint8, `stored` bytes)."""
    from golden.units.conv.cdma import read_bytes
    precision = cfg.proc_precision
    per_kernel = stored // element_bytes(precision) // cfg.csc_kernels
    groups = compression.group_elements(cfg.csc_kernels, per_kernel, precision, ctx.profile.mac_atomic_k)
    total = int(groups.sum())
    mask_bytes = -(-total // 8)
    if cfg.wmb_bytes < mask_bytes:
        raise ConfigurationError(f"WMB_BYTES {cfg.wmb_bytes} cannot hold the {total}-bit weight mask",
                                 fields=("CDMA.D_WMB_BYTES.WMB_BYTES", "CSC.D_WMB_BYTES.WMB_BYTES"), rule=RULE)
    wgs = read_bytes(ctx, cfg.weight_ram, cfg.wgs_addr, 4 * groups.size)
    wmb = read_bytes(ctx, cfg.weight_ram, cfg.wmb_addr, mask_bytes)
    compressed = int(wgs.view("<u4").astype(np.int64).sum())
    weight = read_bytes(ctx, cfg.weight_ram, cfg.weight_addr, compressed)
    return compression.decompress(wgs, wmb, weight, precision, groups)
