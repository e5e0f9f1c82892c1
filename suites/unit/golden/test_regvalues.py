import pytest

from golden.config import get_profile
from golden.errors import RegisterError
from golden.regs.regmap import RegisterMap
from golden.regs.values import RegisterValues


@pytest.fixture
def regmap():
    return RegisterMap.for_profile(get_profile("nv_small"))


def test_encode_and_decode_fields(regmap):
    values = RegisterValues.encode(regmap, {
        "SDP.D_DATA_CUBE_WIDTH.WIDTH": 7,
        "SDP.D_FEATURE_MODE_CFG.FLYING_MODE": 1,
        "SDP.D_CVT_OFFSET.CVT_OFFSET": 0xFFFFFFF0,
    })
    assert values.field("SDP", "D_DATA_CUBE_WIDTH", "WIDTH") == 7
    assert values.enum("SDP", "D_FEATURE_MODE_CFG", "FLYING_MODE") == "ON"
    assert values.signed("SDP", "D_CVT_OFFSET", "CVT_OFFSET") == -16


def test_unwritten_registers_read_reset_values(regmap):
    values = RegisterValues(regmap)
    reg = regmap.get("SDP", "D_DP_BS_CFG")
    assert values.value("SDP", "D_DP_BS_CFG") == reg.reset


def test_from_writes_takes_trace_names(regmap):
    values = RegisterValues.from_writes(regmap, [("NVDLA_SDP.D_DATA_CUBE_WIDTH_0", 3),
                                                 ("NVDLA_SDP.D_DATA_CUBE_WIDTH_0", 5)])
    assert values.value("SDP", "D_DATA_CUBE_WIDTH") == 5


def test_register_whose_own_name_ends_in_0(regmap):
    reg = regmap.lookup("NVDLA_CDMA.D_MEAN_GLOBAL_0_0")
    assert reg.name == "D_MEAN_GLOBAL_0"
    assert regmap.lookup("CDMA.D_MEAN_GLOBAL_0").name == "D_MEAN_GLOBAL_0"


def test_errors_name_the_register_field(regmap):
    with pytest.raises(RegisterError, match=r"SDP.D_DATA_CUBE_WIDTH.WIDTH.*does not fit the 13-bit field"):
        RegisterValues.encode(regmap, {"SDP.D_DATA_CUBE_WIDTH.WIDTH": 1 << 13})
    with pytest.raises(RegisterError, match="has no field NOPE"):
        RegisterValues.encode(regmap, {"SDP.D_DATA_CUBE_WIDTH.NOPE": 1})
    with pytest.raises(RegisterError, match="no register SDP.D_NOPE"):
        RegisterValues(regmap).value("SDP", "D_NOPE")
    values = RegisterValues.encode(regmap, {"SDP.D_FEATURE_MODE_CFG.FLYING_MODE": 1})
    with pytest.raises(RegisterError, match="not one of"):
        RegisterValues(regmap, {("SDP", "D_DATA_FORMAT"): 3}).enum("SDP", "D_DATA_FORMAT", "PROC_PRECISION")
    assert values.written()


def test_layouts_share_offsets_but_not_bases():
    master, v1 = RegisterMap.for_layout("master"), RegisterMap.for_layout("nvdlav1")
    reg = master.lookup("SDP.S_POINTER")
    assert master.address(reg) == 0x9004 and v1.address(v1.lookup("SDP.S_POINTER")) == 0xB004
    assert v1.at(0xB004).qualified == "SDP.S_POINTER"
    with pytest.raises(RegisterError, match="no register at byte address"):
        v1.at(0xFFFFC)
