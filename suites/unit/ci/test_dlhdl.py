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
from golden.trace import find_traces
from scoreboards.verdict import verify
from suites.unit.ci.dlhdl_golden import GoldenInDlhdl
from suites.unit.ci.in_process_command import InProcessCommand

NV_SMALL = get_profile("nv_small")
TRACES = ("sdp_3x3x33_bs_int8_reg_0", "sdp_4x22x42_bypass_int8", "pdp_8x8x64_2x2_int8", "cdp_8x8x32_lrn3_int8_0")
CONVOLUTION = "dc_1x1x8_1x1x8x1_int8_0"


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


def _by_status(results: list[dict]) -> dict[str, list[dict]]:
    """Results grouped by status, checked as a DL HDL implementation's must be: none failed, errors only for a
    missing input file, `unsupported` only for a convolution (its input is not described to a DL HDL one)."""
    by_status = {status: [r for r in results if r["status"] == status] for status in {r["status"] for r in results}}
    assert not by_status.get("failed"), by_status["failed"]
    assert all(r["detail"].startswith("missing file") for r in by_status.get("error", []))
    assert all("CONV" in r["detail"] for r in by_status.get("unsupported", []))
    return by_status


def test_adapters_compose_dlhdl_over_an_external_program(nvdla_data, tmp_path):
    """`dlhdl:command:PROGRAM`: the adapter's rewritten program (its DL HDL loads and wider checks) is what the
    external program receives, as program.json; the golden model in DL HDL layout, in its own process, passes
    an SDP, PDP and CDP trace and calls a convolution `unsupported`. Every nv_small trace: the last test, the
    program called in this process (one process start per trace cost a minute and a half)."""
    from ci.cli import main

    program = f"{sys.executable} {Path(__file__).with_name('golden_program.py')} --dlhdl 9"
    out = tmp_path / "out.json"
    main(["conform", str(nvdla_data / "trace_tests/nv_small"), *(w for t in (*TRACES, CONVOLUTION) for w in ("-k", t)),
          "--impl", f"dlhdl:command:{program}", "-j", "2", "--json", str(out)])
    by_status = _by_status(json.loads(out.read_text())["results"])
    assert {r["name"] for r in by_status["passed"]} == set(TRACES)
    assert [r["name"] for r in by_status["unsupported"]] == [CONVOLUTION]


@pytest.mark.slow
def test_every_nv_small_trace_passes_through_the_adapter_and_the_file_protocol(nvdla_data):
    """Every NVIDIA nv_small trace the adapter converts (SDP, PDP and CDP surfaces) passes on the golden model in
    DL HDL layout behind `dlhdl:command:`, the program called in this process (suites/unit/ci/in_process_command.py):
    the adapter's rewritten program, request and region files go through the file protocol as above."""
    program = f"{sys.executable} {Path(__file__).with_name('golden_program.py')} --dlhdl 9"
    adapter = DlhdlAdapter(inner=InProcessCommand(program), conv_thread_number=9)
    results = []
    for path in find_traces(nvdla_data / "trace_tests/nv_small"):
        result = verify(path, NV_SMALL, adapter, Golden())
        results.append({"name": result.name, "status": result.status, "detail": result.detail})
    assert len(_by_status(results)["passed"]) >= 50
