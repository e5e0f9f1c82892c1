"""Breakers of the rules over what an earlier layer left in the CBUF (golden/units/conv/rules.py: CONV-DATA-REUSE-*,
CONV-WEIGHT-REUSE-KEPT, CONV-WEIGHT-RING): they take two back-to-back legal convolution layers and change the first
or the second so that the second breaks the rule, the first staying legal. The illegal layer is the second; the
first runs before it in its trace (Layer.follows).

A change (stimulus/breakers.py) takes the two layers' fields (copies), their two decoded ConvConfigs, the chooser
and the profile, and returns the two field dicts, or None when this pair cannot be changed that way.
"""

from __future__ import annotations

from dataclasses import replace

import golden.units
from golden.regs.regmap import RegisterMap
from golden.units.conv.cbuf import ring_apart
from stimulus.breakers import broken_rules, declare
from stimulus.conv import layers as conv
from stimulus.conv.layers import set_both


def _data_released(pair, cfgs, choose, profile):
    """The first layer releases every input slice the second reuses."""
    (first, second), (cfg1, cfg2) = pair, cfgs
    if not cfg2.data_reuse:
        return None
    release = set_both("D_MISC_CFG", "SKIP_DATA_RLS", 0)
    release["CSC.D_RELEASE.RLS_SLICES"] = cfg1.csc_height_ext - 1
    return {**first, **release}, second


def _data_bank_changed(pair, cfgs, choose, profile):
    """The first layer kept its slices under one DATA_BANK more than the second's (one WEIGHT_BANK fewer, so
    that its banks still fit the CBUF)."""
    (first, second), (cfg1, cfg2) = pair, cfgs
    if not cfg2.data_reuse or cfg1.weight_bank < 2:
        return None
    banks = {**set_both("D_BANK", "DATA_BANK", cfg1.data_bank),
             **set_both("D_BANK", "WEIGHT_BANK", cfg1.weight_bank - 2)}
    return {**first, **banks}, second


def _data_height_short(pair, cfgs, choose, profile):
    """The first layer releases two slices, and the second layer's CDMA fetches one line fewer than the kept
    slices leave to its DATAIN_HEIGHT_EXT."""
    (first, second), (cfg1, cfg2) = pair, cfgs
    if not cfg2.data_reuse or cfg1.csc_height_ext < 3:
        return None
    release = set_both("D_MISC_CFG", "SKIP_DATA_RLS", 0)
    release["CSC.D_RELEASE.RLS_SLICES"] = 1  # two slices
    first = {**first, **release}
    kept = cfg1.csc_height_ext - 2
    fetched = cfg2.csc_height_ext - kept - 1
    if fetched < 1:
        return None
    return first, {**second, "CDMA.D_DATAIN_SIZE_0.DATAIN_HEIGHT": fetched - 1}


def _weights_released(pair, cfgs, choose, profile):
    """The first layer releases the weights the second reuses."""
    (first, second), cfg2 = pair, cfgs[1]
    if not cfg2.weight_reuse:
        return None
    return {**first, **set_both("D_MISC_CFG", "SKIP_WEIGHT_RLS", 0)}, second


def _same_weight_bank(pair, cfgs, choose, profile):
    """After a first layer whose WEIGHT_BYTES held padding, the second fetches its weights on the same banks."""
    (first, second), (cfg1, cfg2) = pair, cfgs
    if not ring_apart(cfg1) or cfg2.weight_reuse or cfg2.weight_bank == cfg1.weight_bank:
        return None
    return first, {**second, **set_both("D_BANK", "WEIGHT_BANK", cfg1.weight_bank - 1)}


CHANGES = {
    "CONV-DATA-REUSE-KEPT": _data_released,
    "CONV-DATA-REUSE-SAME": _data_bank_changed,
    "CONV-DATA-REUSE-HEIGHT": _data_height_short,
    "CONV-WEIGHT-REUSE-KEPT": _weights_released,
    "CONV-WEIGHT-RING": _same_weight_bank,
}


def _draw(breaker, choose, profile):
    """Two back-to-back legal convolution layers sharing the chain (and SDP operands in both or neither), changed;
    the first must stay legal."""
    shared = conv.shared(choose, profile)
    pair = [conv.random_layer(choose, profile, slot, **shared) for slot in range(2)]
    regmap = RegisterMap.for_profile(profile)
    cfgs = tuple(golden.units.unit("CONV").decode(layer.values(regmap), profile) for layer in pair)
    changed = breaker.change((dict(pair[0].fields), dict(pair[1].fields)), cfgs, choose, profile)
    if changed is None:
        return None
    first = replace(pair[0], fields=changed[0], choices=dict(pair[0].choices))
    if broken_rules(first, profile, "CONV"):
        return None
    return replace(pair[1], fields=changed[1], choices=dict(pair[1].choices), follows=[first])


BREAKERS = declare(CHANGES, _draw)
