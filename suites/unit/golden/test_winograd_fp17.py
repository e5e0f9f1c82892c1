"""The fp16 Winograd input transform rounds in two fp17 stages (cmod hls/csc_libs/csc_cvt.cpp
NV_NVDLA_CSC_pra_cell, vmod/nvdla/csc/NV_NVDLA_CSC_pra_cell.v): every element of B^T d is one fp17
add or subtract rounded to nearest even, every element of (B^T d) B another, then Fp17ToFp16.

The reference (winograd_reference.py) is written from the format definitions, not the golden model."""

from __future__ import annotations

import numpy as np
import pytest

from golden.units.conv.winograd import pre_transform
from suites.unit.golden.winograd_reference import fp16, staged_reference


def test_worked_example_rounds_twice():
    """m00 = 2048 - (-1) = 2049 rounds to 2048 in fp17 (tie, even mantissa); m02 = 0 - 1 = -1;
    f00 = 2048 - (-1) = 2049 rounds to 2048 again. Rounding the exact 2050 once would give 2050."""
    tile = np.zeros((4, 4), np.float16)
    tile[0, 0], tile[2, 0], tile[2, 2] = 2048, -1, 1
    out = pre_transform(tile[None], "fp16", 0)[0]
    assert out[0, 0] == np.float16(2048)
    assert staged_reference(tile)[0, 0] == np.float16(2048)
    assert fp16(np.float64(2049) - np.float64(-1)) == np.float16(2050)  # what one rounding would give


@pytest.mark.parametrize("scale", [1.0, 1 / 64, 512.0, 16384.0])
def test_random_tiles_match_the_staged_reference(scale):
    rng = np.random.default_rng(int(scale * 1000))
    values = rng.standard_normal((400, 4, 4)) * scale
    # a quarter of the tiles get a wide dynamic range, where the fp17 stages lose bits
    values[::4] *= rng.choice([1, 2.0**-8, 2.0**6], size=(100, 4, 4))
    tiles = fp16(values)
    got = pre_transform(tiles, "fp16", 0)
    want = staged_reference(tiles)
    assert np.array_equal(got.view(np.uint16), want.view(np.uint16))


def test_the_fp16_clip_at_the_end():
    tile = np.full((4, 4), 0, np.float16)
    tile[1, 1], tile[1, 2], tile[2, 1], tile[2, 2] = 60000, 60000, 60000, 60000  # f11 = 4 * 60000
    out = pre_transform(tile[None], "fp16", 0)[0]
    assert out[1, 1] == np.float16(65504)
    assert staged_reference(tile)[1, 1] == np.float16(65504)


def test_random_tiles_differ_from_rounding_once():
    """The test can tell the stages apart: a single rounding of the exact transform differs somewhere."""
    rng = np.random.default_rng(7)
    tiles = fp16(rng.standard_normal((400, 4, 4)) * rng.choice([1, 2.0**-8, 2.0**6], size=(400, 4, 4)))
    bt = np.array([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]], dtype=np.float64)
    once = fp16(bt @ tiles.astype(np.float64) @ bt.T)
    assert not np.array_equal(once.view(np.uint16), staged_reference(tiles).view(np.uint16))
