"""CSB master agent: sequence item, driver, monitor and agent for csb2nvdla / nvdla2csb.

Addresses on the CSB are word addresses (byte address >> 2). A request is
accepted on a clock edge with csb2nvdla_valid and csb2nvdla_ready high; a read
(and a non-posted write) is answered by a one-cycle nvdla2csb_valid pulse.
"""

from __future__ import annotations

from cocotb.triggers import RisingEdge
from pyuvm import (
    ConfigDB,
    uvm_agent,
    uvm_analysis_port,
    uvm_driver,
    uvm_monitor,
    uvm_sequence_item,
    uvm_sequencer,
)

RESPONSE_TIMEOUT = 1000


class CsbItem(uvm_sequence_item):
    def __init__(self, name="csb", byte_addr=0, data=0, write=True, nposted=False):
        super().__init__(name)
        self.byte_addr = byte_addr
        self.data = data
        self.write = write
        self.nposted = nposted

    @property
    def word_addr(self) -> int:
        return self.byte_addr >> 2

    def __str__(self):
        kind = "write" if self.write else "read"
        return f"CSB {kind} {self.byte_addr:#07x} = {self.data:#010x}"


class CsbDriver(uvm_driver):
    def build_phase(self):
        self.dut = ConfigDB().get(self, "", "DUT")
        self.clock = ConfigDB().get(self, "", "CSB_CLOCK")

    async def run_phase(self):
        dut = self.dut
        dut.csb2nvdla_valid.value = 0
        while True:
            item = await self.seq_item_port.get_next_item()
            await self.transfer(item)
            self.seq_item_port.item_done()

    async def transfer(self, item: CsbItem) -> None:
        # cocotbext-axi's convention: drive right after a rising edge, and read
        # right after the next one (the values the DUT saw at that edge)
        dut, clock = self.dut, self.clock
        dut.csb2nvdla_addr.value = item.word_addr
        dut.csb2nvdla_wdat.value = item.data if item.write else 0
        dut.csb2nvdla_write.value = int(item.write)
        dut.csb2nvdla_nposted.value = int(item.nposted)
        dut.csb2nvdla_valid.value = 1
        while True:
            await RisingEdge(clock)
            if dut.csb2nvdla_ready.value:
                break
        dut.csb2nvdla_valid.value = 0
        if item.write and not item.nposted:
            return
        for _ in range(RESPONSE_TIMEOUT):
            await RisingEdge(clock)
            if dut.nvdla2csb_valid.value:
                if not item.write:
                    item.data = int(dut.nvdla2csb_data.value)
                return
        raise TimeoutError(f"no CSB response to {item}")


class CsbMonitor(uvm_monitor):
    """Publishes every accepted request (reads with their returned data)."""

    def build_phase(self):
        self.dut = ConfigDB().get(self, "", "DUT")
        self.clock = ConfigDB().get(self, "", "CSB_CLOCK")
        self.ap = uvm_analysis_port("ap", self)

    async def run_phase(self):
        dut = self.dut
        pending_reads: list[CsbItem] = []
        while True:
            await RisingEdge(self.clock)
            if dut.nvdla2csb_valid.value and pending_reads:
                item = pending_reads.pop(0)
                item.data = int(dut.nvdla2csb_data.value)
                self.ap.write(item)
            if dut.csb2nvdla_valid.value and dut.csb2nvdla_ready.value:
                item = CsbItem("observed", int(dut.csb2nvdla_addr.value) << 2, int(dut.csb2nvdla_wdat.value),
                               bool(dut.csb2nvdla_write.value), bool(dut.csb2nvdla_nposted.value))
                if item.write:
                    self.ap.write(item)
                else:
                    pending_reads.append(item)


class CsbAgent(uvm_agent):
    def build_phase(self):
        self.seqr = uvm_sequencer("seqr", self)
        self.driver = CsbDriver("driver", self)
        self.monitor = CsbMonitor("monitor", self)
        ConfigDB().set(None, "*", "CSB_SEQR", self.seqr)

    def connect_phase(self):
        self.driver.seq_item_port.connect(self.seqr.seq_item_export)

