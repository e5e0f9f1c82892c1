"""Run a program (golden/steps.py) on the golden hardware (golden/hardware.py) and observe its outcome.

Time passes only when the program waits: a poll that does not match yet, a watch's sync awaited
by a check, the interrupt line (txn `wait`), a dump_mem (the hardware runs until idle), and the
end of the program, when every armed layer must have run. A wait that nothing can satisfy is a
TraceHang naming the step and what is armed but never launched.
"""

from __future__ import annotations

import time

from golden.hardware import Hardware, TraceHang
from golden.outcome import Outcome, fired_watch
from golden.steps import (
    CheckRegion,
    FillMemory,
    LoadMemory,
    Program,
    ReadRegister,
    WaitInterrupt,
    WatchInterrupt,
    WriteRegister,
)


class Interpreter:
    def __init__(self, program: Program, hardware: Hardware):
        self.program, self.hardware = program, hardware
        self.outcome = Outcome("golden", memory=hardware.memory)
        self.watches: list[WatchInterrupt] = []
        self.fired: set[str] = set()

    def run(self) -> Outcome:
        """Every step in order; the outcome keeps what was observed even when a step raises."""
        started = time.perf_counter()
        self.outcome.surfaces, self.outcome.layers = self.hardware.written, self.hardware.layers
        try:
            for index, step in enumerate(self.program.steps):
                getattr(self, f"_{type(step).__name__}")(index, step)
            self.hardware.run_armed()
            if self.hardware.regs.armed():
                raise TraceHang(f"the trace ends with units armed{self.hardware.armed_note()}",
                                path=str(self.program.path))
        finally:
            self.outcome.seconds = time.perf_counter() - started
            self.outcome.unwritten_bytes_read = self.hardware.unwritten_bytes_read
        return self.outcome

    # -- time ------------------------------------------------------------------------------------------
    def _time_passes(self) -> bool | None:
        """One step of the hardware, then the watches it satisfied fire; None when nothing can happen."""
        line = self.hardware.step()
        self._notify()
        return line

    def _notify(self) -> None:
        """Fire the sync of every watch whose interrupt bit is set (clearing the bit, as a handler does)."""
        for watch in list(self.watches):
            status = self.hardware.interrupt_status
            bits = status if watch.bit is None else status & (1 << watch.bit)
            if bits:
                self.fired.add(watch.sync)
                self.watches.remove(watch)
                self.outcome.interrupts.append(fired_watch(watch.source, watch.sync))
                if watch.bit is not None:
                    self.hardware.clear_interrupts(bits)

    def _await(self, sync: str, where: str) -> None:
        while sync not in self.fired and self._time_passes() is not None:
            pass
        if sync not in self.fired:
            waiting = [w for w in self.watches if w.sync == sync]
            cause = f"interrupt {waiting[0].source} never raised" if waiting else "no intr_notify fires it"
            raise _hang(f"sync {sync} never fires: {cause}{self.hardware.armed_note()}", where)

    # -- steps -----------------------------------------------------------------------------------------
    def _WriteRegister(self, index: int, s: WriteRegister) -> None:
        self.hardware.write(s.register, s.value, s.where)

    def _ReadRegister(self, index: int, s: ReadRegister) -> None:
        value = self.hardware.read(s.register)
        while s.poll and (value ^ s.expected) & s.mask and self._time_passes() is not None:
            value = self.hardware.read(s.register)
        self.outcome.registers[index] = value

    def _FillMemory(self, index: int, s: FillMemory) -> None:
        self._memory(s.memory, s.where).fill(s.base, s.size, 0)

    def _LoadMemory(self, index: int, s: LoadMemory) -> None:
        self._memory(s.memory, s.where).load_records(s.base, s.records)

    def _WatchInterrupt(self, index: int, s: WatchInterrupt) -> None:
        self.watches.append(s)
        self._notify()

    def _AwaitSync(self, index: int, s) -> None:
        self._await(s.sync, s.where)

    def _WaitInterrupt(self, index: int, s: WaitInterrupt) -> None:
        while True:  # the DLA interrupt line: the next unmasked done interrupt
            line = self._time_passes()
            if line:
                return
            if line is None:
                raise _hang(f"wait: no interrupt is pending{self.hardware.armed_note()}", s.where)

    def _CheckRegion(self, index: int, s: CheckRegion) -> None:
        if s.sync is None:
            while self._time_passes() is not None:  # dump_mem: when the hardware is idle
                pass
        else:
            self._await(s.sync, s.where)
        memory = self._memory(s.memory, s.where)
        self.outcome.regions[index] = memory.read(s.base, s.size, unwritten="allow")

    def _memory(self, name: str, where: str):
        if name == "sec_mem":
            self.hardware.profile.require("SECONDARY_MEMIF", f"{where}: the trace uses sec_mem (CV-SRAM)")
        return self.hardware.memory.by_name(name)


def _hang(message: str, where: str) -> TraceHang:
    path, _, line = where.rpartition(":")
    return TraceHang(message, path=path, line=int(line) if line.isdigit() else None)
