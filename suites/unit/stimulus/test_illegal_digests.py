"""The illegal layers drawn for a (rule, seed, profile) stay byte for byte what they were: digests recorded from the
code before the breakers were declared once (illegal_digests.json, commit a814d92), "none" where no layer could
be drawn. A rule added since has no digest and is not checked here; record it when a change must keep it."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from golden.config import get_profile
from golden.regs.regmap import RegisterMap
from stimulus import illegal
from stimulus.choose import Seeded

RECORDED = json.loads((Path(__file__).parent / "illegal_digests.json").read_text())


def _digest(layer, regmap) -> str:
    """Everything a layer and those its trace runs first carry: fields, images, checks, writes, register writes."""
    h = hashlib.sha256()
    for one in [*layer.follows, layer]:
        h.update(repr((one.family, sorted(one.fields.items()), one.interrupt, one.enable, sorted(one.choices.items()),
                       one.writes, one.reads, one.waits,
                       [(i.memory, i.base, hashlib.sha256(i.data).hexdigest(), i.label) for i in one.images],
                       [(c.memory, c.base, c.size, c.label) for c in one.checks],
                       one.register_writes(regmap))).encode())
    return h.hexdigest()[:16]


@pytest.mark.parametrize("profile_name", sorted(RECORDED))
@pytest.mark.slow
def test_illegal_layers_are_unchanged(profile_name):
    profile = get_profile(profile_name)
    regmap = RegisterMap.for_profile(profile)
    changed = []
    for rule_id, recorded in RECORDED[profile_name].items():
        try:
            drawn = _digest(illegal.illegal_layer(rule_id, Seeded([0, 0]), profile), regmap)
        except illegal.NoIllegalLayer:
            drawn = "none"
        if drawn != recorded:
            changed.append(f"{rule_id}: {recorded} -> {drawn}")
    assert not changed, "illegal layers changed:\n" + "\n".join(changed)
