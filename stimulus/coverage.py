"""Functional coverage of the configuration space, as covergroups of cocotb-coverage (1.2 with cocotb 1.8,
2.0 with cocotb 2; the API used here is the same in both).

Sampled from the decoded configuration of every layer that runs (a generated Layer, or the register values
of a HardwareLayer the golden model ran from any trace, NVIDIA's included), so what is covered is what the
unit models saw. Bins follow the profile: a precision or stage the profile lacks has no bin; the invalid
cells of Table 30 are not bins. `report()` gives each group's hit rate and its holes; `export(path)` writes
cocotb-coverage's YAML, and `merge(files, out)` merges those of several processes or machines.

The covergroups are the families' (stimulus/families.py: Family.covergroup, and with `outcomes` Family.outcomes),
the project's in stimulus/covergroups/ and a plugin's alike: each is built once per Coverage, in family order (the
outcome groups after), and given every layer sampled.
"""

from __future__ import annotations

from golden.config import Profile
from golden.errors import NvdlaVerifError
from golden.regs.regmap import RegisterMap
from golden.regs.values import RegisterValues
from stimulus import families
from stimulus.covergroups import samplers
from stimulus.covergroups.common import size_class

__all__ = ["Coverage", "coverage_library", "merge", "size_class"]  # size_class: for plugins' covergroups


def coverage_library():
    try:
        from cocotb_coverage import coverage
    except ImportError:
        raise NvdlaVerifError("functional coverage needs cocotb-coverage (part of the rtl extra: "
                              "bash ci/setup.sh --test)") from None
    return coverage


class Coverage:
    """The covergroups of one profile; `prefix` names them in cocotb-coverage's global database."""

    def __init__(self, profile: Profile, prefix: str | None = None, outcomes: bool = False):
        """`outcomes`: also the groups sampled from what a run reported (LUT hit/underflow/overflow, EQL result),
        which only `sample` with a layer's status fills (run layers, traces)."""
        self.lib = coverage_library()
        self.profile = profile
        self.prefix = prefix or profile.name
        self.outcomes = outcomes
        self.regmap = RegisterMap.for_profile(profile)
        self.groups: dict[str, list[str]] = {}
        present = [f for f in families.declared() if f.name in families.available(profile)]
        built = [f.covergroup(self, f.covers) for f in present if f.covergroup is not None]
        if outcomes:
            built += [f.outcomes(self, f"{f.covers}_run") for f in present if f.outcomes is not None]
        #: What samples each family's covergroups (stimulus.covergroups.Samplers).
        self._samplers = [samplers(b) for b in built]

    # -- building ---------------------------------------------------------------------------------
    def point(self, group: str, item: str, xf, bins) -> object:
        """A cover point `item` of `group`: `xf(sample)` gives the bin, one of `bins` (None: not sampled)."""
        name = f"{self.prefix}.{group}.{item}"
        self.groups.setdefault(group, []).append(name)
        return self.lib.CoverPoint(name, xf=xf, bins=list(bins))

    def cross(self, group: str, item: str, items: list[str], ignore=()) -> object:
        """A cross of the group's points `items`, without the `ignore` bins."""
        name = f"{self.prefix}.{group}.{item}"
        self.groups.setdefault(group, []).append(name)
        return self.lib.CoverCross(name, items=[f"{self.prefix}.{group}.{i}" for i in items], ign_bins=list(ignore))

    # -- sampling ---------------------------------------------------------------------------------
    def sample(self, stages, regs: RegisterValues, status: dict | None = None) -> None:
        """Sample one hardware layer from its stages and register values, and with `status` (what the run
        reported, golden.hardware.HardwareLayer.status) its outcome groups."""
        for s in self._samplers:
            if s.layer is not None:
                s.layer(stages, regs, status)

    def sample_writes(self, stages, writes) -> None:
        """Sample the (unit, register, value) writes that programmed a layer running `stages`."""
        for s in self._samplers:
            if s.writes is not None:
                s.writes(stages, writes)

    def sample_run(self, layer, outcomes: bool = True) -> None:
        """Sample a layer the golden model ran (golden.hardware.HardwareLayer), with what it reported: a launch of
        queued operations (BDMA) operation by operation, any other layer from its registers and LUT accesses."""
        if layer.operations:
            for s in self._samplers:
                if s.launch is not None:
                    s.launch(layer.operations, layer.groups)
        elif layer.regs is not None:
            self.sample(layer.stages, layer.regs, layer.status if outcomes else None)
            self.sample_writes(layer.stages, getattr(layer, "lut_accesses", []))

    def sample_layer(self, layer) -> None:
        """Sample a generated layer (stimulus.layer.Layer) from its registers and its programming writes (a layer
        of writes alone, a BDMA group, enables no stage)."""
        stages = list(layer.enable)
        if stages:
            self.sample(stages, layer.values(self.regmap))
        self.sample_writes(stages, getattr(layer, "writes", None) or [])

    # -- reporting --------------------------------------------------------------------------------
    def items(self, group: str):
        """(name, coverage %, holes) of each cover point and cross of the group."""
        db = self.lib.coverage_db
        for name in self.groups.get(group, []):
            item = db[name]
            holes = [b for b, hits in item.detailed_coverage.items() if hits < 1]
            yield name, item.cover_percentage, holes

    def summary(self, group: str) -> dict:
        points = [(n, pct, holes) for n, pct, holes in self.items(group) if not isinstance(self.lib.coverage_db[n],
                                                                                          self.lib.CoverCross)]
        crosses = [(n, pct, holes) for n, pct, holes in self.items(group) if (n, pct, holes) not in points]
        bins = sum(len(self.lib.coverage_db[n].detailed_coverage) for n, _, _ in points)
        cross_bins = sum(len(self.lib.coverage_db[n].detailed_coverage) for n, _, _ in crosses)
        return {"point_bins": bins, "point_holes": sum(len(h) for _, _, h in points),
                "cross_bins": cross_bins, "cross_holes": sum(len(h) for _, _, h in crosses)}

    def report(self, groups=None) -> str:
        lines = []
        for group in groups or self.groups:
            s = self.summary(group)
            point_rate = 100 * (1 - s["point_holes"] / max(s["point_bins"], 1))
            cross_rate = 100 * (1 - s["cross_holes"] / max(s["cross_bins"], 1))
            lines.append(f"{self.prefix} {group}: cover points {point_rate:.1f}% of {s['point_bins']} bins, "
                         f"crosses {cross_rate:.1f}% of {s['cross_bins']} bins")
            for name, pct, holes in self.items(group):
                if holes:
                    shown = ", ".join(map(str, holes[:8])) + (f" ... (+{len(holes) - 8})" if len(holes) > 8 else "")
                    lines.append(f"  {name.split('.', 2)[2]:28} {pct:5.1f}%  holes: {shown}")
        return "\n".join(lines)

    def export(self, path) -> None:
        self.lib.coverage_db.export_to_yaml(str(path))


def merge(files, out) -> None:
    """Merge YAML coverage exports of several processes or machines into one file."""
    coverage_library().merge_coverage(lambda message: None, str(out), *map(str, files))
