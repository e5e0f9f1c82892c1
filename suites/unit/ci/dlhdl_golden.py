"""The golden model keeping its tensors in the Deep Learning HDL Toolbox layout: a DL HDL implementation for the
adapter's tests (suites/unit/ci/test_dlhdl.py) and for the external test program (golden_program.py --dlhdl)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ci.implementations.dlhdl import loaded_memory, surfaces_of, to_dlhdl, to_nvdla
from golden.formats import dlhdl
from golden.implementation import Golden
from golden.steps import LoadMemory, Program


class GoldenInDlhdl:
    """A DL HDL-layout implementation for the test: reads its inputs and writes its outputs in DL HDL layout."""

    name = "golden-in-dlhdl"

    def __init__(self, threads: int, parallel: int, bug: str | None = None):
        self.threads, self.parallel, self.bug = threads, parallel, bug

    def run(self, program: Program, profile):
        surfaces = surfaces_of(program, profile)  # where its tensors are, from the registers
        memory = loaded_memory(program)
        inputs = {(s.memory, s.base): s for s in surfaces.inputs}
        steps = []
        for step in program.steps:
            surface = inputs.get((getattr(step, "memory", None), getattr(step, "base", None)))
            if isinstance(step, LoadMemory) and step.file == "dlhdl" and surface is not None:
                raw = memory.by_name(surface.memory).read(surface.base, dlhdl.conv_values(
                    surface.shape, self.threads, self.parallel))
                step = replace(step, records=((0, to_nvdla(raw, surface, self.threads, self.parallel)),))
            steps.append(step)
        outcome = Golden().run(Program(program.name, program.path, program.layout, steps, None), profile)
        for index, step in program.regions:
            region = outcome.regions[index].copy()
            for written in outcome.surfaces:
                offset = written.surface.base - step.base
                if written.surface.memory == step.memory and 0 <= offset < step.size:
                    data = to_dlhdl(written.surface, outcome.memory, self.threads, self.parallel)
                    if self.bug == "rows-swapped":  # writes the first two rows of each block in the wrong order
                        data = data.reshape(-1, written.surface.shape[-2], written.surface.shape[-1],
                                            self.parallel)[:, [1, 0, *range(2, written.surface.shape[-2])]]
                    region[offset:offset + data.size] = np.ravel(data)
            outcome.regions[index] = region
        return outcome
