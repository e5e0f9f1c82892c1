"""Every rule of the registry has an illegal generator, and the golden model rejects its layers naming the rule."""

from __future__ import annotations

import pytest

from golden import rules
from golden.config import get_profile
from golden.errors import ConfigurationError
from stimulus import illegal, illegal_conv, illegal_dma
from stimulus.choose import Seeded

ALL_RULES = rules.all_rules()


def test_every_rule_has_an_illegal_generator_and_a_source():
    # rules of layers no generator draws yet are broken on hand-built layers instead (UNGENERATED below)
    assert {r.id for r in ALL_RULES} == set(illegal.BREAKERS) | UNGENERATED
    for r in ALL_RULES:
        assert r.source.split(":")[0] in ("programming-guide", "in-memory-data-formats", "precision-preservation",
                                          "register map"), r.id
        assert r.fields and all(field.count(".") == 2 for field in r.fields), r.id


#: Rules with no breaker on any profile: none (every rule's illegal layer comes from a generated one).
UNGENERATED: set[str] = set()
#: Rubik exists on nv_full only.
RUBIK = {r.id for r in ALL_RULES if r.unit == "RUBIK"}
#: Rules nv_small cannot reach (no fp16, no int16, no EW, LUT or BATCH, no BDMA, no weight compression, no Winograd,
#: no Rubik), written out here.
NV_SMALL_UNREACHABLE = UNGENERATED | RUBIK | {
    "SDP-PRECISION-CONVERSION", "SDP-INPUT-PROCESSING", "SDP-NO-CONVERSION-TO-PDP-OR-EQL", "SDP-EW-FP16-ALU-CVT",
    "SDP-EW-FP16-MUL-CVT", "SDP-BATCH-ON-THE-FLY", "SDP-BATCH-ALIGNMENT", "SDP-EW-PRELU-ALU", "SDP-ERDMA-NEEDED",
    "SDP-ERDMA-DATA-USE", "SDP-BRDMA-FP16-SIZE", "SDP-NRDMA-FP16-SIZE", "SDP-ERDMA-FP16-SIZE", "SDP-EQL-ALU-CVT",
    "SDP-EQL-LUT", "SDP-EQL-OUTPUT-CVT", "SDP-EQL-NO-WINOGRAD-BATCH", "SDP-ERDMA-ALIGN", "CONV-CDMA-WMB-ALIGN",
    "CONV-CDMA-WGS-ALIGN", "BDMA-SRC-LINE-STRIDE", "BDMA-SRC-SURFACE-STRIDE", "BDMA-DST-LINE-STRIDE",
    "BDMA-DST-SURFACE-STRIDE", "BDMA-GROUP-NOT-EMPTY", "BDMA-GROUP-DST-RAM", "CONV-CLIP-TRUNCATE-FP16",
    "SDP-ERDMA-1X1XC-PACKED", "SDP-LUT-LE-SELECT", "SDP-LUT-LO-SELECT", "SDP-LUT-OFFSET", "SDP-LUT-LE-SPAN",
    "SDP-LUT-LO-SPAN", "CONV-PIXEL-CONVERTOR", "CONV-PIXEL-PRECISION", "CONV-WMB-BYTES",
    "SDP-INT16-TO-INT8", "SDP-WINOGRAD-MEMORY-OUTPUT", "SDP-BRDMA-INT16-SIZE", "SDP-NRDMA-INT16-SIZE",
    "SDP-ERDMA-INT16-SIZE",
    *(r.id for r in ALL_RULES if r.id.startswith("CONV-WINOGRAD-"))}

#: nvdlav1's register files keep bits 31:5 of every address and stride (golden/regs/hardware_fields.json): nv_full
#: cannot be programmed off its 32-byte atom.
NV_FULL_UNREACHABLE = UNGENERATED | {
    "CDP-DST-ALIGN", "CDP-RDMA-SRC-ALIGN", "CONV-CDMA-FEATURE-ALIGN", "CONV-CDMA-PIXEL-ALIGN",
    "CONV-CDMA-WEIGHT-ALIGN", "CONV-CDMA-WGS-ALIGN", "CONV-CDMA-WMB-ALIGN", "PDP-DST-ALIGN", "PDP-RDMA-SRC-ALIGN",
    "SDP-BRDMA-ALIGN", "SDP-DST-ALIGN", "SDP-ERDMA-ALIGN", "SDP-NRDMA-ALIGN", "SDP-SRC-ALIGN"}


def test_reachability_by_profile():
    small, full = get_profile("nv_small"), get_profile("nv_full")
    assert {r.id for r in ALL_RULES if not illegal.reachable(r.id, small)} == NV_SMALL_UNREACHABLE
    assert {r.id for r in ALL_RULES if not illegal.reachable(r.id, full)} == NV_FULL_UNREACHABLE
    assert UNGENERATED == illegal_dma.UNGENERATED | illegal_conv.UNGENERATED


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
