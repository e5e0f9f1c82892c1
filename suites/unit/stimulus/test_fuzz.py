"""The fuzzer reports nothing on the golden model, and reports planted faults for what they are."""

from __future__ import annotations

from ci.cli import main
from golden import rules
from golden.config import get_profile
from stimulus import fuzz
from stimulus.families import available


def test_fuzz_of_the_golden_model_finds_nothing(capsys):
    assert main(["fuzz", "--profile", "nv_small", "--seed", "3", "-n", "20"]) == 0
    legal = 20 * len(available(get_profile("nv_small")))
    assert f"{legal} legal and 20 illegal layers, 0 findings" in capsys.readouterr().out


def test_a_rule_the_model_forgets_is_accepted_against_it(monkeypatch):
    enforce = rules.enforce

    def forgetful(unit, cfg, facts, *args, **kwargs):
        kept = {key: rule for key, rule in rules.REGISTRY.items() if key != "PDP-OUT-CHANNEL"}
        monkeypatch.setattr(rules, "REGISTRY", kept)
        try:
            enforce(unit, cfg, facts, *args, **kwargs)
        finally:
            monkeypatch.setattr(rules, "REGISTRY", everything)

    everything = rules.REGISTRY
    monkeypatch.setattr(rules, "enforce", forgetful)
    report = fuzz.fuzz(get_profile("nv_small"), 1, 17, ["pdp"])
    assert [(f.kind, f.case.split()[1]) for f in report.findings] == [("accepted-against-rule", "PDP-OUT-CHANNEL")]


def test_a_crash_and_a_legal_layer_rejected_are_findings(monkeypatch):
    import golden.units.pdp.pooling as pooling

    def broken(*args, **kwargs):
        raise ZeroDivisionError("planted")

    monkeypatch.setattr("golden.units.pdp.pool_int", broken)
    report = fuzz.fuzz(get_profile("nv_small"), 2, 3, ["pdp"])
    assert pooling.pool_int is not broken
    assert report.findings and {f.kind for f in report.findings} == {"rejected-without-reason"}
    assert all("ZeroDivisionError" in f.detail and "planted" in f.detail for f in report.findings)


def test_a_breaker_writing_past_a_field_is_a_finding_not_an_abort(monkeypatch):
    """Found by `fuzz --profile nv_small_256 --seed 2026 -n 2000`: CONV-STAGES-PAD-VALUE's breaker added 1 to a
    PAD_VALUE of 0xFFFF, the register map refused 0x10000 and the whole run stopped with exit 2."""
    from golden.errors import RegisterError
    from stimulus import illegal

    def overflowing(*args, **kwargs):
        raise RegisterError("value 0x10000 does not fit the 16-bit field", register="CSC.D_ZERO_PADDING_VALUE")

    monkeypatch.setattr(illegal, "illegal_layer", overflowing)
    report = fuzz.fuzz(get_profile("nv_small"), 1, 2, ["pdp"])
    assert {f.kind for f in report.findings} == {"generator-error"} and report.illegal == 2


def test_a_bumped_field_at_the_top_of_its_width_moves_down():
    from stimulus.conv.illegal import _bump

    name = "CSC.D_ZERO_PADDING_VALUE.PAD_VALUE"
    profile = get_profile("nv_small")
    assert _bump(name)({name: 0xFFFF}, None, None, profile) == {name: 0xFFFE}
    assert _bump(name)({name: 0x7FFF}, None, None, profile) == {name: 0x8000}
    assert _bump("CSC.D_WEIGHT_BYTES.WEIGHT_BYTES", by=128)({}, None, None, profile) is None


def test_release_breaker_skips_an_input_of_4096_lines(tmp_path):
    """Found by `fuzz --profile nv_medium_1024_full --seed 2026 -n 2000`: CONV-RELEASE-SLICES case 538 drew a
    4096-line input, and one slice more than that does not fit RLS_SLICES' 12 bits."""
    from types import SimpleNamespace

    from stimulus.illegal import BREAKERS

    breaker, profile = BREAKERS["CONV-RELEASE-SLICES"].change, get_profile("nv_medium_1024_full")
    assert breaker({}, SimpleNamespace(csc_height_ext=4096), None, profile) is None
    assert breaker({}, SimpleNamespace(csc_height_ext=4095), None, profile) == {"CSC.D_RELEASE.RLS_SLICES": 4095}
    assert fuzz.run_illegal("CONV-RELEASE-SLICES", profile, 2026, 538, tmp_path) is None
