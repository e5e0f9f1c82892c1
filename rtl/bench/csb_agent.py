"""CSB master agent: sequence item, driver, monitor and agent for csb2nvdla / nvdla2csb.

The protocol as NV_nvdla implements it (nvdla/hw vmod/nvdla/csb_master/NV_NVDLA_csb_master.v,
read for the facts; no code taken):

- Request: csb2nvdla_valid with addr (a word address: byte address >> 2), wdat, write and
  nposted. A request is taken at a rising edge of dla_csb_clk where valid and ready are both
  high, one request per such edge. csb2nvdla_ready is the not-busy flag of the asynchronous
  FIFO into the core clock domain, a flip-flop: it drops the cycle after a request is taken
  while the FIFO is busy and rises again later, so it toggles between requests.
- Read response: nvdla2csb_valid, a registered one-cycle pulse per read, with the data in
  nvdla2csb_data (registered on the same edge). Writes never pulse nvdla2csb_valid.
- Write completion: a non-posted write (nposted=1) is answered by a one-cycle
  nvdla2csb_wr_complete pulse; a posted write (nposted=0, what NVIDIA's harness and the
  traces use) by nothing.

Sampling. With Verilator a coroutine woken by a rising edge sees the flip-flops' values after
that edge, not the ones the DUT sampled at it, so reading ready after the edge confuses "taken
at this edge" with "will be taken at the next one" (a request sent twice, or lost). The driver
and the monitor therefore drive right after a rising edge and sample handshakes at the falling
edge before the next rising edge, when every signal is settled; the request is taken at that
rising edge exactly when valid and ready were high at the falling edge (NVIDIA's C++ harness
likewise reads ready before it clocks the model).
"""

from __future__ import annotations

import cocotb
from cocotb.triggers import FallingEdge, RisingEdge
from cocotb.utils import get_sim_time
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
REQUEST_TIMEOUT = 100_000


class CsbTimeout(Exception):
    """The DUT did not take a CSB request, or did not answer it, in time."""


class CsbItem(uvm_sequence_item):
    def __init__(self, name="csb", byte_addr=0, data=0, write=True, nposted=False):
        super().__init__(name)
        self.byte_addr = byte_addr
        self.data = data
        self.write = write
        self.nposted = nposted
        self.error: BaseException | None = None   # set by the driver when the transfer failed

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
        self.stall_cycles = 0          # cycles a request waited for ready
        self._after_edge_at = None     # simulation time of the rising edge the driver last woke on

    async def run_phase(self):
        self.dut.csb2nvdla_valid.value = 0
        while True:
            item = await self.seq_item_port.get_next_item()
            try:
                await self.transfer(item)
            except Exception as error:  # handed to the sequence, which reports it; the driver goes on
                self.dut.csb2nvdla_valid.value = 0
                item.error = error
            self.seq_item_port.item_done()

    async def _rising(self) -> None:
        await RisingEdge(self.clock)
        self._after_edge_at = get_sim_time()

    async def transfer(self, item: CsbItem) -> None:
        dut = self.dut
        if self._after_edge_at != get_sim_time():
            await self._rising()       # drive in the first half of a cycle only
        dut.csb2nvdla_addr.value = item.word_addr
        dut.csb2nvdla_wdat.value = item.data if item.write else 0
        dut.csb2nvdla_write.value = int(item.write)
        dut.csb2nvdla_nposted.value = int(item.nposted)
        dut.csb2nvdla_valid.value = 1
        for _ in range(REQUEST_TIMEOUT):
            await FallingEdge(self.clock)
            ready = bool(dut.csb2nvdla_ready.value)
            await self._rising()
            if ready:
                break
            self.stall_cycles += 1
        else:
            raise CsbTimeout(f"csb2nvdla_ready stayed low for {REQUEST_TIMEOUT} cycles: {item} not taken")
        dut.csb2nvdla_valid.value = 0
        if item.write and not item.nposted:
            return
        response = dut.nvdla2csb_valid if not item.write else dut.nvdla2csb_wr_complete
        for _ in range(RESPONSE_TIMEOUT):
            await FallingEdge(self.clock)
            if response.value:
                if not item.write:
                    item.data = int(dut.nvdla2csb_data.value)
                await self._rising()
                return
        raise CsbTimeout(f"no CSB response to {item} within {RESPONSE_TIMEOUT} cycles")


class CsbMonitor(uvm_monitor):
    """Publishes every request the DUT takes (reads with their returned data).

    Sleeps on a rising edge of csb2nvdla_valid / nvdla2csb_valid and samples at falling edges
    only while one of them is high, so it costs nothing while the DUT computes.
    """

    def build_phase(self):
        self.dut = ConfigDB().get(self, "", "DUT")
        self.clock = ConfigDB().get(self, "", "CSB_CLOCK")
        self.ap = uvm_analysis_port("ap", self)
        self.pending_reads: list[CsbItem] = []

    async def run_phase(self):
        cocotb.start_soon(self._responses())
        dut = self.dut
        while True:
            await FallingEdge(self.clock)
            if not dut.csb2nvdla_valid.value:
                await RisingEdge(dut.csb2nvdla_valid)
                continue
            if dut.csb2nvdla_ready.value:
                item = CsbItem("observed", int(dut.csb2nvdla_addr.value) << 2, int(dut.csb2nvdla_wdat.value),
                               bool(dut.csb2nvdla_write.value), bool(dut.csb2nvdla_nposted.value))
                if item.write:
                    self.ap.write(item)
                else:
                    self.pending_reads.append(item)

    async def _responses(self):
        dut = self.dut
        while True:
            await FallingEdge(self.clock)
            if not dut.nvdla2csb_valid.value:
                await RisingEdge(dut.nvdla2csb_valid)
                continue
            if self.pending_reads:
                item = self.pending_reads.pop(0)
                item.data = int(dut.nvdla2csb_data.value)
                self.ap.write(item)


class CsbAgent(uvm_agent):
    def build_phase(self):
        self.seqr = uvm_sequencer("seqr", self)
        self.driver = CsbDriver("driver", self)
        self.monitor = CsbMonitor("monitor", self)
        ConfigDB().set(None, "*", "CSB_SEQR", self.seqr)

    def connect_phase(self):
        self.driver.seq_item_port.connect(self.seqr.seq_item_export)
