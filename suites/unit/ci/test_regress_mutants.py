"""A fixture mutant's verdict (ci/regression/engine.py): caught when a layer fails a check or a bench check stops
it, survived when every layer passes, an error (not a catch) when the simulator never started. The bench is
replaced by stand-ins here; the nightly level runs the real mutants."""

from __future__ import annotations

import sys
import types

import pytest

from ci.regression import engine
from ci.regression.engine import Settings
from ci.regression.item import Item
from ci.regression.items import run_item
from golden.settings import RtlSettings
from golden.settings import Settings as Decided
from golden.verdict import TraceResult

LAYERS = ("sdp_1x1x1_pass_through_int8", "sdp_8x8x32_bypass_int8_0")


@pytest.fixture
def fake_bench(monkeypatch, nvdla_data):
    build = types.ModuleType("rtl.build")
    build.BuildOptions = types.SimpleNamespace(from_settings=lambda rtl: rtl.defines)
    build.build = lambda options: None
    implementation = types.ModuleType("rtl.implementation")
    implementation.Rtl = lambda build_options=None, settings=None: types.SimpleNamespace(name="rtl",
                                                                                         settings=settings)
    suite = types.ModuleType("rtl.suite")
    suite.DATA_ROOT = nvdla_data
    suite.default_layers = lambda folder, data: [(n, data / "trace_tests" / "nv_small" / n) for n in LAYERS]
    for name, module in (("rtl.build", build), ("rtl.implementation", implementation), ("rtl.suite", suite)):
        monkeypatch.setitem(sys.modules, name, module)

    def outcomes(verdicts: dict[str, tuple[str, str]]):
        def play(path, profile, impl, ref, scale, implementation=None, settings=None):
            # the mutant is the fixture with the item's switch, played with the run's bench settings
            assert implementation.settings.rtl.defines == ("FX_BUG_X",) and implementation.settings.rtl.axi_pause == 0.2
            status, detail = verdicts.get(path.stem, ("passed", ""))
            return TraceResult(path.stem, "nv_small", status, detail, implementation="rtl")
        monkeypatch.setattr(engine, "play_layer", play)
    return outcomes


def _run(tmp_path):
    item = Item("mutant/FX_BUG_X", "mutants", {"switch": "FX_BUG_X", "profile": "nv_small"})
    decided = Decided(RtlSettings(filelist="/x/files.f", top="NV_nvdla", axi_pause=0.2))
    return run_item(item, Settings(impl="rtl", work=tmp_path / "work", decided=decided)).record.to_json()


def test_a_failed_check_or_a_bench_check_catches_the_mutant(fake_bench, tmp_path):
    fake_bench({"sdp_8x8x32_bypass_int8_0": ("error", "the simulation wrote no result: CsbTimeout: no CSB response")})
    record = _run(tmp_path)
    assert record["status"] == "passed" and record["verdict"] == "caught"
    assert [c["layer"] for c in record["caught_by"]] == ["sdp_8x8x32_bypass_int8_0"]


def test_a_mutant_every_layer_passes_survives(fake_bench, tmp_path):
    fake_bench({})
    record = _run(tmp_path)
    assert record["status"] == "failed" and record["verdict"] == "survived"


def test_a_simulator_that_never_started_is_an_error_not_a_catch(fake_bench, tmp_path):
    broken = ("error", "the simulation wrote no result: ERROR gpi in gpi_load_users No GPI_USERS specified")
    fake_bench({name: broken for name in LAYERS})
    record = _run(tmp_path)
    assert record["status"] == "error" and record["verdict"] == "errored"
    assert record["signature"]["check"] == "mutant run"
