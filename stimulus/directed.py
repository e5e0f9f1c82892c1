"""Coverage-directed drawing: draw the traces of a family until its covergroup's holes stop shrinking, keeping
only the traces that closed a hole (`nvdla-verif generate --coverage-directed`, `nvdla-verif suite build`).

    directed(family, profile, seed, n, patience, layers) -> Directed(indices, draws, holes)

The same family, profile, seed and limits give the same indices: the draws and the sampling are deterministic.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass

from golden.config import Profile
from stimulus.families import layers as draw

#: The covergroup of each family (stimulus/coverage.py); families without one cannot be directed.
GROUPS = {"sdp": "sdp", "sdp_reg": "sdp", "sdp_pdp": "pdp", "pdp": "pdp", "cdp": "cdp", "conv": "conv",
          "rubik": "rubik", "bdma": "bdma"}
_PREFIXES = itertools.count()


@dataclass
class Directed:
    indices: list[int]  # the trace indices (of `seed`) that closed a hole, in drawing order
    draws: int  # traces drawn
    holes: int  # holes left in the family's covergroup
    coverage: object  # stimulus.coverage.Coverage, for reports


def holes(coverage, group: str) -> int:
    return sum(len(found) for _, _, found in coverage.items(group))


def directed(family: str, profile: Profile, seed: int, n: int, patience: int, count: int = 1,
             corners: bool = False) -> Directed:
    """At most `n` trace indices of `count` layers each that closed a hole of the family's covergroup; drawing
    stops after `patience` draws in a row closed none. With `corners`: the arithmetic corner covergroup
    (stimulus/corners.py) over corner-aimed draws (stimulus/corner_data.py), each run on the golden model."""
    from stimulus.coverage import Coverage

    # A name of its own in cocotb-coverage's global database: a second run in this process starts from nothing.
    prefix = f"directed_{family}_{seed}_{os.getpid()}_{next(_PREFIXES)}"
    if corners:
        from stimulus.corner_data import aimed_layers
        from stimulus.corners import GROUP, CornerCoverage

        coverage, group = CornerCoverage(profile, prefix=prefix), GROUP
    else:
        coverage, group = Coverage(profile, prefix=prefix), GROUPS[family]
    left, idle, chosen, index = holes(coverage, group), 0, [], 0
    while idle < patience and index < n * patience:
        if corners:
            coverage.sample_layers(aimed_layers(family, profile, seed, index, count))
        for layer in [] if corners else draw(family, profile, seed, index, count):
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
    return Directed(chosen, index + 1, left, coverage)
