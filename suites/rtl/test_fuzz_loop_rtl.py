"""The fuzzing loop on the fixture RTL (line+toggle coverage build) with a mutant only a rare field value exposes:
FX_BUG_CVT_OFFSET16 (rtl/fixture/nvdla_fixture.v) makes the output convertor read D_CVT_OFFSET's low 16 bits only.
The fixture's generated layers (stimulus/sdp/layers.py, sdp_reg) draw convertor offsets within +-4096, so plain random
layers never reach the bug; the directed loop moves the offset to value classes no run showed, or draws corner-aimed
layers whose convertor is solved for its 17-bit bound with an offset beyond 16 bits, and finds it."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("cocotb")
pytest.importorskip("cocotb_coverage")

from ci.cli import main as cli  # noqa: E402
from ci.fuzzing.candidates import Candidate  # noqa: E402
from golden.config import get_profile  # noqa: E402

SWITCH = "FX_BUG_CVT_OFFSET16"
BUDGET = "14"  # runs of each campaign; the directed one (seed 1) finds the mutant at run 3 (a corners candidate)
OFFSET = "SDP.D_CVT_OFFSET.CVT_OFFSET"


def campaign(out, *extra):
    return cli(["fuzz", "--impl", "rtl", "--seed", "1", "--runs", BUDGET, "--shrink", "0", "--out", str(out), *extra])


def findings(out) -> list[dict]:
    state = json.loads((out / "state.json").read_text())
    return [json.loads((out / "findings" / f"{i}.json").read_text()) for i in state["findings"]]


def test_directed_loop_finds_a_mutant_random_layers_miss(fixture_build, tmp_path, monkeypatch):
    monkeypatch.setenv("NVDLA_RTL_DEFINES", SWITCH)  # this test's own build of the fixture
    directed, random = tmp_path / "directed", tmp_path / "random"
    assert campaign(random) == 0
    assert findings(random) == []
    assert campaign(directed, "--directed", "--compare", str(random)) == 1
    found = findings(directed)
    assert found and found[0]["signature"]["check"] == "scoreboard" and found[0]["signature"]["unit"] == "SDP"

    def signed(value: int) -> int:
        return value - (1 << 32) if value & (1 << 31) else value

    # the bug's trigger, from its definition: an offset the low 16 bits do not hold (moved there by an edit, or
    # drawn there by a corner-aimed candidate solving the convertor for its 17-bit bound)
    layers = Candidate.from_dict(found[0]["candidate"]).draw(get_profile("nv_small"))
    offsets = [signed(int(layer.fields[OFFSET])) for layer in layers if OFFSET in layer.fields]
    assert any(not -(1 << 15) <= offset < 1 << 15 for offset in offsets)
    rows = [json.loads(line) for line in (directed / "runs.jsonl").read_text().splitlines()]
    assert all(r["rtl_total"]["line"][0] > 0 and "u_engine" in r["rtl_units"] for r in rows)
    assert "against random" in (directed / "summary.txt").read_text()
    compared = json.loads((directed / "report.json").read_text())["compare"]
    assert compared["a_findings"] >= 1 and compared["b_findings"] == 0
