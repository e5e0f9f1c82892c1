"""`--impl dlhdl:INNER`: an implementation that keeps its tensors in the Deep Learning HDL Toolbox layout
(../shared/spec/dlhdl-external-memory-data-format.txt, golden/formats/dlhdl.py), judged as an NVDLA.

Before the run, every feature surface a layer reads through its read DMA (SDP_RDMA, PDP_RDMA,
CDP_RDMA: golden/units/inputs.py) is loaded in DL HDL convolution layout at the surface's base
address; every region check is widened to hold the DL HDL form of the surfaces written into it.
After the run, those surfaces are converted back into NVDLA's feature layout for the scoreboards.
The DL HDL layout has no line or surface padding: the bytes of a region outside every surface are
taken from the golden model's run. int8 stays int8; int16 and fp16 travel as DL HDL `single`.
Which surfaces exist comes from a run of the golden model on the same program.

ConvThreadNumber (thread number C = sqrt, parallel transfer number N = next power of two) is
$NVDLA_DLHDL_CONV_THREAD_NUMBER, default 9 (C = 3, N = 4).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from golden.config import Profile
from golden.errors import NvdlaVerifError
from golden.formats import dlhdl
from golden.implementation import Golden, Implementation
from golden.memory import MemorySystem
from golden.outcome import Outcome
from golden.settings import Settings, override
from golden.status import Ending
from golden.steps import CheckRegion, FillMemory, LoadMemory, Program
from golden.units.base import Surface
from golden.units.inputs import feature_inputs

DEFAULT_CONV_THREAD_NUMBER = 9


@dataclass
class Surfaces:
    """What the adapter converts: the layers' input surfaces and the golden run's outcome (outputs, padding)."""

    inputs: list[Surface]
    reference: Outcome


def surfaces_of(program: Program, profile: Profile) -> Surfaces:
    reference = Golden().run(program, profile)
    if reference.status != Ending.COMPLETED:
        raise NvdlaVerifError(f"the DL HDL adapter needs the golden run of the program: {reference.status} "
                              f"({reference.detail})")
    inputs = [s for layer in reference.layers for s in feature_inputs(layer.stages, layer.regs, profile)]
    return Surfaces(inputs, reference)


def dlhdl_bytes(surface: Surface, threads: int, parallel: int) -> int:
    size = 1 if surface.precision == "int8" else 4
    return dlhdl.conv_values(surface.shape[-3:], threads, parallel) * size


def loaded_memory(program: Program) -> MemorySystem:
    """The memories as the program's fills and loads leave them."""
    memory = MemorySystem()
    for step in program.steps:
        if isinstance(step, FillMemory):
            memory.by_name(step.memory).fill(step.base, step.size, 0)
        elif isinstance(step, LoadMemory):
            memory.by_name(step.memory).load_records(step.base, step.records)
    return memory


def to_dlhdl(surface: Surface, memory: MemorySystem, threads: int, parallel: int) -> np.ndarray:
    raw = memory.by_name(surface.memory).read(surface.base, surface.span(), unwritten="allow")
    return dlhdl.nvdla_to_dlhdl(raw, 0, surface.shape, surface.precision, surface.line_stride,
                                surface.surface_stride, surface.atom_bytes, threads, parallel)


def to_nvdla(data: np.ndarray, surface: Surface, threads: int, parallel: int) -> np.ndarray:
    return dlhdl.dlhdl_to_nvdla(data, surface.shape, surface.precision, surface.line_stride,
                                surface.surface_stride, surface.atom_bytes, threads, parallel)


def _inside(surface: Surface, step: CheckRegion) -> bool:
    return (surface.memory == step.memory and step.base <= surface.base
            and surface.base + surface.span() <= step.base + step.size)


class DlhdlAdapter:
    name = "dlhdl"

    def __init__(self, argument: str | None = None, inner: Implementation | None = None,
                 conv_thread_number: int | None = None, settings: Settings | None = None):
        if inner is None:
            if not argument:
                raise NvdlaVerifError("--impl dlhdl needs the implementation it adapts: --impl dlhdl:NAME[:ARG]")
            from ci.implementations import create

            inner = create(argument, settings)
        self.inner = inner
        number = conv_thread_number or int(override("NVDLA_DLHDL_CONV_THREAD_NUMBER") or DEFAULT_CONV_THREAD_NUMBER)
        self.threads, self.parallel = dlhdl.geometry(number)

    def run(self, program: Program, profile: Profile) -> Outcome:
        surfaces = surfaces_of(program, profile)
        adapted, positions = self.adapted(program, surfaces)
        return self.restored(program, self.inner.run(adapted, profile), surfaces, positions)

    def adapted(self, program: Program, surfaces: Surfaces) -> tuple[Program, dict[int, int]]:
        """The program as a DL HDL implementation sees it (inputs in its layout, checks wide enough), and where
        each step of the program went in it. An input surface that a load fills is reloaded in DL HDL layout
        right after the last load into it; one written by an earlier layer is already in that layout."""
        memory = loaded_memory(program)
        after = {}
        for surface in surfaces.inputs:
            loads = [i for i, s in enumerate(program.steps) if isinstance(s, LoadMemory | FillMemory)
                     and _overlaps(s, surface)]
            if loads:
                after.setdefault(loads[-1], []).append(surface)
        steps, positions = [], {}
        for index, step in enumerate(program.steps):
            if isinstance(step, CheckRegion):
                step = replace(step, size=self._check_size(step, surfaces), crc=None, expected=None)
            positions[index] = len(steps)
            steps.append(step)
            steps += [LoadMemory(step.where, s.memory, s.base,
                                 ((0, to_dlhdl(s, memory, self.threads, self.parallel)),), "dlhdl")
                      for s in after.get(index, ())]
        return Program(program.name, program.path, program.layout, steps, None), positions  # no trace's compile

    def _check_size(self, step: CheckRegion, surfaces: Surfaces) -> int:
        ends = [w.surface.base - step.base + dlhdl_bytes(w.surface, self.threads, self.parallel)
                for w in surfaces.reference.surfaces if _inside(w.surface, step)]
        return max([step.size, *ends])

    def restored(self, program: Program, outcome: Outcome, surfaces: Surfaces, positions: dict[int, int]) -> Outcome:
        """The outcome with every checked region back in NVDLA's layout, indexed by the program's steps."""
        regions = {}
        for index, step in program.regions:
            got = outcome.regions.get(positions[index])
            if got is None:
                continue
            region = np.array(surfaces.reference.regions[index], np.uint8)
            for written in surfaces.reference.surfaces:
                if _inside(written.surface, step):
                    offset = written.surface.base - step.base
                    size = dlhdl_bytes(written.surface, self.threads, self.parallel)
                    packed = to_nvdla(np.asarray(got, np.uint8)[offset:offset + size], written.surface,
                                      self.threads, self.parallel)
                    region[offset:offset + packed.size] = packed
            regions[index] = region
        registers = {i: outcome.registers[positions[i]] for i in positions if positions[i] in outcome.registers}
        return replace(outcome, implementation=f"dlhdl:{self.inner.name}", regions=regions,
                       registers=registers)


def _overlaps(step: LoadMemory | FillMemory, surface: Surface) -> bool:
    if isinstance(step, LoadMemory):
        start = step.base + min((offset for offset, _ in step.records), default=0)
        end = step.base + max((offset + data.size for offset, data in step.records), default=0)
    else:
        start, end = step.base, step.base + step.size
    return step.memory == surface.memory and start < surface.base + surface.span() and surface.base < end
