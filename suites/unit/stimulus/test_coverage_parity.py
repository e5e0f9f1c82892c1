"""stimulus/coverage_parity.json: NVIDIA's cover points and crosses mapped to the project's covergroups.

Every project name the table gives exists in the covergroups of the profiles that have its feature (and in no
other), each unit lists as many NVIDIA entries as its recorded counts, and the units the table calls closed
have no "missing" entry.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("cocotb_coverage")

from golden.config import get_profile  # noqa: E402
from stimulus.coverage import Coverage  # noqa: E402

TABLE = Path(__file__).resolve().parents[3] / "stimulus" / "coverage_parity.json"
#: Units whose every NVIDIA cover point and cross has a project counterpart (issue 31).
CLOSED = {"pdp", "cdp", "rubik", "sdp", "bdma", "conv"}


def _table() -> dict:
    return json.loads(TABLE.read_text())


def _requirement_met(requirement: str | list | None, profile) -> bool:
    """Whether the profile has what `project_requires` names (the table's own vocabulary; a list: all of them)."""
    if isinstance(requirement, list):
        return all(_requirement_met(r, profile) for r in requirement)
    met = {
        None: True,
        "fp16": "fp16" in profile.feature_types,
        "above_32bit_addresses": profile.mem_address_width > 32,
        "sdp_bs": profile.sdp_bs,
        "sdp_bn": profile.sdp_bn,
        "sdp_ew": profile.sdp_ew,
        "sdp_lut": profile.sdp_lut and profile.sdp_ew,
        "rubik": profile.rubik,
        "bdma": profile.bdma,
        "int16": "int16" in profile.feature_types,
        "winograd": profile.winograd,
        "weight_compression": profile.weight_compression,
    }
    assert requirement in met, f"unknown project_requires {requirement!r}"
    return met[requirement]


def _mapped(table):
    for unit, data in table["units"].items():
        for entry in data["entries"]:
            if entry["project"] != "missing":
                yield unit, entry


@pytest.mark.parametrize("profile_name", ["nv_full", "nv_small"])
def test_every_project_name_in_the_table_is_a_cover_point_of_the_profile(profile_name):
    profile = get_profile(profile_name)
    coverage = Coverage(profile, prefix=f"parity_{profile_name}")
    names = {name.split(".", 1)[1] for items in coverage.groups.values() for name in items}
    absent, unexpected = [], []
    for unit, entry in _mapped(_table()):
        wanted = _requirement_met(entry.get("project_requires"), profile)
        if wanted and entry["project"] not in names:
            absent.append((unit, entry["name"], entry["project"]))
        if not wanted and entry["project"] in names:
            unexpected.append((unit, entry["name"], entry["project"], entry["project_requires"]))
    assert not absent, f"{profile_name} lacks cover points the table names: {absent}"
    assert not unexpected, f"{profile_name} has cover points the table says it lacks: {unexpected}"


def test_both_profiles_between_them_have_every_feature_the_table_names():
    """nv_small lacks fp16, wide addresses, BDMA and Rubik, nv_full has them: each requirement is checked both
    ways."""
    requirements = set()
    for _, entry in _mapped(_table()):
        requirement = entry.get("project_requires")
        requirements.update(requirement if isinstance(requirement, list) else [requirement])
    full, small = get_profile("nv_full"), get_profile("nv_small")
    assert all(_requirement_met(r, full) for r in requirements)
    assert {r for r in requirements if not _requirement_met(r, small)} >= {"fp16", "above_32bit_addresses", "rubik",
                                                                           "bdma", "int16", "winograd",
                                                                           "weight_compression"}


def test_each_unit_lists_as_many_nvidia_entries_as_it_records():
    table = _table()
    assert set(table["units"]) == {"bdma", "cdp", "conv", "pdp", "rubik", "sdp"}
    for unit, data in table["units"].items():
        entries = data["entries"]
        points = [e for e in entries if e["kind"] == "point"]
        crosses = [e for e in entries if e["kind"] == "cross"]
        assert len(points) + len(crosses) == len(entries), unit
        assert (len(points), len(crosses)) == (data["nvidia_points"], data["nvidia_crosses"]), unit
        keys = [(e["covergroup"], e["name"]) for e in entries]
        assert len(keys) == len(set(keys)), f"{unit}: an NVIDIA entry is listed twice"
        assert {e["covergroup"] for e in entries} == set(data["nvidia_covergroups"]), unit
        for entry in entries:
            assert entry["meaning"].strip(), (unit, entry["name"])
            if entry["project"] == "missing":
                assert entry.get("note", "").strip(), f"{unit}.{entry['name']}: a missing entry needs a note"
    totals = [sum(d[k] for d in table["units"].values()) for k in ("nvidia_points", "nvidia_crosses")]
    assert totals == [293, 159]


def test_closed_units_have_no_missing_entry():
    table = _table()
    assert {unit for unit, data in table["units"].items() if data["status"] == "closed"} == CLOSED
    for unit in CLOSED:
        missing = [e["name"] for e in table["units"][unit]["entries"] if e["project"] == "missing"]
        assert not missing, f"{unit} is closed but maps nothing to {missing}"
        # a unit's own groups: sdp also has sdp_flying (its on-the-fly half comes from the convolution pipeline)
        groups = (unit, f"{unit}_flying")
        assert all(e["project"].split(".")[0] in groups for e in table["units"][unit]["entries"]), unit


def _closed(coverage, group: str) -> list:
    return [(name.split(".", 1)[1], holes) for name, _, holes in coverage.items(group) if holes]


@pytest.mark.parametrize("profile_name", ["nv_small", "nv_full"])
@pytest.mark.slow
def test_coverage_directed_generation_closes_every_sdp_and_bdma_bin(profile_name):
    """`generate --unit sdp --coverage-directed` closes the sdp group but for the bins only other families reach:
    SDP output to PDP (the sdp_pdp family) and SDP on the fly (sdp_flying's "on" half: the conv family); drawing
    those families on the same coverage closes the rest. BDMA closes alone with two-layer traces (group 1 is the
    second layer's). Excluded bins (cross ignores, bins a profile lacks) are not bins here. About 25 s."""
    from stimulus.directed import directed
    from stimulus.families import layers

    profile = get_profile(profile_name)
    found = directed("sdp", profile, 0, 200, 300)
    coverage = found.coverage
    assert _closed(coverage, "sdp") == [("sdp.output", ["PDP"])]
    on_the_fly_only = {"sdp_flying.flying": {"on"}, "sdp_flying.winograd": {"on"}, "sdp_flying.batches": {"2-4", "5+",
                                                                                                   "max"}}
    for name, holes in _closed(coverage, "sdp_flying"):
        assert all(h[1] == "on" for h in holes) if name.endswith("_x_flying") else set(holes) <= on_the_fly_only[name]
    for index in range(200):
        if not _closed(coverage, "sdp") and not _closed(coverage, "sdp_flying"):
            break
        for family in ("sdp_pdp", "conv"):
            for layer in layers(family, profile, 0, index):
                coverage.sample_layer(layer)
    assert not _closed(coverage, "sdp") and not _closed(coverage, "sdp_flying")
    if profile.bdma:
        bdma = directed("bdma", profile, 0, 200, 300, 2)
        assert bdma.holes == 0, _closed(bdma.coverage, "bdma")
