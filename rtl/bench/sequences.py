"""The hardware-layer sequence: plays a job's steps like the golden trace player does.

Register writes and polls go over the CSB agent, memory loads and region reads
use the AXI memories' backdoor, interrupt waits combine dla_intr with reads of
GLB S_INTR_STATUS (and clear the bit they waited for, write-1-to-clear), and every
checked region is handed to the scoreboard.
"""

from __future__ import annotations

from pathlib import Path

from cocotb.triggers import ClockCycles, First
from pyuvm import ConfigDB, uvm_sequence

from rtl.bench.csb_agent import CsbItem
from rtl.bench.scoreboard import RegionObservation

GLB_INTR_STATUS = 0x100C
POLL_CYCLES = 256


class LayerTimeout(Exception):
    pass


class LayerSequence(uvm_sequence):
    def __init__(self, name, job, job_dir: Path, env):
        super().__init__(name)
        self.job, self.job_dir, self.env = job, job_dir, env
        self.clock = ConfigDB().get(None, "", "CORE_CLOCK")
        self.log: list[str] = []

    async def csb(self, byte_addr: int, data: int = 0, write: bool = True) -> int:
        item = CsbItem("csb", byte_addr, data, write)
        await self.start_item(item)
        await self.finish_item(item)
        return item.data

    async def body(self):
        for step in self.job.steps:
            await getattr(self, f"_{step.op}")(step)

    async def _reg_write(self, step):
        await self.csb(step.addr, step.value)

    async def _mem_fill(self, step):
        self.env.memory(step.mem).write(step.addr, bytes(step.size))

    async def _mem_write(self, step):
        self.env.memory(step.mem).write(step.addr, (self.job_dir / step.file).read_bytes())

    async def _poll_reg(self, step):
        for _ in range(self.job.timeout_cycles // POLL_CYCLES + 1):
            if await self.csb(step.addr, write=False) == step.value:
                return
            await ClockCycles(self.clock, POLL_CYCLES)
        raise LayerTimeout(f"{step.name} never read {step.value:#x}")

    async def _wait_intr(self, step):
        mask = 1 << step.value
        waited = 0
        while waited <= self.job.timeout_cycles:
            if await self.csb(GLB_INTR_STATUS, write=False) & mask:
                await self.csb(GLB_INTR_STATUS, mask)
                self.log.append(f"{step.name}: interrupt bit {step.value} after {waited}+ cycles")
                return
            raised = self.env.intr.raised
            raised.clear()
            await First(raised.wait(), ClockCycles(self.clock, POLL_CYCLES))
            waited += POLL_CYCLES
        raise LayerTimeout(f"{step.name}: GLB interrupt status bit {step.value} not set "
                           f"within {self.job.timeout_cycles} cycles")

    async def _check(self, step):
        got = self.env.memory(step.mem).read(step.addr, step.size)
        expected = (self.job_dir / step.expect_file).read_bytes() if step.expect_file else None
        self.env.observations.write(RegionObservation(step.name, step.mem, step.addr, step.size, got, expected,
                                                      step.crc, step.layout))
        dump = self.job_dir / f"dut_{step.mem}_{step.addr:x}_{step.size:x}.bin"
        dump.write_bytes(got)
