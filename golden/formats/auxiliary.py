"""Auxiliary SDP operand data: bias, PReLU, batch normalization, element-wise.

in-memory-data-formats: Bias / PRELU / Batch Normalization / Element-Wise Data Format.
One element carries ComponentsPerElement components of BytesPerComponent bytes:
BN and element-wise with both ALU and MUL carry the pair (ALU operand, MUL
operand) packed together (programming guide: SDP/Batch normalization,
"M0V0M1V1..."). An atom holds ElementPerAtom elements, so

    BytesPerAtom = ElementPerAtom * ComponentsPerElement * BytesPerComponent

with ElementPerAtom = 32 for PROC_PRECISION INT8 and 16 for INT16/FP16 on a 32-byte
memory atom; it scales with the profile's memory atom (nv_small: 8 and 4; checked
on nv_small/sdp_23x13x42_bs_int8_mem_0, whose per-element operand spans 8-byte atoms).

PER_KERNEL (per channel) data is a continuous 1x1xC cube; PER_ELEMENT data is a
WxHxC cube laid out like feature data (atoms C' -> W -> H -> C) with the RDMA's
LINE_STRIDE / SURFACE_STRIDE. Arrays are (C, components) or (C, H, W, components);
a single-component operand may omit the last axis.
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigurationError
from golden.formats.feature import as_byte_buffer, gather_elements, scatter_elements, surfaces

RULE = "in-memory-data-formats: Element-Wise Data Format (BytesPerAtom)"

#: ComponentsPerElement per use case (DATA_USE register: MUL, ALU, BOTH).
COMPONENTS_PER_ELEMENT = {
    "bias": 1, "prelu": 1, "bn": 2, "ew_alu": 1, "ew_mul": 1, "ew_both": 2,
    "MUL": 1, "ALU": 1, "BOTH": 2,
}
#: BytesPerComponent per DATA_SIZE register value.
BYTES_PER_COMPONENT = {"ONE_BYTE": 1, "TWO_BYTE": 2}
#: ElementPerAtom per PROC_PRECISION on the documented 32-byte atom.
ELEMENT_PER_ATOM_32B = {"int8": 32, "int16": 16, "fp16": 16}
MODES = ("PER_KERNEL", "PER_ELEMENT")


def _lookup(table: dict, key, what: str):
    try:
        return table[key]
    except KeyError:
        raise ConfigurationError(f"unknown {what} {key!r}; known: {', '.join(map(str, table))}",
                                 rule=RULE, fields=(what,)) from None


def element_per_atom(proc_precision: str, atom_bytes: int = 32) -> int:
    """ElementPerAtom: 32 (INT8) or 16 (INT16/FP16) per 32 bytes of memory atom."""
    per_32 = _lookup(ELEMENT_PER_ATOM_32B, proc_precision, "PROC_PRECISION")
    return per_32 * atom_bytes // 32


def bytes_per_atom(proc_precision: str, use: str, data_size: str, atom_bytes: int = 32) -> int:
    return (element_per_atom(proc_precision, atom_bytes) * _lookup(COMPONENTS_PER_ELEMENT, use, "use")
            * _lookup(BYTES_PER_COMPONENT, data_size, "DATA_SIZE"))


def component_dtype(proc_precision: str, data_size: str) -> np.dtype:
    """int8 / int16 components; FP16 pipelines read fp16 (2-byte) components."""
    size = _lookup(BYTES_PER_COMPONENT, data_size, "DATA_SIZE")
    if proc_precision == "fp16":
        if size != 2:
            raise ConfigurationError("FP16 operand data is always two bytes per component",
                                     fields=("DATA_SIZE",), rule="in-memory-data-formats: Bias Data Format")
        return np.dtype("<f2")
    return np.dtype("<i1") if size == 1 else np.dtype("<i2")


def _geometry(shape, mode, use):
    components = _lookup(COMPONENTS_PER_ELEMENT, use, "use")
    if mode not in MODES:
        raise ConfigurationError(f"unknown DATA_MODE {mode!r}; known: {', '.join(MODES)}", rule=RULE,
                                 fields=("DATA_MODE",))
    shape = tuple(int(v) for v in shape)
    spatial = 1 if mode == "PER_KERNEL" else 3
    if len(shape) == spatial + 1:
        if shape[-1] != components:
            raise ConfigurationError(f"{use} data has {components} component(s), array has {shape[-1]}",
                                     rule=RULE, fields=())
        shape = shape[:-1]
    if len(shape) != spatial:
        raise ConfigurationError(f"{mode} data must be {'(C,)' if spatial == 1 else '(C, H, W)'}"
                                 f" [+ components], got {shape}", rule=RULE, fields=())
    cube = (1, shape[0], 1, 1) if mode == "PER_KERNEL" else (1, *shape)
    return cube, components


def _strides(mode, cube, per_atom, atom, line_stride, surface_stride):
    if mode == "PER_KERNEL":
        return (None, atom, atom)
    if line_stride is None or surface_stride is None:
        raise ConfigurationError("PER_ELEMENT data needs line and surface strides",
                                 fields=("LINE_STRIDE", "SURFACE_STRIDE"), rule=RULE)
    return (None, surface_stride, line_stride)


def aux_span(shape, proc_precision: str, use: str, data_size: str, mode: str, line_stride=None,
             surface_stride=None, atom_bytes: int = 32) -> int:
    """Bytes from the operand's base address to the end of its last atom."""
    cube, _ = _geometry(shape, mode, use)
    per_atom = element_per_atom(proc_precision, atom_bytes)
    atom = bytes_per_atom(proc_precision, use, data_size, atom_bytes)
    _, surface, line = _strides(mode, cube, per_atom, atom, line_stride, surface_stride)
    return (surfaces(cube[1], per_atom) - 1) * surface + (cube[2] - 1) * line + cube[3] * atom


def pack_aux(data, proc_precision: str, use: str, data_size: str, mode: str, line_stride=None,
             surface_stride=None, atom_bytes: int = 32, *, buf=None, base_offset: int = 0,
             pad_value: int = 0) -> np.ndarray:
    """Write operand data; returns the np.uint8 buffer (new, zero-filled, unless `buf` is given)."""
    dtype = component_dtype(proc_precision, data_size)
    array = np.asarray(data)
    if dtype.kind == "f" and array.dtype in (np.uint16, np.int16):
        array = np.ascontiguousarray(array).view(dtype)
    array = np.ascontiguousarray(array, dtype=dtype)
    cube, components = _geometry(array.shape, mode, use)
    per_atom = element_per_atom(proc_precision, atom_bytes)
    atom = bytes_per_atom(proc_precision, use, data_size, atom_bytes)
    strides = _strides(mode, cube, per_atom, atom, line_stride, surface_stride)
    if buf is None:
        span = aux_span(array.shape, proc_precision, use, data_size, mode, line_stride, surface_stride,
                        atom_bytes)
        buf = np.zeros(base_offset + span, dtype=np.uint8)
    else:
        buf = as_byte_buffer(buf)
    carriers = array.view(np.uint8).reshape(-1, components * dtype.itemsize)
    carriers = carriers.view(f"<u{components * dtype.itemsize}").reshape(cube)
    scatter_elements(carriers, buf, base_offset, per_atom, strides, pad_value)
    return buf


def unpack_aux(buf, base_offset: int, shape, proc_precision: str, use: str, data_size: str, mode: str,
               line_stride=None, surface_stride=None, atom_bytes: int = 32) -> np.ndarray:
    """Read operand data: (C, components) or (C, H, W, components)."""
    dtype = component_dtype(proc_precision, data_size)
    cube, components = _geometry(shape, mode, use)
    per_atom = element_per_atom(proc_precision, atom_bytes)
    atom = bytes_per_atom(proc_precision, use, data_size, atom_bytes)
    strides = _strides(mode, cube, per_atom, atom, line_stride, surface_stride)
    raw = gather_elements(as_byte_buffer(buf), base_offset, cube, per_atom,
                          components * dtype.itemsize, strides)
    values = np.ascontiguousarray(raw).view(np.uint8).view(dtype)
    if mode == "PER_KERNEL":
        return values.reshape(cube[1], components)
    return values.reshape(*cube[1:], components)
