"""What the convolution buffer keeps between hardware layers: data and weight reuse.

Programming guide, Register definition: with SKIP_RELEASE false, a layer releases RLS_SLICES input slices
(CSC.D_RELEASE) and all its weights; with SKIP_DATA_RLS / SKIP_WEIGHT_RLS nothing is released. A following
layer with DATA_REUSE / WEIGHT_REUSE uses what stayed: CSC sees the unreleased slices first, then the
CDMA_HEIGHT newly fetched ones (DATAIN_HEIGHT_EXT = both, Limitation/General RLS_SLICES example). The
guide skips the fetch "if CDMA_HEIGHT <= (CSC_HEIGHT - D_RELEASE) of the previous layer"; read together
with that example, the model skips it when the unreleased slices already cover DATAIN_HEIGHT_EXT.
Reuse needs the previous layer's CONV_MODE and DATA_BANK (Limitation/General). That section also asks
SKIP_RLS in the previous layer, while its own RLS_SLICES example reuses the slices a partial release
left; the model accepts both.

The state lives in a ConvBuffer the driver keeps for a sequence of layers and hands over as ctx.cbuf
(golden/hardware.py keeps one per device, so a trace's layers reuse in launch order; a layer run alone
without one is reported as not modelled when it asks for reuse).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from golden.errors import ConfigurationError, NotModelledError
from golden.units.conv.config import ConvConfig

RULE = "programming-guide: Limitation/Convolution/General (data re-use)"


@dataclass
class ConvBuffer:
    data: np.ndarray | None = None  # (N, C, H_kept, W) unreleased input slices
    data_key: tuple | None = None  # (conv mode, DATA_BANK, precision, C, W) of the layer that left them
    weights: np.ndarray | None = None
    weight_key: tuple | None = None


def _data_key(cfg: ConvConfig) -> tuple:
    return cfg.conv_mode, cfg.data_bank, cfg.proc_precision, cfg.channels, cfg.width


def input_cube(buffer: ConvBuffer | None, cfg: ConvConfig, fetch) -> np.ndarray:
    """The (N, C, H_ext, W) cube CSC reads: fetched by CDMA, or unreleased slices (+ fetched ones)."""
    if not cfg.data_reuse:
        return fetch()
    if buffer is None:
        raise NotModelledError("DATA_REUSE needs the previous layer's CBUF state (ctx.cbuf)", unit="CDMA")
    if buffer.data is None or not buffer.data.shape[2]:
        raise ConfigurationError("DATA_REUSE, but the previous layer released all its slices",
                                 fields=("CDMA.D_MISC_CFG.DATA_REUSE", "CDMA.D_MISC_CFG.SKIP_DATA_RLS",
                                         "CSC.D_RELEASE.RLS_SLICES"), rule=RULE)
    if buffer.data_key != _data_key(cfg):
        raise ConfigurationError(
            f"DATA_REUSE needs the previous layer's conv mode, DATA_BANK, precision, C and W; was "
            f"{buffer.data_key}, now {_data_key(cfg)}", fields=("CDMA.D_MISC_CFG.CONV_MODE", "CDMA.D_BANK.DATA_BANK"),
            rule=RULE)
    kept = buffer.data
    if cfg.csc_height_ext <= kept.shape[2]:
        cube = kept  # everything CSC reads is in the CBUF: the fetch is skipped
    else:
        cube = np.concatenate([kept, fetch()], axis=2)
    if cube.shape[2] < cfg.csc_height_ext:
        raise ConfigurationError(
            f"DATAIN_HEIGHT_EXT + 1 = {cfg.csc_height_ext} but the CBUF holds {cube.shape[2]} slices",
            fields=("CSC.D_DATAIN_SIZE_EXT_0.DATAIN_HEIGHT_EXT",), rule=RULE)
    return cube[:, :, :cfg.csc_height_ext]


def weights(buffer: ConvBuffer | None, cfg: ConvConfig, fetch) -> np.ndarray:
    if not cfg.weight_reuse:
        return fetch()
    if buffer is None:
        raise NotModelledError("WEIGHT_REUSE needs the previous layer's CBUF state (ctx.cbuf)", unit="CDMA")
    key = (cfg.csc_kernels, cfg.weight_channel_ext, cfg.weight_height_ext, cfg.weight_width_ext,
           cfg.proc_precision)
    if buffer.weights is None or buffer.weight_key != key:
        raise ConfigurationError("WEIGHT_REUSE needs a previous layer that kept the same weights "
                                 "(SKIP_WEIGHT_RLS)", fields=("CDMA.D_MISC_CFG.WEIGHT_REUSE",), rule=RULE)
    return buffer.weights


def release(buffer: ConvBuffer | None, cfg: ConvConfig, cube: np.ndarray, weight_values: np.ndarray) -> None:
    """Update the buffer after a layer: keep what it did not release."""
    if buffer is None:
        return
    buffer.data = cube if cfg.skip_data_rls else cube[:, :, cfg.rls_slices:]
    buffer.data_key = _data_key(cfg)
    if cfg.skip_weight_rls:
        buffer.weights = weight_values
        buffer.weight_key = (cfg.csc_kernels, cfg.weight_channel_ext, cfg.weight_height_ext,
                             cfg.weight_width_ext, cfg.proc_precision)
    else:
        buffer.weights = buffer.weight_key = None
