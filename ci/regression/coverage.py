"""Functional coverage in the regression: the stimulus covergroups (stimulus/coverage.py, cocotb-coverage)
sampled from every layer the golden model ran for a test, kept as plain hit counts so that they add up
across tests, workers, shards and machines.

    layer_hits(profile, layers) -> ({"group.item": {bin: hits}}, notes)   what these layers add (one test)
    merged_hits(records) -> {profile: {"group.item": {bin: hits}}}          the sum over the passed tests
    reached_by(records) -> {profile: {group: {status}}}                    which tests' layers reached a group
    functional_report(merged, reached) -> {profile: {group: {...}}}        hit rate and holes per covergroup, or
                                                                           why a group without a hit is no hole
    testpoint_coverage(covers, merged) -> {...}                            a testpoint's cover points, judged
    directed_report(planned, functional) -> [{...}]                        per coverage-directed test: what it
                                                                           drew, and its covergroups closed or
                                                                           the holes the run left in them

A bin is named by text (a cross's bin "int8->int8 x MAX"), so counts from any process mean the same. The
bins that exist (holes included) come from the covergroups themselves, built for the profile in this process:
the report needs no state from the workers beyond their counts. Covergroups live in cocotb-coverage's
global database, so each process builds one set per profile and a test's hits are its difference.
"""

from __future__ import annotations

import fnmatch

from golden.config import PROFILES, Profile, get_profile
from golden.status import RecordStatus

_COVERAGES: dict[str, object] = {}


def _coverage(profile: Profile):
    if profile.name not in _COVERAGES:
        from stimulus.coverage import Coverage  # needs cocotb-coverage (the rtl extra)

        _COVERAGES[profile.name] = Coverage(profile)
    return _COVERAGES[profile.name]


def bin_name(value) -> str:
    if isinstance(value, tuple):
        return " x ".join(bin_name(v) for v in value)
    return str(value)


def _items(coverage) -> dict[str, tuple[str, object]]:
    """{"group.item": (group, cocotb-coverage item)} of one Coverage."""
    db = coverage.lib.coverage_db
    return {name.split(".", 1)[1]: (group, db[name]) for group, names in coverage.groups.items() for name in names}


def _counts(coverage) -> dict[str, dict[str, int]]:
    return {key: {bin_name(b): hits for b, hits in item.detailed_coverage.items()}
            for key, (_, item) in _items(coverage).items()}


def layer_hits(profile: Profile, layers) -> tuple[dict[str, dict[str, int]], list[str]]:
    """The bins these hardware layers (golden.hardware.HardwareLayer, as the golden model ran them) hit, with
    how often; a layer whose registers the covergroups cannot decode is named in the notes, not counted."""
    coverage = _coverage(profile)
    before = _counts(coverage)
    notes = []
    for number, layer in enumerate(layers):
        if layer.regs is None:
            continue
        try:
            coverage.sample_run(layer, outcomes=False)
        except Exception as exc:  # coverage must never turn a verdict; say what was not sampled
            notes.append(f"layer {number} ({layer.name}) not sampled: {type(exc).__name__}: {exc}"[:300])
    after = _counts(coverage)
    added = {}
    for key, bins in after.items():
        grown = {b: hits - before[key].get(b, 0) for b, hits in bins.items() if hits > before[key].get(b, 0)}
        if grown:
            added[key] = grown
    return added, notes


def merged_hits(records: list[dict]) -> dict[str, dict[str, dict[str, int]]]:
    """The hit counts of every passed test added up, per profile (a failed layer verified nothing)."""
    merged: dict[str, dict[str, dict[str, int]]] = {}
    for record in sorted(records, key=lambda r: r["id"]):
        if record.get("status") != RecordStatus.PASSED:
            continue
        for profile, items in (record.get("coverage") or {}).items():
            target = merged.setdefault(profile, {})
            for key, bins in items.items():
                counts = target.setdefault(key, {})
                for b, hits in bins.items():
                    counts[b] = counts.get(b, 0) + hits
    return {p: {k: dict(sorted(v.items())) for k, v in sorted(items.items())} for p, items in sorted(merged.items())}


def reached_by(records: list[dict]) -> dict[str, dict[str, set[str]]]:
    """{profile: {covergroup: the statuses of the tests whose golden-model layers hit one of its bins}}: whatever
    their verdict (a skipped test's reference run is sampled too), so that a covergroup no passed test hit can be
    told apart as a hole (a failed test reached it), not applicable (only tests the implementation did not run
    reach it) or not run (no test of the run reaches it)."""
    reached: dict[str, dict[str, set[str]]] = {}
    for record in records:
        for profile, items in (record.get("coverage") or {}).items():
            groups = reached.setdefault(profile, {})
            for key in items:
                groups.setdefault(_group_of(profile, key), set()).add(record.get("status"))
    return reached


def _group_of(profile: str, key: str) -> str:
    known = universe(profile).get(key)
    return known[0] if known else key.split(".", 1)[0]


#: Why a covergroup no passed test hit is not a hole, by how the run's tests reached it (coverage.py reached_by).
NOT_APPLICABLE = "not applicable (only tests the implementation under test did not run reach them)"
NOT_RUN = "not run (no test of the run reaches them)"


def _not_a_hole(statuses: set[str]) -> str:
    """'' when a covergroup without a hit is a hole (a failed or errored test reached it), else why it is not."""
    if not statuses:
        return NOT_RUN
    return NOT_APPLICABLE if statuses <= {RecordStatus.SKIPPED, RecordStatus.NOT_APPLICABLE} else ""


def universe(profile_name: str) -> dict[str, tuple[str, str, list[str]]]:
    """{"group.item": (group, "point" or "cross", bins)} of the profile's covergroups."""
    coverage = _coverage(get_profile(profile_name))
    cross = coverage.lib.CoverCross
    return {key: (group, "cross" if isinstance(item, cross) else "point",
                  [bin_name(b) for b in item.detailed_coverage])
            for key, (group, item) in _items(coverage).items()}


def functional_report(merged: dict, reached: dict | None = None) -> dict:
    """Per profile and covergroup: bins and bins hit of the cover points and of the crosses, the hit rate of
    all of them, and the holes (bins never hit) per cover point. With `reached` (reached_by), a covergroup no
    passed test hit says in "not_run" why it is no hole: not applicable or not run."""
    out: dict[str, dict] = {}
    for profile, hits in merged.items():
        groups: dict[str, dict] = {}
        for key, (group, kind, bins) in universe(profile).items():
            row = groups.setdefault(group, {"point_bins": 0, "point_hit": 0, "cross_bins": 0, "cross_hit": 0,
                                            "holes": {}})
            seen = hits.get(key, {})
            hit = sum(1 for b in bins if seen.get(b, 0) > 0)
            row[f"{kind}_bins"] += len(bins)
            row[f"{kind}_hit"] += hit
            holes = [b for b in bins if seen.get(b, 0) == 0]
            if holes:
                row["holes"][key] = holes
        for group, row in groups.items():
            total = row["point_bins"] + row["cross_bins"]
            row["rate"] = round((row["point_hit"] + row["cross_hit"]) / total, 4) if total else None
            why = _not_a_hole(reached.get(profile, {}).get(group, set())) if reached is not None else ""
            if why and not row["point_hit"] + row["cross_hit"]:
                row["not_run"] = why
        out[profile] = groups
    return out


def matches(entry: str, profile: str, key: str) -> bool:
    """A testplan `covers` entry names cover points: "sdp.BS.alu", "nv_small.sdp.BS.alu", a covergroup or a
    prefix ("pdp", "sdp.BS"), or a glob over either form ("pdp.kernel_*", "nv_small.conv.*")."""
    full = f"{profile}.{key}"
    return (fnmatch.fnmatchcase(key, entry) or fnmatch.fnmatchcase(full, entry)
            or key.startswith(entry + ".") or full.startswith(entry + "."))


def testpoint_coverage(covers: list[str], merged: dict) -> dict | None:
    """The bins of the cover points a testpoint lists, over the profiles the run sampled and the ones its entries
    name ("nv_large.conv" counts nv_large's bins even when no nv_large layer passed), and how many were hit;
    entries that name no cover point of those profiles are listed as unknown."""
    if not covers:
        return None
    named = {entry.split(".", 1)[0] for entry in covers} & set(PROFILES)
    profiles = sorted(set(merged) | named)
    if not profiles:
        return {"bins": 0, "hit": 0, "rate": None, "points": 0, "unknown": [], "note": "nothing sampled"}
    bins = hit = points = 0
    used = set()
    for profile in profiles:
        hits = merged.get(profile, {})
        for key, (_, _, names) in universe(profile).items():
            found = [entry for entry in covers if matches(entry, profile, key)]
            if not found:
                continue
            used.update(found)
            points += 1
            bins += len(names)
            hit += sum(1 for b in names if hits.get(key, {}).get(b, 0) > 0)
    return {"bins": bins, "hit": hit, "rate": round(hit / bins, 4) if bins else None, "points": points,
            "unknown": [entry for entry in covers if entry not in used]}


def known_cover_points(profile_names) -> set[str]:
    """Every "group.item" of the profiles' covergroups (for checking a plan's `covers`)."""
    return {key for name in profile_names for key in universe(name)}


def summary_lines(functional: dict, holes_shown: int = 6, points_shown: int | None = None) -> list[str]:
    """Hit rate per covergroup and its holes: `holes_shown` per cover point, `points_shown` cover points per
    covergroup (None: all; coverage.txt has them all)."""
    lines = []
    aside: dict[str, list[str]] = {}
    for profile, groups in functional.items():
        for group, row in sorted(groups.items()):
            if row.get("not_run"):
                aside.setdefault(row["not_run"], []).append(f"{profile}.{group}")
                continue
            lines.append(f"  {profile}.{group:6} {_rate(row['rate']):>6}  points {row['point_hit']}/"
                         f"{row['point_bins']} bins, crosses {row['cross_hit']}/{row['cross_bins']} bins, "
                         f"{len(row['holes'])} cover points with holes")
            holed = list(row["holes"].items())
            for key, holes in holed[:points_shown]:
                shown = ", ".join(holes[:holes_shown]) + (f" (+{len(holes) - holes_shown})"
                                                          if len(holes) > holes_shown else "")
                lines.append(f"      hole {key}: {shown}")
            if points_shown is not None and len(holed) > points_shown:
                lines.append(f"      ... {len(holed) - points_shown} more cover points with holes")
    return lines + [f"  {why}: {', '.join(names)}" for why, names in aside.items()]


def _rate(rate) -> str:
    return "-" if rate is None else f"{100 * rate:.1f}%"


def directed_report(planned: dict | None, functional: dict) -> list[dict]:
    """Per coverage-directed test of the run (the manifest's `directed`, ci/regression/plan.py): its family,
    traces kept of its budget, draws, and per covergroup its draws reached whether the run's passed tests closed
    it ("closed") or the holes they left (a shard's own report judges only its own tests; the merge, all)."""
    # a covergroup the run does not sample (the arithmetic corners) is shared by the profile's tests drawing it,
    # in plan order: the last one's holes are what they leave together
    drawn = {(found["profile"], group): found["holes_left"] for found in (planned or {}).values()
             for group in found["groups"]}
    rows = []
    for test, found in sorted((planned or {}).items(), key=lambda pair: pair[0]):
        groups = functional.get(found["profile"], {})
        state = {group: ("closed" if group in groups and not groups[group]["holes"] else
                         sum(map(len, groups[group]["holes"].values())) if group in groups else
                         _when_drawn(drawn[found["profile"], group]))
                 for group in found["groups"]}
        rows.append({"test": test, **{k: found[k] for k in ("family", "profile", "traces", "budget", "draws",
                                                            "holes_left")}, "groups": state})
    return rows


def _when_drawn(holes: int | None) -> str:
    return ("closed when drawn" if holes == 0 else f"{holes} holes when drawn") + " (not sampled by the run)"


def directed_lines(rows: list[dict]) -> list[str]:
    if not rows:
        return []
    lines = ["coverage-directed generated tests (traces kept of the budget after draws; their covergroups in this "
             "run):"]
    for row in rows:
        groups = ", ".join(f"{g} {v if isinstance(v, str) else f'{v} holes'}"
                           for g, v in row["groups"].items())
        lines.append(f"  {row['test']:22} {row['profile']}.{row['family']:8} {row['traces']}/{row['budget']} traces "
                     f"after {row['draws']} draws; {groups or 'no covergroup reached'}")
    return lines


def coverage_text(functional: dict, directed: list[dict] | None = None) -> str:
    """The plain-file form: every covergroup's hit rate and every hole, and the coverage-directed tests."""
    lines = ["functional coverage (bins hit by passed tests; holes: bins never hit)"]
    lines += summary_lines(functional, holes_shown=10**6) if functional else ["  nothing sampled"]
    lines += directed_lines(directed or [])
    return "\n".join(lines) + "\n"
