"""Deep Learning HDL Toolbox external memory layout (dlhdl-external-memory-data-format.txt).

Thread number C = sqrt(ConvThreadNumber); parallel transfer number
N = 2^nextpow2(C) (ConvThreadNumber 9 -> C 3, N 4; 64 -> C 8, N 8).

Convolution module: the feature axis Z is cut into blocks of C features; each block
takes N slots, the N - C slots after the C features being zero planes (power-of-two C
equals N, so only the last block is zero-filled). Blocks are stored one after the
other; inside a block, N values along Z, then along x (a row), then along y:
output memory size = X * Y * ceil(Z / C) * N values. Fully connected module: the
vector, zero-filled to a multiple of N.

Values are one byte each for int8 (four per 32-bit AXI word, the first at the least
significant byte: little-endian) and 32-bit little-endian floats for single.
Cubes here are (Z, Y, X) = (C, H, W) like the NVDLA feature cubes.
"""

from __future__ import annotations

import math

import numpy as np

from golden.errors import ConfigurationError
from golden.formats.feature import as_byte_buffer, pack_feature, unpack_feature

RULE = "dlhdl-external-memory-data-format: Convolution Module External Memory Data Format"
DTYPES: dict[str, np.dtype] = {"int8": np.dtype("<i1"), "single": np.dtype("<f4")}


def _dtype(data_type: str) -> np.dtype:
    try:
        return DTYPES[data_type]
    except KeyError:
        raise ConfigurationError(f"DL HDL data type must be one of {', '.join(DTYPES)}", rule=RULE, fields=()) from None


def thread_number(conv_thread_number: int) -> int:
    root = math.isqrt(conv_thread_number)
    if conv_thread_number < 1 or root * root != conv_thread_number:
        raise ConfigurationError(f"ConvThreadNumber {conv_thread_number} is not a perfect square", rule=RULE, fields=())
    return root


def parallel_transfer_number(conv_thread_number: int) -> int:
    """power(2, nextpow2(sqrt(ConvThreadNumber)))."""
    return 1 << (thread_number(conv_thread_number) - 1).bit_length()


def geometry(conv_thread_number: int) -> tuple[int, int]:
    """(C, N) of a ConvThreadNumber."""
    return thread_number(conv_thread_number), parallel_transfer_number(conv_thread_number)


def _check(threads: int, parallel: int) -> None:
    if threads < 1 or parallel < threads:
        raise ConfigurationError(f"thread number C={threads} must be 1..N (N={parallel})", rule=RULE, fields=())


def conv_values(shape, threads: int, parallel: int) -> int:
    """dimension1 * dimension2 * ceil(Z / C) * N."""
    _check(threads, parallel)
    features, height, width = shape
    return height * width * -(-features // threads) * parallel


def pack_conv(cube, threads: int, parallel: int, data_type: str = "int8") -> np.ndarray:
    """(Z, Y, X) cube -> np.uint8 external memory bytes of the convolution module layout."""
    dtype = _dtype(data_type)
    values = np.asarray(cube, dtype=dtype)
    if values.ndim != 3:
        raise ConfigurationError(f"convolution data must be (Z, Y, X), got {values.shape}", rule=RULE, fields=())
    _check(threads, parallel)
    features, height, width = values.shape
    blocks = -(-features // threads)
    slots = np.zeros((blocks, parallel, height, width), dtype=dtype)
    filled = np.zeros((blocks * threads, height, width), dtype=dtype)
    filled[:features] = values
    slots[:, :threads] = filled.reshape(blocks, threads, height, width)
    return np.ascontiguousarray(slots.transpose(0, 2, 3, 1)).reshape(-1).view(np.uint8)


def unpack_conv(buf, shape, threads: int, parallel: int, data_type: str = "int8") -> np.ndarray:
    """External memory bytes -> (Z, Y, X) cube with the zero planes removed."""
    dtype = _dtype(data_type)
    features, height, width = shape
    count = conv_values(shape, threads, parallel)
    raw = as_byte_buffer(buf)
    if raw.size < count * dtype.itemsize:
        raise ConfigurationError(f"convolution output needs {count * dtype.itemsize} bytes, got {raw.size}",
                                 rule="dlhdl-external-memory-data-format: Calculation of Output Memory Size", fields=())
    blocks = count // (height * width * parallel)
    slots = raw[:count * dtype.itemsize].view(dtype).reshape(blocks, height, width, parallel)
    real = slots[..., :threads].transpose(0, 3, 1, 2).reshape(blocks * threads, height, width)
    return np.ascontiguousarray(real[:features])


def pack_fc(vector, parallel: int, data_type: str = "int8") -> np.ndarray:
    """Fully connected layout: the vector zero-filled to a multiple of N."""
    dtype = _dtype(data_type)
    values = np.asarray(vector, dtype=dtype).reshape(-1)
    out = np.zeros(-(-values.size // parallel) * parallel, dtype=dtype)
    out[:values.size] = values
    return out.view(np.uint8)


def unpack_fc(buf, length: int, data_type: str = "int8") -> np.ndarray:
    dtype = _dtype(data_type)
    return as_byte_buffer(buf)[:length * dtype.itemsize].view(dtype).copy()


def axi_words(buf) -> np.ndarray:
    """The 32-bit words the AXI4 interface carries (little-endian: first byte in bits 7..0)."""
    raw = as_byte_buffer(buf)
    padded = np.zeros(-(-raw.size // 4) * 4, dtype=np.uint8)
    padded[:raw.size] = raw
    return padded.view("<u4")


def nvdla_to_dlhdl(buf, base_offset: int, shape, precision: str, line_stride: int, surface_stride: int,
                   atom_bytes: int, threads: int, parallel: int) -> np.ndarray:
    """An NVDLA feature surface (int8 -> int8, int16/fp16 -> single) in DL HDL convolution layout."""
    cube = unpack_feature(buf, base_offset, shape, precision, line_stride, surface_stride, atom_bytes)
    data_type = "int8" if precision == "int8" else "single"
    return pack_conv(cube, threads, parallel, data_type)


def dlhdl_to_nvdla(buf, shape, precision: str, line_stride: int, surface_stride: int, atom_bytes: int,
                   threads: int, parallel: int) -> np.ndarray:
    """DL HDL convolution-layout bytes as an NVDLA feature surface of the given precision."""
    data_type = "int8" if precision == "int8" else "single"
    cube = unpack_conv(buf, shape, threads, parallel, data_type)
    if precision == "int16":
        if np.any(cube != np.round(cube)) or cube.min(initial=0) < -32768 or cube.max(initial=0) > 32767:
            raise ConfigurationError("single values are not int16", rule=RULE, fields=())
        cube = cube.astype(np.int16)
    elif precision == "fp16":
        cube = cube.astype(np.float16)
    return pack_feature(cube, precision, line_stride, surface_stride, atom_bytes)
