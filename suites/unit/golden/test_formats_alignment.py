"""Table 35: every row and column as data, and a validator that names what is violated."""

import pytest

from golden.errors import ConfigurationError
from golden.formats.alignment import COLUMNS, ROWS, TABLE_35, check_alignment, required_alignment

# Table 35 as printed (NA -> None).
PRINTED = {
    "feature": (32, 32, 32, 32, None), "weight": (256, None, None, None, 128),
    "wmb": (256, None, None, None, 128), "wgs": (256, None, None, None, 128),
    "pixel": (32, 32, None, None, None), "bias": (32, 32, 32, None, None),
    "prelu": (32, None, None, None, None), "bn": (32, None, None, None, None),
    "ew": (32, 32, None, None, None),
}
CASES = [(row, column, value) for row, values in PRINTED.items()
         for column, value in zip(COLUMNS, values, strict=True) if value is not None]


def test_table_is_data():
    assert TABLE_35 == PRINTED


@pytest.mark.parametrize("row, column, align", CASES)
def test_each_row_rejects_a_misaligned_value(row, column, align):
    check_alignment(row, **{column: 3 * align})
    for bad in (align // 2, 3 * align + 4):
        with pytest.raises(ConfigurationError) as info:
            check_alignment(row, **{column: bad})
        message = str(info.value)
        assert ROWS[row] in message and COLUMNS[column] in message and "Table 35" in message


@pytest.mark.parametrize("row", sorted(PRINTED))
def test_start_address_stride_and_size_of_every_row(row):
    # Start address misaligned by 4 bytes is rejected everywhere (all rows have an address entry).
    with pytest.raises(ConfigurationError):
        check_alignment(row, start_address=0x80000004)
    # NA columns accept anything.
    for column, value in zip(COLUMNS, PRINTED[row], strict=True):
        if value is None:
            check_alignment(row, **{column: 7})


def test_register_field_is_named_and_atom_scales_32_byte_entries():
    with pytest.raises(ConfigurationError) as info:
        check_alignment("feature", line_stride=0x48, fields={"line_stride": "SDP.D_DST_LINE_STRIDE"})
    assert info.value.fields == ("SDP.D_DST_LINE_STRIDE",)
    # nv_small (8-byte atoms): NVIDIA's sdp_1x1x8_pass_through_int8_0 programs line stride 0x8.
    check_alignment("feature", atom_bytes=8, line_stride=0x8, surface_stride=0x8, start_address=0x80000008)
    with pytest.raises(ConfigurationError):
        check_alignment("feature", line_stride=0x8)
    assert required_alignment("weight", "start_address", atom_bytes=8) == 256
    with pytest.raises(ConfigurationError):
        required_alignment("lut", "start_address")
