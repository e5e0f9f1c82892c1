"""The hardware-layer sequence: plays a job's steps with the semantics of golden/steps.py.

Register writes and reads go over the CSB agent; memory loads use the AXI memories'
backdoor; intr_notify arms a watch on a GLB S_INTR_STATUS bit (-1: any bit), and a check
waits for its sync: the sequence reads S_INTR_STATUS whenever dla_intr rises (and every
POLL_CYCLES, for masked sources), fires the watches whose bits are set and clears those
bits (write 1 to clear). After a read step and when a check's sync fired, it marks a
Checkpoint; what was read or written is taken from the monitors (rtl/bench/outcome.py).
"""

from __future__ import annotations

from pathlib import Path

from cocotb.triggers import First, RisingEdge, Timer
from pyuvm import ConfigDB, uvm_sequence

from rtl.bench.csb_agent import CsbItem
from rtl.bench.outcome import Checkpoint

POLL_CYCLES = 256


class LayerTimeout(Exception):
    pass


class LayerSequence(uvm_sequence):
    def __init__(self, name, job, job_dir: Path, env):
        super().__init__(name)
        self.job, self.job_dir, self.env = job, job_dir, env
        self.clock = ConfigDB().get(None, "", "CORE_CLOCK")
        # waits are timers, not counted clock edges: one wake-up instead of one per cycle
        self.cycles = lambda n: Timer(n * job.clock_ns, unit="ns")
        self.watches: list[tuple[int, str]] = []
        self.fired: set[str] = set()
        self.log: list[str] = []

    async def csb(self, byte_addr: int, data: int = 0, write: bool = True) -> int:
        item = CsbItem("csb", byte_addr, data, write)
        await self.start_item(item)
        await self.finish_item(item)
        if item.error is not None:
            raise item.error
        return item.data

    async def body(self):
        for step in self.job.steps:  # an op of golden/formats/program_file.py names its method
            await getattr(self, f"_{step.op}")(step)

    async def _write_register(self, step):
        await self.csb(step.addr, step.value)

    async def _read_register(self, step):
        polls = self.job.timeout_cycles // POLL_CYCLES + 1 if step.sync == "poll" else 1
        for attempt in range(polls):
            value = await self.csb(step.addr, write=False)
            if not (value ^ step.value) & step.mask:
                break
            if attempt + 1 < polls:
                await self.cycles(POLL_CYCLES)
        await Timer(1, "step")  # the CSB monitor samples the response on the edge the driver returned at
        self.env.checkpoints.write(Checkpoint(step))

    async def _fill_memory(self, step):
        self.env.memory(step.mem).write(step.addr, bytes(step.size))

    async def _load_memory(self, step):
        self.env.memory(step.mem).write(step.addr, step.data)

    async def _watch_interrupt(self, step):
        self.watches.append((step.value, step.sync))

    async def _service_interrupts(self) -> None:
        status = await self.csb(self.job.intr_status_addr, write=False)
        for bit, sync in list(self.watches):
            bits = status if bit < 0 else status & (1 << bit)
            if bits:
                if bit >= 0:
                    await self.csb(self.job.intr_status_addr, bits)
                    status &= ~bits
                self.watches.remove((bit, sync))
                self.fired.add(sync)
                self.log.append(f"{sync}: GLB interrupt bit {bit}")

    def _done(self, sync: str) -> bool:
        if sync in ("*", ""):
            return not self.watches
        return sync in self.fired or sync not in {s for _, s in self.watches}

    async def _await_sync(self, step):
        waited = 0
        while True:
            await self._service_interrupts()
            if self._done(step.sync):
                return
            if waited > self.job.timeout_cycles:
                pending = ", ".join(f"{s} (bit {b})" for b, s in self.watches)
                raise LayerTimeout(f"{step.where}: no interrupt for {pending} within {self.job.timeout_cycles} "
                                   "cycles")
            raised = self.env.intr.raised
            raised.clear()
            await First(raised.wait(), self.cycles(POLL_CYCLES))
            waited += POLL_CYCLES

    async def _wait_interrupt(self, step):
        # NVIDIA's harnesses wait for the line's level (nvdlav1 verif/verilator/nvdla.cpp: `waiting &&
        # dla->dla_intr`; verif/synth_tb/csb_master_seq.v MSEQ_WAIT). The line falls some cycles after the write
        # that clears the status (GLB_ic.v: a flop and a 3-flop synchroniser), so a `wait` right after that write
        # passes at once, there as here, and NVIDIA's traces count on it: conv_8x8_fc_int16 waits four times,
        # and waited for by status bit it hangs at the fourth on nvdlav1's RTL.
        dut = ConfigDB().get(None, "", "DUT")
        if not dut.dla_intr.value:
            await First(RisingEdge(dut.dla_intr), self.cycles(self.job.timeout_cycles))
            if not dut.dla_intr.value:
                raise LayerTimeout(f"{step.where}: dla_intr did not rise within {self.job.timeout_cycles} cycles")

    async def _check_region(self, step):
        await self._await_sync(step)
        self.env.checkpoints.write(Checkpoint(step))
