"""Play a trace on an implementation (default: the golden model) and judge it against what the trace expects.

    play(trace_or_path, profile, implementation=None, data_root=None) -> TraceResult    golden/verdict.py's verify
                                                                         without a reference; never raises for a
                                                                         trace or model problem
    Player(trace, profile).run() -> TraceResult                          the golden model, raising; .regs, .memory,
                                                                         .luts, .hardware to inspect afterwards

The parts: golden/steps.py compiles the trace (prepare), golden/hardware.py is the golden NVDLA (registers,
memories, the scheduling of hardware layers and interrupts), golden/interpreter.py runs the steps
on it, golden/implementation.py runs an implementation (observe), golden/verdict.py judges the outcome.
Comparing with a reference implementation through the scoreboards is scoreboards/verdict.py's verify().
"""

from __future__ import annotations

from pathlib import Path

from golden.config import Profile
from golden.hardware import Hardware, HardwareLayer, TraceHang, WrittenSurface
from golden.implementation import Golden, Implementation, observe
from golden.interpreter import Interpreter
from golden.steps import MissingFiles, compile_trace, prepare
from golden.trace import Trace, trace_label
from golden.verdict import Check, TraceResult, judge, result_for, verify

__all__ = ["Check", "HardwareLayer", "MissingFiles", "Player", "TraceHang", "TraceResult",
           "WrittenSurface", "observe", "play", "prepare", "result_for", "trace_label"]


def play(trace: Trace | str | Path, profile: Profile, implementation: Implementation | None = None,
         data_root: str | Path | None = None) -> TraceResult:
    """Play a trace and judge it against its own checks; never raises for a problem of the trace or a model."""
    return verify(trace, profile, implementation or Golden(), data_root=data_root)


class Player:
    """The golden model on one trace, raising on any problem; its state stays for inspection."""

    def __init__(self, trace: Trace, profile: Profile):
        self.program = compile_trace(trace)
        self.profile = profile
        self.hardware = Hardware(profile, trace.layout)
        self.regs, self.memory, self.luts = self.hardware.regs, self.hardware.memory, self.hardware.luts

    def run(self) -> TraceResult:
        return judge(self.program, Interpreter(self.program, self.hardware).run(), self.profile)
