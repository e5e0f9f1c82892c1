"""Rubik's limitation rules (programming guide "Rubik programming", "Limitation/Rubik", Limitation/Data Format).

Each predicate takes the decoded RubikLayer (golden/units/rubik.py) and the facts; None means the layer keeps
the rule. A side (DAIN, DAOUT) is a feature cube (line and surface strides) or a set of planes (line and planar
strides), by mode. The registers' own 32-byte granularity (bits [31:5]) is checked on the raw values before
decoding (RubikLayer.decode), as for BDMA.
"""

from __future__ import annotations

from golden.rules import rule

ATOM = 32
GUIDE = "programming-guide: Rubik programming"
LIMIT = "programming-guide: Limitation/Rubik"
#: (register, field) of every address or stride held in 32-byte units (bits [31:5]).
ALIGNED = {
    "DAIN_ADDR": ("D_DAIN_ADDR_LOW", "DAIN_ADDR_LOW"),
    "DAIN_LINE": ("D_DAIN_LINE_STRIDE", "DAIN_LINE_STRIDE"),
    "DAIN_SURF": ("D_DAIN_SURF_STRIDE", "DAIN_SURF_STRIDE"),
    "DAIN_PLANAR": ("D_DAIN_PLANAR_STRIDE", "DAIN_PLANAR_STRIDE"),
    "DAOUT_ADDR": ("D_DAOUT_ADDR_LOW", "DAOUT_ADDR_LOW"),
    "DAOUT_LINE": ("D_DAOUT_LINE_STRIDE", "DAOUT_LINE_STRIDE"),
    "DAOUT_SURF": ("D_DAOUT_SURF_STRIDE", "DAOUT_SURF_STRIDE"),
    "DAOUT_PLANAR": ("D_DAOUT_PLANAR_STRIDE", "DAOUT_PLANAR_STRIDE"),
    "CONTRACT_0": ("D_CONTRACT_STRIDE_0", "CONTRACT_STRIDE_0"),
    "CONTRACT_1": ("D_CONTRACT_STRIDE_1", "CONTRACT_STRIDE_1"),
}


def qualified(key: str) -> str:
    register, field = ALIGNED[key]
    return f"RBK.{register}.{field}"


def surface_count(channels: int, per_atom: int) -> int:
    return -(-channels // per_atom)



DATA_FORMAT = "programming-guide: Limitation/Data Format"
PLANAR_MODE = {"DAIN": "MERGE", "DAOUT": "SPLIT"}


def side_layout(layer, side: str):
    """("feature", line bytes, lines, surfaces) or ("planes", plane line bytes, lines, planes) of one side."""
    sx, sy, per_atom = layer.stride_x, layer.stride_y, layer.per_atom
    if layer.mode == PLANAR_MODE[side]:
        return "planes", layer.plane_row_bytes, layer.height, layer.in_channels if side == "DAIN" else \
            layer.out_channels
    if layer.mode == "CONTRACT":
        surfaces = surface_count(layer.out_channels, per_atom)
        if side == "DAIN":
            return "feature", layer.width * ATOM, layer.height, surfaces * sx * sy
        return "feature", layer.width * sx * ATOM, layer.height * sy, surfaces
    return "feature", layer.width * ATOM, layer.height, surface_count(layer.in_channels, per_atom)


def _planar_alignment(side: str) -> None:
    keys = tuple(f"{side}_{name}" for name in ("ADDR", "LINE", "PLANAR"))

    @rule(f"RUBIK-{side}-PLANAR-ALIGN", "RUBIK", f"{LIMIT} (split/merge planar address/line_stride)",
          tuple(qualified(key) for key in keys), f"{PLANAR_MODE[side].lower()}: the planes' address and strides "
          "are 64-byte aligned")
    def aligned(layer, facts):
        if layer.mode != PLANAR_MODE[side]:
            return None
        for key in keys:
            if layer.addressing[key] % 64:
                return f"{ALIGNED[key][0]} = {layer.addressing[key]:#x}: planar data needs 64-byte alignment"


for _side_name in ("DAIN", "DAOUT"):
    _planar_alignment(_side_name)


@rule("RUBIK-CONTRACT-WIDTH", "RUBIK", LIMIT,
      ("RBK.D_DECONV_STRIDE.DECONV_X_STRIDE", "RBK.D_DATAIN_SIZE_0.DATAIN_WIDTH"),
      "contract: deconv_x_stride * datain_width is at most 8192")
def _contract_width(layer, facts):
    if layer.mode == "CONTRACT" and layer.stride_x * layer.width > 8192:
        return f"deconv_x_stride * datain_width = {layer.stride_x} * {layer.width} exceeds 8192"


@rule("RUBIK-CONTRACT-CHANNELS", "RUBIK", f"{GUIDE}/Contract (D_DATAOUT_SIZE_1)",
      ("RBK.D_DATAOUT_SIZE_1.DATAOUT_CHANNEL", "RBK.D_DATAIN_SIZE_1.DATAIN_CHANNEL"),
      "contract: DATAOUT_CHANNEL+1 = (DATAIN_CHANNEL+1) / ((DECONV_X_STRIDE+1) * (DECONV_Y_STRIDE+1))")
def _contract_channels(layer, facts):
    sx, sy = layer.stride_x, layer.stride_y
    if layer.mode == "CONTRACT" and layer.out_channels * sx * sy != layer.in_channels:
        return (f"DATAOUT_CHANNEL+1 = {layer.out_channels} but (DATAIN_CHANNEL+1)/((DECONV_X_STRIDE+1)*"
                f"(DECONV_Y_STRIDE+1)) = {layer.in_channels}/{sx * sy}")


CONTRACT_STRIDES = {
    "CONTRACT_0": ("Ceil((DATAOUT_CHANNEL+1)*BPE/32) * DAIN_SURF_STRIDE",
                   lambda layer: surface_count(layer.out_channels, layer.per_atom) * layer.addressing["DAIN_SURF"]),
    "CONTRACT_1": ("(DECONV_Y_STRIDE+1) * DAOUT_LINE_STRIDE",
                   lambda layer: layer.stride_y * layer.addressing["DAOUT_LINE"]),
}


def _contract_stride(key: str) -> None:
    register = ALIGNED[key][0]
    formula, expected = CONTRACT_STRIDES[key]

    @rule(f"RUBIK-{key.replace('_', '-STRIDE-')}", "RUBIK", f"{GUIDE}/Contract ({register})", (qualified(key),),
          f"contract: {register} is {formula}")
    def stride(layer, facts):
        if layer.mode == "CONTRACT" and layer.addressing[key] != (value := expected(layer)):
            return f"{register} = {layer.addressing[key]:#x}, the guide's {formula} is {value:#x}"


for _key in CONTRACT_STRIDES:
    _contract_stride(_key)


@rule("RUBIK-SPLIT-CHANNELS", "RUBIK", f"{GUIDE}/Split/Merge",
      ("RBK.D_DATAOUT_SIZE_1.DATAOUT_CHANNEL", "RBK.D_DATAIN_SIZE_1.DATAIN_CHANNEL"),
      "split: one plane per input channel, DATAOUT_CHANNEL = DATAIN_CHANNEL")
def _split_channels(layer, facts):
    # The guide and NVIDIA's C model take the planes to write from DATAOUT_CHANNEL (cmod NV_NVDLA_rbk.cpp); the
    # RTL writes one per input channel and walks DATAOUT_CHANNEL's surfaces (nvdlav1 NV_NVDLA_RUBIK_seq_gen.v:
    # remain_wr_channel from reg2dp_datain_channel, wr_planar_num). They agree only when the two are equal.
    if layer.mode == "SPLIT" and layer.out_channels != layer.in_channels:
        return (f"split of {layer.in_channels} channels into {layer.out_channels} planes: the RTL writes a plane per "
                "input channel, so DATAOUT_CHANNEL must equal DATAIN_CHANNEL")


def _stride_rules(side: str) -> None:
    line_key, surf_key, planar_key = f"{side}_LINE", f"{side}_SURF", f"{side}_PLANAR"

    @rule(f"RUBIK-{side}-1X1XC-PACKED", "RUBIK", f"{DATA_FORMAT} (1x1xC cube)",
          (qualified(line_key), qualified(surf_key)), f"a 1x1xC {side} cube is line and surface packed")
    def packed(layer, facts):
        kind, line_bytes, lines, count = side_layout(layer, side)
        line, surf = layer.addressing[line_key], layer.addressing[surf_key]
        if kind == "feature" and line_bytes == ATOM and lines == 1 and count > 1 and (line, surf) != (ATOM, ATOM):
            return f"a 1x1xC cube must be line- and surface-packed (strides 32), got {line:#x}/{surf:#x}"

    @rule(f"RUBIK-{side}-LINE-STRIDE", "RUBIK", f"{DATA_FORMAT} (LINE_STRIDE)", (qualified(line_key),),
          f"the {side} line stride holds one line (of the cube or of a plane)")
    def line_stride(layer, facts):
        kind, line_bytes, lines, _ = side_layout(layer, side)
        line = layer.addressing[line_key]
        if lines > 1 and line < line_bytes:
            what = "line" if kind == "feature" else "plane line"
            return f"{ALIGNED[line_key][0]} = {line:#x} is smaller than one {what} ({line_bytes:#x} bytes)"

    for key, kind_of, what in ((surf_key, "feature", "surface"), (planar_key, "planes", "plane")):
        name = "SURFACE" if kind_of == "feature" else "PLANAR"

        @rule(f"RUBIK-{side}-{name}-STRIDE", "RUBIK", f"{DATA_FORMAT} (LINE_STRIDE)", (qualified(key),),
              f"the {side} {what} stride holds one {what}")
        def stride(layer, facts, key=key, kind_of=kind_of, what=what):
            kind, line_bytes, lines, count = side_layout(layer, side)
            needed = (lines - 1) * layer.addressing[line_key] + line_bytes
            if kind == kind_of and count > 1 and layer.addressing[key] < needed:
                return f"{ALIGNED[key][0]} = {layer.addressing[key]:#x} is smaller than one {what} ({needed:#x} bytes)"


for _side_name in ("DAIN", "DAOUT"):
    _stride_rules(_side_name)
