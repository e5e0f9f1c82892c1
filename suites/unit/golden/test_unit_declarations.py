"""Units declare themselves once (golden/units/declaration.py: Unit, listed in golden/units/__init__.py); the hardware's
tables and the rule registry's order derive from the declarations, and a plugin adds a unit from its own package."""

from __future__ import annotations

import subprocess
import sys

import pytest

import golden.units
from ci.cli import main
from golden import rules
from golden.errors import ConfigurationError, DeclarationError
from golden.regs.regmap import RegisterMap
from golden.units.declaration import Unit
from suites.unit.plugin_site import install


def _run(ctx, upstream=None):
    return None


def _decode(regs, profile=None):
    return regs


@pytest.mark.parametrize("changes, words", [
    ({"name": "Toy"}, "lower-case"),
    ({"stage": "toy"}, "upper-case"),
    ({"groups": ()}, "groups"),
    ({"interrupts": {"OTHER": ("TOY",)}}, "OTHER"),
    ({"luts": ("OTHER",)}, "OTHER"),
    ({"output": "OTHER"}, "output"),
    ({"run": "not a function"}, "run"),
    ({"rules": (object(),)}, "module names"),
    ({"lut_port": ("TOY",)}, "lut_port"),
    ({"enables": ("OTHER",)}, "enables"),
    ({"thresholds": {"TOY": "closest"}}, "comparator"),
    ({"passed_on": "not a function"}, "passed_on"),
])
def test_a_declaration_that_contradicts_itself_is_refused(changes, words):
    fields = {"name": "toy", "stage": "TOY", "groups": ("TOY",), "run": _run, "decode": _decode, **changes}
    with pytest.raises(DeclarationError, match=words):
        Unit(**fields)


def test_the_declared_done_interrupts_are_the_register_maps():
    """Every done source of GLB.S_INTR_STATUS (the RDL: <SOURCE>_DONE_STATUS0/1) is one unit's, and only those."""
    status = RegisterMap.for_layout("master").get("GLB", "S_INTR_STATUS")
    sources = {f.name[:-len("_DONE_STATUS0")] for f in status.fields if f.name.endswith("_DONE_STATUS0")}
    declared = [source for unit in golden.units.declared() for group in unit.interrupts.values() for source in group]
    assert sorted(declared) == sorted(sources)


def test_every_declared_group_is_a_register_group_of_the_map():
    regmap = RegisterMap.for_layout("master")
    for unit in golden.units.declared():
        for group in unit.groups:
            assert regmap.get(group, "D_OP_ENABLE" if group != "BDMA" else "CFG_LAUNCH0"), (unit.name, group)


def test_a_units_rules_are_checked_module_by_module_in_declared_order():
    for unit in golden.units.declared():
        ranks = [unit.rules.index(r.module) for r in rules.rules(unit.stage)]
        assert ranks == sorted(ranks) and set(ranks) == set(range(len(unit.rules))), unit.name


def test_the_checking_order_does_not_depend_on_which_module_is_imported_first():
    """Import the shared DMA rules first in one interpreter and a unit's own rules first in another: same order."""
    program = ("import importlib, sys; importlib.import_module(sys.argv[1]); from golden import rules; "
               "print([r.id for u in ('PDP', 'SDP', 'CONV', 'CDP', 'BDMA') for r in rules.rules(u)])")
    outputs = {subprocess.run([sys.executable, "-c", program, first], capture_output=True, text=True,
                              check=True).stdout
               for first in ("golden.units.dma_rules", "golden.units.sdp.lut_rules", "golden.units.conv.rules")}
    assert len(outputs) == 1


TOY_UNIT = '''
from golden.units.declaration import Unit


def run(ctx, upstream=None):
    return None


def decode(regs, profile=None):
    return regs


UNIT = Unit("toy", "TOY", ("TOY",), run, decode, rules=("toy_unit.rules",), interrupts={"TOY": ("TOY",)},
            switch="TOY")
'''
TOY_RULES = '''
from golden.rules import rule


@rule("TOY-SIZE", "TOY", "toy datasheet: Limits", ("TOY.D_SIZE.SIZE",), "the size is below 8")
def small(size, facts):
    return None if size < 8 else f"size {size} is 8 or more"
'''


@pytest.fixture
def toy_plugin(tmp_path, monkeypatch):
    """A unit package outside the source tree, installed as a distribution with its nvdla_verif.units entry point."""
    site = install(tmp_path / "site", "toy-unit", "[nvdla_verif.units]\ntoy = toy_unit\n",
                   {"toy_unit/__init__.py": TOY_UNIT, "toy_unit/rules.py": TOY_RULES}, monkeypatch)
    monkeypatch.setattr(rules, "REGISTRY", dict(rules.REGISTRY))
    golden.units._declared.cache_clear()
    yield site
    golden.units._declared.cache_clear()
    for name in ("toy_unit", "toy_unit.rules"):
        sys.modules.pop(name, None)


def test_a_plugin_unit_is_declared_and_its_rule_listed_and_enforced(toy_plugin, capsys):
    assert golden.units.unit("TOY").name == "toy" and golden.units.declared()[-1].stage == "TOY"
    assert main(["rules", "--unit", "toy"]) == 0
    listing = capsys.readouterr().out
    assert "TOY-SIZE" in listing and "the size is below 8" in listing and "by unit: TOY 1" in listing
    with pytest.raises(ConfigurationError, match="size 9 is 8 or more") as raised:
        rules.enforce("TOY", 9, rules.Facts())
    assert raised.value.rule.startswith("TOY-SIZE") and raised.value.fields == ("TOY.D_SIZE.SIZE",)
    assert golden.units.model("TOY") is golden.units.unit("TOY").run


def test_a_rule_outside_its_units_declared_modules_is_refused(toy_plugin):
    rules.rule("TOY-STRAY", "TOY", "nowhere", (), "registered by a module the unit does not declare")(
        lambda cfg, facts: None)
    with pytest.raises(DeclarationError, match="TOY-STRAY"):
        rules.all_rules()


def test_every_unit_validates_through_one_signature():
    """validate(cfg, facts, strict=False) for every declared unit: the one contract golden.rules.check calls."""
    import inspect

    for declaration in golden.units.declared():
        parameters = inspect.signature(declaration.validate).parameters
        assert list(parameters) == ["cfg", "facts", "strict"], declaration.stage
        assert parameters["strict"].default is False, declaration.stage


def test_a_plugin_units_switch_is_off_in_the_built_in_profiles_and_on_where_a_spec_enables_it(toy_plugin):
    """The toy declares switch TOY, which NVIDIA's profiles do not know: they lack it, a .spec enables it."""
    import dataclasses

    from golden.config import get_profile, parse_spec

    small = get_profile("nv_small")
    assert not small.has("TOY")
    defaults = {k: v for k, v in dataclasses.asdict(small).items() if k not in ("name", "layout", "plugin_switches")}
    toy = parse_spec("#define TOY_ENABLE\n", name="toy", defaults=defaults)
    assert toy.has("TOY") and not toy.lacks(small)
    assert small.lacks(toy) == ["TOY_ENABLE"]


def test_software_enables_a_consumer_before_the_units_that_feed_it():
    """Every group of a unit comes after the groups of the units it hands its output to on the fly, and the
    convolution's groups after SDP's, SDP's after PDP's (programming guide: a producer must not run first)."""
    order = golden.units.enable_order()
    for unit in golden.units.declared():
        for fed in unit.feeds:
            assert max(order.index(g) for g in golden.units.unit(fed).groups) < min(order.index(g) for g in unit.groups)
    assert order.index("PDP") < order.index("SDP") < order.index("SDP_RDMA") < order.index("CACC") < order.index("CDMA")
    assert sorted(order) == sorted(g for unit in golden.units.declared() for g in unit.groups)
