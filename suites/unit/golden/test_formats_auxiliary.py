"""Bias / PReLU / BN / element-wise operand layouts and the BytesPerAtom rule."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from golden.errors import ConfigurationError
from golden.formats.auxiliary import aux_span, bytes_per_atom, element_per_atom, pack_aux, unpack_aux


@pytest.mark.parametrize("proc, expected", [("int8", 32), ("int16", 16), ("fp16", 16)])
def test_element_per_atom_table(proc, expected):
    assert element_per_atom(proc) == expected


@pytest.mark.parametrize("use, components", [
    ("bias", 1), ("prelu", 1), ("bn", 2), ("ew_alu", 1), ("ew_mul", 1), ("ew_both", 2),
    ("ALU", 1), ("MUL", 1), ("BOTH", 2)])
@pytest.mark.parametrize("proc, per_atom", [("int8", 32), ("int16", 16), ("fp16", 16)])
@pytest.mark.parametrize("size, nbytes", [("ONE_BYTE", 1), ("TWO_BYTE", 2)])
def test_bytes_per_atom_tables(use, components, proc, per_atom, size, nbytes):
    if proc == "fp16" and size == "ONE_BYTE":
        return
    assert bytes_per_atom(proc, use, size) == per_atom * components * nbytes


def test_documented_cases():
    # Figures 18/19: per-channel bias is 32 bytes per atom with 1 byte, 64 with 2 bytes (INT8).
    assert bytes_per_atom("int8", "bias", "ONE_BYTE") == 32
    assert bytes_per_atom("int8", "bias", "TWO_BYTE") == 64
    # Figures 24/25: BN pairs are 64 bytes (1 byte components) or 128 bytes (2 bytes) per atom.
    assert bytes_per_atom("int8", "bn", "ONE_BYTE") == 64
    assert bytes_per_atom("int8", "bn", "TWO_BYTE") == 128
    # Element-wise with both ALU and MUL doubles the element size.
    assert bytes_per_atom("int16", "ew_both", "TWO_BYTE") == 2 * bytes_per_atom("int16", "ew_alu", "TWO_BYTE")
    # nv_small (8-byte memory atom).
    assert element_per_atom("int8", 8) == 8


def test_bn_pairs_are_packed_alu_then_mul():
    mean = np.array([1, 2, 3], dtype=np.int16)
    var = np.array([-1, -2, -3], dtype=np.int16)
    buf = pack_aux(np.stack([mean, var], axis=1), "int16", "bn", "TWO_BYTE", "PER_KERNEL")
    assert buf.size == 64
    assert list(buf[:12].view("<i2")) == [1, -1, 2, -2, 3, -3]
    assert (buf[12:] == 0).all()


def test_per_element_bias_uses_feature_order_with_strides():
    data = np.arange(40 * 2 * 3, dtype=np.int16).reshape(40, 2, 3)
    buf = pack_aux(data, "int8", "bias", "TWO_BYTE", "PER_ELEMENT", line_stride=256, surface_stride=640)
    # atom = 32 elements x 2 bytes = 64 bytes; element (c, h, w) at c//32*640 + h*256 + w*64 + c%32*2
    for c, h, w in [(0, 0, 0), (31, 1, 2), (32, 0, 1), (39, 1, 2)]:
        offset = c // 32 * 640 + h * 256 + w * 64 + c % 32 * 2
        assert buf[offset:offset + 2].view("<i2")[0] == data[c, h, w]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["int8", "int16", "fp16"]), st.sampled_from(["bias", "prelu", "bn", "ew_both"]),
       st.sampled_from(["ONE_BYTE", "TWO_BYTE"]), st.sampled_from(["PER_KERNEL", "PER_ELEMENT"]),
       st.sampled_from([8, 16, 32]), st.integers(1, 70), st.integers(1, 4), st.integers(1, 5),
       st.integers(0, 2), st.integers(0, 2**32 - 1))
def test_round_trip(proc, use, size, mode, atom, c, h, w, extra, seed):
    if proc == "fp16" and size == "ONE_BYTE":
        with pytest.raises(ConfigurationError):
            pack_aux(np.zeros(c), proc, use, size, "PER_KERNEL")
        return
    rng = np.random.default_rng(seed)
    components = 2 if use in ("bn", "ew_both") else 1
    shape = (c, components) if mode == "PER_KERNEL" else (c, h, w, components)
    nbytes = 1 if size == "ONE_BYTE" else 2
    data = rng.integers(0, 256, size=(*shape, nbytes), dtype=np.uint8).view(
        {1: np.int8, 2: np.int16}[nbytes] if proc != "fp16" else np.float16).reshape(shape)
    per_atom_bytes = bytes_per_atom(proc, use, size, atom)
    line = w * per_atom_bytes + extra * 32
    surface = h * line + extra * 32
    buf = pack_aux(data, proc, use, size, mode, line, surface, atom, pad_value=0xEE)
    assert buf.size == aux_span(shape, proc, use, size, mode, line, surface, atom)
    back = unpack_aux(buf, 0, shape[:-1], proc, use, size, mode, line, surface, atom)
    assert np.array_equal(back.view(np.uint8), data.view(np.uint8))
    used = data.nbytes
    padded = -(-c // element_per_atom(proc, atom)) * element_per_atom(proc, atom)
    if mode == "PER_KERNEL":
        assert (buf[used:] == 0xEE).all() and buf.size == padded * components * nbytes


def test_bad_use_and_missing_strides():
    with pytest.raises(ConfigurationError):
        bytes_per_atom("int8", "lut", "ONE_BYTE")
    with pytest.raises(ConfigurationError):
        pack_aux(np.zeros((2, 1, 1)), "int8", "bias", "ONE_BYTE", "PER_ELEMENT")
    with pytest.raises(ConfigurationError):
        pack_aux(np.zeros((2, 3)), "int8", "bias", "ONE_BYTE", "PER_KERNEL")   # 3 components
