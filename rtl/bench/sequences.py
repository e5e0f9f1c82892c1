"""The hardware-layer sequence: plays a job's steps with the golden trace player's semantics.

Register writes and reads go over the CSB agent; memory loads and region reads use
the AXI memories' backdoor; intr_notify arms a watch on a GLB S_INTR_STATUS bit,
and a check waits for its sync: the sequence reads S_INTR_STATUS whenever dla_intr
rises (and every POLL_CYCLES, for masked sources), fires the watches whose bits are
set and clears those bits (write 1 to clear). Every check goes to the scoreboard.
"""

from __future__ import annotations

from pathlib import Path

from cocotb.triggers import First, RisingEdge, Timer
from pyuvm import ConfigDB, uvm_sequence

from rtl.bench.csb_agent import CsbItem
from rtl.bench.scoreboard import RegionObservation, RegisterObservation

GLB_INTR_STATUS = 0x100C
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
        for step in self.job.steps:
            await getattr(self, f"_{step.op}")(step)

    async def _reg_write(self, step):
        await self.csb(step.addr, step.value)

    async def _read_reg(self, step):
        polls = self.job.timeout_cycles // POLL_CYCLES + 1 if step.sync == "poll" else 1
        for attempt in range(polls):
            value = await self.csb(step.addr, write=False)
            if not (value ^ step.value) & step.mask:
                break
            if attempt + 1 < polls:
                await self.cycles(POLL_CYCLES)
        self.env.observations.write(RegisterObservation(step.name, step.where, value, step.value, step.mask))

    async def _mem_fill(self, step):
        self.env.memory(step.mem).write(step.addr, bytes(step.size))

    async def _mem_write(self, step):
        self.env.memory(step.mem).write(step.addr, (self.job_dir / step.file).read_bytes())

    async def _watch_intr(self, step):
        self.watches.append((step.value, step.sync))

    async def _service_interrupts(self) -> None:
        status = await self.csb(GLB_INTR_STATUS, write=False)
        for bit, sync in list(self.watches):
            if status & (1 << bit):
                await self.csb(GLB_INTR_STATUS, 1 << bit)
                status &= ~(1 << bit)
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

    async def _wait_line(self, step):
        dut = ConfigDB().get(None, "", "DUT")
        if not dut.dla_intr.value:
            await First(RisingEdge(dut.dla_intr), self.cycles(self.job.timeout_cycles))
            if not dut.dla_intr.value:
                raise LayerTimeout(f"{step.where}: dla_intr did not rise within {self.job.timeout_cycles} cycles")

    async def _check(self, step):
        await self._await_sync(step)
        got = self.env.memory(step.mem).read(step.addr, step.size)
        trace_file = (self.job_dir / step.file).read_bytes() if step.file else None
        golden = (self.job_dir / step.expect_file).read_bytes() if step.expect_file else None
        self.env.observations.write(RegionObservation(step.name, step.where, step.mem, step.addr, step.size, got,
                                                      step.crc, trace_file, golden, step.layout))
        (self.job_dir / f"dut_{step.mem}_{step.addr:x}_{step.size:x}.bin").write_bytes(got)
