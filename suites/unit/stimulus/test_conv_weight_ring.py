"""Back-to-back convolution layers restart the CBUF weight ring when the last layer's WEIGHT_BYTES held padding.

nv_small RTL: the CDMA writes every WEIGHT_BYTES byte into the weight banks, the CSC moves its read start on by the
entries it read; a generated 2-layer trace whose second layer kept the first one's D_BANK read the first layer's
padding as weights. A different WEIGHT_BANK sends both through their pending state, which restarts both pointers.
"""
from __future__ import annotations

from golden.config import get_profile
from golden.regs.regmap import RegisterMap
from golden.units.conv.config import decode
from stimulus.choose import Seeded
from stimulus.conv import layers as conv


def _padded_release(cfg) -> bool:
    bpe = 1 if cfg.proc_precision == "int8" else 2
    stored = cfg.weight_width_ext * cfg.weight_height_ext * cfg.weight_channel_ext * cfg.kernels * bpe
    return stored != cfg.weight_bytes and not cfg.skip_weight_rls


def test_a_layer_after_padded_weights_changes_the_weight_bank():
    profile = get_profile("nv_small")
    regmap = RegisterMap.for_profile(profile)
    checked = 0
    for seed in range(40):
        chain = conv.Chain()
        choose = Seeded([28, seed])
        layers = [conv.random_layer(choose, profile, slot, mode="direct", chain=chain) for slot in (0, 1)]
        first, second = (decode(layer.values(regmap)) for layer in layers)
        if _padded_release(first) and not second.weight_reuse:
            checked += 1
            assert second.weight_bank != first.weight_bank, seed
            assert second.csc_weight_bank == second.weight_bank
    assert checked >= 5  # the case the rule is about does occur
