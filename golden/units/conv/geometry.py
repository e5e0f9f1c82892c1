"""The sliding-window geometry CSC walks: taps, output size, stride, dilation, left/top padding."""

from __future__ import annotations

from dataclasses import dataclass

from golden.units.conv.config import ConvConfig


@dataclass(frozen=True)
class Geometry:
    taps: tuple[int, int]  # (R, S)
    out_hw: tuple[int, int]  # (Ho, Wo)
    stride: tuple[int, int]  # (y, x)
    dilation: tuple[int, int]  # (y, x)
    pad_left: int
    pad_top: int


def direct_geometry(cfg: ConvConfig) -> Geometry:
    """The CSC view of a direct-convolution layer (CSC *_EXT registers, output size from CSC)."""
    return Geometry(
        taps=(cfg.weight_height_ext, cfg.weight_width_ext),
        out_hw=(cfg.csc_out_height, cfg.csc_out_width),
        stride=(cfg.csc_stride_y, cfg.csc_stride_x),
        dilation=(cfg.dilation_y, cfg.dilation_x),
        pad_left=cfg.csc_pad_left,
        pad_top=cfg.csc_pad_top,
    )
