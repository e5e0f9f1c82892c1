"""SDP_RDMA: the main input (M) and the B / N / E operand reads.

Cubes are handled with their channels padded to whole memory atoms (`padded_channels`): the SDP
processes and writes whole atoms, so the padding lanes of the input are computed and written too
(trace nv_small/sdp_1x1x1_pass_through_int8, ../shared/nvdla/README.md).
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigurationError
from golden.formats import auxiliary as aux
from golden.formats import feature
from golden.numerics import fp
from golden.units.dma import read_feature
from golden.units.sdp.config import OperandDma, SdpConfig

#: An operand DMA's (ALU, MUL) operands, each None when not read from memory.
Operands = tuple[np.ndarray | None, np.ndarray | None]


def padded_channels(cfg: SdpConfig, atom: int) -> int:
    """C rounded up to whole atoms of every precision the layer reads or writes."""
    per_atom = max(atom // feature.element_bytes(p) for p in (cfg.in_precision, cfg.out_precision))
    return -(-cfg.channel // per_atom) * per_atom


def _read_window(memory, base: int, span: int, gather, what: str) -> np.ndarray:
    """Read [base, base+span); the never-written policy applies to the bytes `gather` selects."""
    memory.check_span(base, span, what)
    return memory.read_gathered(base, span, gather, who="SDP_RDMA")


def read_input(ctx, cfg: SdpConfig, channels: int, upstream) -> np.ndarray:
    """The (N, C', H, W) input: int64 for the integer pipes, float32 (fp16 read as fp32) for FP16."""
    if cfg.flying:
        return _from_upstream(cfg, channels, upstream)
    atom = ctx.profile.memory_atomic_size
    shape = (1, channels, cfg.height, cfg.width)
    memory = ctx.memory.select(cfg.src.cvsram)
    cube = read_feature(memory, cfg.src.base, shape, cfg.in_precision, cfg.src.line_stride, cfg.src.surface_stride,
                        atom, name="SDP_RDMA")
    if cfg.in_precision == "fp16":
        return cube.view(np.uint16)
    return cube.astype(np.int64)


def _from_upstream(cfg: SdpConfig, channels: int, upstream) -> np.ndarray:
    if upstream is None:
        raise ConfigurationError("SDP in flying mode needs the convolution pipeline's output",
                                 fields=("SDP.D_FEATURE_MODE_CFG.FLYING_MODE",),
                                 rule="programming-guide: SDP programming (on the fly)")
    cube = np.asarray(upstream)
    if cube.ndim == 3:
        cube = cube[None]
    expected = (cfg.batch, cfg.height, cfg.width)
    if cube.ndim != 4 or (cube.shape[0], *cube.shape[2:]) != expected or cube.shape[1] < cfg.channel:
        raise ConfigurationError(f"upstream cube {cube.shape} does not match the SDP cube "
                                 f"(N, C, H, W) = ({cfg.batch}, {cfg.channel}, {cfg.height}, {cfg.width})",
                                 fields=("SDP.D_DATA_CUBE_CHANNEL", "SDP.D_DATA_CUBE_HEIGHT",
                                         "SDP.D_DATA_CUBE_WIDTH"), rule="golden.units.base: upstream")
    pad = channels - cube.shape[1]
    if pad > 0:
        cube = np.concatenate([cube, np.zeros((cube.shape[0], pad, *cube.shape[2:]), cube.dtype)], axis=1)
    cube = cube[:, :channels]
    if cfg.proc_precision == "fp16":
        return fp.fp32_values(cube if cube.dtype != np.float32 else cube.view(np.uint32))
    return cube.astype(np.int64)


def read_operands(ctx, cfg: SdpConfig, dma: OperandDma, channels: int) -> Operands:
    """(alu, mul) operand arrays broadcastable to (N, C', H, W), or None when not read from memory.

    Integer pipes: int64 (one-byte operands are sign extended); FP16: uint16 fp16 patterns.
    """
    if dma.disable:
        return None, None
    atom = ctx.profile.memory_atomic_size
    precision = cfg.proc_precision
    spatial = (channels,) if dma.mode == "PER_KERNEL" else (channels, cfg.height, cfg.width)
    memory = ctx.memory.select(dma.cvsram)
    batches = cfg.batch if dma.mode == "PER_ELEMENT" else 1
    parts = []
    for n in range(batches):
        base = dma.base + n * dma.batch_stride
        span = aux.aux_span(spatial, precision, dma.use, dma.size, dma.mode, dma.line_stride,
                            dma.surface_stride, atom)

        def unpack(buf):
            return aux.unpack_aux(buf, 0, spatial, precision, dma.use, dma.size, dma.mode,
                                  dma.line_stride, dma.surface_stride, atom)

        buf = _read_window(memory, base, span, lambda mask: unpack(mask).view(np.uint8).reshape(-1),
                           f"SDP_RDMA {dma.name} operand surface")
        parts.append(unpack(buf))
    data = np.stack(parts)  # (N, C, components) or (N, C, H, W, components)
    if dma.mode == "PER_KERNEL":
        data = data[:, :, None, None, :]
    data = data.view(np.uint16) if precision == "fp16" else data.astype(np.int64)
    if dma.use == "BOTH":
        return data[..., 0], data[..., 1]  # M0V0M1V1: ALU (mean) first, then MUL (variance)
    return (data[..., 0], None) if dma.use == "ALU" else (None, data[..., 0])
