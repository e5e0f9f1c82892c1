"""The testplan (ci/regression/testplan.hjson) and its expansion into the items of a level: milestones, seeds,
shards."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("hjson")

from ci.regression.plan import DEFAULT_PLAN, PlanError, load_plan, parse_shard, shard  # noqa: E402
from golden.config import get_profile  # noqa: E402
from suites.unit.ci.regress_helpers import write_plan  # noqa: E402

SPEC_DOCUMENTS = ("nvdla-programming-guide.md", "nvdla-in-memory-data-formats.md", "nvdla-precision-preservation.md")


@pytest.fixture(scope="module")
def plan():
    return load_plan(DEFAULT_PLAN)


@pytest.fixture(autouse=True)
def quick_directed(monkeypatch):
    """These tests are about levels, seeds and shards: the directed tests' drawing (a minute of the generators per
    seed; suites/unit/ci/test_regress_directed.py tests it) is replaced by keeping the first three traces."""
    from stimulus import directed

    monkeypatch.setattr(directed, "directed", lambda family, profile, seed, n, *args, **kw: directed.Directed(
        list(range(min(n, 3))), 3, 0, kw.get("coverage")))


def _headings(spec: Path) -> set[str]:
    found = set()
    for doc in SPEC_DOCUMENTS:
        for line in (spec / doc).read_text().splitlines():
            if line.startswith("#"):
                found.add(line.lstrip("#").strip().strip("*").replace("\\_", "_").strip())
    return found


def test_every_testpoint_cites_existing_document_sections(plan, nvdla_data):
    spec = nvdla_data.parent / "spec"
    if not spec.is_dir():
        pytest.skip(f"no design documents at {spec}")
    headings = _headings(spec)
    for tp in plan.testpoints:
        assert any(doc in tp["desc"] for doc in SPEC_DOCUMENTS), tp["name"]
        cited = re.findall(r'"([^"]+)"', tp["desc"])
        assert cited, f"{tp['name']}: no section named"
        for section in cited:
            assert section in headings, f"{tp['name']}: no section {section!r} in {', '.join(SPEC_DOCUMENTS)}"


@pytest.mark.slow
def test_levels_are_cumulative(plan, nvdla_data):
    smoke = {i.id for i in plan.items("smoke", 1, nvdla_data)}
    nightly = {i.id for i in plan.items("nightly", 1, nvdla_data)}
    weekly = {i.id for i in plan.items("weekly", 1, nvdla_data)}
    assert smoke and smoke < nightly <= weekly
    assert {"mutant/FX_BUG_WSTRB", "mutant/FX_BUG_LOST_INTR"} <= nightly - smoke
    assert any(i.startswith("nvidia/nv_large/") for i in nightly) and not any(i.startswith("nvidia/nv_large/")
                                                                              for i in smoke)
    assert len([i for i in weekly if i.startswith("random_sdp/")]) > len([i for i in nightly
                                                                          if i.startswith("random_sdp/")])


def test_a_layer_two_tests_list_runs_once_for_both_testpoints(plan, nvdla_data):
    items = {i.id: i for i in plan.items("nightly", 1, nvdla_data)}
    item = items["nvidia/nv_small/sdp_1x1x1_pass_through_int8"]
    assert set(item.testpoints) == {"sdp_passthrough", "nv_small_conformance"}
    assert items["nvidia/nv_small/sdp_3x3x32_ew_lo_lin_int8"].params["expected_invalid"] == "SDP_EW"


@pytest.mark.slow
def test_per_run_seeds_follow_the_base_seed(plan, nvdla_data):
    def seeds(base):
        return sorted(i.params["seed"] for i in plan.items("nightly", base, nvdla_data)
                      if "fixture_random_sdp_per_run" in i.tests)

    assert seeds(11) == seeds(11)
    assert seeds(11) != seeds(12)
    assert len(seeds(11)) == 16
    smoke_seeds = sorted(i.params["seed"] for i in plan.items("smoke", 99, nvdla_data) if i.kind == "random_sdp")
    assert smoke_seeds == [1, 4, 7, 10]  # the smoke level's random layers are fixed, whatever the base seed


@pytest.mark.slow
def test_generated_families_and_illegal_rules_expand_per_level_and_seed(plan, nvdla_data):
    from golden import rules
    from stimulus import illegal
    from stimulus.families import available

    nightly = [i for i in plan.items("nightly", 3, nvdla_data) if i.kind == "generated"]
    weekly = [i for i in plan.items("weekly", 3, nvdla_data) if i.kind == "generated"]
    small = get_profile("nv_small")
    assert {i.params["family"] for i in nightly} == set(available(small)) - {"bdma"}
    assert all(i.params["profile"] == "nv_small" for i in nightly) and len(weekly) > 2 * len(nightly)
    assert {i.params["profile"] for i in weekly} == {"nv_small", "nv_large", "nv_full"}
    full = {i.params["family"] for i in weekly if i.params["profile"] == "nv_full"}
    assert {"deconv", "bdma", "rubik"} <= full <= set(available(get_profile("nv_full")))
    again = {i.id for i in plan.items("nightly", 3, nvdla_data) if i.kind == "generated"}
    other = {i.id for i in plan.items("nightly", 4, nvdla_data) if i.kind == "generated"}
    assert again == {i.id for i in nightly} and not again & other
    breakable = {r.id for r in rules.all_rules() if r.id in illegal.BREAKERS and illegal.reachable(r.id, small)}
    broken = [i for i in plan.items("nightly", 3, nvdla_data) if i.kind == "illegal"]
    assert {i.params["rule"] for i in broken} >= breakable and len(broken) >= len(breakable)
    assert plan.unavailable("weekly") == []


def test_a_test_marked_unavailable_is_listed_not_run(tmp_path, nvdla_data):
    path = write_plan(tmp_path / "plan.hjson", '{"name": "g", "kind": "generated", "family": "nope", "seeds": '
                      '"per_run", "available": false}', '{"name": "p", "stage": "smoke", "desc": "d", "tests": ["g"]}')
    plan = load_plan(path)
    assert plan.unavailable("smoke") == ["g"] and plan.items("smoke", 1, nvdla_data) == []


@pytest.mark.parametrize("total", [1, 2, 3, 4, 7])
def test_shards_partition_the_items_the_same_way_every_time(plan, nvdla_data, total):
    items = plan.items("nightly", 5, nvdla_data)
    parts = [shard(list(reversed(items)), index, total) for index in range(1, total + 1)]
    ids = [i.id for part in parts for i in part]
    assert sorted(ids) == sorted(i.id for i in items) and len(ids) == len(set(ids))
    assert max(map(len, parts)) - min(map(len, parts)) <= 1
    assert [i.id for i in shard(items, 1, total)] == [i.id for i in parts[0]]


@pytest.mark.parametrize("text", ["0/4", "5/4", "x", "1/0", "2"])
def test_a_bad_shard_is_one_error(text):
    with pytest.raises(PlanError, match="--shard"):
        parse_shard(text)


@pytest.mark.parametrize("tests, points, message", [
    ('{"name": "a", "kind": "nvidia_traces"}', '{"name": "p", "stage": "smoke", "desc": "d", "tests": ["a"]}',
     "test a: a nvidia_traces test needs 'glob'"),
    ('{"name": "a", "kind": "magic"}', '{"name": "p", "stage": "smoke", "desc": "d", "tests": ["a"]}',
     "test a: kind 'magic'"),
    ('{"name": "a", "kind": "generated", "family": "magic", "seeds": "per_run"}',
     '{"name": "p", "stage": "smoke", "desc": "d", "tests": ["a"]}', "family 'magic' is none of nv_small's"),
    ('{"name": "a", "kind": "generated", "family": "rubik", "seeds": "per_run"}',
     '{"name": "p", "stage": "smoke", "desc": "d", "tests": ["a"]}', "family 'rubik' is none of nv_small's"),
    ('{"name": "a", "kind": "generated", "family": "sdp_reg", "seeds": "per_run", "corners": "yes"}',
     '{"name": "p", "stage": "smoke", "desc": "d", "tests": ["a"]}', "corners must be true or false"),
    ('{"name": "a", "kind": "generated", "family": "bdma", "profile": "nv_full", "seeds": "per_run", "corners": true}',
     '{"name": "p", "stage": "smoke", "desc": "d", "tests": ["a"]}', "family 'bdma' has no corner aimer"),
    ('{"name": "a", "kind": "illegal", "seeds": "fixed"}',
     '{"name": "p", "stage": "smoke", "desc": "d", "tests": ["a"]}', "needs a fixed_seeds list"),
    ('{"name": "a", "kind": "mutants", "switches": "*"}',
     '{"name": "p", "stage": "daily", "desc": "d", "tests": ["a"]}',
     "testpoint p: milestone 'daily'"),
    ('{"name": "a", "kind": "mutants", "switches": "*"}',
     '{"name": "p", "milestone": "daily", "desc": "d", "tests": ["a"]}',
     "testpoint p: milestone 'daily'"),
    ('{"name": "a", "kind": "mutants", "switches": "*"}',
     '{"name": "p", "milestone": "smoke", "stage": "smoke", "desc": "d", "tests": ["a"]}',
     "both 'milestone' and its old name 'stage'"),
    ('{"name": "a", "kind": "mutants", "switches": "*"}',
     '{"name": "p", "stage": "smoke", "desc": "d", "tests": ["b"]}',
     "testpoint p: test 'b' is not defined"),
])
def test_a_bad_plan_is_one_error_naming_the_entry(tmp_path, tests, points, message):
    path = write_plan(tmp_path / "plan.hjson", tests, points)
    with pytest.raises(PlanError, match=message):
        load_plan(path)


def test_the_mutants_are_the_bug_switches_of_the_fixture_source(tmp_path):
    from ci.regression.kinds.mutants import fixture_bug_switches

    (tmp_path / "a.v").write_text("`ifdef FX_BUG_ONE\n  x\n`endif\n`ifndef  FX_BUG_TWO\n`endif\n// FX_BUG_NOT\n")
    (tmp_path / "b.v").write_text("`ifdef FX_BUG_ONE\n`endif\n")
    assert fixture_bug_switches(tmp_path) == ["FX_BUG_ONE", "FX_BUG_TWO"]


def test_every_cover_point_the_plan_lists_exists(plan):
    pytest.importorskip("cocotb_coverage")
    from ci.regression.coverage import known_cover_points, matches
    from golden.config import PROFILES

    profiles = sorted(PROFILES)
    known = {(p, key) for p in profiles for key in known_cover_points([p])}
    for tp in plan.testpoints:
        for entry in tp["covers"]:
            assert any(matches(entry, p, key) for p, key in known), f"{tp['name']}: {entry} names no cover point"


def test_a_cover_entry_names_points_groups_prefixes_and_globs():
    from ci.regression.coverage import matches

    assert matches("sdp.BS.alu", "nv_small", "sdp.BS.alu") and matches("nv_small.sdp.BS.alu", "nv_small", "sdp.BS.alu")
    assert matches("sdp", "nv_large", "sdp.width") and matches("nv_small.pdp", "nv_small", "pdp.kernel_w")
    assert matches("pdp.kernel_*", "nv_small", "pdp.kernel_h") and not matches("pdp.kernel_*", "nv_small", "pdp.pad")
    assert not matches("nv_small.sdp", "nv_large", "sdp.width") and not matches("sd", "nv_small", "sdp.width")


def test_the_nightly_has_corner_aimed_sdp_layers_and_the_tie_mutant(plan, nvdla_data):
    nightly = plan.items("nightly", 3, nvdla_data)
    aimed = [i for i in nightly if i.params.get("corners")]
    assert {i.params["family"] for i in aimed} == {"sdp_reg", "pdp", "cdp", "conv"}
    assert all(i.id.startswith(f"gen/nv_small/{i.params['family']}/corners_s") and i.params["directed"] for i in aimed)
    assert not [i for i in plan.items("smoke", 3, nvdla_data) if i.params.get("corners")]
    assert "mutant/FX_BUG_TIE_POS_TO_ZERO" in {i.id for i in nightly}


def test_a_plan_written_before_the_rename_reads_as_one_with_milestones(tmp_path):
    old = load_plan(write_plan(tmp_path / "old.hjson", '{"name": "a", "kind": "mutants", "switches": "*"}',
                               '{"name": "p", "stage": "nightly", "desc": "d", "tests": ["a"]}'))
    new = load_plan(write_plan(tmp_path / "new.hjson", '{"name": "a", "kind": "mutants", "switches": "*"}',
                               '{"name": "p", "milestone": "nightly", "desc": "d", "tests": ["a"]}'))
    assert old.testpoints == new.testpoints and old.testpoints[0]["milestone"] == "nightly"
    assert old.testpoints_for("smoke") == [] == new.testpoints_for("smoke")
