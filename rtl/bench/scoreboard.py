"""Scoreboard: every checked region of DUT memory against the trace (CRC or golden file) and,
when the golden model ran, against the golden model's bytes; every register read-back check."""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from pyuvm import uvm_component, uvm_tlm_analysis_fifo

from golden.hardware import WrittenSurface
from golden.steps import CheckRegion
from golden.units.base import Surface
from rtl.job import TRACE_MEMORIES
from scoreboards.region import compare_region


@dataclass
class RegionObservation:
    name: str
    where: str
    mem: str
    base: int
    size: int
    got: bytes
    crc: int | None             # the trace's check_crc value
    trace_file: bytes | None    # the trace's golden file (check_file / dump_mem)
    golden: bytes | None        # the golden model's memory
    layout: dict | None         # the cube in the region, for W/H/C in reports


@dataclass
class RegisterObservation:
    name: str
    where: str
    got: int
    expected: int
    mask: int


def _compare(name: str, obs, expected: bytes):
    """The region against expected bytes through scoreboards/ (bit-exact; W/H/C where the layout is known)."""
    step = CheckRegion(obs.where, "check", None, TRACE_MEMORIES[obs.mem], obs.base, obs.size)
    surfaces = []
    if obs.layout:
        layout = obs.layout
        shape = (layout["channel"], layout["height"], layout["width"])
        surface = Surface(TRACE_MEMORIES[obs.mem], layout["base"], shape, "int8", layout["line_stride"],
                          layout["surface_stride"], layout["atom"], name=layout.get("name", ""))
        surfaces = [WrittenSurface("SDP", surface, 0)]
    comparison = compare_region(step, obs.got, expected, surfaces)
    mismatches = sum(r.mismatches for r in comparison.reports)
    first = [m for r in comparison.reports for m in r.first]
    return comparison.ok, mismatches, first, f"{name}: {comparison.summary()}"


class LayerScoreboard(uvm_component):
    """The bench's own view: each region against the trace's CRC or file and the golden model's bytes (the
    verdict of record is scoreboards/verdict.py, outside the simulator)."""

    def build_phase(self):
        self.fifo = uvm_tlm_analysis_fifo("fifo", self)
        self.export = self.fifo.analysis_export
        self.results: list[dict] = []

    def check_phase(self):
        while self.fifo.can_get():
            _, obs = self.fifo.try_get()
            self.results.append(self.judge(obs))
        for result in self.results:
            (self.logger.info if result["ok"] else self.logger.error)(result["report"])

    def judge(self, obs) -> dict:
        if isinstance(obs, RegisterObservation):
            ok = not (obs.got ^ obs.expected) & obs.mask
            return {"kind": "read_reg", "name": obs.name, "where": obs.where, "ok": ok,
                    "report": f"{obs.name} read {obs.got:#010x}, expected {obs.expected:#010x} "
                              f"under mask {obs.mask:#010x}"}
        name = f"{obs.mem}[{obs.base:#x}+{obs.size:#x}]"
        result = {"kind": "region", "name": obs.name, "where": obs.where, "mem": obs.mem, "base": obs.base,
                  "size": obs.size, "crc_got": zlib.crc32(obs.got) & 0xFFFFFFFF, "crc_expected": obs.crc}
        verdicts, reports = [], []
        if obs.crc is not None:
            verdicts.append(result["crc_got"] == obs.crc)
            reports.append(f"{name}: CRC {result['crc_got']:#010x} " +
                           ("matches the trace" if verdicts[-1] else f"differs from the trace's {obs.crc:#010x}"))
        if obs.trace_file is not None:
            ok, _, _, report = _compare(f"vs {obs.name}", obs, obs.trace_file)
            verdicts.append(ok)
            reports.append(report)
        if obs.golden is not None:
            ok, mismatches, first, report = _compare("vs golden model", obs, obs.golden)
            result.update(golden_ok=ok, mismatches=mismatches, first=first)
            verdicts.append(ok)
            reports.append(report)
        result["ok"] = all(verdicts)
        result["report"] = "; ".join(reports) or f"{name}: nothing to compare"
        return result
