"""DL HDL Toolbox external memory layout: the document's examples, round trips, NVDLA conversion."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from golden.errors import ConfigurationError
from golden.formats.dlhdl import (
    axi_words,
    conv_values,
    dlhdl_to_nvdla,
    geometry,
    nvdla_to_dlhdl,
    pack_conv,
    pack_fc,
    unpack_conv,
    unpack_fc,
)
from golden.formats.feature import pack_feature, packed_strides, unpack_feature


def cube_of(features, height=3, width=3):
    """Feature f, row y, column x holds 100*(f+1) + 10*y + x (all non-zero, all distinct)."""
    f, y, x = np.meshgrid(np.arange(features), np.arange(height), np.arange(width), indexing="ij")
    return (100 * (f + 1) + 10 * y + x).astype(np.float32)


def test_thread_and_parallel_numbers():
    assert geometry(9) == (3, 4)          # "if the convolution thread number is nine ... four"
    assert geometry(16) == (4, 4)
    assert geometry(64) == (8, 8)
    with pytest.raises(ConfigurationError):
        geometry(10)


def test_3x3x4_with_c_n_4_is_36_values():
    cube = cube_of(4)
    data = pack_conv(cube, 4, 4, "single").view("<f4")
    assert data.size == 36 == conv_values(cube.shape, 4, 4) == 3 * 3 * 1 * 4
    assert list(data[:8]) == [100, 200, 300, 400, 101, 201, 301, 401]    # N along z, then along x
    assert list(data[12:16]) == [110, 210, 310, 410]                       # row 0 done, then row 1


def test_3x3x4_with_c3_n4_is_72_values():
    cube = cube_of(4)
    data = pack_conv(cube, 3, 4, "single").view("<f4").reshape(2, 3, 3, 4)
    assert data.size == 72 == conv_values(cube.shape, 3, 4)
    assert list(data[0, 0, 0]) == [100, 200, 300, 0]                      # zero plane after C features
    assert list(data[1, 0, 0]) == [400, 0, 0, 0]                          # three zero planes after the 4th
    assert np.array_equal(unpack_conv(data, cube.shape, 3, 4, "single"), cube)


def test_3x3x5_with_thread_number_64_is_72_values():
    threads, parallel = geometry(64)
    cube = cube_of(5)
    data = pack_conv(cube, threads, parallel, "single").view("<f4").reshape(3, 3, 8)
    assert data.size == 72
    assert list(data[0, 0]) == [100, 200, 300, 400, 500, 0, 0, 0]        # three zero 3x3 planes


def test_3x3x5_with_c3_n4_and_reading_back():
    cube = cube_of(5)
    data = pack_conv(cube, 3, 4, "single").view("<f4").reshape(2, 3, 3, 4)
    assert list(data[0, 2, 2]) == [122, 222, 322, 0] and list(data[1, 2, 2]) == [422, 522, 0, 0]
    # Read back: 3x3x5 with thread number four is stored as 1x72 and reads back as 3x3x5.
    stored = pack_conv(cube, 4, 4, "single")
    assert stored.size == 72 * 4
    assert np.array_equal(unpack_conv(stored, cube.shape, 4, 4, "single"), cube)


def test_int8_values_pack_little_endian_into_32_bit_words():
    cube = np.array([1, 2, 3, -1], dtype=np.int8).reshape(4, 1, 1)
    data = pack_conv(cube, 4, 4, "int8")
    assert data.size == 4 and axi_words(data)[0] == 0xFF030201


def test_fully_connected_tail_padding():
    vector = np.arange(1, 7, dtype=np.int8)
    data = pack_fc(vector, 8, "int8")
    assert list(data.view(np.int8)) == [1, 2, 3, 4, 5, 6, 0, 0]
    assert list(axi_words(data)) == [0x04030201, 0x00000605]
    assert np.array_equal(unpack_fc(data, 6), vector)
    single = pack_fc(vector.astype(np.float32), 8, "single")
    assert single.size == 32 and (single[24:] == 0).all()


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 8), st.integers(0, 4), st.integers(1, 40), st.integers(1, 5), st.integers(1, 5),
       st.sampled_from(["int8", "single"]), st.integers(0, 2**32 - 1))
def test_round_trip_and_zero_planes(threads, extra, features, height, width, data_type, seed):
    parallel = 1 << (threads - 1).bit_length() if extra == 0 else threads + extra
    rng = np.random.default_rng(seed)
    cube = rng.integers(-128, 128, (features, height, width)).astype(np.int8 if data_type == "int8" else
                                                                     np.float32)
    data = pack_conv(cube, threads, parallel, data_type)
    size = 1 if data_type == "int8" else 4
    assert data.size == conv_values(cube.shape, threads, parallel) * size
    assert np.array_equal(unpack_conv(data, cube.shape, threads, parallel, data_type), cube)
    slots = data.view(cube.dtype).reshape(-1, height, width, parallel)
    assert not slots[..., threads:].any()                                 # inserted planes are zero
    blocks = slots.shape[0]
    padding = slots[..., :threads].transpose(0, 3, 1, 2).reshape(blocks * threads, height, width)[features:]
    assert not padding.any()


@pytest.mark.parametrize("precision", ["int8", "int16", "fp16"])
@pytest.mark.parametrize("atom", [8, 16, 32])
def test_nvdla_surface_to_dlhdl_and_back(precision, atom):
    rng = np.random.default_rng(7)
    cube = rng.integers(-100, 100, (37, 4, 5)).astype({"int8": np.int8, "int16": np.int16,
                                                         "fp16": np.float16}[precision])
    line, surface = packed_strides(cube.shape, precision, atom)
    surface += 2 * atom
    nvdla = pack_feature(cube, precision, line, surface, atom)
    dlhdl = nvdla_to_dlhdl(nvdla, 0, cube.shape, precision, line, surface, atom, 3, 4)
    data_type = "int8" if precision == "int8" else "single"
    assert np.array_equal(unpack_conv(dlhdl, cube.shape, 3, 4, data_type), cube.astype(np.float32)
                          if data_type == "single" else cube)
    back = dlhdl_to_nvdla(dlhdl, cube.shape, precision, line, surface, atom, 3, 4)
    assert np.array_equal(unpack_feature(back, 0, cube.shape, precision, line, surface, atom), cube)
    assert np.array_equal(back, nvdla)


def test_errors():
    with pytest.raises(ConfigurationError):
        pack_conv(np.zeros((2, 2, 2)), 5, 4)                # C > N
    with pytest.raises(ConfigurationError):
        unpack_conv(np.zeros(10, np.uint8), (5, 3, 3), 4, 4)
    with pytest.raises(ConfigurationError):
        pack_conv(np.zeros((2, 2, 2)), 2, 2, "double")
