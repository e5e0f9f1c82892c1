"""What the convolution buffer keeps between hardware layers: data and weight reuse, and the weight ring.

Programming guide, Register definition: with SKIP_RELEASE false, a layer releases RLS_SLICES input slices
(CSC.D_RELEASE) and all its weights; with SKIP_DATA_RLS / SKIP_WEIGHT_RLS nothing is released. A following
layer with DATA_REUSE / WEIGHT_REUSE uses what stayed: CSC sees the unreleased slices first, then the
CDMA_HEIGHT newly fetched ones (DATAIN_HEIGHT_EXT = both, Limitation/General RLS_SLICES example). The
guide skips the fetch "if CDMA_HEIGHT <= (CSC_HEIGHT - D_RELEASE) of the previous layer"; read together
with that example, the model skips it when the unreleased slices already cover DATAIN_HEIGHT_EXT.
Reuse needs the previous layer's CONV_MODE and DATA_BANK (Limitation/General). That section also asks
SKIP_RLS in the previous layer, while its own RLS_SLICES example reuses the slices a partial release
left; the model accepts both.

`Left` is what the rules (golden/units/conv/rules.py, CONV-*-REUSE-*, CONV-WEIGHT-RING) read of the layers
before: it follows from their registers alone, so stimulus computes it for a sequence it has not run. The
arrays live in a ConvBuffer the driver keeps for a sequence of layers and hands over as ctx.cbuf
(golden/hardware.py keeps one per device, so a trace's layers reuse in launch order; a layer run alone
without one is reported as not modelled when it asks for reuse).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from golden.errors import NotModelledError
from golden.units.conv.config import ConvConfig


def data_key(cfg: ConvConfig) -> tuple:
    """What DATA_REUSE needs unchanged from the layer that kept the slices."""
    return cfg.conv_mode, cfg.data_bank, cfg.proc_precision, cfg.channels, cfg.width


def weight_key(cfg: ConvConfig) -> tuple:
    """What WEIGHT_REUSE needs unchanged from the layer that kept the weights."""
    return cfg.csc_kernels, cfg.weight_channel_ext, cfg.weight_height_ext, cfg.weight_width_ext, cfg.proc_precision


def ring_apart(cfg: ConvConfig) -> bool:
    """The layer leaves CDMA's and CSC's CBUF weight pointers apart: it releases weights whose WEIGHT_BYTES holds
    padding beyond BYTE_PER_KERNEL x kernels (nvdla/hw CDMA_wt writes all WEIGHT_BYTES into the weight banks,
    CSC_wl moves its read start on only by the entries it read; see CONV-WEIGHT-RING)."""
    return cfg.byte_per_kernel * cfg.kernels != cfg.weight_bytes and not cfg.skip_weight_rls


@dataclass(frozen=True)
class Left:
    """What the layers before left in the CBUF, as the rules see it."""
    data_key: tuple | None = None  # data_key of the layer whose slices stay
    slices: int = 0  # unreleased input slices
    weight_key: tuple | None = None  # weight_key of the layer whose weights stay (SKIP_WEIGHT_RLS)
    ring_bank: int | None = None  # WEIGHT_BANK while CDMA's and CSC's weight pointers are apart

    def after(self, cfg: ConvConfig) -> Left:
        """What stays once the layer is done."""
        ring: int | None
        if ring_apart(cfg):
            ring = cfg.weight_bank
        else:  # another WEIGHT_BANK restarts both pointers; on the same one they stay apart
            ring = self.ring_bank if cfg.weight_bank == self.ring_bank else None
        if cfg.image or cfg.winograd:  # reuse is modelled for direct layers of feature data only
            return Left(ring_bank=ring)
        rows = cfg.csc_height_ext if cfg.data_reuse else cfg.height
        slices = rows if cfg.skip_data_rls else max(rows - cfg.rls_slices, 0)
        return Left(data_key(cfg), slices, weight_key(cfg) if cfg.skip_weight_rls else None, ring)


def left_by(configs) -> Left:
    """What a sequence of convolution layers leaves, from their decoded registers."""
    left = Left()
    for cfg in configs:
        left = left.after(cfg)
    return left


@dataclass
class ConvBuffer:
    left: Left = field(default_factory=Left)
    data: np.ndarray | None = None  # (N, C, H_kept, W) unreleased input slices
    weights: np.ndarray | None = None


def input_cube(buffer: ConvBuffer | None, cfg: ConvConfig, fetch) -> np.ndarray:
    """The (N, C, H_ext, W) cube CSC reads: fetched by CDMA, or unreleased slices (+ fetched ones). The rules
    (CONV-DATA-REUSE-*) have checked that the kept slices fit the layer."""
    if not cfg.data_reuse:
        return fetch()
    if buffer is None:
        raise NotModelledError("DATA_REUSE needs the previous layer's CBUF state (ctx.cbuf)", unit="CDMA")
    kept = buffer.data
    assert kept is not None, "CONV-DATA-REUSE-KEPT: the previous layer left slices"
    cube = kept if cfg.csc_height_ext <= kept.shape[2] else np.concatenate([kept, fetch()], axis=2)
    return cube[:, :, :cfg.csc_height_ext]


def weights(buffer: ConvBuffer | None, cfg: ConvConfig, fetch) -> np.ndarray:
    if not cfg.weight_reuse:
        return fetch()
    if buffer is None:
        raise NotModelledError("WEIGHT_REUSE needs the previous layer's CBUF state (ctx.cbuf)", unit="CDMA")
    assert buffer.weights is not None, "CONV-WEIGHT-REUSE-KEPT: the previous layer kept its weights"
    return buffer.weights


def release(buffer: ConvBuffer | None, cfg: ConvConfig, cube: np.ndarray | None = None,
            weight_values: np.ndarray | None = None) -> None:
    """Update the buffer after a layer: keep what it did not release (an image or Winograd layer keeps
    nothing reusable)."""
    if buffer is None:
        return
    buffer.left = buffer.left.after(cfg)
    if cube is None:
        buffer.data = buffer.weights = None
        return
    buffer.data = cube if cfg.skip_data_rls else cube[:, :, cfg.rls_slices:]
    buffer.weights = weight_values if cfg.skip_weight_rls else None
