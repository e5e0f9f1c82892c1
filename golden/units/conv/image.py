"""Image input: CDMA reads pitch-linear pixels, converts them, and the layer convolves the converted cube.

* Pixel formats (in-memory-data-formats Table 33) and PIXEL_X_OFFSET: golden.formats.pixel.
* CDMA convertor (precision-preservation cc_cvt; nvdla/hw cmod cdma_cvt, nvdlav1): integer components are
  extended to int17 (zero- or sign-extended by PIXEL_SIGN_OVERRIDE), then
  y = saturate(round((x - m) * CVT_SCALE >> CVT_TRUNCATE)) to int8/int16, or to int17 and then fp16 for an
  fp16 pipeline; m is the channel's D_MEAN_GLOBAL value (RY, GU, BV, AX) when MEAN_FORMAT is enabled,
  otherwise CVT_OFFSET. With CVT_EN off the stored bits are taken as int8/int16 as they are. fp16 pixels
  pass the convertor unchanged (cmod: "o_data = i_data").
* Weights: channel pre-extension (channel s * C + c holds tap (c, r, s), so CSC sees 1 x R x C*S) and the
  optional 2/4-line post-extension (CSC.D_POST_Y_EXTENSION) only reorder the weights in memory
  (golden.formats.weight.unpack_image_weights); the sums are those of the R x S convolution.
* Padding is split between two units, each with its own PAD_VALUE. CDMA writes the left and right padding
  columns into the buffer: its pixel packer marks them (NV_NVDLA_CDMA_IMG_pack.v, lp/rp masks) and the
  convertor puts CDMA's PAD_VALUE in place of its own output there (NV_NVDLA_CDMA_cvt.v,
  cvt_data_cell_8b_masked: the low byte for an int8 output, all 16 bits otherwise). CSC pads only the top and
  bottom lines in image mode (NV_NVDLA_CSC_dl.v dat_img_req_dummy tests the height alone) with its PAD_VALUE.
  The programming guide (<CDMA|CSC>.ZERO_PADDING_VALUE) says CDMA's value passes the convertor; the RTL
  replaces the converted value, and the RTL is followed.
"""

from __future__ import annotations

import numpy as np

from golden.formats import pixel, weight
from golden.units.conv import cdma, csc
from golden.units.conv.config import ConvConfig
from golden.units.conv.direct import convolve
from golden.units.conv.geometry import Geometry


def read_pixels(ctx, cfg: ConvConfig) -> np.ndarray:
    """The raw (C, H, W) component cube of the ROI."""
    fmt = pixel.pixel_format(cfg.pixel_format)
    uv = cfg.uv_line_stride if fmt.planes == 2 else None
    atom = ctx.profile.memory_atomic_size
    spans = pixel.pixel_span(fmt, cfg.height, cfg.width, cfg.line_stride, uv, cfg.pixel_x_offset, atom)
    addresses = (cfg.data_addr, cfg.data_addr_1)[:fmt.planes]
    planes = tuple(cdma.read_bytes(ctx, cfg.data_ram, a, s) for a, s in zip(addresses, spans, strict=True))
    return pixel.unpack_pixels(planes, fmt, cfg.height, cfg.width, cfg.line_stride, uv, cfg.pixel_x_offset,
                               atom=atom)


def convert(raw: np.ndarray, cfg: ConvConfig) -> np.ndarray:
    """The CDMA convertor: raw components -> (C, H, W) int64 (int8/int16) or np.float16 values."""
    fmt = pixel.pixel_format(cfg.pixel_format)
    values = pixel.pipeline_values(raw, fmt, sign_override=cfg.pixel_sign_override, converter=cfg.cvt_en)
    precision = cfg.proc_precision
    if fmt.floating:
        return values.astype(np.float16)
    if not cfg.cvt_en:
        if precision == "fp16":
            return values.astype(np.float16)
        return values.astype(np.int64)
    channels = values.shape[0]
    means = np.array([m - ((m >> 15) << 16) for m in cfg.mean[:channels]], dtype=np.int64)
    offset = means.reshape(-1, 1, 1) if cfg.mean_format else cfg.cvt_offset
    return cdma.convert(values, offset, cfg)


def image_weights(ctx, cfg: ConvConfig) -> np.ndarray:
    """(K, C, R, S) weights from the pre-extended (and post-extended) image layout."""
    channels = cfg.channels
    shape = (cfg.csc_kernels, channels, cfg.weight_height_ext, cfg.weight_channel_ext // channels)
    stored = weight.dc_weight_bytes(shape, cfg.proc_precision)
    raw = cdma.weight_bytes(ctx, cfg, stored)
    values = weight.unpack_image_weights(raw, 0, shape, cfg.proc_precision, ctx.profile.mac_atomic_c,
                                         ctx.profile.mac_atomic_k, cfg.post_y_extension)
    return cdma.as_values(values, cfg.proc_precision)


def geometry(cfg: ConvConfig) -> Geometry:
    """CSC's view: the columns CDMA padded are part of the cube, so CSC pads no column."""
    return Geometry(taps=(cfg.weight_height_ext, cfg.weight_channel_ext // cfg.channels),
                    out_hw=(cfg.csc_out_height, cfg.csc_out_width), stride=(cfg.stride_y, cfg.stride_x),
                    dilation=(1, 1), pad_left=0, pad_top=cfg.csc_pad_top)


def pad_columns(cube: np.ndarray, cfg: ConvConfig) -> np.ndarray:
    """The converted (C, H, W) cube with CDMA's padding columns, PAD_LEFT on the left and PAD_RIGHT on the right."""
    side = csc.pad_element(cfg.pad_value, cfg.proc_precision)
    return np.pad(cube, ((0, 0), (0, 0), (cfg.pad_left, cfg.pad_right)), constant_values=side)


def run_layer(ctx, cfg: ConvConfig):
    cube = pad_columns(convert(read_pixels(ctx, cfg), cfg), cfg)[None]
    return convolve(cube, image_weights(ctx, cfg), geometry(cfg), cfg.precision, cfg.csc_pad_value,
                    cfg.clip_truncate, nan_to_zero=cfg.nan_to_zero)
