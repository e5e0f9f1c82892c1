"""The environment: CSB agent, AXI memories (DBB, CV-SRAM when the DUT has the port), interrupt monitor,
the outcome collector, and the clock and reset of NVDLA's top level. It has no scoreboard: the bench is an
implementation, and the verdict of what it collected is scoreboards/verdict.py's, outside the simulator."""

from __future__ import annotations

from cocotb.clock import Clock
from cocotb.triggers import RisingEdge, Timer
from pyuvm import ConfigDB, uvm_analysis_port, uvm_env

from rtl.bench.axi_memory import AxiMemoryAgent, has_port
from rtl.bench.csb_agent import CsbAgent
from rtl.bench.intr_monitor import IntrMonitor
from rtl.bench.outcome import OutcomeCollector
from rtl.job import PORTS

AXI_SIGNALS = {"aw": ("awvalid", "awready", "awid", "awlen", "awaddr"),
               "w": ("wvalid", "wready", "wdata", "wstrb", "wlast"),
               "b": ("bvalid", "bready", "bid"),
               "ar": ("arvalid", "arready", "arid", "arlen", "araddr"),
               "r": ("rvalid", "rready", "rid", "rlast", "rdata")}
TOP_PORTS = ("dla_core_clk", "dla_csb_clk", "dla_reset_rstn", "direct_reset_", "dla_intr", "csb2nvdla_valid",
             "csb2nvdla_ready", "csb2nvdla_addr", "csb2nvdla_wdat", "csb2nvdla_write", "csb2nvdla_nposted",
             "nvdla2csb_valid", "nvdla2csb_data", "nvdla2csb_wr_complete")
TIE_OFF = ("global_clk_ovr_on", "tmc2slcg_disable_clock_gating", "test_mode")
PWRBUS = ("c", "ma", "mb", "p", "o", "a")


def bind_ports(dut) -> None:
    """Look every NV_nvdla port up by name before anything lists the DUT's objects.

    With Verilator 5.006 and cocotb 1.8, a handle first found by listing the top
    level (cocotb-bus does that for optional signals) could be one whose writes
    never reached the model; handles found by name first are kept and work.
    """
    names = list(TOP_PORTS) + [f"{port}_{channel}_{signal}" for port in PORTS.values()
                               for channel, signals in AXI_SIGNALS.items() for signal in signals]
    names += list(TIE_OFF) + [f"nvdla_pwrbus_ram_{name}_pd" for name in PWRBUS]
    for name in names:
        try:
            getattr(dut, name)
        except AttributeError:
            pass


class NvdlaEnv(uvm_env):
    def build_phase(self):
        dut = ConfigDB().get(self, "", "DUT")
        self.csb = CsbAgent("csb", self)
        self.memories = {kind: AxiMemoryAgent(f"{kind}_mem", self, port)
                         for kind, port in PORTS.items() if has_port(dut, port)}
        self.intr = IntrMonitor("intr", self)
        self.outcome = OutcomeCollector("outcome", self)
        #: where the sequence marks its progress (rtl/bench/outcome.py: Checkpoint); it publishes nothing else
        self.checkpoints = uvm_analysis_port("checkpoints", self)

    def connect_phase(self):
        self.csb.monitor.ap.connect(self.outcome.csb.analysis_export)
        self.intr.ap.connect(self.outcome.intr.analysis_export)
        self.checkpoints.connect(self.outcome.checkpoints.analysis_export)

    def memory(self, kind: str) -> AxiMemoryAgent:
        if kind not in self.memories:
            raise KeyError(f"the DUT has no {PORTS[kind]} port for {kind} memory")
        return self.memories[kind]


def start_clock_and_tie_offs(dut, period_ns: int, impl: str = "gpi") -> None:
    """Both NVDLA clocks, toggled by cocotb 2's C++ clock (impl "gpi": no Python wake-up per edge) or by a
    Python coroutine (impl "py", the way cocotb 1 clocked Verilator); static inputs tied to their functional
    values."""
    Clock(dut.dla_core_clk, period_ns, unit="ns", impl=impl).start()
    if dut.dla_csb_clk is not dut.dla_core_clk:
        Clock(dut.dla_csb_clk, period_ns, unit="ns", impl=impl).start()
    for name in TIE_OFF:
        if hasattr(dut, name):
            getattr(dut, name).value = 0
    for name in PWRBUS:
        if hasattr(dut, f"nvdla_pwrbus_ram_{name}_pd"):
            getattr(dut, f"nvdla_pwrbus_ram_{name}_pd").value = 0
    dut.csb2nvdla_valid.value = 0


async def reset(dut, period_ns: int, idle_cycles: int = 8192, reset_cycles: int = 20) -> None:
    """Reset asserted for reset_cycles, then idle_cycles with nothing driven before the first CSB request:
    NVIDIA's harness (nvdla/hw verif/verilator/nvdla.cpp) holds reset 20 cycles and then lets the buffers
    clear for 8192 cycles."""
    dut.dla_reset_rstn.value = 0
    dut.direct_reset_.value = 0
    await Timer(reset_cycles * period_ns, unit="ns")
    await RisingEdge(dut.dla_core_clk)
    dut.dla_reset_rstn.value = 1
    dut.direct_reset_.value = 1
    await Timer(idle_cycles * period_ns, unit="ns")
