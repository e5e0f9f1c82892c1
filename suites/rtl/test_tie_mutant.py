"""A tie-rounding mutant of the fixture's output convertor: FX_BUG_TIE_POS_TO_ZERO (rtl/fixture/fx_round_shift.v)
drops the term that rounds a positive exact tie away from zero, so x.5 becomes x instead of x + 1; nothing else
changes. Random data almost never puts an exact tie at the convertor (the dropped bits must be exactly one half),
so plain generated layers miss it; layers aimed at the arithmetic corners (stimulus/corner_data.py) put one there
on purpose. The nightly catches it twice: its corner-aimed generated testpoint fails on a mutated build, and the
mutant is in its mutant list (the bench's default set has a corner-aimed trace, rtl/suite.py)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("cocotb")

from golden.implementation import Golden  # noqa: E402
from rtl.build import BuildOptions, build  # noqa: E402
from rtl.implementation import Rtl  # noqa: E402
from scoreboards.verdict import verify  # noqa: E402
from stimulus.corner_data import write_aimed  # noqa: E402
from stimulus.families import write_generated  # noqa: E402
from suites.unit.ci.regress_helpers import regress  # noqa: E402

SWITCH = "FX_BUG_TIE_POS_TO_ZERO"
SEED, BUDGET = 0, 3  # traces of two sdp_reg layers each, plain and aimed


def _statuses(write, implementation, nv_small, folder) -> list[str]:
    return [verify(write("sdp_reg", nv_small, SEED, index, folder, 2), nv_small, implementation, Golden()).status
            for index in range(BUDGET)]


def test_plain_layers_miss_the_tie_mutant_and_aimed_layers_catch_it(fixture_build, nv_small, tmp_path):
    options = BuildOptions(defines=(SWITCH,))
    build(options)
    mutant, clean = Rtl(build_options=options), Rtl()
    assert _statuses(write_generated, mutant, nv_small, tmp_path / "plain") == ["passed"] * BUDGET
    aimed = _statuses(write_aimed, mutant, nv_small, tmp_path / "aimed")
    assert "failed" in aimed and set(aimed) <= {"passed", "failed"}
    # the aimed layers are right: the unchanged fixture agrees with the golden model on every one
    assert _statuses(write_aimed, clean, nv_small, tmp_path / "clean") == ["passed"] * BUDGET


def _records(out) -> dict[str, dict]:
    return {r["id"]: r for r in json.loads((out / "results.json").read_text())["tests"]}


def test_the_nightly_catches_the_tie_mutant(fixture_build, nvdla_data, tmp_path):
    # the nightly's corner-aimed generated testpoint on a mutated build of the fixture
    out = tmp_path / "aimed"
    code = regress("--level", "nightly", "--impl", "rtl", "--seed", "5", "--nvdla-data", str(nvdla_data),
                   "--test", "gen/nv_small/sdp_reg/corners_*", "--shrink", "0", "--out", str(out),
                   env={"NVDLA_RTL_DEFINES": SWITCH})
    records = _records(out)
    assert code == 1 and records
    failed = [r for r in records.values() if r["status"] == "failed"]
    assert failed and all(r["signature"]["check"] == "scoreboard" for r in failed)
    # the nightly's mutant list has it, and the bench's default set catches it
    out = tmp_path / "mutant"
    code = regress("--level", "nightly", "--impl", "rtl", "--seed", "5", "--nvdla-data", str(nvdla_data),
                   "--test", f"mutant/{SWITCH}", "--out", str(out))
    record = _records(out)[f"mutant/{SWITCH}"]
    assert code == 0 and record["verdict"] == "caught", record["detail"]
    assert {c["layer"] for c in record["caught_by"]} == {"corners_sdp_reg_0_0_2l"}
