"""CSC: the convolution sequencer, which feeds the MACs one kernel tap of the input at a time.

For every output element (x, y) and kernel tap (s, r) CSC reads input column
x * stride_x + s * dilation_x - pad_left and line y * stride_y + r * dilation_y - pad_top; a coordinate
outside the input cube is padding and gets CSC's PAD_VALUE "directly applied w/o any more operation"
(programming guide: Register definition, <CDMA|CSC>.ZERO_PADDING_VALUE). The cmod (csc, direct
convolution) uses the low 8 bits of PAD_VALUE for int8 and all 16 bits for int16/fp16. Right and bottom
padding are whatever the output size reaches beyond the cube.

Channels past the cube's C (the padding channels of the last atom) are sent as 0, so they never
contribute.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided


def pad_element(pad_value: int, precision: str):
    """The padding element: int8 = low byte of PAD_VALUE, int16 = the 16 bits, fp16 = the bit pattern."""
    if precision == "int8":
        return int(np.int8(np.uint8(pad_value & 0xFF)))
    if precision == "int16":
        return int(np.int16(np.uint16(pad_value & 0xFFFF)))
    return np.uint16(pad_value & 0xFFFF).view(np.float16)


def padded_input(cube: np.ndarray, pad, pad_left: int, pad_top: int, need_w: int, need_h: int) -> np.ndarray:
    """The (N, C, need_h, need_w) plane the kernel windows read, starting at (-pad_top, -pad_left)."""
    batch, channels, height, width = cube.shape
    out = np.full((batch, channels, need_h, need_w), pad, dtype=cube.dtype)
    h = max(0, min(height, need_h - pad_top))
    w = max(0, min(width, need_w - pad_left))
    out[:, :, pad_top:pad_top + h, pad_left:pad_left + w] = cube[:, :, :h, :w]
    return out


def windows(plane: np.ndarray, taps: tuple[int, int], out_hw: tuple[int, int], stride: tuple[int, int],
            dilation: tuple[int, int]) -> np.ndarray:
    """Read-only (N, C, R, S, Ho, Wo) view: tap (r, s) of output (y, x) of a padded plane."""
    rows, cols = taps
    out_h, out_w = out_hw
    stride_y, stride_x = stride
    dil_y, dil_x = dilation
    sn, sc, sh, sw = plane.strides
    return as_strided(plane, shape=(plane.shape[0], plane.shape[1], rows, cols, out_h, out_w),
                      strides=(sn, sc, sh * dil_y, sw * dil_x, sh * stride_y, sw * stride_x), writeable=False)


def direct_windows(cube: np.ndarray, pad, geometry) -> np.ndarray:
    """Windows of a direct convolution; `geometry` has taps, out_hw, stride, dilation, pad_left, pad_top."""
    (rows, cols), (out_h, out_w) = geometry.taps, geometry.out_hw
    need_h = (out_h - 1) * geometry.stride[0] + (rows - 1) * geometry.dilation[0] + 1
    need_w = (out_w - 1) * geometry.stride[1] + (cols - 1) * geometry.dilation[1] + 1
    plane = padded_input(cube, pad, geometry.pad_left, geometry.pad_top, need_w, need_h)
    return windows(plane, geometry.taps, geometry.out_hw, geometry.stride, geometry.dilation)
