"""An exported input.txn awaits each layer's done interrupts by their GLB.S_INTR_STATUS bits, not by counting waits.

NVIDIA's harnesses `wait` for the interrupt line's level, which stays high for a few cycles after the write that
clears the status (nvdlav1 NV_NVDLA_GLB_ic.v: core_intr_d and a 3-flop synchroniser). A generated nv_full conv
layer that never finished on nvdlav1's RTL passed its four waits and was dumped half-done; the polled read below
holds until every done bit is set.
"""

from golden.config import get_profile
from stimulus import families
from stimulus.export import write_trace

PROFILE = get_profile("nv_full")
# nvdlav1 NV_NVDLA_GLB_CSB_reg.v, the S_INTR_STATUS read-back: SDP_DONE_STATUS0/1 bits 0/1,
# CDMA_DAT_DONE_STATUS0/1 16/17, CDMA_WT_DONE_STATUS0/1 18/19, CACC_DONE_STATUS0/1 20/21
CONV_GROUP_0 = 1 << 0 | 1 << 16 | 1 << 18 | 1 << 20
CONV_GROUP_1 = 1 << 1 | 1 << 17 | 1 << 19 | 1 << 21


def _conv_layers(count: int) -> list:
    """The first drawn trace of `count` convolutions that end in SDP (no PDP on the fly)."""
    for index in range(200):
        drawn = families.layers("conv", PROFILE, 7, index, count)
        if all(set(layer.enable) == {"CDMA", "CSC", "CMAC_A", "CMAC_B", "CACC", "SDP"} for layer in drawn):
            return drawn
    raise AssertionError("no such trace in 200 draws")


def _tail(path) -> list[str]:
    lines = [line.split("#")[0].split() for line in path.read_text().splitlines() if not line.startswith("#")]
    return [" ".join(words) for words in lines if words and words[0] in ("wait", "read_reg", "write_reg")][-3:]


def test_one_conv_layer_is_awaited_by_its_four_done_bits(tmp_path):
    path = write_trace(_conv_layers(1), tmp_path / "one", "one", PROFILE)
    assert _tail(path) == ["wait", f"read_reg 0xffff0003 {CONV_GROUP_0:#010x} {CONV_GROUP_0:#010x}",
                           f"write_reg 0xffff0003 {CONV_GROUP_0:#x}"]


def test_two_back_to_back_layers_are_awaited_in_both_register_groups(tmp_path):
    path = write_trace(_conv_layers(2), tmp_path / "two", "two", PROFILE)
    both = CONV_GROUP_0 | CONV_GROUP_1
    assert _tail(path) == ["wait", f"read_reg 0xffff0003 {both:#010x} {both:#010x}", f"write_reg 0xffff0003 {both:#x}"]
    assert path.read_text().count("\nwait") == 1
