"""What a failed simulation tells the user: the cause from the simulator's log, never only 'no result'."""

import pytest

from golden.settings import RtlSettings, SettingsError
from rtl.runner import failure_cause


def test_the_traceback_of_a_crashed_simulation_is_reported(tmp_path):
    log = tmp_path / "sim.log"
    log.write_text("     0.00ns INFO     cocotb running\n" * 50 +
                   "Traceback (most recent call last):\n  File \"csb_agent.py\", line 120, in transfer\n"
                   "rtl.bench.csb_agent.CsbTimeout: no CSB response to CSB read 0x0100c = 0x00000000\n"
                   "     5.00ns INFO     cocotb shutting down\n")
    cause = failure_cause(log)
    assert cause.startswith("Traceback") and "no CSB response to CSB read 0x0100c" in cause


def test_a_log_without_an_error_gives_its_last_lines(tmp_path):
    log = tmp_path / "sim.log"
    log.write_text("".join(f"line {i}\n" for i in range(100)))
    assert failure_cause(log).splitlines()[-1] == "line 99"


def test_axi_pause_option(monkeypatch):
    monkeypatch.delenv("NVDLA_RTL_AXI_PAUSE", raising=False)
    assert RtlSettings.from_environment().axi_pause == 0.0
    monkeypatch.setenv("NVDLA_RTL_AXI_PAUSE", "0.3")
    assert RtlSettings.from_environment().axi_pause == 0.3
    for bad in ("1.5", "often"):
        monkeypatch.setenv("NVDLA_RTL_AXI_PAUSE", bad)
        with pytest.raises(SettingsError, match="NVDLA_RTL_AXI_PAUSE"):
            RtlSettings.from_environment()
