"""Alignment of start addresses and strides (in-memory-data-formats: Table 35).

Table 35 is written for a 32-byte memory atom. Its 32-byte entries are one memory
atom: nv_small (8-byte atoms) programs feature strides such as 0x8 (trace
nv_small/sdp_1x1x8_pass_through_int8_0), so `atom_bytes` scales them; the weight
entries (256-byte start, 128-byte size) do not scale.

The Element-wise row is missing from the .md rendering; the .alt.txt rendering
gives "32 bytes, 32 bytes, NA, NA" with one cell lost, read here like the pitch
linear pixel row (32, 32, NA, NA, NA).
"""

from __future__ import annotations

from golden.errors import ConfigurationError

RULE = "in-memory-data-formats: Alignment of Start Address and Stride (Table 35)"

COLUMNS = {
    "start_address": "Alignment of start address",
    "line_stride": "Alignment of line stride",
    "surface_stride": "Alignment of surface stride",
    "planar_stride": "Alignment of planar/ cube stride",
    "data_size": "Alignment of data size",
}
ROWS = {
    "feature": "Feature data cube",
    "weight": "uncompressed/ compressed weight",
    "wmb": "WMB",
    "wgs": "WGS",
    "pixel": "Pitch linear pixel",
    "bias": "Bias",
    "prelu": "PReLU",
    "bn": "Batch Normalization",
    "ew": "Element-wise",
}
#: (start address, line stride, surface stride, planar/cube stride, data size); None = NA.
TABLE_35 = {
    "feature": (32, 32, 32, 32, None),
    "weight": (256, None, None, None, 128),
    "wmb": (256, None, None, None, 128),
    "wgs": (256, None, None, None, 128),
    "pixel": (32, 32, None, None, None),
    "bias": (32, 32, 32, None, None),
    "prelu": (32, None, None, None, None),
    "bn": (32, None, None, None, None),
    "ew": (32, 32, None, None, None),
}
_SCALED = {"feature", "pixel", "bias", "prelu", "bn", "ew"}


def required_alignment(row: str, column: str, atom_bytes: int = 32) -> int | None:
    """Bytes the value must be a multiple of, or None where Table 35 says NA."""
    if row not in TABLE_35:
        raise ConfigurationError(f"unknown Table 35 row {row!r}; known: {', '.join(ROWS)}", rule=RULE, fields=())
    if column not in COLUMNS:
        raise ConfigurationError(f"unknown Table 35 column {column!r}; known: {', '.join(COLUMNS)}", rule=RULE,
                                 fields=())
    value = TABLE_35[row][list(COLUMNS).index(column)]
    if value is not None and row in _SCALED:
        value = value * atom_bytes // 32
    return value


def misaligned(row: str, atom_bytes: int = 32, **values) -> tuple[str, int, int] | None:
    """(column, value, alignment) of the first value that is not a multiple of its Table 35 alignment, else None.

    values: start_address=, line_stride=, surface_stride=, planar_stride=, data_size= (None skips).
    """
    for column, value in values.items():
        if value is None:
            continue
        align = required_alignment(row, column, atom_bytes)
        if align is not None and value % align:
            return column, value, align
    return None


def describe(row: str, column: str, value: int, align: int) -> str:
    """The message for a misaligned value."""
    return (f"Table 35 row '{ROWS[row]}', column '{COLUMNS[column]}': 0x{value:x} is not a multiple of "
            f"{align} bytes")


def check_alignment(row: str, *, atom_bytes: int = 32, fields: dict | None = None, **values) -> None:
    """Raise ConfigurationError naming the Table 35 row and column of the first misaligned value.

    values as `misaligned`; fields maps a column to the register field to name, e.g.
    {"line_stride": "SDP.D_DST_LINE_STRIDE"}. The units' DMAs are checked through the rule registry
    (golden/units/dma_rules.py), which uses `misaligned`.
    """
    found = misaligned(row, atom_bytes, **values)
    if found is not None:
        column = found[0]
        field = (fields or {}).get(column, f"{row}.{column}")
        raise ConfigurationError(describe(row, *found), fields=(field,), rule=RULE)
