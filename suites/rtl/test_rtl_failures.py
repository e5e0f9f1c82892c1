"""A misbehaving DUT or simulator ends that layer with a named result and the run goes on."""

from __future__ import annotations

import pytest

pytest.importorskip("cocotb")  # rtl/build.py and rtl/runner.py import it (the `rtl` extra)

import rtl.runner  # noqa: E402
from golden.implementation import Golden  # noqa: E402
from rtl.build import BuildOptions  # noqa: E402
from rtl.implementation import Rtl  # noqa: E402
from rtl.suite import nvidia_trace  # noqa: E402
from scoreboards.verdict import verify  # noqa: E402
from stimulus.sdp.fixture import write_random_trace  # noqa: E402


def test_a_lost_interrupt_fails_its_layer_and_the_next_layers_run(fixture_build, nv_small, tmp_path):
    lost = Rtl(build_options=BuildOptions(defines=("FX_BUG_LOST_INTR",)))  # group 1's SDP done never raised
    traces = [nvidia_trace("sdp_3x3x33_bs_int8_reg_0"), write_random_trace(tmp_path, 7, 2),
              nvidia_trace("sdp_4x22x42_bypass_int8")]
    results = [verify(trace, nv_small, lost, Golden()) for trace in traces]
    assert [r.status for r in results] == ["passed", "failed", "passed"], [r.detail for r in results]
    assert results[1].detail.startswith("the implementation hung: ") and "no interrupt for" in results[1].detail


def test_a_simulator_that_dies_is_one_error_and_the_next_layer_runs(fixture_build, nv_small, monkeypatch):
    healthy = rtl.runner.simulation_env

    def broken(toplevel, job_path):
        env = healthy(toplevel, job_path)
        env["GPI_USERS"] = "/nonexistent/libpython.so;nowhere:entry"  # the simulator cannot start Python
        return env

    monkeypatch.setattr(rtl.runner, "simulation_env", broken)
    dead = verify(nvidia_trace("sdp_3x3x33_bs_int8_reg_0"), nv_small, Rtl(), Golden())
    assert dead.status == "error" and "the simulation wrote no result" in dead.detail
    monkeypatch.setattr(rtl.runner, "simulation_env", healthy)
    assert verify(nvidia_trace("sdp_4x22x42_bypass_int8"), nv_small, Rtl(), Golden()).status == "passed"
