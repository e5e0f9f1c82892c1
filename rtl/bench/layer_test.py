"""The cocotb entry point: one pyuvm test that plays the job named by the plusarg +nvdla_job=PATH (rtl/job.py).

The simulator process writes result.json next to the job for rtl.runner to read: how the run ended
(golden/status.py: completed, timeout, error), what the monitors collected (rtl/bench/outcome.py) and the
simulated time. It judges nothing: the verdict is scoreboards/verdict.py's.
"""

from __future__ import annotations

import json
import time
import traceback
from pathlib import Path

import cocotb
import pyuvm
from cocotb.utils import get_sim_time
from pyuvm import ConfigDB, uvm_test

from golden.status import Ending
from rtl.bench.env import NvdlaEnv, bind_ports, reset, start_clock_and_tie_offs
from rtl.bench.sequences import LayerSequence, LayerTimeout
from rtl.job import JOB_PLUSARG, Job


@pyuvm.test()
class LayerTest(uvm_test):
    def build_phase(self):
        self.job_path = Path(cocotb.plusargs[JOB_PLUSARG.strip("+=")])
        self.job = Job.load(self.job_path)
        dut = cocotb.top
        bind_ports(dut)
        ConfigDB().set(None, "*", "DUT", dut)
        ConfigDB().set(None, "*", "CORE_CLOCK", dut.dla_core_clk)
        ConfigDB().set(None, "*", "CSB_CLOCK", dut.dla_csb_clk)
        ConfigDB().set(None, "*", "JOB_DIR", self.job_path.parent)
        ConfigDB().set(None, "*", "AXI_PAUSE", (self.job.axi_pause, self.job.seed))
        self.env = NvdlaEnv("env", self)
        self.status, self.message, self.log = Ending.COMPLETED, "", []

    async def run_phase(self):
        self.raise_objection()
        started = time.perf_counter()
        dut = cocotb.top
        start_clock_and_tie_offs(dut, self.job.clock_ns, self.job.clock)
        await reset(dut, self.job.clock_ns, self.job.reset_idle_cycles)
        sequence = LayerSequence("layer", self.job, self.job_path.parent, self.env)
        try:
            await sequence.start(self.env.csb.seqr)
        except LayerTimeout as error:
            self.status, self.message = Ending.TIMEOUT, str(error)
        except Exception as error:  # reported in result.json, never swallowed silently
            self.status, self.message = Ending.ERROR, "".join(traceback.format_exception(error))
        self.log = sequence.log
        self.sim_ns = get_sim_time(unit="ns")
        self.run_s = time.perf_counter() - started
        self.drop_objection()

    def report_phase(self):
        summary = {"status": self.status, "message": self.message, "log": self.log,
                   "sim_ns": getattr(self, "sim_ns", 0), "run_s": getattr(self, "run_s", 0.0),
                   "clock_ns": self.job.clock_ns, "interrupt_count": self.env.intr.count,
                   "csb_stall_cycles": self.env.csb.driver.stall_cycles, **self.env.outcome.summary()}
        (self.job_path.parent / "result.json").write_text(json.dumps(summary, indent=1))
        if self.status != Ending.COMPLETED:
            self.logger.error(f"layer {self.status}: {self.message}")
