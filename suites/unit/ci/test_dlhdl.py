"""The DL HDL layout adapter: an implementation that computes with the golden model but keeps its tensors in
the DL HDL Toolbox layout passes NVIDIA's traces through the adapter; with a layout bug it fails naming W/H/C."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from ci.conformance import run_trace
from ci.implementations.dlhdl import DlhdlAdapter, loaded_memory, surfaces_of, to_dlhdl, to_nvdla
from golden.config import get_profile
from golden.formats import dlhdl
from golden.implementation import Golden
from golden.steps import LoadMemory, Program

NV_SMALL = get_profile("nv_small")
TRACES = ("sdp_3x3x33_bs_int8_reg_0", "sdp_4x22x42_bypass_int8", "pdp_8x8x64_2x2_int8", "cdp_8x8x32_lrn3_int8_0")


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
        outcome = Golden().run(Program(program.name, program.path, program.layout, steps, program.trace), profile)
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


def _adapter(bug=None) -> DlhdlAdapter:
    threads, parallel = dlhdl.geometry(9)
    return DlhdlAdapter(inner=GoldenInDlhdl(threads, parallel, bug), conv_thread_number=9)


@pytest.mark.parametrize("name", TRACES)
def test_a_dlhdl_layout_implementation_passes_through_the_adapter(nvdla_data, name):
    result = run_trace(nvdla_data / "trace_tests/nv_small" / name, NV_SMALL, _adapter(), Golden())
    assert result.status == "passed", result.detail
    assert result.implementation == "dlhdl:golden-in-dlhdl"


def test_the_adapter_really_converts(nvdla_data):
    """Without the adapter the DL HDL-layout implementation's bytes do not match NVIDIA's CRC."""
    program_path = nvdla_data / "trace_tests/nv_small" / TRACES[0]
    threads, parallel = dlhdl.geometry(9)
    result = run_trace(program_path, NV_SMALL, GoldenInDlhdl(threads, parallel), Golden())
    assert result.status == "failed"


def test_a_layout_bug_fails_naming_the_first_wrong_elements(nvdla_data):
    result = run_trace(nvdla_data / "trace_tests/nv_small/pdp_8x8x64_2x2_int8", NV_SMALL, _adapter("rows-swapped"),
                       Golden())
    assert result.status == "failed"
    report = next(r for r in result.reports if not r.ok)
    assert report.unit == "PDP" and report.cube_text() == "W=8 H=8 C=64 int8"
    assert {m["h"] for m in report.first} <= {0, 1} and {"w", "c"} <= set(report.first[0])
    assert "H=0" in result.detail or "H=1" in result.detail
