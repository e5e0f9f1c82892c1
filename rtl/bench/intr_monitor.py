"""Interrupt monitor: publishes every rising edge of dla_intr with its simulation time (ns)."""

from __future__ import annotations

from cocotb.triggers import Event, RisingEdge
from cocotb.utils import get_sim_time
from pyuvm import ConfigDB, uvm_analysis_port, uvm_monitor


class IntrMonitor(uvm_monitor):
    def build_phase(self):
        self.dut = ConfigDB().get(self, "", "DUT")
        self.ap = uvm_analysis_port("ap", self)
        self.raised = Event("dla_intr")
        self.count = 0

    async def run_phase(self):
        while True:
            await RisingEdge(self.dut.dla_intr)
            self.count += 1
            self.ap.write(get_sim_time(unit="ns"))
            self.raised.set()
