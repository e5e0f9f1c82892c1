"""The outcome collector: what the bench returns, built from its monitors.

The CSB monitor publishes every completed read (with the data NVDLA returned), the interrupt
monitor every rising edge of dla_intr, and the AXI memory agents hold what the DUT wrote. The
sequence only marks where it is: a `Checkpoint` after each read step and at each region check
(once the check's sync fired). At a checkpoint the collector takes the monitors' view (the last
value read from that register, the region's bytes in the AXI memory) into the outcome the simulator
process writes for rtl/runner.py. Nothing is judged here (scoreboards/verdict.py judges the outcome).
"""

from __future__ import annotations

from dataclasses import dataclass

from pyuvm import ConfigDB, uvm_component, uvm_subscriber

from rtl.job import CHECK, READ, TRACE_MEMORIES, Step


@dataclass
class Checkpoint:
    step: Step


class _Feed(uvm_subscriber):
    """An analysis export that hands each item to a function of its parent."""

    def __init__(self, name, parent, handler):
        super().__init__(name, parent)
        self.handler = handler

    def write(self, item):
        self.handler(item)


class OutcomeCollector(uvm_component):
    def build_phase(self):
        self.job_dir = ConfigDB().get(self, "", "JOB_DIR")
        self.csb = _Feed("csb", self, self._csb)
        self.intr = _Feed("intr", self, self._interrupt)
        self.checkpoints = _Feed("checkpoints", self, self._checkpoint)
        self.last_read: dict[int, int] = {}
        self.registers: dict[int, int] = {}
        self.regions: dict[int, str] = {}
        self.interrupts: list[str] = []

    def _csb(self, item) -> None:
        if not item.write:
            self.last_read[item.byte_addr] = item.data

    def _interrupt(self, time_ns) -> None:
        self.interrupts.append(f"dla_intr rose at {time_ns:.0f} ns")

    def _checkpoint(self, checkpoint: Checkpoint) -> None:
        step = checkpoint.step
        if step.op == READ:
            value = self.last_read.get(step.addr)
            if value is None:
                return  # the monitor saw no read of it: the outcome says so (no value)
            self.registers[step.index] = value
        elif step.op == CHECK:
            dump = f"dut_{step.index}.bin"
            (self.job_dir / dump).write_bytes(self.env.memory(step.mem).read(step.addr, step.size))
            self.regions[step.index] = dump

    @property
    def env(self):
        return self.get_parent()

    def written(self) -> dict[str, list[list]]:
        """Every range the DUT wrote over AXI, with its final bytes dumped next to the job: {memory: [[addr,
        size, file]]} (for the whole-memory write check, scoreboards/writes.py)."""
        out = {}
        for kind, agent in self.env.memories.items():
            runs = []
            for number, (address, size) in enumerate(agent.region.written_runs()):
                dump = f"written_{kind}_{number}.bin"
                (self.job_dir / dump).write_bytes(agent.read(address, size))
                runs.append([address, size, dump])
            out[TRACE_MEMORIES[kind]] = runs
        return out

    def summary(self) -> dict:
        return {"registers": {str(k): v for k, v in self.registers.items()}, "regions": self.regions,
                "interrupts": self.interrupts, "written": self.written()}
