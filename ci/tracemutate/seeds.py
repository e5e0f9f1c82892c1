"""Generated layers as seed traces of the trace mutator: a few traces per stimulus family and profile, written once
per session.

Every profile gets the stimulus package's own traces (stimulus.families.write_generated: `.cfg` with the
golden model's CRCs for master-layout profiles such as nv_small and nv_large, the traceplayer's `input.txn` with
`dump_mem` against the golden model's bytes for nvdlav1's nv_full).
"""

from __future__ import annotations

from pathlib import Path

from golden.config import get_profile
from stimulus import families

PROFILES = ("nv_small", "nv_large", "nv_full")
#: Random layer streams per family and profile (trace i of seed SEED; odd i: two back-to-back layers).
PER_FAMILY = 3
SEED = 26


def write_seed_traces(out: Path, per_family: int = PER_FAMILY) -> list[tuple[Path, str]]:
    """(trace, profile name) for `per_family` traces of every family each profile can run."""
    traces = []
    for profile_name in PROFILES:
        profile = get_profile(profile_name)
        for family in families.available(profile):
            for index in range(per_family):
                trace = families.write_generated(family, profile, SEED, index, out, count=2 if index % 2 else 1)
                traces.append((trace, profile_name))
    return traces
