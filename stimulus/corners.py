"""Arithmetic corner coverage: one cover point per rounding / truncating / saturating stage of the units a
profile has (golden.numerics.corners.STAGES), its bins the stage's corner classes, sampled from a golden run
of the layer (what the golden model computed at that stage, not the registers).

    CornerCoverage(profile).sample_layer(layer)   # runs the layer on the golden model, observing
    CornerCoverage(profile).sample(seen)          # a golden.numerics.corners.Corners of any run

The interface is stimulus.coverage.Coverage's where the directed loop needs it (items, report, summary); the
group is "corners". EXCLUDED lists the classes a stage cannot meet, with the reason.
"""

from __future__ import annotations

import itertools
import os
import tempfile

from golden.config import Profile
from golden.numerics import corners
from stimulus.coverage import coverage_library
from stimulus.export import play_layers

GROUP = "corners"
_NAMES = itertools.count()


def _int8_only(profile: Profile) -> bool:
    return profile.feature_types == {"int8"} and profile.weight_types == {"int8"}


#: (stage, class) -> (reason, applies(profile)): classes a stage cannot meet.
EXCLUDED = {
    **{("cacc.truncate.saturate", c): (
        "int8 x int8 products are at most 2**14; 2**17 taps, more than a CBUF of 2**17 bytes holds with its "
        "data, would be needed for a sum to reach 2**31 - 1", lambda p: _int8_only(p) and p.cbuf_bytes <= 1 << 17)
       for c in corners.SATURATE},
    **{(f"sdp.{x}.alu_shift.saturate", "at_max"): (
        "the ALU operand is 16 bits: x << s is odd (2**31 - 1) only for s = 0, and then x < 2**15",
        lambda p: True) for x in ("x1", "x2")},
    **{("cdp.lut.extrap.saturate", c): (
        "square sums are below 2**36 and START/END 38-bit, so |x - origin| * SCALE < 2**38 * 2**15 stays far "
        "inside the 56-bit bound", lambda p: True) for c in corners.SATURATE},
    ("sdp.fp.out.int16.saturate", "at_max"): (
        "fp16 values in [16384, 32768) are multiples of 16: the nearest to 32767 are 32752 and 32768, so no fp16 "
        "value rounds to 32767 exactly (cmod nvdla_float.h FpFloatToInt)", lambda p: True),
    **{("pdp.out.narrow", c): (
        "RECIP_KERNEL_WIDTH/HEIGHT are at most 1/kernel (PDP-RECIP-KERNEL): the average of int values, padding "
        "n x one int value, stays inside the input's range", lambda p: True) for c in ("sat_min", "sat_max")},
    **{(s, "inf"): ("NVDLA never outputs INF: overflow is clipped to +/-65504 (in-memory-data-formats Rounding)",
                    lambda p: True) for s in ("sdp.out.fp16", "cdp.fp.out")},
}


def stages(profile: Profile) -> list[str]:
    """The stages the profile's units have."""
    found = []
    for stage, info in corners.STAGES.items():
        needs = info["needs"]
        if all(n in profile.feature_types if n in ("fp16", "int16") else profile.has(n) for n in needs):
            found.append(stage)
    return found


def bins(profile: Profile, stage: str) -> list[str]:
    classes = corners.CLASSES[corners.STAGES[stage]["kind"]]
    return [c for c in classes if not ((stage, c) in EXCLUDED and EXCLUDED[stage, c][1](profile))]


class CornerCoverage:
    def __init__(self, profile: Profile, prefix: str | None = None):
        self.lib = coverage_library()
        self.profile = profile
        self.prefix = prefix or f"corners_{profile.name}_{os.getpid()}_{next(_NAMES)}"
        self.groups: dict[str, list[str]] = {GROUP: []}
        sample = _nothing
        for stage in stages(profile):
            if not bins(profile, stage):
                continue  # every class excluded: no cover point
            name = f"{self.prefix}.{GROUP}.{stage.replace('.', ':')}"  # a dot would nest cocotb's items
            self.groups[GROUP].append(name)
            sample = self.lib.CoverPoint(name, xf=lambda seen, s=stage: seen.hit(s), rel=lambda hit, c: c in hit,
                                         bins=bins(profile, stage), inj=False)(sample)
        self._sample = sample

    def sample(self, seen: corners.Corners) -> None:
        self._sample(seen)

    def sample_layer(self, layer) -> corners.Corners:
        """Run the layer (with the rest of its trace's sequence) on the golden model, observing, and sample."""
        return self.sample_layers([layer])

    def sample_layers(self, layers) -> corners.Corners:
        with tempfile.TemporaryDirectory(prefix="nvdla-corners-") as folder, corners.observe() as seen:
            play_layers(layers, folder, "corners", self.profile)
        self.sample(seen)
        return seen

    def items(self, group: str = GROUP):
        db = self.lib.coverage_db
        for name in self.groups.get(group, []):
            item = db[name]
            yield name, item.cover_percentage, [b for b, hits in item.detailed_coverage.items() if hits < 1]

    def holes(self) -> list[tuple[str, str]]:
        return [(_stage(name), hole) for name, _, found in self.items() for hole in found]

    def summary(self, group: str = GROUP) -> dict:
        bins_ = sum(len(self.lib.coverage_db[n].detailed_coverage) for n in self.groups.get(group, []))
        return {"point_bins": bins_, "point_holes": len(self.holes()), "cross_bins": 0, "cross_holes": 0}

    def report(self, groups=None) -> str:
        s = self.summary()
        lines = [f"{self.profile.name} corners: {100 * (1 - s['point_holes'] / max(s['point_bins'], 1)):.1f}% of "
                 f"{s['point_bins']} bins"]
        for name, pct, found in self.items():
            if found:
                lines.append(f"  {_stage(name):28} {pct:5.1f}%  holes: {', '.join(found)}")
        return "\n".join(lines)


def _stage(name: str) -> str:
    return name.rsplit(".", 1)[1].replace(":", ".")


def _nothing(seen):
    return None
