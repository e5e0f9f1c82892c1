"""Every rule of the registry has an illegal generator, and the golden model rejects its layers naming the rule."""

from __future__ import annotations

import pytest

from golden import rules
from golden.config import get_profile
from golden.errors import ConfigurationError
from golden.memory import MemorySystem
from golden.player import Player
from golden.regs.regmap import RegisterMap
from golden.trace import load_trace
from golden.units import pdp as golden_pdp
from golden.units.base import LayerContext
from stimulus import illegal
from stimulus.choose import Seeded
from stimulus.export import write_unchecked

ALL_RULES = rules.all_rules()


def test_every_rule_has_an_illegal_generator_and_a_source():
    assert {r.id for r in ALL_RULES} == set(illegal.BREAKERS)
    for r in ALL_RULES:
        assert r.source.split(":")[0] in ("programming-guide", "in-memory-data-formats"), r.id
        assert r.fields and all(field.count(".") == 2 for field in r.fields), r.id


@pytest.mark.parametrize("rule_id", sorted(r.id for r in ALL_RULES))
@pytest.mark.parametrize("profile_name", ["nv_small", "nv_large"])
def test_illegal_layer_is_rejected_naming_its_rule(rule_id, profile_name, tmp_path):
    profile = get_profile(profile_name)
    layer = illegal.illegal_layer(rule_id, Seeded([7, len(rule_id)]), profile)
    with pytest.raises(ConfigurationError) as info:
        if layer.fields.get("PDP.D_OPERATION_MODE_CFG.FLYING_MODE") == "ON_FLYING":
            # on the fly, the PDP waits for an SDP that this layer does not launch: run the unit itself
            golden_pdp.run(LayerContext(profile, layer.values(RegisterMap.for_profile(profile)),
                                        MemorySystem.for_profile(profile)))
        else:
            cfg = write_unchecked([layer], tmp_path / rule_id, rule_id, profile)
            Player(load_trace(cfg), profile).run()
    named = [part.strip().removeprefix("also ").split(" ")[0] for part in info.value.rule.split(";")]
    assert rule_id in named
    assert set(named) <= {rule_id} | illegal.COMPANIONS.get(rule_id, set())
    assert set(rules.REGISTRY[rule_id].fields) <= set(info.value.fields)


def test_rules_command_lists_every_rule(capsys):
    from ci.cli import main
    assert main(["rules", "--unit", "pdp", "--fields"]) == 0
    out = capsys.readouterr().out
    for r in ALL_RULES:
        assert f"{r.id} " in out and r.source in out and r.fields[0] in out
    assert f"{len(ALL_RULES)} rules from " in out
