"""Coverage-directed drawing: draw the traces of a family until its covergroups' holes stop shrinking, keeping
only the traces that closed a hole (`nvdla-verif generate --coverage-directed`, `nvdla-verif suite build`, and
the regression's generated tests that say `directed`).

    directed(family, profile, seed, n, patience, count) -> Directed(indices, draws, holes)
    directed(..., touched=True, coverage=C)   every covergroup the draws reach counts (whatever covergroups
                                  exist), drawing stops once they are all closed; C: a Coverage to start from
                                  (the regression directs a profile's families one after another on one)

The same family, profile, seed and limits give the same indices: the draws and the sampling are deterministic.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass, field

from golden.config import Profile
from stimulus.corner_data import aimed_layers
from stimulus.corners import GROUP, CornerCoverage
from stimulus.coverage import Coverage
from stimulus.families import covergroups
from stimulus.families import layers as draw

_PREFIXES = itertools.count()


def most_draws(n: int, patience: int) -> int:
    """How many traces a directed drawing of at most `n` kept with `patience` may draw: every index it keeps is
    below this (ci/regression/kinds/generated.py names a test's possible items from it without drawing)."""
    return n * patience


@dataclass
class Directed:
    indices: list[int]  # the trace indices (of `seed`) that closed a hole, in drawing order
    draws: int  # traces drawn
    holes: int  # holes left in the family's covergroup (touched: in the covergroups its draws reached)
    coverage: object  # stimulus.coverage.Coverage, for reports
    groups: list[str] = field(default_factory=list)  # the covergroups that counted

    def open_bins(self) -> dict[str, list[str]]:
        """{"group.item": [bins never hit]} of the covergroups that counted."""
        return {name.split(".", 1)[1]: [str(b) for b in found] for group in self.groups
                for name, _, found in self.coverage.items(group) if found}


def holes(coverage, group: str) -> int:
    return sum(len(found) for _, _, found in coverage.items(group))


def _hit(coverage, group: str) -> int:
    db = coverage.lib.coverage_db
    return sum(1 for name in coverage.groups.get(group, []) for hits in db[name].detailed_coverage.values()
               if hits >= 1)


def new_coverage(profile: Profile, name: str):
    """An empty Coverage of the profile, with a name of its own in cocotb-coverage's global database (a second
    run in this process starts from nothing)."""
    return Coverage(profile, prefix=f"directed_{name}_{os.getpid()}_{next(_PREFIXES)}")


def new_corner_coverage(profile: Profile, name: str):
    """An empty arithmetic corner coverage (stimulus/corners.py) of the profile, named as new_coverage's."""
    return CornerCoverage(profile, prefix=f"directed_{name}_{os.getpid()}_{next(_PREFIXES)}")


def directed(family: str, profile: Profile, seed: int, n: int, patience: int, count: int = 1,
             corners: bool = False, touched: bool = False, coverage=None) -> Directed:
    """At most `n` trace indices of `count` layers each that closed a hole of the family's covergroup; drawing
    stops after `patience` draws in a row closed none. With `corners`: the arithmetic corner covergroup
    (stimulus/corners.py) over corner-aimed draws (stimulus/corner_data.py), each run on the golden model (on
    `coverage`, a CornerCoverage, if given). With
    `touched`, the first draw and then each draw that hits a bin not hit before in any covergroup are kept, the
    holes counted are those of every covergroup hit at all (by these draws or, with `coverage`, before them), and
    drawing also stops when those are all closed."""
    if corners:
        coverage, group = coverage or new_corner_coverage(profile, f"{family}_{seed}"), GROUP
    else:
        coverage = coverage or new_coverage(profile, f"{family}_{seed}")
        if touched:
            return _touched(family, profile, seed, n, patience, count, coverage)
        group = covergroups()[family]
    left, idle, chosen, index = holes(coverage, group), 0, [], 0
    while idle < patience and index < most_draws(n, patience):
        if corners:  # the corner covergroup samples a golden run of the layers together
            coverage.sample_layers(aimed_layers(family, profile, seed, index, count))
        else:
            for layer in draw(family, profile, seed, index, count):
                coverage.sample_layer(layer)
        now = holes(coverage, group)
        if now < left:
            chosen.append(index)
            left, idle = now, 0
            if len(chosen) >= n or left == 0:
                break
        else:
            idle += 1
        index += 1
    return Directed(chosen, index + 1, left, coverage, [group])


def _touched(family: str, profile: Profile, seed: int, n: int, patience: int, count: int, coverage) -> Directed:
    idle, chosen, index = 0, [], 0
    hit = sum(_hit(coverage, group) for group in coverage.groups)
    reached = [group for group in coverage.groups if _hit(coverage, group)]
    while idle < patience and index < most_draws(n, patience):
        for layer in draw(family, profile, seed, index, count):
            coverage.sample_layer(layer)
        index += 1
        counts = {group: _hit(coverage, group) for group in coverage.groups}
        reached = [group for group in coverage.groups if counts[group]]
        if sum(counts.values()) > hit or not chosen:  # every family plays at least once
            chosen.append(index - 1)
            hit, idle = sum(counts.values()), 0
            if len(chosen) >= n or not sum(holes(coverage, group) for group in reached):
                break
        else:
            idle += 1
    return Directed(chosen, index, sum(holes(coverage, group) for group in reached), coverage, reached)
