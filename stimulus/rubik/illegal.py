"""Breakers of Rubik's rules (golden/units/rubik/rules.py): each changes a legal generated Rubik layer's fields.

A change (stimulus/breakers.py) takes the legal layer's fields (a copy), its decoded RubikLayer, the chooser and the
profile, and returns the changed fields or None when this layer cannot be changed that way (another legal layer is
drawn). Addresses and strides are held in 32-byte units (the field keeps bits [31:5]); a stride the contract
formulas read moves its contract stride with it, so that only the one rule is broken.
"""

from __future__ import annotations

from golden.units.rubik.rules import ALIGNED, PLANAR_MODE, side_layout
from stimulus.breakers import Fields, declare

ATOM = 32


def _field(key: str) -> str:
    register, field = ALIGNED[key]
    return f"RBK.{register}.{field}"


def _put(fields: dict, key: str, byte_value: int) -> dict:
    fields[_field(key)] = byte_value >> 5
    return fields


def _keep_contract(fields: dict, layer) -> dict:
    """CONTRACT_STRIDE_0/1 recomputed from the (changed) DAIN surface and DAOUT line strides (Rubik programming)."""
    if layer.mode == "CONTRACT":
        surfaces = -(-layer.out_channels // layer.per_atom)
        _put(fields, "CONTRACT_0", surfaces * (fields[_field("DAIN_SURF")] << 5))
        _put(fields, "CONTRACT_1", layer.stride_y * (fields[_field("DAOUT_LINE")] << 5))
    return fields


def _misaligned(side: str):
    """The planar side's address moved by one atom: 32-byte aligned, not 64."""
    def breaker(fields, layer, choose, profile):
        if layer.mode != PLANAR_MODE[side]:
            return None
        return _put(fields, f"{side}_ADDR", layer.addressing[f"{side}_ADDR"] + ATOM)
    return breaker


def _contract_width(fields, layer, choose, profile):
    """A contract input wider than 8192 / stride_x atoms, every stride packed for it."""
    if layer.mode != "CONTRACT":
        return None
    sx, sy = layer.stride_x, layer.stride_y
    width = 8192 // sx + 1
    if width > 8192:  # DATAIN_WIDTH has 13 bits
        return None
    fields["RBK.D_DATAIN_SIZE_0.DATAIN_WIDTH"] = width - 1
    in_line, out_line = width * ATOM, width * sx * ATOM
    _put(fields, "DAIN_LINE", in_line)
    _put(fields, "DAIN_SURF", layer.height * in_line)
    _put(fields, "DAOUT_LINE", out_line)
    _put(fields, "DAOUT_SURF", layer.height * sy * out_line)
    return _keep_contract(fields, layer)


def _contract_channels(fields, layer, choose, profile):
    if layer.mode != "CONTRACT":
        return None
    fields["RBK.D_DATAIN_SIZE_1.DATAIN_CHANNEL"] = layer.in_channels  # one more than out * sx * sy
    return fields


def _contract_stride(key: str):
    def breaker(fields, layer, choose, profile):
        if layer.mode != "CONTRACT":
            return None
        return _put(fields, key, layer.addressing[key] + ATOM)
    return breaker


def _split_channels(fields, layer, choose, profile):
    if layer.mode != "SPLIT" or layer.in_channels >= 1 << 13:
        return None
    fields["RBK.D_DATAOUT_SIZE_1.DATAOUT_CHANNEL"] = layer.in_channels  # one plane more than the cube has
    return fields


def _unpacked(side: str):
    """A 1x1xC feature cube whose strides are not both 32: the surface stride (or, where a contract stride reads
    the surface stride, the line stride) doubled."""
    def breaker(fields, layer, choose, profile):
        kind, line_bytes, lines, count = side_layout(layer, side)
        if kind != "feature" or line_bytes != ATOM or lines != 1 or count < 2:
            return None
        key = f"{side}_LINE" if (layer.mode, side) == ("CONTRACT", "DAIN") else f"{side}_SURF"
        return _keep_contract(_put(fields, key, 2 * ATOM), layer)
    return breaker


def _short_line(side: str):
    """A line stride one granule short of a line (64 bytes on a planar side, which must stay 64-byte aligned)."""
    def breaker(fields, layer, choose, profile):
        kind, line_bytes, lines, _ = side_layout(layer, side)
        if lines < 2:
            return None
        granule = 64 if kind == "planes" else ATOM
        short = (line_bytes - 1) // granule * granule
        return _keep_contract(_put(fields, f"{side}_LINE", short), layer)
    return breaker


def _short_stride(side: str, kind_of: str):
    """A surface (feature side) or planar (planar side) stride one granule short of what it must hold."""
    def breaker(fields, layer, choose, profile):
        kind, line_bytes, lines, count = side_layout(layer, side)
        if kind != kind_of or count < 2:
            return None
        needed = (lines - 1) * layer.addressing[f"{side}_LINE"] + line_bytes
        granule = 64 if kind == "planes" else ATOM
        key = f"{side}_SURF" if kind == "feature" else f"{side}_PLANAR"
        return _keep_contract(_put(fields, key, (needed - 1) // granule * granule), layer)
    return breaker


CHANGES = {
    "RUBIK-DAIN-PLANAR-ALIGN": _misaligned("DAIN"),
    "RUBIK-DAOUT-PLANAR-ALIGN": _misaligned("DAOUT"),
    "RUBIK-CONTRACT-WIDTH": _contract_width,
    "RUBIK-CONTRACT-CHANNELS": _contract_channels,
    "RUBIK-CONTRACT-STRIDE-0": _contract_stride("CONTRACT_0"),
    "RUBIK-CONTRACT-STRIDE-1": _contract_stride("CONTRACT_1"),
    "RUBIK-SPLIT-CHANNELS": _split_channels,
    "RUBIK-DAIN-1X1XC-PACKED": _unpacked("DAIN"),
    "RUBIK-DAOUT-1X1XC-PACKED": _unpacked("DAOUT"),
    "RUBIK-DAIN-LINE-STRIDE": _short_line("DAIN"),
    "RUBIK-DAOUT-LINE-STRIDE": _short_line("DAOUT"),
    "RUBIK-DAIN-SURFACE-STRIDE": _short_stride("DAIN", "feature"),
    "RUBIK-DAOUT-SURFACE-STRIDE": _short_stride("DAOUT", "feature"),
    "RUBIK-DAIN-PLANAR-STRIDE": _short_stride("DAIN", "planes"),
    "RUBIK-DAOUT-PLANAR-STRIDE": _short_stride("DAOUT", "planes"),
}

BREAKERS = declare(CHANGES, Fields("rubik"))
