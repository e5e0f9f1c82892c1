import pytest

from golden.regs.regmap import RegisterMap
from golden.regs.values import RegisterValues
from golden.trace import load_trace
from rtl.fixture_subset import unsupported_reason
from rtl.suite import ALL_SUPPORTED, UNSUPPORTED, nvidia_trace

REGMAP = RegisterMap.for_layout("master")


def _values(name):
    path = nvidia_trace(name)
    if not path.exists():
        pytest.skip("NVIDIA traces not available")
    trace = load_trace(path)
    values = RegisterValues.from_writes(REGMAP, trace.registers_written())
    units = {unit.split(".")[0] for unit, _ in trace.registers_written()}
    return values, units


@pytest.mark.parametrize("name", ALL_SUPPORTED)
def test_traces_inside_the_subset(name):
    assert unsupported_reason(*_values(name)) is None


@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
def test_traces_outside_the_subset_name_the_missing_feature(name):
    reason = unsupported_reason(*_values(name))
    assert reason is not None and UNSUPPORTED[name] in reason


def test_memory_operands_are_outside_the_subset():
    values = RegisterValues.encode(REGMAP, {"SDP.D_DP_BS_CFG.BS_BYPASS": 0, "SDP.D_DP_BS_CFG.BS_ALU_BYPASS": 0,
                                            "SDP.D_DP_BS_ALU_CFG.BS_ALU_SRC": 1,
                                            "SDP_RDMA.D_FEATURE_MODE_CFG.IN_PRECISION": 0,
                                            "SDP_RDMA.D_SRC_DMA_CFG.SRC_RAM_TYPE": 1,
                                            "SDP.D_DST_DMA_CFG.DST_RAM_TYPE": 1})
    assert "BS ALU operand from memory" in unsupported_reason(values, {"SDP", "SDP_RDMA"})
