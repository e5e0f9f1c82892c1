"""The sdp covergroup (offline SDP layers: precisions, each stage's ALU / MUL / operands / ReLU and bypasses, the
convertors, the LUT, operand DMAs, strides and surfaces; NVIDIA's sdp_cg / sdp_lut_cg / sdp_rdma_cg meanings) and
its LUT port accesses; sdp_flying: every SDP layer, offline or on the fly behind the convolution; sdp_run
(outcomes): the LUT's counters and the EQL result a run reported."""

from __future__ import annotations

import itertools

from golden.config import Profile
from golden.formats import auxiliary as aux
from golden.units.sdp.config import decode
from stimulus.covergroups import Samplers
from stimulus.covergroups.common import (
    ALIGN_CLASSES,
    BATCH_CLASSES,
    CHANNEL_CLASSES,
    SIZE_CLASSES,
    align,
    batch_class,
    channel_class,
    lut_accesses,
    lut_outcomes,
    memories,
    memory_points,
    packed,
    ram,
    sign_class,
    size_class,
    stack,
)
from stimulus.sdp import layers as sdp_stimulus


def _has_lut(profile: Profile) -> bool:
    return profile.has("SDP_LUT") and profile.has("SDP_EW")


def covergroup(coverage, group: str) -> Samplers:
    offline, flying = _points(coverage, group), _flying(coverage, f"{group}_flying")

    def sample_layer(stages, regs, status) -> None:
        if "SDP" in stages:
            cfg = decode(regs)
            if not cfg.flying:
                offline(cfg)
            flying(cfg)
    writes = lut_accesses(coverage, group, "SDP") if _has_lut(coverage.profile) else None
    return Samplers(layer=sample_layer, writes=writes)


def outcomes(coverage, group: str):
    if not _has_lut(coverage.profile):
        return None
    sample = _run(coverage, group)

    def sample_layer(stages, regs, status) -> None:
        if "SDP" in stages and status is not None:
            cfg = decode(regs)
            sample((cfg, cfg.y.lut_active, status))
    return sample_layer


def _points(coverage, g: str):
    p = coverage.profile
    per_atom = p.memory_atomic_size
    decorators = [
        coverage.point(g, "precision", lambda c: f"{c.in_precision}->{c.out_precision}",
                       [f"{i}->{o}" for i, o in sdp_stimulus.precisions(p)]),
        coverage.point(g, "width", lambda c: size_class(c.width), SIZE_CLASSES),
        coverage.point(g, "height", lambda c: size_class(c.height), SIZE_CLASSES),
        coverage.point(g, "channels", lambda c: channel_class(c.channel, per_atom), CHANNEL_CLASSES),
        coverage.point(g, "cvt", lambda c: "identity" if (c.cvt.offset, c.cvt.scale, c.cvt.shift) == (0, 1, 0)
                       else "other", ("identity", "other")),
        coverage.point(g, "output", lambda c: "PDP" if c.output_pdp else "MEM", ("MEM", "PDP") if p.pdp else ("MEM",)),
    ]
    stages = [("BS", "x1", "SDP_BS"), ("BN", "x2", "SDP_BN"), ("EW", "y", "SDP_EW")]
    present = [(n, a) for n, a, switch in stages if p.has(switch)]
    for name, attr in present:
        algos = ("bypass", "MAX", "MIN", "SUM") + (("EQL",) if name == "EW" else ())
        decorators += [
            coverage.point(g, f"{name}.alu", lambda c, a=attr: _alu(getattr(c, a)), algos),
            coverage.point(g, f"{name}.mul", lambda c, a=attr: _mul(getattr(c, a)), ("bypass", "mul", "prelu")),
            coverage.point(g, f"{name}.alu_src", lambda c, a=attr: _src(getattr(c, a), "alu"), ("REG", "MEM")),
            coverage.point(g, f"{name}.mul_src", lambda c, a=attr: _src(getattr(c, a), "mul"), ("REG", "MEM")),
        ]
        if name != "EW":
            decorators.append(coverage.point(g, f"{name}.relu", lambda c, a=attr: _relu(getattr(c, a)),
                                             ("on", "off")))
        if name == "EW" and p.has("SDP_LUT"):
            decorators.append(coverage.point(g, "EW.lut", lambda c: c.lut.le_function if c.y.lut_active else "bypass",
                                             ("bypass", "LINEAR", "EXPONENT")))
            decorators.append(coverage.cross(g, "precision_x_EW.lut", ["precision", "EW.lut"]))
            decorators.append(coverage.point(g, "EW.lut_priorities", _lut_priorities,
                                             list(itertools.product(("LE", "LO"), repeat=3))))
        letter = {"BS": "B", "BN": "N", "EW": "E"}[name]
        decorators.append(coverage.point(g, f"{letter}RDMA.mode", lambda c, x=letter: _dma_mode(c.dmas[x]),
                                         ("off", "PER_KERNEL", "PER_ELEMENT")))
        # EQL with a precision conversion is an invalid cell (Limitation/SDP/DC): an illegal bin
        eql_conversions = [(f"{i}->{o}", "EQL") for i, o in sdp_stimulus.precisions(p) if i != o]
        decorators.append(coverage.cross(g, f"precision_x_{name}.alu", ["precision", f"{name}.alu"],
                                         eql_conversions if name == "EW" else ()))
    if len(present) >= 2:
        decorators.append(coverage.cross(g, "BS.alu_x_BN.alu", ["BS.alu", "BN.alu"]))
    decorators += _parity_points(coverage, g, present)
    return stack(decorators)


def _parity_points(coverage, g: str, present: list) -> list:
    """NVIDIA's sdp_cg / sdp_lut_cg / sdp_rdma_cg meanings the points above do not hold
    (stimulus/coverage_parity.json), for offline layers."""
    p = coverage.profile
    atom = p.memory_atomic_size
    integer = [t for t in sorted(p.feature_types) if t != "fp16"]
    no_fp16 = [("fp16", None)] if "fp16" in p.feature_types else []
    decorators = [
        coverage.point(g, "in_proc_precision", lambda c: f"{c.in_precision}->{c.proc_precision}",
                       sorted({f"{i}->{sdp_stimulus.processing(i, o)}" for i, o in sdp_stimulus.precisions(p)})),
        coverage.point(g, "proc_precision", lambda c: c.proc_precision, sorted(p.feature_types)),
        # the output convertor works in the integer pipelines only (golden/units/sdp: fp16 has none)
        coverage.point(g, "cvt_offset", lambda c: None if c.proc_precision == "fp16" else _sign(c.cvt.offset),
                       SIGNS),
        coverage.point(g, "cvt_scale", lambda c: None if c.proc_precision == "fp16" else _sign(c.cvt.scale), SIGNS),
        coverage.cross(g, "proc_precision_x_cvt_offset", ["proc_precision", "cvt_offset"], no_fp16),
        coverage.cross(g, "proc_precision_x_cvt_scale", ["proc_precision", "cvt_scale"], no_fp16),
        coverage.point(g, "src_line_stride", lambda c: packed(c.src.line_stride, c.width * atom), ("packed", "gap")),
        coverage.point(g, "src_surface_stride", lambda c: packed(c.src.surface_stride, c.src.line_stride * c.height),
                       ("packed", "gap")),
        coverage.point(g, "dst_line_stride", lambda c: None if c.output_pdp else
                       packed(c.dst.line_stride, c.width * atom), ("packed", "gap")),
        coverage.point(g, "dst_surface_stride", lambda c: None if c.output_pdp else
                       packed(c.dst.surface_stride, c.dst.line_stride * c.height), ("packed", "gap")),
    ]
    decorators += memory_points(coverage, g, lambda c: _surface(c.src),
                                      lambda c: None if c.output_pdp else _surface(c.dst), _cvsram_high(p))
    for name, attr in present:
        decorators += [
            coverage.point(g, f"{name}.stage", lambda c, a=attr: "bypass" if getattr(c, a).bypass else "on",
                           ("on", "bypass")),
            coverage.point(g, f"{name}.alu_bypass", lambda c, a=attr: _sub_bypass(getattr(c, a), "alu"), YES_NO),
            coverage.point(g, f"{name}.mul_bypass", lambda c, a=attr: _sub_bypass(getattr(c, a), "mul"), YES_NO),
        ]
        if name != "EW":
            decorators.append(coverage.point(g, f"{name}.bypasses", lambda c, a=attr: _bypasses(getattr(c, a)),
                                             list(itertools.product(YES_NO, repeat=3))))
    if any(name == "EW" for name, _ in present):
        for which in ("alu", "mul"):
            decorators.append(coverage.point(g, f"EW.{which}_cvt_bypass", lambda c, w=which: _ew_cvt(c, w, None),
                                             YES_NO))
            for value in ("offset", "scale"):
                decorators += [
                    coverage.point(g, f"EW.{which}_cvt_{value}", lambda c, w=which, v=value: _ew_cvt(c, w, v), SIGNS),
                    coverage.cross(g, f"proc_precision_x_EW.{which}_cvt_{value}",
                                   ["proc_precision", f"EW.{which}_cvt_{value}"], no_fp16),
                ]
        if p.has("SDP_LUT"):
            for name in ("le_index_offset", "le_index_select", "lo_index_select"):
                decorators.append(coverage.point(g, f"lut_{name}", lambda c, n=name: sign_class(getattr(c.lut, n))
                                                 if c.y.lut_active else None, ("negative", "zero", "positive")))
            off = [("bypass", None)]
            decorators += [
                coverage.cross(g, "EW.lut_x_lut_le_index_offset", ["EW.lut", "lut_le_index_offset"],
                               off + [("LINEAR", None)]),
                coverage.cross(g, "EW.lut_x_lut_le_index_select", ["EW.lut", "lut_le_index_select"],
                               off + [("EXPONENT", None)]),
                coverage.cross(g, "EW.lut_x_lut_lo_index_select", ["EW.lut", "lut_lo_index_select"],
                               off + [("EXPONENT", None)]),
            ]
    for name, _ in present:
        letter = {"BS": "B", "BN": "N", "EW": "E"}[name]
        decorators += _operand_dma_points(coverage, g, letter, integer)
    return decorators


def _operand_dma_points(coverage, g: str, letter: str, integer: list) -> list:
    """One operand DMA (B, N or E) while it reads: data use and size, RAM, base address, and in PER_ELEMENT
    mode its line stride (against a line of 1, 2 or 4 times the width in memory atoms: the operand's bytes
    per element atom) and surface stride, packed or with a gap."""
    p = coverage.profile
    atom = p.memory_atomic_size
    rams = memories(p)
    d = f"{letter}RDMA"

    def on(c):
        dma = c.dmas[letter]
        return None if dma.disable else dma

    sizes = ("ONE_BYTE", "TWO_BYTE") if integer and "int8" in integer else ("TWO_BYTE",)
    decorators = [
        coverage.point(g, f"{d}.use", lambda c: on(c) and on(c).use, ("MUL", "ALU", "BOTH")),
        coverage.point(g, f"{d}.size", lambda c: on(c) and on(c).size, sizes),
        coverage.point(g, f"{d}.ram", lambda c: on(c) and ram(on(c).cvsram), rams),
        coverage.point(g, f"{d}.align", lambda c: on(c) and align(on(c).base), ALIGN_CLASSES),
        coverage.cross(g, f"{d}.align_x_{d}.ram", [f"{d}.align", f"{d}.ram"]),
        coverage.point(g, f"{d}.surface_stride", lambda c: _operand_surface(c, on(c)), ("packed", "gap")),
    ]
    for factor in (1, 2, 4):
        decorators.append(coverage.point(g, f"{d}.line_stride_x{factor}", lambda c, f=factor: _operand_line(
                                         c, on(c), atom, f), ("packed", "gap")))
    if p.mem_address_width > 32:
        decorators += [
            coverage.point(g, f"{d}.addr_high", lambda c: on(c) and ("zero" if on(c).base >> 32 == 0 else "nonzero"),
                           ("zero", "nonzero")),
            coverage.cross(g, f"{d}.addr_high_x_{d}.ram", [f"{d}.addr_high", f"{d}.ram"], _cvsram_high(p)),
        ]
    return decorators


def _flying(coverage, g: str):
    """Every SDP layer, offline or on the fly behind the convolution (NVIDIA's FLYING_MODE crosses): the
    offline half comes from the sdp family, the on-the-fly half from the conv family."""
    p = coverage.profile
    off_batches = [(b, "off") for b in BATCH_CLASSES if b != "1"] if p.batch else []
    decorators = [
        coverage.point(g, "flying", lambda c: "on" if c.flying else "off", ("off", "on")),
        coverage.point(g, "winograd", lambda c: "on" if c.winograd else "off", ("off", "on") if p.winograd
                       else ("off",)),
        coverage.point(g, "batches", lambda c: batch_class(c.batch, p.max_batch_size), BATCH_CLASSES
                       if p.batch else ("1",)),
        coverage.point(g, "width", lambda c: size_class(c.width), SIZE_CLASSES),
        coverage.point(g, "height", lambda c: size_class(c.height), SIZE_CLASSES),
        coverage.point(g, "channels", lambda c: channel_class(c.channel, p.memory_atomic_size), CHANNEL_CLASSES),
        coverage.cross(g, "winograd_x_flying", ["winograd", "flying"], [(None, "off")]),
        # multi-batch runs on the fly only (rule SDP-BATCH-ON-THE-FLY)
        coverage.cross(g, "batches_x_flying", ["batches", "flying"], off_batches),
        coverage.cross(g, "width_x_flying", ["width", "flying"]),
        coverage.cross(g, "height_x_flying", ["height", "flying"]),
        coverage.cross(g, "channels_x_flying", ["channels", "flying"]),
    ]
    return stack(decorators)


def _run(coverage, g: str):
    eql = coverage.point(g, "eql", lambda run: None if not run[0].y.eql or ("SDP", "D_STATUS") not in run[2]
                         else "unequal" if run[2]["SDP", "D_STATUS"] else "equal", ("equal", "unequal"))
    return lut_outcomes(coverage, g, "SDP", [eql])



def _alu(stage) -> str:
    return stage.alu_algo if stage.alu_active else "bypass"


def _mul(stage) -> str:
    return ("prelu" if stage.mul_prelu else "mul") if stage.mul_active else "bypass"


def _src(stage, which: str) -> str | None:
    active = stage.alu_active if which == "alu" else stage.mul_active
    return getattr(stage, f"{which}_src") if active else None


def _relu(stage) -> str | None:
    return None if stage.bypass else ("off" if stage.relu_bypass else "on")


def _lut_priorities(c) -> tuple | None:
    """(underflow, overflow, hybrid) priority of an SDP layer that uses its LUT."""
    return (c.lut.uflow_priority, c.lut.oflow_priority, c.lut.hybrid_priority) if c.y.lut_active else None


def _dma_mode(dma) -> str:
    return "off" if dma.disable else dma.mode


SIGNS = ("negative", "positive")
YES_NO = ("no", "yes")


def _sign(value: int) -> str:
    """A signed register's sign bit: "positive" includes zero (NVIDIA's pos / neg wildcard bins)."""
    return "negative" if value < 0 else "positive"


def _surface(surface) -> tuple:
    return surface.base, surface.line_stride, surface.surface_stride, surface.cvsram


def _sub_bypass(stage, which: str) -> str | None:
    """A running stage's ALU or MUL bypass field."""
    return None if stage.bypass else "yes" if getattr(stage, f"{which}_bypass") else "no"


def _bypasses(stage) -> tuple | None:
    """(ReLU, MUL, ALU) bypass fields of a running X stage."""
    if stage.bypass:
        return None
    return tuple("yes" if b else "no" for b in (stage.relu_bypass, stage.mul_bypass, stage.alu_bypass))


def _ew_cvt(c, which: str, value: str | None) -> str | None:
    """The Y stage's ALU or MUL operand convertor while that sub-unit runs: its bypass field (`value` None), or the
    sign of its offset / scale while it converts, in the integer pipelines (the fp16 pipe takes no such value)."""
    y = c.y
    if not getattr(y, f"{which}_active"):
        return None
    bypass = getattr(y, f"{which}_cvt_bypass")
    if value is None:
        return "yes" if bypass else "no"
    if bypass or c.proc_precision == "fp16":
        return None
    return _sign(getattr(getattr(y, f"{which}_cvt"), value))


def _operand_line(c, dma, atom: int, factor: int) -> str | None:
    """Packed or gapped line stride of a PER_ELEMENT operand whose bytes per element atom are `factor` memory
    atoms (golden/formats/auxiliary.py bytes_per_atom: 1, 2 or 4)."""
    if dma is None or dma.mode != "PER_ELEMENT":
        return None
    per_atom = aux.bytes_per_atom(c.proc_precision, dma.use, dma.size, atom)
    if per_atom != factor * atom:
        return None
    return packed(dma.line_stride, c.width * per_atom)


def _operand_surface(c, dma) -> str | None:
    if dma is None or dma.mode != "PER_ELEMENT":
        return None
    return packed(dma.surface_stride, dma.line_stride * c.height)


def _cvsram_high(profile: Profile) -> list:
    """The CV-SRAM-above-4-GiB bin where the profile's trace form cannot place a surface: nvdlav1's traceplayer
    (nv_full) tells CV-SRAM by its 0x5xxxxxxx addresses (stimulus/export.py)."""
    return [("nonzero", "sec_mem")] if profile.layout == "nvdlav1" and profile.secondary_memif else []
