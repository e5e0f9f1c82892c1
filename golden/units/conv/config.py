"""The convolution pipeline's register programming, decoded once for all stages.

CDMA, CSC, CMAC_A/B and CACC each hold their own copy of the layer parameters (programming guide:
Convolution pipeline programming / Register definition: "if it has the same name across pipeline stage,
it means they have the same value"). The fields below keep the stage each value is read from; the
limitation checks (limits.py) compare the copies. Sizes are stored as counts (register value + 1).
"""

from __future__ import annotations

from dataclasses import dataclass

from golden.regs.values import RegisterValues, decoded_once

PRECISIONS = {"INT8": "int8", "INT16": "int16", "FP16": "fp16"}


@dataclass(frozen=True)
class ConvConfig:
    # CDMA: what is fetched from memory
    conv_mode: str  # "direct" | "winograd"
    in_precision: str
    proc_precision: str
    datain_format: str  # "feature" | "pixel"
    pixel_format: str
    pixel_mapping: str
    pixel_sign_override: str
    pixel_x_offset: int
    pixel_y_offset: int
    width: int
    height: int
    channels: int
    width_ext: int
    height_ext: int
    batches: int
    batch_stride: int
    data_ram: str  # "pri" | "sec"
    data_addr: int
    data_addr_1: int
    line_stride: int
    uv_line_stride: int
    surf_stride: int
    line_packed: bool
    surf_packed: bool
    entries: int
    weight_format: str  # "uncompressed" | "compressed"
    byte_per_kernel: int
    kernels: int
    weight_ram: str
    weight_addr: int
    weight_bytes: int
    wgs_addr: int
    wmb_addr: int
    wmb_bytes: int
    mean_format: bool
    mean: tuple[int, int, int, int]  # RY, GU, BV, AX
    cvt_en: bool
    cvt_truncate: int
    cvt_offset: int
    cvt_scale: int
    stride_x: int
    stride_y: int
    pad_left: int
    pad_right: int
    pad_top: int
    pad_bottom: int
    pad_value: int
    nan_to_zero: bool
    data_bank: int
    weight_bank: int
    data_reuse: bool
    weight_reuse: bool
    skip_data_rls: bool
    skip_weight_rls: bool
    # CSC: what the sequencer feeds the MACs
    csc_conv_mode: str
    csc_in_precision: str
    csc_proc_precision: str
    csc_datain_format: str
    csc_width_ext: int
    csc_height_ext: int
    csc_channel_ext: int
    csc_batches: int
    post_y_extension: int  # 1, 2 or 4 (register encodes 0, 1, 2)
    csc_entries: int
    csc_weight_format: str
    weight_width_ext: int
    weight_height_ext: int
    weight_channel_ext: int
    csc_kernels: int
    csc_weight_bytes: int
    csc_wmb_bytes: int
    csc_out_width: int
    csc_out_height: int
    csc_out_channel: int
    atomics: int
    rls_slices: int
    csc_stride_x: int
    csc_stride_y: int
    dilation_x: int
    dilation_y: int
    csc_pad_left: int
    csc_pad_top: int
    csc_pad_value: int
    csc_data_bank: int
    csc_weight_bank: int
    pra_truncate: int
    # CMAC
    cmac_a: tuple[str, str]  # (conv_mode, proc_precision)
    cmac_b: tuple[str, str]
    # CACC
    cacc_conv_mode: str
    cacc_precision: str
    out_width: int
    out_height: int
    out_channel: int
    cacc_batches: int
    clip_truncate: int
    cacc_line_packed: bool = False  # CACC.D_DATAOUT_MAP: flopped, not used by NVIDIA's RTL (delivery_ctrl)
    cacc_surf_packed: bool = False

    @property
    def winograd(self) -> bool:
        return self.csc_conv_mode == "winograd"

    @property
    def image(self) -> bool:
        return self.csc_datain_format == "pixel"

    @property
    def precision(self) -> str:
        return self.csc_proc_precision


def _lower(regs: RegisterValues, unit: str, reg: str, field: str) -> str:
    return regs.enum(unit, reg, field).lower()


@decoded_once
def decode(regs: RegisterValues, profile=None) -> ConvConfig:
    """Decode the CDMA/CSC/CMAC/CACC registers of one hardware layer."""
    f = regs.field

    def stage(unit: str) -> tuple[str, str]:
        return _lower(regs, unit, "D_MISC_CFG", "CONV_MODE"), PRECISIONS[regs.enum(unit, "D_MISC_CFG",
                                                                                 "PROC_PRECISION")]

    return ConvConfig(
        conv_mode=_lower(regs, "CDMA", "D_MISC_CFG", "CONV_MODE"),
        in_precision=PRECISIONS[regs.enum("CDMA", "D_MISC_CFG", "IN_PRECISION")],
        proc_precision=PRECISIONS[regs.enum("CDMA", "D_MISC_CFG", "PROC_PRECISION")],
        datain_format=_lower(regs, "CDMA", "D_DATAIN_FORMAT", "DATAIN_FORMAT"),
        pixel_format=regs.enum("CDMA", "D_DATAIN_FORMAT", "PIXEL_FORMAT"),
        pixel_mapping=regs.enum("CDMA", "D_DATAIN_FORMAT", "PIXEL_MAPPING"),
        pixel_sign_override=regs.enum("CDMA", "D_DATAIN_FORMAT", "PIXEL_SIGN_OVERRIDE"),
        pixel_x_offset=f("CDMA", "D_PIXEL_OFFSET", "PIXEL_X_OFFSET"),
        pixel_y_offset=f("CDMA", "D_PIXEL_OFFSET", "PIXEL_Y_OFFSET"),
        width=f("CDMA", "D_DATAIN_SIZE_0", "DATAIN_WIDTH") + 1,
        height=f("CDMA", "D_DATAIN_SIZE_0", "DATAIN_HEIGHT") + 1,
        channels=f("CDMA", "D_DATAIN_SIZE_1", "DATAIN_CHANNEL") + 1,
        width_ext=f("CDMA", "D_DATAIN_SIZE_EXT_0", "DATAIN_WIDTH_EXT") + 1,
        height_ext=f("CDMA", "D_DATAIN_SIZE_EXT_0", "DATAIN_HEIGHT_EXT") + 1,
        batches=f("CDMA", "D_BATCH_NUMBER", "BATCHES") + 1,
        batch_stride=f("CDMA", "D_BATCH_STRIDE", "BATCH_STRIDE"),
        data_ram="pri" if regs.enum("CDMA", "D_DAIN_RAM_TYPE", "DATAIN_RAM_TYPE") == "MCIF" else "sec",
        data_addr=regs.address("CDMA", "D_DAIN_ADDR_HIGH_0", "D_DAIN_ADDR_LOW_0"),
        data_addr_1=regs.address("CDMA", "D_DAIN_ADDR_HIGH_1", "D_DAIN_ADDR_LOW_1"),
        line_stride=f("CDMA", "D_LINE_STRIDE", "LINE_STRIDE"),
        uv_line_stride=f("CDMA", "D_LINE_UV_STRIDE", "UV_LINE_STRIDE"),
        surf_stride=f("CDMA", "D_SURF_STRIDE", "SURF_STRIDE"),
        line_packed=bool(f("CDMA", "D_DAIN_MAP", "LINE_PACKED")),
        surf_packed=bool(f("CDMA", "D_DAIN_MAP", "SURF_PACKED")),
        entries=f("CDMA", "D_ENTRY_PER_SLICE", "ENTRIES") + 1,
        weight_format=_lower(regs, "CDMA", "D_WEIGHT_FORMAT", "WEIGHT_FORMAT"),
        byte_per_kernel=f("CDMA", "D_WEIGHT_SIZE_0", "BYTE_PER_KERNEL") + 1,
        kernels=f("CDMA", "D_WEIGHT_SIZE_1", "WEIGHT_KERNEL") + 1,
        weight_ram="pri" if regs.enum("CDMA", "D_WEIGHT_RAM_TYPE", "WEIGHT_RAM_TYPE") == "MCIF" else "sec",
        weight_addr=regs.address("CDMA", "D_WEIGHT_ADDR_HIGH", "D_WEIGHT_ADDR_LOW"),
        weight_bytes=f("CDMA", "D_WEIGHT_BYTES", "WEIGHT_BYTES"),
        wgs_addr=regs.address("CDMA", "D_WGS_ADDR_HIGH", "D_WGS_ADDR_LOW"),
        wmb_addr=regs.address("CDMA", "D_WMB_ADDR_HIGH", "D_WMB_ADDR_LOW"),
        wmb_bytes=f("CDMA", "D_WMB_BYTES", "WMB_BYTES"),
        mean_format=bool(f("CDMA", "D_MEAN_FORMAT", "MEAN_FORMAT")),
        mean=(f("CDMA", "D_MEAN_GLOBAL_0", "MEAN_RY"), f("CDMA", "D_MEAN_GLOBAL_0", "MEAN_GU"),
              f("CDMA", "D_MEAN_GLOBAL_1", "MEAN_BV"), f("CDMA", "D_MEAN_GLOBAL_1", "MEAN_AX")),
        cvt_en=bool(f("CDMA", "D_CVT_CFG", "CVT_EN")),
        cvt_truncate=f("CDMA", "D_CVT_CFG", "CVT_TRUNCATE"),
        cvt_offset=regs.signed("CDMA", "D_CVT_OFFSET", "CVT_OFFSET"),
        cvt_scale=regs.signed("CDMA", "D_CVT_SCALE", "CVT_SCALE"),
        stride_x=f("CDMA", "D_CONV_STRIDE", "CONV_X_STRIDE") + 1,
        stride_y=f("CDMA", "D_CONV_STRIDE", "CONV_Y_STRIDE") + 1,
        pad_left=f("CDMA", "D_ZERO_PADDING", "PAD_LEFT"),
        pad_right=f("CDMA", "D_ZERO_PADDING", "PAD_RIGHT"),
        pad_top=f("CDMA", "D_ZERO_PADDING", "PAD_TOP"),
        pad_bottom=f("CDMA", "D_ZERO_PADDING", "PAD_BOTTOM"),
        pad_value=f("CDMA", "D_ZERO_PADDING_VALUE", "PAD_VALUE"),
        nan_to_zero=bool(f("CDMA", "D_NAN_FLUSH_TO_ZERO", "NAN_TO_ZERO")),
        data_bank=f("CDMA", "D_BANK", "DATA_BANK") + 1,
        weight_bank=f("CDMA", "D_BANK", "WEIGHT_BANK") + 1,
        data_reuse=bool(f("CDMA", "D_MISC_CFG", "DATA_REUSE")),
        weight_reuse=bool(f("CDMA", "D_MISC_CFG", "WEIGHT_REUSE")),
        skip_data_rls=bool(f("CDMA", "D_MISC_CFG", "SKIP_DATA_RLS")),
        skip_weight_rls=bool(f("CDMA", "D_MISC_CFG", "SKIP_WEIGHT_RLS")),
        csc_conv_mode=_lower(regs, "CSC", "D_MISC_CFG", "CONV_MODE"),
        csc_in_precision=PRECISIONS[regs.enum("CSC", "D_MISC_CFG", "IN_PRECISION")],
        csc_proc_precision=PRECISIONS[regs.enum("CSC", "D_MISC_CFG", "PROC_PRECISION")],
        csc_datain_format=_lower(regs, "CSC", "D_DATAIN_FORMAT", "DATAIN_FORMAT"),
        csc_width_ext=f("CSC", "D_DATAIN_SIZE_EXT_0", "DATAIN_WIDTH_EXT") + 1,
        csc_height_ext=f("CSC", "D_DATAIN_SIZE_EXT_0", "DATAIN_HEIGHT_EXT") + 1,
        csc_channel_ext=f("CSC", "D_DATAIN_SIZE_EXT_1", "DATAIN_CHANNEL_EXT") + 1,
        csc_batches=f("CSC", "D_BATCH_NUMBER", "BATCHES") + 1,
        post_y_extension=1 << f("CSC", "D_POST_Y_EXTENSION", "Y_EXTENSION"),
        csc_entries=f("CSC", "D_ENTRY_PER_SLICE", "ENTRIES") + 1,
        csc_weight_format=_lower(regs, "CSC", "D_WEIGHT_FORMAT", "WEIGHT_FORMAT"),
        weight_width_ext=f("CSC", "D_WEIGHT_SIZE_EXT_0", "WEIGHT_WIDTH_EXT") + 1,
        weight_height_ext=f("CSC", "D_WEIGHT_SIZE_EXT_0", "WEIGHT_HEIGHT_EXT") + 1,
        weight_channel_ext=f("CSC", "D_WEIGHT_SIZE_EXT_1", "WEIGHT_CHANNEL_EXT") + 1,
        csc_kernels=f("CSC", "D_WEIGHT_SIZE_EXT_1", "WEIGHT_KERNEL") + 1,
        csc_weight_bytes=f("CSC", "D_WEIGHT_BYTES", "WEIGHT_BYTES"),
        csc_wmb_bytes=f("CSC", "D_WMB_BYTES", "WMB_BYTES"),
        csc_out_width=f("CSC", "D_DATAOUT_SIZE_0", "DATAOUT_WIDTH") + 1,
        csc_out_height=f("CSC", "D_DATAOUT_SIZE_0", "DATAOUT_HEIGHT") + 1,
        csc_out_channel=f("CSC", "D_DATAOUT_SIZE_1", "DATAOUT_CHANNEL") + 1,
        atomics=f("CSC", "D_ATOMICS", "ATOMICS") + 1,
        rls_slices=f("CSC", "D_RELEASE", "RLS_SLICES") + 1,
        csc_stride_x=f("CSC", "D_CONV_STRIDE_EXT", "CONV_X_STRIDE_EXT") + 1,
        csc_stride_y=f("CSC", "D_CONV_STRIDE_EXT", "CONV_Y_STRIDE_EXT") + 1,
        dilation_x=f("CSC", "D_DILATION_EXT", "X_DILATION_EXT") + 1,
        dilation_y=f("CSC", "D_DILATION_EXT", "Y_DILATION_EXT") + 1,
        csc_pad_left=f("CSC", "D_ZERO_PADDING", "PAD_LEFT"),
        csc_pad_top=f("CSC", "D_ZERO_PADDING", "PAD_TOP"),
        csc_pad_value=f("CSC", "D_ZERO_PADDING_VALUE", "PAD_VALUE"),
        csc_data_bank=f("CSC", "D_BANK", "DATA_BANK") + 1,
        csc_weight_bank=f("CSC", "D_BANK", "WEIGHT_BANK") + 1,
        pra_truncate=f("CSC", "D_PRA_CFG", "PRA_TRUNCATE"),
        cmac_a=stage("CMAC_A"),
        cmac_b=stage("CMAC_B"),
        cacc_conv_mode=_lower(regs, "CACC", "D_MISC_CFG", "CONV_MODE"),
        cacc_precision=PRECISIONS[regs.enum("CACC", "D_MISC_CFG", "PROC_PRECISION")],
        out_width=f("CACC", "D_DATAOUT_SIZE_0", "DATAOUT_WIDTH") + 1,
        out_height=f("CACC", "D_DATAOUT_SIZE_0", "DATAOUT_HEIGHT") + 1,
        out_channel=f("CACC", "D_DATAOUT_SIZE_1", "DATAOUT_CHANNEL") + 1,
        cacc_batches=f("CACC", "D_BATCH_NUMBER", "BATCHES") + 1,
        clip_truncate=f("CACC", "D_CLIP_CFG", "CLIP_TRUNCATE"),
        cacc_line_packed=bool(f("CACC", "D_DATAOUT_MAP", "LINE_PACKED")),
        cacc_surf_packed=bool(f("CACC", "D_DATAOUT_MAP", "SURF_PACKED")),
    )
