"""Sparse weight compression: WMB bit masks, WGS sizes, compressed stream, 128-byte surfaces."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from golden.errors import ConfigurationError
from golden.formats.compression import compress, decompress, group_elements
from golden.formats.weight import pack_dc_weights


def test_worked_example():
    # int8, two groups of 8 elements: masks 0b10100001 (little-endian bits) and 0b00000010.
    stream = np.array([5, 0, 0, 0, 0, 7, 0, 9, 0, 3, 0, 0, 0, 0, 0, 0], dtype=np.int8)
    out = compress(stream, "int8", [8, 8])
    assert list(out.wmb[:2]) == [0b10100001, 0b00000010]
    assert list(out.wgs[:8].view("<u4")) == [3, 1]
    assert list(out.weight[:4].view(np.int8)) == [5, 7, 9, 3]
    assert out.weight_bytes == 4 and out.wmb_bytes == 2
    for surface in (out.wgs, out.wmb, out.weight):
        assert surface.size == 128 and not surface[8:].any()
    assert np.array_equal(decompress(out.wgs, out.wmb, out.weight, "int8", [8, 8]).view(np.int8), stream)


def test_int16_counts_two_bytes_per_kept_element():
    stream = np.array([0, 1, -1, 0], dtype=np.int16)
    out = compress(stream, "int16", [4])
    assert out.wgs[:4].view("<u4")[0] == 4 and out.wmb[0] == 0b0110


def test_group_elements():
    assert list(group_elements(33, 9, "int8", 32)) == [32 * 9, 9]
    assert list(group_elements(33, 9, "int16", 32)) == [16 * 9, 16 * 9, 9]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["int8", "int16", "fp16"]), st.integers(1, 40), st.integers(1, 40),
       st.floats(0, 1), st.integers(0, 2**32 - 1))
def test_round_trip_on_mapped_weights(precision, kernels, channels, density, seed):
    rng = np.random.default_rng(seed)
    dtype = {"int8": np.int8, "int16": np.int16, "fp16": np.float16}[precision]
    size = np.dtype(dtype).itemsize
    raw = rng.integers(1, 256, (kernels, channels, 3, 3, size), dtype=np.uint8)
    raw[rng.random((kernels, channels, 3, 3)) > density] = 0
    weights = raw.view(dtype).reshape(kernels, channels, 3, 3)
    mapped = pack_dc_weights(weights, precision, 64, 32)[:weights.nbytes]
    groups = group_elements(kernels, channels * 9, precision, 32)
    out = compress(mapped, precision, groups)
    nonzero = int(np.count_nonzero(weights.view(f"<u{size}")))
    assert out.weight_bytes == nonzero * size
    assert int(out.wgs.view("<u4")[:groups.size].sum()) == nonzero * size
    assert np.array_equal(decompress(out.wgs, out.wmb, out.weight, precision, groups), mapped)


def test_inconsistent_surfaces_are_rejected():
    out = compress(np.array([1, 0, 2, 0], np.int8), "int8", [4])
    bad = out.wgs.copy()
    bad[0] = 3
    with pytest.raises(ConfigurationError):
        decompress(bad, out.wmb, out.weight, "int8", [4])
    with pytest.raises(ConfigurationError):
        decompress(out.wgs, out.wmb[:0], out.weight, "int8", [4])
