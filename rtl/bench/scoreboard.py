"""Scoreboard: every checked region of DUT memory against the trace (CRC or golden file) and,
when the golden model ran, against the golden model's bytes; every register read-back check."""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from pyuvm import uvm_component, uvm_tlm_analysis_fifo

from rtl.compare import DEFAULT_COMPARATOR, BitExact


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


class LayerScoreboard(uvm_component):
    #: compares DUT and golden-model memory; bit-exact today, per-module thresholds later
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
            comparison = BitExact().compare(f"{name} vs {obs.name}", obs.got, obs.trace_file, obs.layout, obs.base)
            verdicts.append(comparison.ok)
            reports.append(comparison.report())
        if obs.golden is not None:
            comparison = self.comparator.compare(f"{name} vs golden model", obs.got, obs.golden, obs.layout,
                                                 obs.base)
            result.update(golden_ok=comparison.ok, mismatches=comparison.mismatches, first=comparison.first)
            verdicts.append(comparison.ok)
            reports.append(comparison.report())
        result["ok"] = all(verdicts)
        result["report"] = "; ".join(reports) or f"{name}: nothing to compare"
        return result
