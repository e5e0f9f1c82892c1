"""The S_LUT_* parameters are single registers that both register groups share and the datapath reads live
(NVIDIA RTL NV_NVDLA_CDP_REG_single.v, NV_NVDLA_SDP_REG_single.v): a trace that changes one while a layer of
its unit is enabled races with that layer. The fuzzing campaign met it on nv_small: a two-layer CDP trace
reprogrammed S_LUT_INFO and S_LUT_LE_START for its second layer right after enabling the first."""

from __future__ import annotations

import pytest

from golden.config import get_profile
from golden.hardware import Hardware, SharedRegisterRace


def _hardware():
    return Hardware(get_profile("nv_small"))


def _write(hw, unit, name, value, line=7):
    hw.write(hw.regmap.get(unit, name), value, f"race.cfg:{line}")


@pytest.mark.parametrize("unit", ["CDP", "SDP"])
def test_changing_a_lut_parameter_while_enabled_is_a_race(unit):
    hw = _hardware()
    _write(hw, unit, "S_LUT_INFO", 0x0A0B0C)  # nothing enabled yet: the ordinary way to program it
    _write(hw, unit, "D_OP_ENABLE", 1)
    _write(hw, unit, "S_LUT_INFO", 0x0A0B0C)  # the same value again changes nothing
    with pytest.raises(SharedRegisterRace) as info:
        _write(hw, unit, "S_LUT_INFO", 0x0AFF0C, line=12)
    text = str(info.value)
    assert text.startswith("race.cfg:12: ") and f"{unit}.S_LUT_INFO" in text and f"{unit}[0] is enabled" in text


def test_the_other_group_may_be_programmed_while_one_is_enabled():
    hw = _hardware()
    _write(hw, "CDP", "D_OP_ENABLE", 1)
    _write(hw, "CDP", "S_POINTER", 1)  # the producer moves to group 1: its D_ registers are its own
    _write(hw, "CDP", "D_DATOUT_SCALE", 3)
    _write(hw, "CDP", "D_OP_ENABLE", 1)
    with pytest.raises(SharedRegisterRace):
        _write(hw, "CDP", "S_LUT_LE_START_LOW", 5)
