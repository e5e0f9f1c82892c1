"""Functional coverage of the configuration space, as covergroups of cocotb-coverage (1.2 with cocotb 1.8,
2.0 with cocotb 2; the API used here is the same in both).

Sampled from the decoded configuration of every layer that runs (a generated Layer, or the register values
of a HardwareLayer the golden model ran from any trace, NVIDIA's included), so what is covered is what the
unit models saw. Bins follow the profile: a precision or stage the profile lacks has no bin; the invalid
cells of Table 30 are not bins. `report()` gives each group's hit rate and its holes; `export(path)` writes
cocotb-coverage's YAML, and `merge(files, out)` merges those of several processes or machines.

Cover points per unit: SDP precision pair, each stage's ALU algorithm / MUL mode / operand sources / ReLU,
operand DMA mode and size, convertor class, size classes (width, height, channels against the atom);
PDP precision, method, kernel and stride per axis, padding, split count, size classes; convolution precision,
mode, kernel, stride, dilation, padding, channels and kernels against the MAC atoms, weight compression,
CBUF data banks (one, several, all but the weights' bank), data/weight reuse (traces of 2+ layers), batch
class (up to MAX_BATCH_SIZE), and for image input the pixel format (Table 33, fp16 ones only where the
profile has fp16), channel post-extension and CDMA convertor (off / offset / per-channel mean).
Crosses: precision x stage modes, X1 x X2, PDP method x precision, kernel x stride, method x split,
convolution kernel x stride, precision x mode and precision x batch class; CDP precision, local size,
LE function, bypasses, LUT priorities, channels, width, and local size x LE function / precision; BDMA
operations per group, launch register, source and destination memories, line size, lines, surfaces and packed
or gapped strides per operation, launch x memories and operations x launch.

NVIDIA's own covergroups (nvdla/hw verif/coverage) are mapped to these in stimulus/coverage_parity.json; for
PDP, CDP and Rubik every one of their meanings has a point here: PDP input/output height, each pad side, the
split parts' widths, overlapping lines, packed or gapped line strides (with and without split), stride_w x
stride_h and input mode x size; CDP height, packed or gapped line/surface strides, where the first line ends,
the data convertors' offset / scale / shifter classes (integer layers) and precision x each, fp16 NaN flushing,
the LUT's priorities, index offset/selects (x LE function), START/END sign and size, slope scales and shifts,
and its port accesses (table, read/write: `sample_lut_writes`); Rubik input and output channels, contract's
input channels against 32, packed or gapped line / surface / planar strides on each side; BDMA positions in
32-byte atoms modulo 8 of the addresses, line ends, line length and strides, and each side's RAM (the run-time
STATUS read-backs are not sampled); for PDP, CDP and Rubik, the source's and destination's RAM type and base
address alignment (and, above 32 address bits, the high word), crossed. For SDP (sdp group, offline layers): the
input -> processing precision, output and Y-operand convertor signs (integer pipelines), each stage's bypass fields
while it runs, the LUT's index offset/selects (x LE function) and port accesses, source / destination / operand-DMA
RAM, alignment, high word and packed or gapped strides, operand data use and size; sdp_flying: every SDP layer's
flying mode, Winograd, batch and size classes crossed with it (the on-the-fly half comes from the conv family). BDMA:
CFG_OP.EN and STATUS (free slots, idle, groups busy) after each CFG_OP / launch write, replayed by the golden
model's register file.
"""

from __future__ import annotations

import itertools

import numpy as np

from golden.config import Profile
from golden.errors import NvdlaVerifError
from golden.formats import auxiliary as aux
from golden.formats import pixel
from golden.regs.regfile import BDMA_SLOTS, RegisterFile
from golden.regs.regmap import RegisterMap
from golden.regs.values import RegisterValues
from golden.units.bdma import operation_from
from golden.units.cdp.config import decode as cdp_decode
from golden.units.conv.config import decode as conv_decode
from golden.units.pdp.config import decode as pdp_decode
from golden.units.rubik import RubikLayer
from golden.units.sdp.config import decode as sdp_decode
from stimulus import families
from stimulus import sdp as sdp_stimulus
from stimulus.bdma import bdma_group
from stimulus.conv_modes import POST_EXTENSIONS, image_formats

SIZE_CLASSES = ("1", "2-4", "5-16", "17+")


def coverage_library():
    try:
        from cocotb_coverage import coverage
    except ImportError:
        raise NvdlaVerifError("functional coverage needs cocotb-coverage (part of the rtl extra: "
                              "bash ci/setup.sh --test)") from None
    return coverage


def size_class(n: int) -> str:
    return "1" if n == 1 else "2-4" if n <= 4 else "5-16" if n <= 16 else "17+"


def channel_class(channels: int, per_atom: int) -> str:
    """1, part of an atom, exactly one atom, whole atoms, or whole atoms plus a part."""
    if channels == 1:
        return "1"
    if channels < per_atom:
        return "part-atom"
    if channels == per_atom:
        return "one-atom"
    return "atoms" if channels % per_atom == 0 else "atoms+part"


CHANNEL_CLASSES = ("1", "part-atom", "one-atom", "atoms", "atoms+part")
BATCH_CLASSES = ("1", "2-4", "5+", "max")


def batch_class(batches: int, largest: int | None) -> str:
    """1, a few, more, or exactly the profile's MAX_BATCH_SIZE."""
    if batches == 1:
        return "1"
    if batches == largest:
        return "max"
    return "2-4" if batches <= 4 else "5+"


class Coverage:
    """The covergroups of one profile; `prefix` names them in cocotb-coverage's global database."""

    def __init__(self, profile: Profile, prefix: str | None = None, outcomes: bool = False):
        """`outcomes`: also the groups sampled from what a run reported (LUT hit/underflow/overflow, EQL result),
        which only `sample` with a layer's status fills (run layers, traces)."""
        self.lib = coverage_library()
        self.profile = profile
        self.prefix = prefix or profile.name
        self.regmap = RegisterMap.for_profile(profile)
        self.groups: dict[str, list[str]] = {}
        self._sample_sdp = self._sdp_group()
        self._sample_sdp_flying = self._sdp_flying_group()
        self._sample_pdp = self._pdp_group() if profile.pdp else None
        self._sample_conv = self._conv_group()
        self._sample_cdp = self._cdp_group() if profile.cdp else None
        self._sample_cdp_lut = self._cdp_lut_access_group() if profile.cdp else None
        self._sample_sdp_lut = self._sdp_lut_access_group() if profile.has("SDP_LUT") and profile.has("SDP_EW") \
            else None
        self._sample_rubik = self._rubik_group() if profile.rubik else None
        self._sample_bdma = self._bdma_group() if profile.has("BDMA") else None
        self._sample_bdma_status = self._bdma_status_group() if profile.has("BDMA") else None
        self._bdma_registers = None
        lut = profile.has("SDP_LUT") and profile.has("SDP_EW")
        self._sample_sdp_run = self._sdp_run_group() if outcomes and lut else None
        self._sample_cdp_run = self._lut_outcomes("cdp_run", "CDP", ()) if outcomes and profile.cdp else None
        #: The samplers of the covergroups families declare (stimulus/families.py: Family.covergroup, a plugin's
        #: included), for the families the profile has.
        self._declared = [f.covergroup(self, f.covers) for f in families.declared()
                          if f.covergroup is not None and f.name in families.available(profile)]

    # -- building ---------------------------------------------------------------------------------
    def point(self, group: str, item: str, xf, bins) -> object:
        """A cover point `item` of `group`: `xf(sample)` gives the bin, one of `bins` (None: not sampled)."""
        name = f"{self.prefix}.{group}.{item}"
        self.groups.setdefault(group, []).append(name)
        return self.lib.CoverPoint(name, xf=xf, bins=list(bins))

    def cross(self, group: str, item: str, items: list[str], ignore=()) -> object:
        """A cross of the group's points `items`, without the `ignore` bins."""
        name = f"{self.prefix}.{group}.{item}"
        self.groups.setdefault(group, []).append(name)
        return self.lib.CoverCross(name, items=[f"{self.prefix}.{group}.{i}" for i in items], ign_bins=list(ignore))

    def _sdp_group(self):
        g, p = "sdp", self.profile
        per_atom = p.memory_atomic_size
        decorators = [
            self.point(g, "precision", lambda c: f"{c.in_precision}->{c.out_precision}",
                        [f"{i}->{o}" for i, o in sdp_stimulus.precisions(p)]),
            self.point(g, "width", lambda c: size_class(c.width), SIZE_CLASSES),
            self.point(g, "height", lambda c: size_class(c.height), SIZE_CLASSES),
            self.point(g, "channels", lambda c: channel_class(c.channel, per_atom), CHANNEL_CLASSES),
            self.point(g, "cvt", lambda c: "identity" if (c.cvt.offset, c.cvt.scale, c.cvt.shift) == (0, 1, 0)
                        else "other", ("identity", "other")),
            self.point(g, "output", lambda c: "PDP" if c.output_pdp else "MEM", ("MEM", "PDP") if p.pdp else ("MEM",)),
        ]
        stages = [("BS", "x1", "SDP_BS"), ("BN", "x2", "SDP_BN"), ("EW", "y", "SDP_EW")]
        present = [(n, a) for n, a, switch in stages if p.has(switch)]
        for name, attr in present:
            algos = ("bypass", "MAX", "MIN", "SUM") + (("EQL",) if name == "EW" else ())
            decorators += [
                self.point(g, f"{name}.alu", lambda c, a=attr: _alu(getattr(c, a)), algos),
                self.point(g, f"{name}.mul", lambda c, a=attr: _mul(getattr(c, a)), ("bypass", "mul", "prelu")),
                self.point(g, f"{name}.alu_src", lambda c, a=attr: _src(getattr(c, a), "alu"), ("REG", "MEM")),
                self.point(g, f"{name}.mul_src", lambda c, a=attr: _src(getattr(c, a), "mul"), ("REG", "MEM")),
            ]
            if name != "EW":
                decorators.append(self.point(g, f"{name}.relu", lambda c, a=attr: _relu(getattr(c, a)),
                                              ("on", "off")))
            if name == "EW" and p.has("SDP_LUT"):
                decorators.append(self.point(g, "EW.lut", lambda c: c.lut.le_function if c.y.lut_active else "bypass",
                                              ("bypass", "LINEAR", "EXPONENT")))
                decorators.append(self.cross(g, "precision_x_EW.lut", ["precision", "EW.lut"]))
                decorators.append(self.point(g, "EW.lut_priorities", _lut_priorities,
                                              list(itertools.product(("LE", "LO"), repeat=3))))
            letter = {"BS": "B", "BN": "N", "EW": "E"}[name]
            decorators.append(self.point(g, f"{letter}RDMA.mode", lambda c, x=letter: _dma_mode(c.dmas[x]),
                                          ("off", "PER_KERNEL", "PER_ELEMENT")))
            # EQL with a precision conversion is an invalid cell (Limitation/SDP/DC): an illegal bin
            eql_conversions = [(f"{i}->{o}", "EQL") for i, o in sdp_stimulus.precisions(p) if i != o]
            decorators.append(self.cross(g, f"precision_x_{name}.alu", ["precision", f"{name}.alu"],
                                          eql_conversions if name == "EW" else ()))
        if len(present) >= 2:
            decorators.append(self.cross(g, "BS.alu_x_BN.alu", ["BS.alu", "BN.alu"]))
        decorators += self._sdp_parity_points(present)
        return _stack(decorators)

    def _sdp_parity_points(self, present: list) -> list:
        """NVIDIA's sdp_cg / sdp_lut_cg / sdp_rdma_cg meanings the points above do not hold
        (stimulus/coverage_parity.json), for offline layers."""
        g, p = "sdp", self.profile
        atom = p.memory_atomic_size
        integer = [t for t in sorted(p.feature_types) if t != "fp16"]
        no_fp16 = [("fp16", None)] if "fp16" in p.feature_types else []
        decorators = [
            self.point(g, "in_proc_precision", lambda c: f"{c.in_precision}->{c.proc_precision}",
                        sorted({f"{i}->{sdp_stimulus.processing(i, o)}" for i, o in sdp_stimulus.precisions(p)})),
            self.point(g, "proc_precision", lambda c: c.proc_precision, sorted(p.feature_types)),
            # the output convertor works in the integer pipelines only (golden/units/sdp: fp16 has none)
            self.point(g, "cvt_offset", lambda c: None if c.proc_precision == "fp16" else _sign(c.cvt.offset),
                        SIGNS),
            self.point(g, "cvt_scale", lambda c: None if c.proc_precision == "fp16" else _sign(c.cvt.scale), SIGNS),
            self.cross(g, "proc_precision_x_cvt_offset", ["proc_precision", "cvt_offset"], no_fp16),
            self.cross(g, "proc_precision_x_cvt_scale", ["proc_precision", "cvt_scale"], no_fp16),
            self.point(g, "src_line_stride", lambda c: _packed(c.src.line_stride, c.width * atom), ("packed", "gap")),
            self.point(g, "src_surface_stride", lambda c: _packed(c.src.surface_stride, c.src.line_stride * c.height),
                        ("packed", "gap")),
            self.point(g, "dst_line_stride", lambda c: None if c.output_pdp else
                        _packed(c.dst.line_stride, c.width * atom), ("packed", "gap")),
            self.point(g, "dst_surface_stride", lambda c: None if c.output_pdp else
                        _packed(c.dst.surface_stride, c.dst.line_stride * c.height), ("packed", "gap")),
        ]
        decorators += self._memory_points(g, lambda c: _surface(c.src),
                                          lambda c: None if c.output_pdp else _surface(c.dst), _cvsram_high(p))
        for name, attr in present:
            decorators += [
                self.point(g, f"{name}.stage", lambda c, a=attr: "bypass" if getattr(c, a).bypass else "on",
                            ("on", "bypass")),
                self.point(g, f"{name}.alu_bypass", lambda c, a=attr: _sub_bypass(getattr(c, a), "alu"), YES_NO),
                self.point(g, f"{name}.mul_bypass", lambda c, a=attr: _sub_bypass(getattr(c, a), "mul"), YES_NO),
            ]
            if name != "EW":
                decorators.append(self.point(g, f"{name}.bypasses", lambda c, a=attr: _bypasses(getattr(c, a)),
                                              list(itertools.product(YES_NO, repeat=3))))
        if any(name == "EW" for name, _ in present):
            for which in ("alu", "mul"):
                decorators.append(self.point(g, f"EW.{which}_cvt_bypass", lambda c, w=which: _ew_cvt(c, w, None),
                                              YES_NO))
                for value in ("offset", "scale"):
                    decorators += [
                        self.point(g, f"EW.{which}_cvt_{value}", lambda c, w=which, v=value: _ew_cvt(c, w, v), SIGNS),
                        self.cross(g, f"proc_precision_x_EW.{which}_cvt_{value}",
                                    ["proc_precision", f"EW.{which}_cvt_{value}"], no_fp16),
                    ]
            if p.has("SDP_LUT"):
                for name in ("le_index_offset", "le_index_select", "lo_index_select"):
                    decorators.append(self.point(g, f"lut_{name}", lambda c, n=name: _sign_class(getattr(c.lut, n))
                                                  if c.y.lut_active else None, ("negative", "zero", "positive")))
                off = [("bypass", None)]
                decorators += [
                    self.cross(g, "EW.lut_x_lut_le_index_offset", ["EW.lut", "lut_le_index_offset"],
                                off + [("LINEAR", None)]),
                    self.cross(g, "EW.lut_x_lut_le_index_select", ["EW.lut", "lut_le_index_select"],
                                off + [("EXPONENT", None)]),
                    self.cross(g, "EW.lut_x_lut_lo_index_select", ["EW.lut", "lut_lo_index_select"],
                                off + [("EXPONENT", None)]),
                ]
        for name, _ in present:
            letter = {"BS": "B", "BN": "N", "EW": "E"}[name]
            decorators += self._operand_dma_points(g, letter, integer)
        return decorators

    def _operand_dma_points(self, g: str, letter: str, integer: list) -> list:
        """One operand DMA (B, N or E) while it reads: data use and size, RAM, base address, and in PER_ELEMENT
        mode its line stride (against a line of 1, 2 or 4 times the width in memory atoms: the operand's bytes
        per element atom) and surface stride, packed or with a gap."""
        p = self.profile
        atom = p.memory_atomic_size
        memories = ("pri_mem", "sec_mem") if p.secondary_memif else ("pri_mem",)
        d = f"{letter}RDMA"

        def on(c):
            dma = c.dmas[letter]
            return None if dma.disable else dma

        sizes = ("ONE_BYTE", "TWO_BYTE") if integer and "int8" in integer else ("TWO_BYTE",)
        decorators = [
            self.point(g, f"{d}.use", lambda c: on(c) and on(c).use, ("MUL", "ALU", "BOTH")),
            self.point(g, f"{d}.size", lambda c: on(c) and on(c).size, sizes),
            self.point(g, f"{d}.ram", lambda c: on(c) and _ram(on(c).cvsram), memories),
            self.point(g, f"{d}.align", lambda c: on(c) and _align(on(c).base), ALIGN_CLASSES),
            self.cross(g, f"{d}.align_x_{d}.ram", [f"{d}.align", f"{d}.ram"]),
            self.point(g, f"{d}.surface_stride", lambda c: _operand_surface(c, on(c)), ("packed", "gap")),
        ]
        for factor in (1, 2, 4):
            decorators.append(self.point(g, f"{d}.line_stride_x{factor}", lambda c, f=factor: _operand_line(
                c, on(c), atom, f), ("packed", "gap")))
        if p.mem_address_width > 32:
            decorators += [
                self.point(g, f"{d}.addr_high", lambda c: on(c) and ("zero" if on(c).base >> 32 == 0 else "nonzero"),
                            ("zero", "nonzero")),
                self.cross(g, f"{d}.addr_high_x_{d}.ram", [f"{d}.addr_high", f"{d}.ram"], _cvsram_high(p)),
            ]
        return decorators

    def _sdp_flying_group(self):
        """Every SDP layer, offline or on the fly behind the convolution (NVIDIA's FLYING_MODE crosses): the
        offline half comes from the sdp family, the on-the-fly half from the conv family."""
        g, p = "sdp_flying", self.profile
        off_batches = [(b, "off") for b in BATCH_CLASSES if b != "1"] if p.batch else []
        decorators = [
            self.point(g, "flying", lambda c: "on" if c.flying else "off", ("off", "on")),
            self.point(g, "winograd", lambda c: "on" if c.winograd else "off", ("off", "on") if p.winograd
                        else ("off",)),
            self.point(g, "batches", lambda c: batch_class(c.batch, p.max_batch_size), BATCH_CLASSES
                        if p.batch else ("1",)),
            self.point(g, "width", lambda c: size_class(c.width), SIZE_CLASSES),
            self.point(g, "height", lambda c: size_class(c.height), SIZE_CLASSES),
            self.point(g, "channels", lambda c: channel_class(c.channel, p.memory_atomic_size), CHANNEL_CLASSES),
            self.cross(g, "winograd_x_flying", ["winograd", "flying"], [(None, "off")]),
            # multi-batch runs on the fly only (rule SDP-BATCH-ON-THE-FLY)
            self.cross(g, "batches_x_flying", ["batches", "flying"], off_batches),
            self.cross(g, "width_x_flying", ["width", "flying"]),
            self.cross(g, "height_x_flying", ["height", "flying"]),
            self.cross(g, "channels_x_flying", ["channels", "flying"]),
        ]
        return _stack(decorators)

    def _pdp_group(self):
        g, p = "pdp", self.profile
        per_atom = p.memory_atomic_size
        eight = list(range(1, 9))
        decorators = [
            self.point(g, "precision", lambda c: c.precision, sorted(p.feature_types)),
            self.point(g, "method", lambda c: c.method, ("average", "max", "min")),
            self.point(g, "kernel_w", lambda c: c.kernel[0], eight),
            self.point(g, "kernel_h", lambda c: c.kernel[1], eight),
            self.point(g, "stride_w", lambda c: c.stride[0], eight),
            self.point(g, "stride_h", lambda c: c.stride[1], eight),
            self.point(g, "pad", lambda c: "none" if not any(c.pads) else
                        "kernel-1" if max(c.pads) == max(c.kernel) - 1 else "some", ("none", "some", "kernel-1")),
            self.point(g, "split", lambda c: c.split.count if c.split else 1, (1, 2, 3, 4)),
            self.point(g, "input", lambda c: "on-the-fly" if c.on_the_fly else "memory", ("memory", "on-the-fly")),
            self.point(g, "in_width", lambda c: size_class(c.in_width), SIZE_CLASSES),
            self.point(g, "out_width", lambda c: size_class(c.out_width), SIZE_CLASSES[:3]),
            self.point(g, "channels", lambda c: channel_class(c.channels, per_atom), CHANNEL_CLASSES),
            self.cross(g, "method_x_precision", ["method", "precision"]),
            self.cross(g, "kernel_w_x_stride_w", ["kernel_w", "stride_w"]),
            self.cross(g, "method_x_split", ["method", "split"]),
            self.cross(g, "method_x_input", ["method", "input"]),
            # NVIDIA's pdp_cg / pdp_rdma_cg meanings the points above do not hold (stimulus/coverage_parity.json)
            self.point(g, "in_height", lambda c: size_class(c.in_height), SIZE_CLASSES),
            self.point(g, "out_height", lambda c: size_class(c.out_height), SIZE_CLASSES[:3]),
            self.point(g, "pad_left", lambda c: c.pads[0], range(8)),
            self.point(g, "pad_top", lambda c: c.pads[1], range(8)),
            self.point(g, "pad_right", lambda c: c.pads[2], range(8)),
            self.point(g, "pad_bottom", lambda c: c.pads[3], range(8)),
            self.cross(g, "stride_w_x_stride_h", ["stride_w", "stride_h"]),
            self.cross(g, "input_x_in_width", ["input", "in_width"]),
            self.cross(g, "input_x_in_height", ["input", "in_height"]),
            self.cross(g, "input_x_channels", ["input", "channels"]),
            self.point(g, "split_in_first", lambda c: _split_part(c, "in_first"), SIZE_CLASSES),
            self.point(g, "split_in_mid", lambda c: _split_part(c, "in_mid"), SIZE_CLASSES),
            self.point(g, "split_in_last", lambda c: _split_part(c, "in_last"), SIZE_CLASSES),
            self.point(g, "split_out_first", lambda c: _split_part(c, "out_first"), SIZE_CLASSES[:3]),
            self.point(g, "split_out_mid", lambda c: _split_part(c, "out_mid"), SIZE_CLASSES[:2]),
            self.point(g, "split_out_last", lambda c: _split_part(c, "out_last"), SIZE_CLASSES[:3]),
            self.point(g, "overlap_lines", _overlap_lines, range(8)),
            self.point(g, "src_line_stride", lambda c: None if c.on_the_fly or c.split else
                        _packed(c.src[1], c.in_width * per_atom), ("packed", "gap")),
            self.point(g, "src_line_stride_split", lambda c: None if c.on_the_fly or not c.split else
                        _packed(c.src[1], c.in_width * per_atom), ("packed", "gap")),
            self.point(g, "dst_line_stride", lambda c: None if c.split else _packed(c.dst[1], c.out_width * per_atom),
                        ("packed", "gap")),
            self.point(g, "dst_line_stride_split", lambda c: None if not c.split else
                        _packed(c.dst[1], c.out_width * per_atom), ("packed", "gap")),
        ]
        decorators += self._memory_points(g, lambda c: None if c.on_the_fly else c.src, lambda c: c.dst)
        return _stack(decorators)

    def _memory_points(self, g: str, src, dst, high_ignore=()) -> list:
        """RAM type and base address (alignment; on profiles with addresses above 32 bits, whether the high
        word is used) of a unit's source and destination surfaces, each crossed with its RAM type. `src` and
        `dst` give the sampled object's (address, line stride, surface stride, in CV-SRAM), or None."""
        p = self.profile
        memories = ("pri_mem", "sec_mem") if p.secondary_memif else ("pri_mem",)
        decorators = []
        for side, surface in (("src", src), ("dst", dst)):
            decorators += [
                self.point(g, f"{side}_ram", lambda c, s=surface: None if s(c) is None else _ram(s(c)[3]), memories),
                self.point(g, f"{side}_align", lambda c, s=surface: None if s(c) is None else _align(s(c)[0]),
                            ALIGN_CLASSES),
                self.cross(g, f"{side}_align_x_{side}_ram", [f"{side}_align", f"{side}_ram"]),
            ]
            if p.mem_address_width > 32:
                decorators += [
                    self.point(g, f"{side}_addr_high", lambda c, s=surface: None if s(c) is None else
                                "zero" if s(c)[0] >> 32 == 0 else "nonzero", ("zero", "nonzero")),
                    self.cross(g, f"{side}_addr_high_x_{side}_ram", [f"{side}_addr_high", f"{side}_ram"],
                                high_ignore),
                ]
        return decorators

    def _conv_group(self):
        g, p = "conv", self.profile
        five = list(range(1, 6))
        eight = list(range(1, 9))
        decorators = [
            self.point(g, "precision", lambda c: c.precision, sorted(p.feature_types & p.weight_types)),
            self.point(g, "mode", lambda c: "image" if c.image else c.conv_mode, ("direct", "winograd", "image")
                        if p.winograd else ("direct", "image")),
            self.point(g, "kernel_w", lambda c: c.weight_width_ext, five),
            self.point(g, "kernel_h", lambda c: c.weight_height_ext, five),
            self.point(g, "stride_x", lambda c: c.stride_x, eight),
            self.point(g, "dilation_x", lambda c: _dilation_class(c.dilation_x), DILATION_CLASSES),
            self.point(g, "pad", lambda c: "none" if not (c.pad_left or c.pad_top or c.pad_right or c.pad_bottom)
                        else "some", ("none", "some")),
            self.point(g, "channels", lambda c: channel_class(c.channels, p.mac_atomic_c), CHANNEL_CLASSES),
            self.point(g, "kernels", lambda c: channel_class(c.kernels, p.mac_atomic_k), CHANNEL_CLASSES),
            self.point(g, "compressed", lambda c: c.weight_format, ("uncompressed", "compressed")
                        if p.weight_compression else ("uncompressed",)),
            self.point(g, "reuse", _reuse, ("none", "data", "weight", "both")),
            self.point(g, "data_banks", lambda c: _bank_class(c, p), ("1", "2+", "all-but-one")),
            self.point(g, "batches", lambda c: batch_class(c.batches, p.max_batch_size), BATCH_CLASSES
                        if p.batch else ("1",)),
            self.point(g, "pixel_format", lambda c: c.pixel_format if c.image else None, image_formats(p)),
            self.point(g, "post_extension", lambda c: c.post_y_extension if c.image else None,
                        POST_EXTENSIONS),
            self.point(g, "image_cvt", lambda c: _image_cvt(c) if c.image else None, ("off", "offset", "mean")),
            # feature data passes the convertor too (golden.units.conv.cdma; rule CONV-FEATURE-CONVERTOR)
            self.point(g, "feature_cvt", lambda c: None if c.image or c.winograd or c.in_precision == "fp16"
                        else ("on" if c.cvt_en else "off"), ("off", "on")),
            self.cross(g, "kernel_w_x_stride_x", ["kernel_w", "stride_x"]),
            self.cross(g, "precision_x_mode", ["precision", "mode"]),
        ]
        if p.batch:
            decorators.append(self.cross(g, "precision_x_batches", ["precision", "batches"]))
        return _stack(decorators + self._conv_parity_points(g))

    def _conv_parity_points(self, g: str) -> list:
        """NVIDIA's conv_cg meanings the points above do not hold (stimulus/coverage_parity.json): the CDMA/CSC
        register fields by value class, the memory side (RAM type, address alignment and high word, line /
        surface / pixel-pitch gaps, packed flags), the release and reuse flags and the precision crossings."""
        p = self.profile
        atom = p.memory_atomic_size
        precisions = sorted(p.feature_types & p.weight_types)
        pixel_precisions = sorted({pixel.pixel_format(name).precision for name in image_formats(p)})
        memories = ("pri_mem", "sec_mem") if p.secondary_memif else ("pri_mem",)
        off_on = ("off", "on")
        families = sorted({_pixel_bytes(pixel.pixel_format(name)) for name in image_formats(p)})
        planar = sorted({_pixel_bytes(pixel.pixel_format(name)) for name in image_formats(p)
                         if pixel.pixel_format(name).planes == 2})
        decorators = [
            self.point(g, "in_precision", lambda c: c.in_precision,
                        sorted(set(precisions) | set(pixel_precisions))),
            self.point(g, "proc_precision", lambda c: c.proc_precision, precisions),
            self.point(g, "datain_format", lambda c: c.datain_format, ("feature", "pixel")),
            self.cross(g, "datain_format_x_in_precision", ["datain_format", "in_precision"],
                        [("feature", x) for x in sorted(set(pixel_precisions) - set(precisions))]),
            self.cross(g, "datain_format_x_proc_precision", ["datain_format", "proc_precision"]),
            # feature input is processed in its own precision (CONV-FEATURE-PRECISION); fp16 pixels only in fp16
            self.cross(g, "in_x_proc_precision_feature", ["in_precision", "proc_precision", "datain_format"],
                        [(None, None, "pixel")] + [(i, o, None) for i in precisions for o in precisions if i != o]),
            self.cross(g, "in_x_proc_precision_pixel", ["in_precision", "proc_precision", "datain_format"],
                        [(None, None, "feature")] + [("fp16", o, None) for o in precisions if o != "fp16"]),
            self.cross(g, "channels_x_datain_format", ["channels", "datain_format"],
                        [(k, "pixel") for k in CHANNEL_CLASSES if k not in ("1", "part-atom")]),
            # image input
            self.point(g, "pixel_mapping", lambda c: c.pixel_mapping if c.image else None, ("PITCH_LINEAR",)),
            self.cross(g, "pixel_format_x_pixel_mapping", ["pixel_format", "pixel_mapping"]),
            self.point(g, "pixel_bytes", lambda c: _pixel_bytes(pixel.pixel_format(c.pixel_format)) if c.image
                        else None, families),
            self.point(g, "pixel_x_offset", lambda c: None if not c.image else
                        4 * c.pixel_x_offset // atom, range(4)),
            self.cross(g, "pixel_bytes_x_pixel_x_offset", ["pixel_bytes", "pixel_x_offset"],
                        [(b, q) for b in families for q in range(4) if q * atom // 4 > atom // b - 1]),
            # PITCH_LINEAR is the only mapping (CONV-PIXEL-MAPPING) and its Y offset is 0 (CONV-PIXEL-Y-OFFSET)
            self.point(g, "pixel_y_offset", lambda c: c.pixel_y_offset if c.image else None, (0,)),
            self.cross(g, "pixel_mapping_x_pixel_y_offset", ["pixel_mapping", "pixel_y_offset"]),
            self.point(g, "pixel_sign_override", lambda c: c.pixel_sign_override if c.image else None,
                        ("UNSIGNED_INT", "SIGNED_INT")),
            # sizes (NVIDIA: 13-bit register ranges; here size classes)
            self.point(g, "width", lambda c: size_class(c.width), SIZE_CLASSES),
            self.point(g, "height", lambda c: size_class(c.height), SIZE_CLASSES),
            self.point(g, "width_ext", lambda c: size_class(c.csc_width_ext), SIZE_CLASSES),
            self.point(g, "height_ext", lambda c: size_class(c.csc_height_ext), SIZE_CLASSES),
            self.point(g, "channels_ext", lambda c: channel_class(c.csc_channel_ext, p.mac_atomic_c),
                        CHANNEL_CLASSES),
            self.point(g, "weight_channels_ext", lambda c: channel_class(c.weight_channel_ext, p.mac_atomic_c),
                        CHANNEL_CLASSES),
            self.point(g, "out_width", lambda c: size_class(c.csc_out_width), SIZE_CLASSES),
            self.point(g, "out_height", lambda c: size_class(c.csc_out_height), SIZE_CLASSES),
            self.point(g, "out_area", _out_area, ("1x1", "line", "wide")),
            # kernel placement
            self.point(g, "stride_y", lambda c: c.stride_y, range(1, 9)),
            self.point(g, "dilation_y", lambda c: _dilation_class(c.dilation_y), DILATION_CLASSES),
            self.cross(g, "mode_x_dilation_x", ["mode", "dilation_x"], [("winograd", None), ("image", None)]),
            self.cross(g, "mode_x_dilation_y", ["mode", "dilation_y"], [("winograd", None), ("image", None)]),
            self.point(g, "pad_left", lambda c: _pad_class(c.pad_left, PAD_BEFORE), PAD_BEFORE),
            self.point(g, "pad_top", lambda c: _pad_class(c.pad_top, PAD_BEFORE), PAD_BEFORE),
            self.point(g, "pad_right", lambda c: _pad_class(c.pad_right, PAD_AFTER), PAD_AFTER),
            self.point(g, "pad_bottom", lambda c: _pad_class(c.pad_bottom, PAD_AFTER), PAD_AFTER),
            self.point(g, "padded_width_mod_atom", lambda c: (c.pad_left + c.width + c.pad_right) % atom,
                        range(atom)),
            self.point(g, "padded_width_quarter", lambda c: None if not c.image or
                        pixel.pixel_format(c.pixel_format).planes != 2 else
                        4 * ((c.pad_left + c.width + c.pad_right) % atom) // atom, range(4)),
            self.point(g, "planar_pixel_bytes", lambda c: None if not c.image or
                        pixel.pixel_format(c.pixel_format).planes != 2 else
                        _pixel_bytes(pixel.pixel_format(c.pixel_format)), planar),
            self.cross(g, "planar_pixel_bytes_x_padded_width_quarter", ["planar_pixel_bytes",
                                                                          "padded_width_quarter"]),
            # CBUF: banks, release and reuse
            self.point(g, "weight_banks", lambda c: _weight_bank_class(c, p), ("1", "2+", "all-but-one")),
            self.point(g, "data_reuse", lambda c: off_on[c.data_reuse], off_on),
            self.point(g, "weight_reuse", lambda c: off_on[c.weight_reuse], off_on),
            self.cross(g, "data_reuse_x_data_banks", ["data_reuse", "data_banks"], [("on", None)]),
            self.cross(g, "weight_reuse_x_weight_banks", ["weight_reuse", "weight_banks"], [("on", None)]),
            self.point(g, "skip_data_rls", lambda c: off_on[c.skip_data_rls], off_on),
            self.point(g, "skip_weight_rls", lambda c: off_on[c.skip_weight_rls], off_on),
            self.cross(g, "skip_data_rls_x_skip_weight_rls", ["skip_data_rls", "skip_weight_rls"]),
            # the input's memory side (feature input: gaps in atoms; image input: bytes beyond the pixels' line)
            self.point(g, "line_stride_gap", lambda c: None if c.image else
                        _atom_gap(c.line_stride // atom - c.width), ATOM_GAPS),
            self.point(g, "surface_stride_gap", lambda c: None if c.image else
                        _atom_gap(c.surf_stride // atom - c.line_stride // atom * c.height), ATOM_GAPS),
            self.point(g, "line_packed", lambda c: None if c.image else ("unpacked", "packed")[c.line_packed],
                        ("unpacked", "packed")),
            self.point(g, "surface_packed", lambda c: None if c.image else ("unpacked", "packed")[c.surf_packed],
                        ("unpacked", "packed")),
            self.point(g, "pitch_gap", lambda c: _pitch_gap(c, "single"), BYTE_GAPS),
            self.point(g, "pitch_gap_y", lambda c: _pitch_gap(c, "planar"), BYTE_GAPS),
            self.point(g, "pitch_gap_uv", lambda c: _pitch_gap(c, "uv"), BYTE_GAPS),
            self.point(g, "cacc_line_packed", lambda c: ("unpacked", "packed")[c.cacc_line_packed],
                        ("unpacked", "packed")),
            self.point(g, "cacc_surface_packed", lambda c: ("unpacked", "packed")[c.cacc_surf_packed],
                        ("unpacked", "packed")),
        ]
        # NVIDIA keeps, of the reuse crosses, only the layers that fetch (reuse off)
        fetch = [("on", None)]
        for item in ("line_stride_gap", "surface_stride_gap", "line_packed", "surface_packed", "pitch_gap",
                     "pitch_gap_y", "pitch_gap_uv"):
            decorators.append(self.cross(g, f"data_reuse_x_{item}", ["data_reuse", item], fetch))
        # CACC's packed flags go with a 1x1 output, unpacked with one of 2+ lines of 2+ pixels
        for item in ("cacc_line_packed", "cacc_surface_packed"):
            decorators.append(self.cross(g, f"data_reuse_x_{item}_x_out_area", ["data_reuse", item, "out_area"],
                                          [("on", None, None), (None, None, "line"), (None, "packed", "wide"),
                                           (None, "unpacked", "1x1")]))
        if "int16" in p.feature_types:
            decorators += [self.point(g, "pitch_gap_10bit", lambda c: _pitch_gap(c, "10bit"), BYTE_GAPS),
                           self.cross(g, "data_reuse_x_pitch_gap_10bit", ["data_reuse", "pitch_gap_10bit"], fetch)]
        if p.winograd:
            integer = [x for x in precisions if x != "fp16"]
            decorators += [
                self.point(g, "pra_truncate", lambda c: c.pra_truncate if c.winograd and c.precision != "fp16"
                            else None, (0, 1, 2)),
                self.cross(g, "in_precision_x_pra_truncate", ["in_precision", "pra_truncate"],
                            [(x, None) for x in sorted(set(precisions) | set(pixel_precisions)) if x not in integer]),
            ]
        # where the input and the weights are read from
        surfaces = [("data", lambda c: c.data_addr, lambda c: c.data_ram, "data_reuse"),
                    ("data_1", lambda c: c.data_addr_1 if c.image and pixel.pixel_format(c.pixel_format).planes == 2
                     else None, lambda c: c.data_ram, "data_reuse"),
                    ("weight", lambda c: c.weight_addr, lambda c: c.weight_ram, "weight_reuse")]
        if p.weight_compression:
            compressed = lambda c, a: getattr(c, a) if c.weight_format == "compressed" else None  # noqa: E731
            surfaces += [("wgs", lambda c: compressed(c, "wgs_addr"), lambda c: c.weight_ram, "weight_reuse"),
                         ("wmb", lambda c: compressed(c, "wmb_addr"), lambda c: c.weight_ram, "weight_reuse")]
        for name, address, ram, reuse in surfaces:
            memory = "data_ram" if name.startswith("data") else "weight_ram"
            if name in ("data", "weight"):
                decorators += [self.point(g, memory, lambda c, r=ram: _ram(r(c) == "sec"), memories),
                               self.cross(g, f"{memory}_x_{reuse}", [memory, reuse], [(None, "on")])]
            decorators += [
                self.point(g, f"{name}_align", lambda c, a=address: None if a(c) is None else _align(a(c)),
                            ALIGN_CLASSES),
                self.cross(g, f"{reuse}_x_{name}_align_x_{memory}", [reuse, f"{name}_align", memory],
                            [("on", None, None)]),
            ]
            if p.mem_address_width > 32:
                decorators += [
                    self.point(g, f"{name}_addr_high", lambda c, a=address: None if a(c) is None else
                                "zero" if a(c) >> 32 == 0 else "nonzero", ("zero", "nonzero")),
                    # the traceplayer addresses CV-SRAM at 0x5xxxxxxx (golden/trace.py): no high word there
                    self.cross(g, f"{reuse}_x_{name}_addr_high_x_{memory}", [reuse, f"{name}_addr_high", memory],
                                [("on", None, None), (None, "nonzero", "sec_mem")]),
                ]
        return decorators

    def _cdp_group(self):
        g, p = "cdp", self.profile
        atom = p.memory_atomic_size
        decorators = [
            self.point(g, "precision", lambda c: c.precision, sorted(p.feature_types)),
            self.point(g, "local_size", lambda c: c.local_size, (3, 5, 7, 9)),
            self.point(g, "le_function", lambda c: c.lut.le_function, ("LINEAR", "EXPONENT")),
            self.point(g, "sqsum", lambda c: "bypass" if c.sqsum_bypass else "on", ("on", "bypass")),
            self.point(g, "mul", lambda c: "bypass" if c.mul_bypass else "on", ("on", "bypass")),
            self.point(g, "priorities", lambda c: (c.lut.uflow_priority, c.lut.oflow_priority),
                        [(u, o) for u in ("LE", "LO") for o in ("LE", "LO")]),
            self.point(g, "channels", lambda c: channel_class(c.shape[0], p.memory_atomic_size), CHANNEL_CLASSES),
            self.point(g, "width", lambda c: size_class(c.shape[2]), SIZE_CLASSES[:3]),
            self.cross(g, "local_size_x_le_function", ["local_size", "le_function"]),
            self.cross(g, "precision_x_local_size", ["precision", "local_size"]),
            # NVIDIA's cdp_cg / cdp_lut_cg meanings the points above do not hold (stimulus/coverage_parity.json)
            self.point(g, "height", lambda c: size_class(c.shape[1]), SIZE_CLASSES[:3]),
            self.point(g, "src_line_stride", lambda c: _packed(c.src[1], c.shape[2] * atom), ("packed", "gap")),
            self.point(g, "src_surface_stride", lambda c: _packed(c.src[2], c.src[1] * c.shape[1]), ("packed", "gap")),
            self.point(g, "dst_line_stride", lambda c: _packed(c.dst[1], c.shape[2] * atom), ("packed", "gap")),
            self.point(g, "dst_surface_stride", lambda c: _packed(c.dst[2], c.dst[1] * c.shape[1]), ("packed", "gap")),
            self.point(g, "src_line_end", lambda c: (c.src[0] // atom + c.shape[2]) % 8, range(8)),
            self.point(g, "dst_line_end", lambda c: (c.dst[0] // atom + c.shape[2]) % 8, range(8)),
        ]
        # the data convertors are not used in fp16 (precision-preservation "CDP"): sampled for integer layers
        wide = ("wide",) if "int16" in p.feature_types else ()
        convertors = [
            ("datin_offset", lambda c: _offset_class(c.datin[0], 1 << 7), ("negative", "positive") + wide),
            ("datin_scale", lambda c: "negative" if c.datin[1] < 0 else "positive", ("negative", "positive")),
            ("datin_shifter", lambda c: _shift_class(c.datin[2]), SHIFT_CLASSES[:3]),
            ("datout_offset", lambda c: _offset_class(c.datout[0], 1 << 24), ("negative", "positive") + wide),
            ("datout_scale", lambda c: "negative" if c.datout[1] < 0 else "positive", ("negative", "positive")),
            ("datout_shifter", lambda c: _shift_class(c.datout[2]), SHIFT_CLASSES),
        ]
        for name, xf, bins in convertors:
            ignore = ([("fp16", None)] if "fp16" in p.feature_types else []) + \
                     ([("int8", "wide")] if name.endswith("offset") and wide else [])
            decorators += [self.point(g, name, lambda c, f=xf: None if c.precision == "fp16" else f(c), bins),
                           self.cross(g, f"precision_x_{name}", ["precision", name], ignore)]
        if "fp16" in p.feature_types:
            decorators.append(self.point(g, "nan_to_zero", lambda c: None if c.precision != "fp16" else
                                          "on" if c.nan_to_zero else "off", ("off", "on")))
        # the LUT registers (S_LUT_*)
        decorators += [self.point(g, f"{kind}_priority", lambda c, k=kind: getattr(c.lut, f"{k}_priority"),
                                   ("LE", "LO")) for kind in ("uflow", "oflow", "hybrid")]
        for name in ("le_index_offset", "le_index_select", "lo_index_select"):
            decorators.append(self.point(g, name, lambda c, n=name: _sign_class(getattr(c.lut, n)),
                                          ("negative", "zero", "positive")))
        decorators += [
            self.cross(g, "le_function_x_le_index_offset", ["le_function", "le_index_offset"], [("LINEAR", None)]),
            self.cross(g, "le_function_x_le_index_select", ["le_function", "le_index_select"], [("EXPONENT", None)]),
            self.cross(g, "le_function_x_lo_index_select", ["le_function", "lo_index_select"], [("EXPONENT", None)]),
        ]
        for bound in ("le_start", "le_end", "lo_start", "lo_end"):
            decorators += [
                self.point(g, f"{bound}_sign", lambda c, b=bound: "negative" if _lut_bound(c, b) < 0 else "positive",
                            ("negative", "positive")),
                self.point(g, f"{bound}_size", lambda c, b=bound: "<2^10" if abs(_lut_bound(c, b)) < 1024 else "2^10+",
                            ("<2^10", "2^10+")),
            ]
        for table in ("le", "lo"):
            for flow in ("uflow", "oflow"):
                decorators += [
                    self.point(g, f"{table}_{flow}_scale", lambda c, a=f"{table}_{flow}_scale": _slope_class(
                        getattr(c.lut, a)), SLOPE_CLASSES),
                    self.point(g, f"{table}_{flow}_shift", lambda c, a=f"{table}_{flow}_shift": _shift_class(
                        getattr(c.lut, a) & 0x1F), SHIFT_CLASSES[:3]),
                ]
        decorators += self._memory_points(g, lambda c: c.src, lambda c: c.dst)
        decorators.append(self.cross(g, "src_ram_x_dst_ram", ["src_ram", "dst_ram"]))
        return _stack(decorators)

    def _cdp_lut_access_group(self):
        """Sampled once per S_LUT_ACCESS_CFG write of a layer's LUT programming: (table, access type)."""
        g = "cdp"
        decorators = [self.point(g, "lut_table", lambda a: a[0], ("LE", "LO")),
                      self.point(g, "lut_access", lambda a: a[1], ("READ", "WRITE"))]
        return _stack(decorators)

    def _sdp_lut_access_group(self):
        """Sampled once per SDP S_LUT_ACCESS_CFG write: (table, access type)."""
        g = "sdp"
        return _stack([self.point(g, "lut_table", lambda a: a[0], ("LE", "LO")),
                       self.point(g, "lut_access", lambda a: a[1], ("READ", "WRITE"))])

    def _rubik_group(self):
        g, p = "rubik", self.profile
        modes = (("CONTRACT",) if p.rubik_contract else ()) + (("SPLIT", "MERGE") if p.rubik_reshape else ())
        memories = ("pri_mem", "sec_mem") if p.secondary_memif else ("pri_mem",)
        four = (1, 2, 3, 4)
        decorators = [
            self.point(g, "mode", lambda r: r.mode, modes),
            self.point(g, "precision", lambda r: r.precision, sorted(p.feature_types)),
            self.point(g, "stride_x", lambda r: r.stride_x if r.mode == "CONTRACT" else None, four),
            self.point(g, "stride_y", lambda r: r.stride_y if r.mode == "CONTRACT" else None, four),
            self.point(g, "width", lambda r: size_class(r.width), SIZE_CLASSES[:3]),
            self.point(g, "height", lambda r: size_class(r.height), SIZE_CLASSES[:3]),
            self.point(g, "channels", _rubik_channels, CHANNEL_CLASSES),
            self.point(g, "memories", lambda r: ("sec_mem" if r.in_cvsram else "pri_mem",
                                                  "sec_mem" if r.out_cvsram else "pri_mem"),
                        [(i, o) for i in memories for o in memories]),
            self.cross(g, "mode_x_precision", ["mode", "precision"]),
            self.cross(g, "stride_x_x_stride_y", ["stride_x", "stride_y"]),
            self.cross(g, "mode_x_memories", ["mode", "memories"]),
            # NVIDIA's rubik_cg meanings the points above do not hold (stimulus/coverage_parity.json)
            self.point(g, "in_channels", lambda r: channel_class(r.in_channels, r.per_atom), CHANNEL_CLASSES),
            self.point(g, "out_channels", lambda r: channel_class(r.out_channels, r.per_atom), CHANNEL_CLASSES),
            self.point(g, "contract_in_channels", lambda r: None if r.mode != "CONTRACT" else "1-31"
                        if r.in_channels < 32 else "32" if r.in_channels == 32 else "33+", ("1-31", "32", "33+")),
        ]
        for side, key in (("src", "DAIN"), ("dst", "DAOUT")):
            planar_mode = "MERGE" if side == "src" else "SPLIT"
            decorators += [
                self.point(g, f"{side}_line_stride", lambda r, s=side, k=key: _packed(
                    r.addressing[f"{k}_LINE"], _rubik_line(r, s)), ("packed", "gap")),
                self.point(g, f"{side}_surface_stride", lambda r, s=side, k=key, m=planar_mode: None if r.mode == m
                            else _packed(r.addressing[f"{k}_SURF"], r.addressing[f"{k}_LINE"] * _rubik_lines(r, s)),
                            ("packed", "gap")),
                self.point(g, f"{side}_planar_stride", lambda r, s=side, k=key, m=planar_mode: None if r.mode != m
                            else _packed(r.addressing[f"{k}_PLANAR"], r.addressing[f"{k}_LINE"] * r.height),
                            ("packed", "gap")),
            ]
        decorators += self._memory_points(g, lambda r: (r.addressing["DAIN_ADDR"], 0, 0, r.in_cvsram),
                                          lambda r: (r.addressing["DAOUT_ADDR"], 0, 0, r.out_cvsram))
        return _stack(decorators)

    def _bdma_group(self):
        """Sampled once per operation of a launched group: (operation, launch group, operations in the group)."""
        g, p = "bdma", self.profile
        memories = ("pri_mem", "sec_mem") if p.secondary_memif else ("pri_mem",)
        decorators = [
            self.point(g, "operations", lambda s: "4+" if s[2] >= 4 else "2-3" if s[2] > 1 else "1",
                        ("1", "2-3", "4+")),
            self.point(g, "launch", lambda s: s[1], (0, 1)),
            self.point(g, "memories", lambda s: (_ram(s[0].src_cvsram), _ram(s[0].dst_cvsram)),
                        [(i, o) for i in memories for o in memories]),
            self.point(g, "line_atoms", lambda s: size_class(s[0].line_bytes // 32), SIZE_CLASSES[:3]),
            self.point(g, "lines", lambda s: size_class(s[0].lines), SIZE_CLASSES[:2]),
            self.point(g, "surfaces", lambda s: size_class(s[0].surfaces), SIZE_CLASSES[:2]),
            self.point(g, "src_line_stride", lambda s: _packed(s[0].src_line_stride, s[0].line_bytes),
                        ("packed", "gap")),
            self.point(g, "dst_line_stride", lambda s: _packed(s[0].dst_line_stride, s[0].line_bytes),
                        ("packed", "gap")),
            self.cross(g, "launch_x_memories", ["launch", "memories"]),
            self.cross(g, "operations_x_launch", ["operations", "launch"]),
            # NVIDIA's bdma_cg meanings the points above do not hold (stimulus/coverage_parity.json): positions
            # in 32-byte atoms modulo 8 (where in a 256-byte block an address, a line's end or a stride falls)
            self.point(g, "line_atoms_mod8", lambda s: s[0].line_bytes // 32 % 8, range(8)),
            self.point(g, "src_line_end", lambda s: (s[0].src_addr // 32 + s[0].line_bytes // 32 - 1) % 8, range(8)),
            self.point(g, "dst_line_end", lambda s: (s[0].dst_addr // 32 + s[0].line_bytes // 32 - 1) % 8, range(8)),
            self.point(g, "src_line_stride_mod8", lambda s: s[0].src_line_stride // 32 % 8, range(8)),
            self.point(g, "dst_line_stride_mod8", lambda s: s[0].dst_line_stride // 32 % 8, range(8)),
            self.point(g, "src_surface_stride_mod8", lambda s: s[0].src_surf_stride // 32 % 8, range(8)),
            self.point(g, "dst_surface_stride_mod8", lambda s: s[0].dst_surf_stride // 32 % 8, range(8)),
        ]
        for side in ("src", "dst"):
            decorators += [
                self.point(g, f"{side}_ram", lambda s, x=side: _ram(getattr(s[0], f"{x}_cvsram")), memories),
                self.point(g, f"{side}_addr_mod8", lambda s, x=side: getattr(s[0], f"{x}_addr") // 32 % 8, range(8)),
                self.cross(g, f"{side}_addr_mod8_x_{side}_ram", [f"{side}_addr_mod8", f"{side}_ram"]),
            ]
        return _stack(decorators)

    def _bdma_status_group(self):
        """Sampled after each CFG_OP and CFG_LAUNCH<g> write, as NVIDIA's bdma_cg (which reads STATUS back then):
        CFG_OP.EN and STATUS as the golden model's register file holds them (golden/regs/regfile.py)."""
        g = "bdma"
        decorators = [
            self.point(g, "op_en", lambda s: s["EN"], (0, 1)),
            self.point(g, "free_slot", lambda s: s["FREE_SLOT"], range(BDMA_SLOTS + 1)),
            self.point(g, "idle", lambda s: s["IDLE"], (0, 1)),
            self.point(g, "grp0_busy", lambda s: s["GRP0_BUSY"], (0, 1)),
            self.point(g, "grp1_busy", lambda s: s["GRP1_BUSY"], (0, 1)),
        ]
        return _stack(decorators)

    def _lut_outcomes(self, g: str, unit: str, extra: list):
        """Cover points of a LUT's outcome counters in one run: none or some elements of each kind."""
        decorators = list(extra)
        for kind in ("UFLOW", "OFLOW", "HYBRID", "LE_HIT", "LO_HIT"):
            decorators.append(self.point(g, f"lut.{kind.lower()}", lambda run, k=kind: _count(run, unit, k),
                                          ("none", "some")))
        decorators.append(self.point(g, "le_function", lambda run: run[0].lut.le_function if run[1] else None,
                                      ("LINEAR", "EXPONENT")))
        decorators.append(self.point(g, "precision", lambda run: _precision(run[0]) if run[1] else None,
                                      sorted(self.profile.feature_types)))
        for kind in ("uflow", "oflow", "le_hit", "lo_hit"):
            decorators.append(self.cross(g, f"le_function_x_{kind}", ["le_function", f"lut.{kind}"]))
            decorators.append(self.cross(g, f"precision_x_{kind}", ["precision", f"lut.{kind}"]))
        return _stack(decorators)

    def _sdp_run_group(self):
        eql = self.point("sdp_run", "eql", lambda run: None if not run[0].y.eql or ("SDP", "D_STATUS") not in run[2]
                          else "unequal" if run[2]["SDP", "D_STATUS"] else "equal", ("equal", "unequal"))
        return self._lut_outcomes("sdp_run", "SDP", [eql])

    # -- sampling ---------------------------------------------------------------------------------
    def sample(self, stages, regs: RegisterValues, status: dict | None = None) -> None:
        """Sample one hardware layer from its stages and register values, and with `status` (what the run
        reported, golden.hardware.HardwareLayer.status) its outcome groups."""
        if "SDP" in stages:
            cfg = sdp_decode(regs)
            if not cfg.flying:
                self._sample_sdp(cfg)
            self._sample_sdp_flying(cfg)
            if status is not None and self._sample_sdp_run is not None:
                self._sample_sdp_run((cfg, cfg.y.lut_active, status))
        if "CDMA" in stages or "CONV" in stages:
            self._sample_conv(conv_decode(regs))
        if "CDP" in stages and self._sample_cdp is not None:
            cfg = cdp_decode(regs)
            self._sample_cdp(cfg)
            if status is not None and self._sample_cdp_run is not None:
                self._sample_cdp_run((cfg, True, status))
        if ("RUBIK" in stages or "RBK" in stages) and self._sample_rubik is not None:
            self._sample_rubik(RubikLayer.decode(regs, self.profile))
        if "PDP" in stages and self._sample_pdp is not None:
            self._sample_pdp(pdp_decode(regs))
        for sample in self._declared:
            sample(stages, regs, status)

    def sample_bdma(self, operations, group: int) -> None:
        """Sample a launched BDMA group (golden.units.bdma.BdmaOperation each)."""
        if self._sample_bdma is not None:
            for operation in operations:
                self._sample_bdma((operation, group, len(operations)))

    def sample_run(self, layer, outcomes: bool = True) -> None:
        """Sample a layer the golden model ran (golden.hardware.HardwareLayer), with what it reported."""
        if layer.operations:
            self.sample_bdma([operation_from(regs) for regs in layer.operations], layer.groups["BDMA"])
        elif layer.regs is not None:
            self.sample(layer.stages, layer.regs, layer.status if outcomes else None)
            for unit in ("CDP", "SDP"):
                if unit in layer.stages:
                    self.sample_lut_writes(unit, [a for a in getattr(layer, "lut_accesses", []) if a[0] == unit])

    def sample_layer(self, layer) -> None:
        """Sample a generated layer (stimulus.layer.Layer) from its registers."""
        if layer.family == "bdma":
            group = bdma_group(layer, self.regmap)
            self.sample_bdma(group.operations, group.group)
            self.sample_bdma_writes(layer.writes, group.group)
            return
        stages = list(layer.enable)
        self.sample(stages, layer.values(self.regmap))
        for unit in ("CDP", "SDP"):
            if unit in stages:
                self.sample_lut_writes(unit, getattr(layer, "writes", None) or [])

    def sample_bdma_writes(self, writes, group: int) -> None:
        """Sample the BDMA status after each CFG_OP / CFG_LAUNCH write of a generated layer's programming. The
        layers of a trace are programmed back to back (stimulus/export.py) and a group-0 layer starts a trace or
        follows a wait for every earlier layer, so the register file starts empty at group 0 and carries on to
        the group-1 layer after it."""
        if self._sample_bdma_status is None:
            return
        if group == 0 or self._bdma_registers is None:
            self._bdma_registers = RegisterFile(self.regmap)
        registers = self._bdma_registers
        status, op = self.regmap.get("BDMA", "STATUS"), self.regmap.get("BDMA", "CFG_OP")
        for unit, name, value in writes:
            if unit != "BDMA":
                continue
            registers.write(self.regmap.get(unit, name), value)
            if name in ("CFG_OP", "CFG_LAUNCH0", "CFG_LAUNCH1"):
                word = registers.read(status)
                sample = {f.name: f.decode(word) for f in status.fields}
                sample["EN"] = op.field("EN").decode(registers.read(op))
                self._sample_bdma_status(sample)

    def sample_lut_writes(self, unit: str, writes) -> None:
        """Sample the LUT port accesses among (unit, register, value) writes (a layer's LUT programming):
        one sample per S_LUT_ACCESS_CFG write of the unit (cdp.lut_table / cdp.lut_access, and
        sdp.lut_table / sdp.lut_access). A run layer brings the accesses since the unit's previous layer
        (HardwareLayer.lut_accesses): a trace that programs the LUT once samples them with its first layer."""
        sampler = {"CDP": self._sample_cdp_lut, "SDP": self._sample_sdp_lut}.get(unit)
        if sampler is None:
            return
        register = self.regmap.get(unit, "S_LUT_ACCESS_CFG")
        for written_unit, name, value in writes:
            if written_unit == unit and name == "S_LUT_ACCESS_CFG":
                table = register.field("LUT_TABLE_ID").enum_name(register.field("LUT_TABLE_ID").decode(value))
                access = register.field("LUT_ACCESS_TYPE").enum_name(register.field("LUT_ACCESS_TYPE").decode(value))
                sampler((table, access))

    # -- reporting --------------------------------------------------------------------------------
    def items(self, group: str):
        """(name, coverage %, holes) of each cover point and cross of the group."""
        db = self.lib.coverage_db
        for name in self.groups.get(group, []):
            item = db[name]
            holes = [b for b, hits in item.detailed_coverage.items() if hits < 1]
            yield name, item.cover_percentage, holes

    def summary(self, group: str) -> dict:
        points = [(n, pct, holes) for n, pct, holes in self.items(group) if not isinstance(self.lib.coverage_db[n],
                                                                                          self.lib.CoverCross)]
        crosses = [(n, pct, holes) for n, pct, holes in self.items(group) if (n, pct, holes) not in points]
        bins = sum(len(self.lib.coverage_db[n].detailed_coverage) for n, _, _ in points)
        cross_bins = sum(len(self.lib.coverage_db[n].detailed_coverage) for n, _, _ in crosses)
        return {"point_bins": bins, "point_holes": sum(len(h) for _, _, h in points),
                "cross_bins": cross_bins, "cross_holes": sum(len(h) for _, _, h in crosses)}

    def report(self, groups=None) -> str:
        lines = []
        for group in groups or self.groups:
            s = self.summary(group)
            point_rate = 100 * (1 - s["point_holes"] / max(s["point_bins"], 1))
            cross_rate = 100 * (1 - s["cross_holes"] / max(s["cross_bins"], 1))
            lines.append(f"{self.prefix} {group}: cover points {point_rate:.1f}% of {s['point_bins']} bins, "
                         f"crosses {cross_rate:.1f}% of {s['cross_bins']} bins")
            for name, pct, holes in self.items(group):
                if holes:
                    shown = ", ".join(map(str, holes[:8])) + (f" ... (+{len(holes) - 8})" if len(holes) > 8 else "")
                    lines.append(f"  {name.split('.', 2)[2]:28} {pct:5.1f}%  holes: {shown}")
        return "\n".join(lines)

    def export(self, path) -> None:
        self.lib.coverage_db.export_to_yaml(str(path))


def merge(files, out) -> None:
    """Merge YAML coverage exports of several processes or machines into one file."""
    coverage_library().merge_coverage(lambda message: None, str(out), *map(str, files))


def _stack(decorators):
    def sample(cfg):
        return None
    for decorator in reversed(decorators):
        sample = decorator(sample)
    return sample


def _reuse(cfg) -> str:
    """What a convolution takes from the CBUF the previous layer left (needs traces of 2+ layers)."""
    return {(False, False): "none", (True, False): "data", (False, True): "weight",
            (True, True): "both"}[cfg.data_reuse, cfg.weight_reuse]


def _bank_class(cfg, profile: Profile) -> str:
    """CBUF banks the input takes: one, several, or all but the weights' one (and the WMB's)."""
    largest = profile.cbuf_bank_number - 1 - (cfg.weight_format == "compressed")
    return "all-but-one" if cfg.data_bank >= largest else "1" if cfg.data_bank == 1 else "2+"


DILATION_CLASSES = (1, 2, 3, "4-32")
#: NVIDIA's 8 ranges of PAD_LEFT / PAD_TOP (0-3, 4-7, ...) and of PAD_RIGHT / PAD_BOTTOM (0-7, 8-15, ...), the
#: first split at 0 and the upper ones merged.
PAD_BEFORE = ("0", "1-3", "4-7", "8-31")
PAD_AFTER = ("0", "1-7", "8-15", "16-63")
#: NVIDIA's line / surface gaps in atoms (0, each of 1..7, 8..16 in two) and pixel-line gaps in bytes (0,
#: 1..255 in seven, 256..512 in two), its auto-bin ranges.
ATOM_GAPS = (0, 1, 2, 3, 4, 5, 6, 7, "8-11", "12-16")
BYTE_GAPS = (0, "1-36", "37-72", "73-108", "109-144", "145-180", "181-216", "217-255", "256-383", "384-512")


def _dilation_class(dilation: int) -> int | str:
    return dilation if dilation <= 3 else "4-32"


def _pad_class(pad: int, classes: tuple) -> str:
    for name in classes:
        low, _, high = name.partition("-")
        if int(low) <= pad <= int(high or low):
            return name
    return None


def _atom_gap(gap: int):
    return gap if 0 <= gap <= 7 else "8-11" if 8 <= gap <= 11 else "12-16" if 12 <= gap <= 16 else None


def _byte_gap(gap: int):
    for name in BYTE_GAPS:
        low, _, high = str(name).partition("-")
        if int(low) <= gap <= int(high or low):
            return name
    return None


def _pixel_bytes(fmt) -> int:
    """Bytes of one pixel in the format's first plane (1, 2, 4 or 8)."""
    return fmt.plane_bytes[0]


#: NVIDIA's pixel-pitch cover points by the formats their crosses keep (codes of Table 33).
PITCH_GROUPS = {"10bit": range(20, 26), "single": [*range(0, 20), 26, 27], "planar": range(28, 36),
                "uv": range(28, 36)}


def _pitch_gap(cfg, group: str):
    """An image line's stride minus its pixels' bytes ((x offset + width) pixels of the plane), for the formats of
    NVIDIA's `group`; the UV plane's with UV_LINE_STRIDE."""
    if not cfg.image:
        return None
    fmt = pixel.pixel_format(cfg.pixel_format)
    if fmt.code not in PITCH_GROUPS[group]:
        return None
    stride, plane = (cfg.uv_line_stride, 1) if group == "uv" else (cfg.line_stride, 0)
    return _byte_gap(stride - (cfg.pixel_x_offset + cfg.width) * fmt.plane_bytes[plane])


def _out_area(cfg) -> str:
    """A 1x1 output, one line or column, or 2+ lines of 2+ pixels."""
    if cfg.csc_out_width == 1 and cfg.csc_out_height == 1:
        return "1x1"
    return "wide" if cfg.csc_out_width > 1 and cfg.csc_out_height > 1 else "line"


def _weight_bank_class(cfg, profile: Profile) -> str:
    """CBUF banks the weights take: one, several, or all but the data's one (and the WMB's)."""
    largest = profile.cbuf_bank_number - 1 - (cfg.weight_format == "compressed")
    return "all-but-one" if cfg.weight_bank >= largest else "1" if cfg.weight_bank == 1 else "2+"


def _image_cvt(cfg) -> str:
    return "off" if not cfg.cvt_en else "mean" if cfg.mean_format else "offset"


ALIGN_CLASSES = ("<64", "64", "128", "256+")


def _align(address: int) -> str:
    """The largest of 64, 128 and 256 bytes the address is a multiple of ("<64": none of them)."""
    return "256+" if address % 256 == 0 else "128" if address % 128 == 0 else "64" if address % 64 == 0 else "<64"


def _split_part(cfg, part: str) -> str | None:
    """Size class of one split-width part (first / mid / last, input or output columns); mid only with 3+ parts."""
    if cfg.split is None or (part.endswith("mid") and cfg.split.count < 3):
        return None
    return size_class(getattr(cfg.split, part))


def _overlap_lines(cfg) -> int | None:
    """Output lines an input line belongs to beyond the first (ceil(kernel_h / stride_h) - 1), in split
    layers whose kernel is at least as high as the stride."""
    kernel, stride = cfg.kernel[1], cfg.stride[1]
    if cfg.split is None or kernel < stride:
        return None
    return -(-kernel // stride) - 1


SHIFT_CLASSES = ("0", "1-15", "16-31", "32+")
SLOPE_CLASSES = ("negative", "positive", "negative max", "positive max")


def _shift_class(shift: int) -> str:
    return "0" if shift == 0 else "1-15" if shift < 16 else "16-31" if shift < 32 else "32+"


def _sign_class(value: int) -> str:
    return "negative" if value < 0 else "zero" if value == 0 else "positive"


def _offset_class(offset: int, bound: int) -> str:
    """A convertor offset: inside the int8 pipeline's range (+-bound), by sign, or "wide" beyond it."""
    return "wide" if not -bound <= offset < bound else "negative" if offset < 0 else "positive"


def _slope_class(scale: int) -> str:
    """A LUT slope scale (16 bits as the register holds them): by sign, or within 16 of either extreme."""
    raw = scale & 0xFFFF
    if 0x7FF0 <= raw <= 0x7FFF:
        return "positive max"
    if 0x8000 <= raw <= 0x800F:
        return "negative max"
    return "negative" if raw & 0x8000 else "positive"


def _lut_bound(cfg, bound: str) -> float:
    """A CDP LUT START/END as a number: the signed 38-bit integer, or for fp16 layers the fp32 in its LOW word."""
    raw = getattr(cfg.lut, bound)
    if cfg.precision != "fp16":
        return raw
    return float(np.array([raw & 0xFFFFFFFF], dtype=np.uint32).view(np.float32)[0])


def _ram(cvsram: bool) -> str:
    return "sec_mem" if cvsram else "pri_mem"


def _packed(stride: int, line_bytes: int) -> str:
    return "packed" if stride == line_bytes else "gap"


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


def _rubik_channels(r) -> str:
    """The feature cube's channels (contract: the output cube's) against the 32-byte atom."""
    return channel_class(r.out_channels if r.mode == "CONTRACT" else r.in_channels, r.per_atom)


def _rubik_line(r, side: str) -> int:
    """The bytes of one line of a Rubik layer's input ("src") or output ("dst") without a gap: a line of atoms
    on the feature side (contract's output: stride_x times wider), the plane's row in 64-byte units on the
    planar side (split's output, merge's input)."""
    planar = (side == "dst" and r.mode == "SPLIT") or (side == "src" and r.mode == "MERGE")
    if planar:
        return -(-r.width * r.element_bytes // 64) * 64
    return r.width * (r.stride_x if side == "dst" and r.mode == "CONTRACT" else 1) * 32


def _rubik_lines(r, side: str) -> int:
    """Lines of one surface on the feature side (contract's output: stride_y times higher)."""
    return r.height * (r.stride_y if side == "dst" and r.mode == "CONTRACT" else 1)


def _count(run, unit: str, kind: str) -> str | None:
    """none / some elements of a LUT outcome in a run that used the LUT (D_PERF_LUT_<kind>)."""
    cfg, used, status = run
    value = status.get((unit, f"D_PERF_LUT_{kind}"))
    return None if not used or value is None else "some" if value else "none"


def _precision(cfg) -> str:
    return getattr(cfg, "proc_precision", None) or cfg.precision


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
    return _packed(dma.line_stride, c.width * per_atom)


def _operand_surface(c, dma) -> str | None:
    if dma is None or dma.mode != "PER_ELEMENT":
        return None
    return _packed(dma.surface_stride, dma.line_stride * c.height)


def _cvsram_high(profile: Profile) -> list:
    """The CV-SRAM-above-4-GiB bin where the profile's trace form cannot place a surface: nvdlav1's traceplayer
    (nv_full) tells CV-SRAM by its 0x5xxxxxxx addresses (stimulus/export.py)."""
    return [("nonzero", "sec_mem")] if profile.layout == "nvdlav1" and profile.secondary_memif else []
