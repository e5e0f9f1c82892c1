"""The DL HDL layout adapter: an implementation that computes with the golden model but keeps its tensors in
the DL HDL Toolbox layout passes NVIDIA's traces through the adapter; with a layout bug it fails naming W/H/C."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ci.implementations.dlhdl import DlhdlAdapter
from golden.config import get_profile
from golden.formats import dlhdl
from golden.implementation import Golden
from scoreboards.verdict import verify
from suites.unit.ci.dlhdl_golden import GoldenInDlhdl

NV_SMALL = get_profile("nv_small")
TRACES = ("sdp_3x3x33_bs_int8_reg_0", "sdp_4x22x42_bypass_int8", "pdp_8x8x64_2x2_int8", "cdp_8x8x32_lrn3_int8_0")


def _adapter(bug=None) -> DlhdlAdapter:
    threads, parallel = dlhdl.geometry(9)
    return DlhdlAdapter(inner=GoldenInDlhdl(threads, parallel, bug), conv_thread_number=9)


@pytest.mark.parametrize("name", TRACES)
def test_a_dlhdl_layout_implementation_passes_through_the_adapter(nvdla_data, name):
    result = verify(nvdla_data / "trace_tests/nv_small" / name, NV_SMALL, _adapter(), Golden())
    assert result.status == "passed", result.detail
    assert result.implementation == "dlhdl:golden-in-dlhdl"


def test_the_adapter_really_converts(nvdla_data):
    """Without the adapter the DL HDL-layout implementation's bytes do not match NVIDIA's CRC."""
    program_path = nvdla_data / "trace_tests/nv_small" / TRACES[0]
    threads, parallel = dlhdl.geometry(9)
    result = verify(program_path, NV_SMALL, GoldenInDlhdl(threads, parallel), Golden())
    assert result.status == "failed"


def test_a_layout_bug_fails_naming_the_first_wrong_elements(nvdla_data):
    result = verify(nvdla_data / "trace_tests/nv_small/pdp_8x8x64_2x2_int8", NV_SMALL, _adapter("rows-swapped"),
                       Golden())
    assert result.status == "failed"
    report = next(r for r in result.reports if not r.ok)
    assert report.unit == "PDP" and report.cube_text() == "W=8 H=8 C=64 int8"
    assert {m["h"] for m in report.first} <= {0, 1} and {"w", "c"} <= set(report.first[0])
    assert "H=0" in result.detail or "H=1" in result.detail


def test_adapters_compose_dlhdl_over_an_external_program(nvdla_data, tmp_path):
    """`dlhdl:command:PROGRAM`: the adapter's rewritten program (its DL HDL loads and wider checks) is what the
    external program receives, as program.json; the golden model in DL HDL layout, in its own process, passes
    every NVIDIA nv_small trace the adapter converts (SDP, PDP and CDP surfaces; a convolution's input is not
    described to it, so those are `unsupported`, as with any DL HDL implementation)."""
    from ci.cli import main

    program = f"{sys.executable} {Path(__file__).with_name('golden_program.py')} --dlhdl 9"
    out = tmp_path / "out.json"
    main(["conform", str(nvdla_data / "trace_tests/nv_small"), "--impl", f"dlhdl:command:{program}", "-j", "2",
          "--json", str(out)])
    results = json.loads(out.read_text())["results"]
    by_status = {status: [r for r in results if r["status"] == status] for status in {r["status"] for r in results}}
    assert not by_status.get("failed") and len(by_status["passed"]) >= 50
    assert all(r["detail"].startswith("missing file") for r in by_status.get("error", []))
    assert all("CONV" in r["detail"] for r in by_status.get("unsupported", []))
