"""Split-H layers and CBUF data/weight reuse across layers (programming guide: Split H, Register definition
DATA_REUSE / WEIGHT_REUSE / SKIP_RELEASE, Limitation/General RLS_SLICES)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from register_edits import with_fields

from golden.config import get_profile
from golden.errors import ConfigurationError, NotModelledError
from golden.units import conv
from golden.units.conv.cbuf import ConvBuffer
from golden.units.conv.program import DATA_BASE, WEIGHT_BASE, DirectLayer, direct_layer

NV_FULL = get_profile("nv_full")




@st.composite
def split_cases(draw):
    rows, sy = draw(st.integers(1, 4)), draw(st.integers(1, 2))
    pt = draw(st.integers(0, rows - 1))
    height = draw(st.integers(rows + 4, rows + 10))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    cube = rng.integers(-128, 128, (draw(st.integers(1, 20)), height, draw(st.integers(3, 9))))
    weights = rng.integers(-128, 128, (draw(st.integers(1, 12)), cube.shape[0], rows, draw(st.integers(1, 3))))
    layer = DirectLayer(stride=(sy, 1), pad=(pt, 0), pad_value=draw(st.integers(0, 255)),
                        clip_truncate=draw(st.integers(0, 4)))
    return cube, weights, layer


def halves(cube, weights, layer):
    """(full output, output rows o1, input rows [0, e1) of part 1, first input row s2 of part 2)."""
    try:
        full = conv.run(direct_layer(NV_FULL, cube, weights, layer)).output
    except ConfigurationError:
        assume(False)  # a drawn geometry whose padding fix-up the rules forbid
    rows, sy, pt = weights.shape[2], layer.stride[0], layer.pad[0]
    o1 = full.shape[1] // 2
    e1 = (o1 - 1) * sy + rows - pt
    s2 = o1 * sy - pt
    return full, o1, e1, s2


@settings(max_examples=25, deadline=None)
@given(split_cases())
def test_split_h_layers_concatenate_to_the_full_layer(case):
    cube, weights, layer = case
    full, o1, e1, s2 = halves(cube, weights, layer)
    if o1 == 0 or s2 < 0:
        return
    # consecutive parts overlap by R - stride_y lines (the guide: max(R - stride_y, 0))
    first = DirectLayer(**{**layer.__dict__, "out_hw": (o1, full.shape[2])})
    top = conv.run(direct_layer(NV_FULL, cube[:, :e1], weights, first))
    rest = DirectLayer(**{**layer.__dict__, "pad": (0, 0), "out_hw": (full.shape[1] - o1, full.shape[2])})
    bottom = conv.run(direct_layer(NV_FULL, cube[:, s2:], weights, rest))
    np.testing.assert_array_equal(np.concatenate([top.output, bottom.output], axis=1), full)


@settings(max_examples=25, deadline=None)
@given(split_cases())
def test_second_part_reuses_the_unreleased_slices(case):
    cube, weights, layer = case
    full, o1, e1, s2 = halves(cube, weights, layer)
    if o1 == 0 or s2 < 0 or e1 <= s2 or e1 >= cube.shape[1]:
        return
    width = full.shape[2]
    buffer = ConvBuffer()
    first = direct_layer(NV_FULL, cube[:, :e1], weights, DirectLayer(**{**layer.__dict__, "out_hw": (o1, width)}))
    first = with_fields(first, CSC__D_RELEASE__RLS_SLICES=s2 - 1 if s2 else 0)
    first.cbuf = buffer
    if s2 == 0:  # nothing to release: keep every slice
        first = with_fields(first, CDMA__D_MISC_CFG__SKIP_DATA_RLS=1, CSC__D_MISC_CFG__SKIP_DATA_RLS=1)
    top = conv.run(first).output
    assert buffer.data.shape[2] == e1 - s2  # the overlap stays in the CBUF
    rest = DirectLayer(**{**layer.__dict__, "pad": (0, 0), "out_hw": (full.shape[1] - o1, full.shape[2])})
    second = direct_layer(NV_FULL, cube[:, s2:], weights, rest)
    line = second.regs.field("CDMA", "D_LINE_STRIDE", "LINE_STRIDE")
    # another WEIGHT_BANK: the first part's weights may leave the weight ring apart (CONV-WEIGHT-RING)
    weight_bank = second.regs.field("CDMA", "D_BANK", "WEIGHT_BANK") - 1
    # CDMA fetches only the new lines; the overlap lines in memory are overwritten so a model reading them fails
    second = with_fields(second, CDMA__D_MISC_CFG__DATA_REUSE=1, CSC__D_MISC_CFG__DATA_REUSE=1,
                         CDMA__D_BANK__WEIGHT_BANK=weight_bank, CSC__D_BANK__WEIGHT_BANK=weight_bank,
                         CDMA__D_DATAIN_SIZE_0__DATAIN_HEIGHT=cube.shape[1] - e1 - 1,
                         CDMA__D_DAIN_ADDR_LOW_0__DATAIN_ADDR_LOW_0=DATA_BASE + (e1 - s2) * line)
    second.memory.pri.write(DATA_BASE, np.full((e1 - s2) * line, 0x55, dtype=np.uint8))
    second.cbuf = buffer
    bottom = conv.run(second).output
    np.testing.assert_array_equal(np.concatenate([top, bottom], axis=1), full)


def test_weight_reuse_keeps_the_previous_weights():
    rng = np.random.default_rng(3)
    cube, weights = rng.integers(-128, 128, (16, 6, 6)), rng.integers(-128, 128, (8, 16, 3, 3))
    buffer = ConvBuffer()
    first = with_fields(direct_layer(NV_FULL, cube, weights, DirectLayer()), CDMA__D_MISC_CFG__SKIP_WEIGHT_RLS=1,
                        CSC__D_MISC_CFG__SKIP_WEIGHT_RLS=1)
    first.cbuf = buffer
    expected = conv.run(first).output
    second = with_fields(direct_layer(NV_FULL, cube, weights, DirectLayer()), CDMA__D_MISC_CFG__WEIGHT_REUSE=1,
                         CSC__D_MISC_CFG__WEIGHT_REUSE=1)
    second.memory.pri.write(WEIGHT_BASE, np.full(weights.size, 0x7F, dtype=np.uint8))  # not fetched
    second.cbuf = buffer
    np.testing.assert_array_equal(conv.run(second).output, expected)
    third = with_fields(direct_layer(NV_FULL, cube, weights, DirectLayer()), CDMA__D_MISC_CFG__WEIGHT_REUSE=1,
                        CSC__D_MISC_CFG__WEIGHT_REUSE=1)
    third.cbuf = buffer  # the second layer released its weights
    with pytest.raises(ConfigurationError, match="WEIGHT_REUSE"):
        conv.run(third)


def test_reuse_rules():
    cube, weights = np.ones((8, 6, 6), dtype=np.int64), np.ones((4, 8, 3, 3), dtype=np.int64)
    reuse = {"CDMA__D_MISC_CFG__DATA_REUSE": 1, "CSC__D_MISC_CFG__DATA_REUSE": 1}
    with pytest.raises(NotModelledError, match="ctx.cbuf"):
        conv.run(with_fields(direct_layer(NV_FULL, cube, weights, DirectLayer()), **reuse))
    buffer = ConvBuffer()
    first = with_fields(direct_layer(NV_FULL, cube, weights, DirectLayer()), CDMA__D_MISC_CFG__SKIP_DATA_RLS=1,
                        CSC__D_MISC_CFG__SKIP_DATA_RLS=1)
    first.cbuf = buffer
    conv.run(first)
    other_bank = with_fields(direct_layer(NV_FULL, cube, weights, DirectLayer()), **reuse,
                             CDMA__D_BANK__DATA_BANK=3, CSC__D_BANK__DATA_BANK=3)
    other_bank.cbuf = buffer
    with pytest.raises(ConfigurationError, match="DATA_BANK"):
        conv.run(other_bank)


def test_the_weight_ring_state_follows_the_banks():
    """cbuf.Left's ring: a released layer whose WEIGHT_BYTES holds padding leaves the pointers apart on its
    WEIGHT_BANK; another bank restarts them, the same bank keeps them apart (CONV-WEIGHT-RING)."""
    import dataclasses

    from golden.units.conv.cbuf import Left, left_by
    from golden.units.conv.config import decode

    cube, weights = np.ones((3, 4, 4), dtype=np.int64), np.ones((5, 3, 3, 3), dtype=np.int64)
    cfg = decode(direct_layer(NV_FULL, cube, weights, DirectLayer()).regs)
    exact = dataclasses.replace(cfg, weight_bytes=cfg.byte_per_kernel * cfg.kernels)
    padded = dataclasses.replace(exact, weight_bytes=exact.weight_bytes + 128 - exact.weight_bytes % 128)
    assert exact.weight_bytes % 128  # 3*3*3*5 bytes: WEIGHT_BYTES rounded up to 128 holds padding
    bank = padded.weight_bank
    assert Left().after(exact).ring_bank is None
    assert Left().after(padded).ring_bank == bank
    kept = dataclasses.replace(padded, skip_weight_rls=True)
    assert Left().after(kept).ring_bank is None  # kept weights are not released
    assert left_by([padded, exact]).ring_bank == bank  # the same bank: still apart
    other = dataclasses.replace(exact, weight_bank=bank - 1)
    assert left_by([padded, other]).ring_bank is None  # another bank restarts both pointers
    assert left_by([padded, other, exact]).ring_bank is None
