"""AXI memories on NVDLA's DBB port (and the optional CV-SRAM port), from cocotbext-axi.

NVDLA's AXI ports have per-channel signal prefixes (nvdla_core2dbb_aw_awvalid,
nvdla_core2dbb_w_wdata, ...) and no AxSIZE/AxBURST: every beat is full width
and bursts are incrementing. The per-channel buses below take AxSIZE/AxBURST as
optional and feed those constants to cocotbext-axi's slave, which serves a
cocotbext-axi sparse memory. The bench loads and reads that memory directly
(backdoor) between CSB operations.
"""

from __future__ import annotations

import itertools
import random

from cocotbext.axi import AxiBus, AxiReadBus, AxiSlave, AxiWriteBus, SparseMemoryRegion
from cocotbext.axi.axi_channels import AxiARBus, AxiAWBus, AxiBBus, AxiRBus, AxiWBus
from pyuvm import ConfigDB, uvm_component

INCR = 1


class _Constant:
    """Stands in for an absent AxSIZE/AxBURST signal when the slave samples a channel."""

    def __init__(self, value: int):
        self.value = value


class NvdlaAWBus(AxiAWBus):
    _signals = ["awid", "awaddr", "awlen", "awvalid", "awready"]
    _optional_signals = AxiAWBus._optional_signals + ["awsize", "awburst"]


class NvdlaARBus(AxiARBus):
    _signals = ["arid", "araddr", "arlen", "arvalid", "arready"]
    _optional_signals = AxiARBus._optional_signals + ["arsize", "arburst"]


def _nvdla_address_channel(bus, prefix: str, beat_bytes: int) -> None:
    for name, value in ((f"{prefix}size", (beat_bytes - 1).bit_length()), (f"{prefix}burst", INCR)):
        if name not in bus._signals:
            bus._signals[name] = _Constant(value)
    # NVDLA's AxLEN is 4 bits (AXI3-style bursts of up to 16 beats); cocotbext-axi checks
    # for AXI4's 8 bits on the attribute only, so the channel keeps it in its sampled signals alone.
    if len(getattr(bus, f"{prefix}len")) < 8:
        delattr(bus, f"{prefix}len")


def nvdla_axi_bus(dut, port: str) -> AxiBus:
    """The AXI bus of port "nvdla_core2dbb" or "nvdla_core2cvsram" from its per-channel buses."""
    aw = NvdlaAWBus.from_prefix(dut, f"{port}_aw")
    ar = NvdlaARBus.from_prefix(dut, f"{port}_ar")
    w = AxiWBus.from_prefix(dut, f"{port}_w")
    beat_bytes = len(w.wdata) // 8
    _nvdla_address_channel(aw, "aw", beat_bytes)
    _nvdla_address_channel(ar, "ar", beat_bytes)
    return AxiBus(AxiWriteBus(aw, w, AxiBBus.from_prefix(dut, f"{port}_b")),
                  AxiReadBus(ar, AxiRBus.from_prefix(dut, f"{port}_r")))


def has_port(dut, port: str) -> bool:
    return hasattr(dut, f"{port}_aw_awvalid")


def random_pause(probability: float, seed: int | str):
    """cocotbext-axi pause generator: True (stall this cycle) with the given probability, reproducibly."""
    rng = random.Random(seed)
    return (rng.random() < probability for _ in itertools.count())


class ObservedMemory(SparseMemoryRegion):
    """The memory as the DUT sees it: the address range of every write that reaches it over AXI is kept
    (the bench's backdoor loads go to `.mem` directly and are not)."""

    def __init__(self):
        super().__init__()
        self.writes: list[tuple[int, int]] = []

    async def _write(self, address, data, **kwargs):
        self.writes.append((address, len(data)))
        await super()._write(address, data, **kwargs)

    def written_runs(self) -> list[tuple[int, int]]:
        """The written ranges merged: [(address, size)], ascending."""
        runs: list[list[int]] = []
        for address, size in sorted(self.writes):
            if runs and address <= runs[-1][0] + runs[-1][1]:
                runs[-1][1] = max(runs[-1][1], address + size - runs[-1][0])
            else:
                runs.append([address, size])
        return [(address, size) for address, size in runs]


class AxiMemoryAgent(uvm_component):
    """A passive responder: cocotbext-axi's AXI slave over a sparse memory.

    With ConfigDB "AXI_PAUSE" = (probability, seed) above 0, every channel of the slave stalls at random
    (AW/W/AR ready low, R/B valid held back), each channel from its own seeded generator.
    """

    def __init__(self, name, parent, port: str):
        super().__init__(name, parent)
        self.port = port

    def build_phase(self):
        dut = ConfigDB().get(self, "", "DUT")
        clock = ConfigDB().get(self, "", "CORE_CLOCK")
        self.region = ObservedMemory()
        self.slave = AxiSlave(nvdla_axi_bus(dut, self.port), clock, dut.dla_reset_rstn,
                              target=self.region, reset_active_level=False)
        for log in (self.slave.write_if.log, self.slave.read_if.log):
            log.setLevel("WARNING")
        probability, seed = ConfigDB().get(self, "", "AXI_PAUSE")
        if probability > 0:
            channels = (self.slave.write_if.aw_channel, self.slave.write_if.w_channel, self.slave.write_if.b_channel,
                        self.slave.read_if.ar_channel, self.slave.read_if.r_channel)
            for number, channel in enumerate(channels):
                channel.set_pause_generator(random_pause(probability, f"{seed}:{self.port}:{number}"))

    def write(self, address: int, data: bytes) -> None:
        self.region.mem.write(address, bytes(data))

    def read(self, address: int, size: int) -> bytes:
        return self.region.mem.read(address, size)
