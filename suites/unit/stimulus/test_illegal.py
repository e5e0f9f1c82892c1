"""Every rule of the registry has an illegal generator, and the golden model rejects its layers naming the rule."""

from __future__ import annotations

import dataclasses
import inspect
import sys
import types

import pytest

from golden import rules
from golden.config import get_profile
from golden.errors import ConfigurationError, DeclarationError
from stimulus import illegal
from stimulus.breakers import Breaker, declare
from stimulus.choose import Seeded

ALL_RULES = rules.all_rules()


def test_every_rule_has_a_breaker_or_a_reason_for_none():
    ids = {r.id for r in ALL_RULES}
    assert set(illegal.BREAKERS) <= ids, "a breaker of a rule the registry does not have"
    assert ids - set(illegal.BREAKERS) == set(illegal.UNBROKEN), "a rule with no breaker and no reason, or both"
    assert all(isinstance(why, str) and why.strip() for why in illegal.UNBROKEN.values())
    for rule_id, breaker in illegal.BREAKERS.items():
        assert breaker.rule == rule_id and breaker.companions <= ids, rule_id
    for r in ALL_RULES:
        assert r.source.split(":")[0] in ("programming-guide", "in-memory-data-formats", "precision-preservation",
                                          "register map"), r.id
        assert r.fields and all(field.count(".") == 2 for field in r.fields), r.id


def test_every_breaker_has_the_one_signature():
    """change(legal, seen, choose, profile), draw(breaker, choose, profile), requires(profile)."""
    for breaker in illegal.BREAKERS.values():
        inspect.signature(breaker.change).bind(None, None, None, None)
        inspect.signature(breaker.draw).bind(breaker, None, None)
        inspect.signature(breaker.requires).bind(None)
        with pytest.raises(TypeError):
            inspect.signature(breaker.change).bind(None, None, None)


def test_a_rule_broken_in_two_modules_is_a_declaration_error(monkeypatch):
    def change(legal, seen, choose, profile):
        return None

    for name in ("toy_breakers_a", "toy_breakers_b"):
        module = types.ModuleType(name)
        module.BREAKERS = declare({"PDP-KERNEL-SIZE": change}, lambda breaker, choose, profile: None)
        monkeypatch.setitem(sys.modules, name, module)
    assert [b.rule for b in illegal.gather(("toy_breakers_a",)).values()] == ["PDP-KERNEL-SIZE"]
    with pytest.raises(DeclarationError, match="PDP-KERNEL-SIZE has two breakers"):
        illegal.gather(("toy_breakers_a", "toy_breakers_b"))


def test_a_rule_without_breaker_says_why(monkeypatch):
    monkeypatch.delitem(illegal.BREAKERS, "PDP-KERNEL-SIZE")
    monkeypatch.setitem(illegal.UNBROKEN, "PDP-KERNEL-SIZE", "a toy reason")
    assert not illegal.reachable("PDP-KERNEL-SIZE", get_profile("nv_full"))
    with pytest.raises(illegal.NoIllegalLayer, match="no illegal generator for rule PDP-KERNEL-SIZE: a toy reason"):
        illegal.illegal_layer("PDP-KERNEL-SIZE", Seeded([0, 0]), get_profile("nv_full"))


def test_a_breaker_needs_what_it_declares(monkeypatch):
    """Its own requirement, and its unit's profile switch (a profile without PDP cannot break a PDP rule)."""
    full = get_profile("nv_full")
    assert illegal.reachable("PDP-KERNEL-SIZE", full)
    assert not illegal.reachable("PDP-KERNEL-SIZE", dataclasses.replace(full, pdp=False))
    never = Breaker("PDP-KERNEL-SIZE", lambda *a: None, lambda *a: None, requires=lambda profile: False)
    monkeypatch.setitem(illegal.BREAKERS, "PDP-KERNEL-SIZE", never)
    assert not illegal.reachable("PDP-KERNEL-SIZE", full)


#: Rubik exists on nv_full only.
RUBIK = {r.id for r in ALL_RULES if r.unit == "RUBIK"}
#: Rules nv_small cannot reach (no fp16, no int16, no EW, LUT or BATCH, no BDMA, no weight compression, no Winograd,
#: no Rubik), written out here.
NV_SMALL_UNREACHABLE = set(illegal.UNBROKEN) | RUBIK | {
    "SDP-PRECISION-CONVERSION", "SDP-INPUT-PROCESSING", "SDP-NO-CONVERSION-TO-PDP-OR-EQL", "SDP-EW-FP16-ALU-CVT",
    "SDP-EW-FP16-MUL-CVT", "SDP-BATCH-ON-THE-FLY", "SDP-BATCH-ALIGNMENT", "SDP-EW-PRELU-ALU", "SDP-ERDMA-NEEDED",
    "SDP-ERDMA-DATA-USE", "SDP-BRDMA-FP16-SIZE", "SDP-NRDMA-FP16-SIZE", "SDP-ERDMA-FP16-SIZE", "SDP-EQL-ALU-CVT",
    "SDP-EQL-LUT", "SDP-EQL-OUTPUT-CVT", "SDP-EQL-NO-WINOGRAD-BATCH", "SDP-ERDMA-ALIGN", "CONV-CDMA-WMB-ALIGN",
    "CONV-CDMA-WGS-ALIGN", "BDMA-SRC-LINE-STRIDE", "BDMA-SRC-SURFACE-STRIDE", "BDMA-DST-LINE-STRIDE",
    "BDMA-DST-SURFACE-STRIDE", "BDMA-GROUP-NOT-EMPTY", "BDMA-GROUP-DST-RAM", "CONV-CLIP-TRUNCATE-FP16",
    "SDP-ERDMA-1X1XC-PACKED", "SDP-LUT-LE-SELECT", "SDP-LUT-LO-SELECT", "SDP-LUT-OFFSET", "SDP-LUT-LE-SPAN",
    "SDP-LUT-LO-SPAN", "CONV-PIXEL-CONVERTOR", "CONV-FEATURE-CONVERTOR", "CONV-PIXEL-PRECISION", "CONV-WMB-BYTES",
    "SDP-INT16-TO-INT8", "SDP-WINOGRAD-MEMORY-OUTPUT", "SDP-BRDMA-INT16-SIZE", "SDP-NRDMA-INT16-SIZE",
    "SDP-ERDMA-INT16-SIZE",
    *(r.id for r in ALL_RULES if r.id.startswith("CONV-WINOGRAD-"))}

#: nvdlav1's register files keep bits 31:5 of every address and stride (golden/regs/hardware_fields.json): nv_full
#: cannot be programmed off its 32-byte atom.
NV_FULL_UNREACHABLE = set(illegal.UNBROKEN) | {
    "CDP-DST-ALIGN", "CDP-RDMA-SRC-ALIGN", "CONV-CDMA-FEATURE-ALIGN", "CONV-CDMA-PIXEL-ALIGN",
    "CONV-CDMA-WEIGHT-ALIGN", "CONV-CDMA-WGS-ALIGN", "CONV-CDMA-WMB-ALIGN", "PDP-DST-ALIGN", "PDP-RDMA-SRC-ALIGN",
    "SDP-BRDMA-ALIGN", "SDP-DST-ALIGN", "SDP-ERDMA-ALIGN", "SDP-NRDMA-ALIGN", "SDP-SRC-ALIGN"}


def test_reachability_by_profile():
    small, full = get_profile("nv_small"), get_profile("nv_full")
    assert {r.id for r in ALL_RULES if not illegal.reachable(r.id, small)} == NV_SMALL_UNREACHABLE
    assert {r.id for r in ALL_RULES if not illegal.reachable(r.id, full)} == NV_FULL_UNREACHABLE


@pytest.mark.parametrize("rule_id", sorted(r.id for r in ALL_RULES))
@pytest.mark.parametrize("profile_name", ["nv_small", "nv_full"])
def test_illegal_layer_is_rejected_naming_its_rule(rule_id, profile_name, tmp_path):
    profile = get_profile(profile_name)
    if rule_id in (NV_SMALL_UNREACHABLE if profile_name == "nv_small" else NV_FULL_UNREACHABLE):
        with pytest.raises(illegal.NoIllegalLayer):
            illegal.illegal_layer(rule_id, Seeded([7, len(rule_id)]), profile, attempts=60)
        return
    layer = illegal.illegal_layer(rule_id, Seeded([7, len(rule_id)]), profile)
    with pytest.raises(ConfigurationError) as info:
        illegal.run_on_golden(layer, profile, tmp_path, rule_id)
    named = [part.strip().removeprefix("also ").split(" ")[0] for part in info.value.rule.split(";")]
    assert rule_id in named
    assert set(named) <= {rule_id} | illegal.COMPANIONS.get(rule_id, set())
    assert set(rules.REGISTRY[rule_id].fields) <= set(info.value.fields)


def test_rules_command_lists_every_rule(capsys):
    from ci.cli import main
    assert main(["rules", "--fields"]) == 0
    out = capsys.readouterr().out
    for r in ALL_RULES:
        assert f"{r.id} " in out and r.source in out and r.fields[0] in out
    assert f"{len(ALL_RULES)} rules from " in out


@pytest.mark.parametrize("rule_id", ["SDP-LUT-LE-SELECT", "SDP-LUT-LO-SELECT", "SDP-LUT-OFFSET"])
def test_an_index_setting_out_of_range_is_one_rule_not_also_its_span(rule_id):
    """The span rules skip a table whose index setting is out of range (found by `nvdla-verif fuzz` on nv_full:
    an LO select out of range also broke the LO span, so no layer broke the select rule alone)."""
    profile = get_profile("nv_full")
    for seed in range(4):
        layer = illegal.illegal_layer(rule_id, Seeded([seed, 1]), profile, attempts=100)
        assert illegal.broken_rules(layer, profile, "SDP") == {rule_id}
