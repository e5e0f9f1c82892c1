"""Scoreboard: each checked region of DUT memory against the golden model's bytes and the trace's CRC."""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from pyuvm import uvm_component, uvm_tlm_analysis_fifo

from rtl.compare import DEFAULT_COMPARATOR


@dataclass
class RegionObservation:
    name: str            # the trace's sync name
    mem: str
    base: int
    size: int
    got: bytes
    expected: bytes | None
    crc: int | None
    layout: dict | None


class LayerScoreboard(uvm_component):
    comparator = DEFAULT_COMPARATOR

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

    def judge(self, obs: RegionObservation) -> dict:
        name = f"{obs.name} {obs.mem}[{obs.base:#x}+{obs.size:#x}]"
        crc = zlib.crc32(obs.got) & 0xFFFFFFFF
        result = {"name": obs.name, "mem": obs.mem, "base": obs.base, "size": obs.size, "crc_got": crc,
                  "crc_expected": obs.crc, "crc_ok": obs.crc is None or crc == obs.crc, "golden_ok": None}
        reports = []
        if obs.crc is not None:
            reports.append(f"{name}: CRC {crc:#010x} " + ("matches" if result["crc_ok"] else
                                                         f"differs from the trace's {obs.crc:#010x}"))
        if obs.expected is not None:
            comparison = self.comparator.compare(name, obs.got, obs.expected, obs.layout, obs.base)
            result["golden_ok"] = comparison.ok
            result["mismatches"] = comparison.mismatches
            result["first"] = comparison.first
            reports.append(comparison.report())
        result["ok"] = result["crc_ok"] and result["golden_ok"] is not False
        result["report"] = "; ".join(reports) or f"{name}: nothing to compare"
        return result
