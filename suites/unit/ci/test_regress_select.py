"""regress --test draws only what it selects: a selection of NVIDIA's traces draws no directed test, a selection of
one directed test draws it and the tests it draws after on the same coverage, and the items it keeps are the ones
the whole plan has."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("hjson")
pytest.importorskip("cocotb_coverage")

from ci.regression.plan import load_plan  # noqa: E402
from suites.unit.ci.regress_helpers import data_root, regress, write_plan  # noqa: E402

TESTS = """
    {"name": "traces", "kind": "nvidia_traces", "glob": ["trace_tests/nv_small/sdp_1x1x1_*/*.cfg"]}
    {"name": "first_reg", "kind": "generated", "family": "sdp_reg", "seeds": "per_run", "directed": true,
     "patience": 4, "count": {"nightly": 3}}
    {"name": "then_sdp", "kind": "generated", "family": "sdp", "seeds": "per_run", "directed": true,
     "patience": 4, "count": {"nightly": 3}}
    {"name": "aimed", "kind": "generated", "family": "sdp_reg", "seeds": "per_run", "directed": true, "corners": true,
     "patience": 2, "count": {"nightly": 1}}
"""
POINTS = '{"name": "p", "stage": "nightly", "desc": "d", "tests": ["traces", "first_reg", "then_sdp", "aimed"]}'


@pytest.fixture
def plan_path(tmp_path):
    return write_plan(tmp_path / "plan.hjson", TESTS, POINTS)


@pytest.fixture
def drawn(monkeypatch):
    """The families each directed drawing of the test drew, in order."""
    from stimulus import directed

    families, real = [], directed.directed

    def counting(family, *args, **kwargs):
        families.append((family, bool(kwargs.get("corners"))))
        return real(family, *args, **kwargs)

    monkeypatch.setattr(directed, "directed", counting)
    return families


def test_a_selection_of_nvidia_traces_draws_no_directed_test(plan_path, nvdla_data, drawn):
    items = load_plan(plan_path).items("nightly", 11, nvdla_data, select=["nvidia/nv_small/*"])
    assert items and all(i.id.startswith("nvidia/nv_small/sdp_") for i in items)
    assert drawn == []


def test_a_selected_directed_test_is_drawn_after_the_ones_before_it_and_keeps_the_same_items(plan_path, nvdla_data,
                                                                                                drawn):
    whole = load_plan(plan_path).items("nightly", 11, nvdla_data)
    assert drawn == [("sdp_reg", False), ("sdp", False), ("sdp_reg", True)]
    wanted = [i for i in whole if i.tests == ("then_sdp",)]
    assert wanted
    drawn.clear()
    selected = load_plan(plan_path).items("nightly", 11, nvdla_data, select=[wanted[-1].id])
    assert [(i.id, i.params) for i in selected] == [(wanted[-1].id, wanted[-1].params)]
    # then_sdp closes what first_reg left on the same coverage: first_reg is drawn first; the corner test is not
    assert drawn == [("sdp_reg", False), ("sdp", False)]


def test_a_selection_of_the_first_directed_test_draws_only_it(plan_path, nvdla_data, drawn):
    plan = load_plan(plan_path)
    items = plan.items("nightly", 11, nvdla_data, select=["gen/nv_small/sdp_reg/s*"])
    assert items and {i.tests for i in items} == {("first_reg",)}
    assert drawn == [("sdp_reg", False)]
    assert set(plan.directed("nightly", 11, select=["gen/nv_small/sdp_reg/s*"])) == {"first_reg"}


def test_regress_with_a_test_selection_runs_it_without_drawing(plan_path, nvdla_data, tmp_path, drawn):
    data = data_root(nvdla_data, tmp_path / "data", ("sdp_1x1x1_pass_through_int8",))
    out = tmp_path / "out"
    assert regress("--plan", str(plan_path), "--level", "nightly", "--impl", "golden", "--seed", "11",
                   "--nvdla-data", str(data), "--test", "nvidia/*", "-j", "1", "--out", str(out)) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert [i["id"] for i in manifest["items"]] == ["nvidia/nv_small/sdp_1x1x1_pass_through_int8"]
    assert manifest["directed"] == {} and drawn == []


def test_a_pattern_that_selects_nothing_is_one_error_and_draws_nothing(plan_path, nvdla_data, tmp_path, drawn,
                                                                       capsys):
    data = data_root(nvdla_data, tmp_path / "data", ("sdp_1x1x1_pass_through_int8",))
    assert regress("--plan", str(plan_path), "--level", "nightly", "--impl", "golden", "--seed", "11",
                   "--nvdla-data", str(data), "--test", "gen/nv_large/*", "--out", str(tmp_path / "out")) == 2
    assert "--test 'gen/nv_large/*' matches none of the tests of level nightly" in capsys.readouterr().err
    assert drawn == []
