"""A unit and its stimulus family added from outside the source tree: one installed distribution declares a toy
unit (its registers, a model that adds a constant to a small memory region, a rule) and its family (generator,
the rule's breaker, a covergroup) through the entry-point groups nvdla_verif.units and nvdla_verif.families, and
`rules`, `generate`, `conform`, `coverage` and the illegal-layer machinery take it up without a project file
edited. The commands run in fresh interpreters, as a user's would, with the distribution on their path."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import golden.units
from golden.config import get_profile
from golden.errors import DeclarationError
from golden.regs.regmap import RegisterMap
from stimulus import families
from stimulus.families import Family
from suites.unit.plugin_site import install

ROOT = Path(__file__).resolve().parents[3]
BASE = {"master": 0xE000, "nvdlav1": 0x1000}  # 4 KiB ranges neither NVIDIA layout gives a unit
DONE_BIT = 10  # GLB.S_INTR_STATUS bits 10..15 are free: TOY_DONE_STATUS0/1 take 10 and 11
ADDEND = 3  # the toy datasheet: the unit adds D_ADDEND.ADDEND to every byte; the wrong model adds one more


def _field(name, lsb, msb, sw="rw"):
    return {"name": name, "lsb": lsb, "msb": msb, "reset": 0, "sw": sw, "hw": "r", "enum": None}


REGISTERS = {
    "units": {"TOY": BASE},
    "interrupts": {"TOY": DONE_BIT},
    "registers": [
        {"unit": "TOY", "name": "S_STATUS", "offset": 0x0,
         "fields": [_field("STATUS_0", 0, 1, "r"), _field("STATUS_1", 16, 17, "r")]},
        {"unit": "TOY", "name": "S_POINTER", "offset": 0x4,
         "fields": [_field("PRODUCER", 0, 0), _field("CONSUMER", 16, 16, "r")]},
        {"unit": "TOY", "name": "D_OP_ENABLE", "offset": 0x8, "fields": [_field("OP_EN", 0, 0)]},
        {"unit": "TOY", "name": "D_SRC_ADDR", "offset": 0xC, "fields": [_field("ADDR", 0, 31)]},
        {"unit": "TOY", "name": "D_DST_ADDR", "offset": 0x10, "fields": [_field("ADDR", 0, 31)]},
        {"unit": "TOY", "name": "D_SIZE", "offset": 0x14, "fields": [_field("SIZE", 0, 15)]},
        {"unit": "TOY", "name": "D_ADDEND", "offset": 0x18, "fields": [_field("ADDEND", 0, 7)]},
    ],
}
TOY_UNIT = '''
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from golden import rules as registry
from golden.units.base import Surface, UnitResult
from golden.units.declaration import Unit


@dataclass(frozen=True)
class ToyConfig:
    src: int
    dst: int
    size: int
    addend: int


def decode(regs, profile=None):
    return ToyConfig(regs.field("TOY", "D_SRC_ADDR", "ADDR"), regs.field("TOY", "D_DST_ADDR", "ADDR"),
                     regs.field("TOY", "D_SIZE", "SIZE"), regs.field("TOY", "D_ADDEND", "ADDEND"))


def run(ctx, upstream=None, extra=0):
    cfg = decode(ctx.regs)
    registry.enforce("TOY", cfg, registry.Facts(ctx.regs, ctx.profile))
    data = ctx.memory.pri.read(cfg.src, cfg.size, who="TOY read")
    ctx.memory.pri.write(cfg.dst, (data.astype(np.int64) + cfg.addend + extra).astype(np.uint8))
    return UnitResult(surfaces=[Surface("pri_mem", cfg.dst, (cfg.size,), "int8", cfg.size, cfg.size, 1, name="toy")])


UNIT = Unit("toy", "TOY", ("TOY",), run, decode, rules=("toy_unit.rules",), interrupts={"TOY": ("TOY",)},
            registers=Path(__file__).with_name("registers.json"))
'''
TOY_RULES = '''
from golden.rules import rule


@rule("TOY-SIZE", "TOY", "toy datasheet: Limits", ("TOY.D_SIZE.SIZE",), "a layer adds to 1 to 64 bytes")
def size_in_range(cfg, facts):
    return None if 1 <= cfg.size <= 64 else f"size {cfg.size} is outside 1..64"
'''
TOY_WRONG = '''
import toy_unit


def run(ctx, upstream=None):
    return toy_unit.run(ctx, upstream, extra=1)
'''
TOY_FAMILY = '''
import numpy as np

from stimulus.breakers import Fields, declare
from stimulus.coverage import size_class
from stimulus.families import Family
from stimulus.layer import Image, Layer, Region

SLOT = 0x10000


def random_layer(choose, profile, slot=0):
    size, addend = choose.size(1, 64), choose.integer(0, 255)
    src = 0x80000000 + slot * SLOT
    dst = src + 0x1000
    rng = choose.data()
    source = rng.integers(0, 256, size, dtype=np.uint8).tobytes()
    filler = rng.integers(0, 256, size, dtype=np.uint8).tobytes()
    fields = {"TOY.D_SRC_ADDR.ADDR": src, "TOY.D_DST_ADDR.ADDR": dst, "TOY.D_SIZE.SIZE": size,
              "TOY.D_ADDEND.ADDEND": addend}
    return Layer("toy", fields, [Image("pri_mem", src, source, "src"), Image("pri_mem", dst, filler, "dst")],
                 [Region("pri_mem", dst, size, "dst")], "TOY", ("TOY",), {"size": size, "addend": addend})


def too_large(fields, seen, choose, profile):
    return {**fields, "TOY.D_SIZE.SIZE": choose.integer(65, 4096)}


BREAKERS = declare({"TOY-SIZE": too_large}, Fields("toy"))


def covergroup(coverage, group):
    size = coverage.point(group, "size", lambda cfg: size_class(cfg.size), ("1", "2-4", "5-16", "17+"))
    addend = coverage.point(group, "addend", lambda cfg: "zero" if cfg.addend == 0 else "nonzero",
                            ("zero", "nonzero"))
    both = coverage.cross(group, "size_x_addend", ["size", "addend"])
    sample = both(addend(size(lambda cfg: None)))

    def sample_layer(stages, regs, status):
        if "TOY" in stages:
            import toy_unit

            sample(toy_unit.decode(regs))
    return sample_layer


FAMILY = Family("toy", ("TOY",), random_layer, breakers=("toy_unit.family",), covergroup=covergroup)
'''
ENTRY_POINTS = "[nvdla_verif.units]\ntoy = toy_unit\n\n[nvdla_verif.families]\ntoy = toy_unit.family\n"


@pytest.fixture
def toy_site(tmp_path, monkeypatch):
    """The toy distribution installed under tmp_path/site (on this process's path, and given to subprocesses)."""
    site = install(tmp_path / "site", "toy-unit", ENTRY_POINTS,
                   {"toy_unit/__init__.py": TOY_UNIT, "toy_unit/rules.py": TOY_RULES, "toy_unit/wrong.py": TOY_WRONG,
                    "toy_unit/family.py": TOY_FAMILY, "toy_unit/registers.json": json.dumps(REGISTERS)}, monkeypatch)
    golden.units._declared.cache_clear()
    families.declared.cache_clear()
    yield site
    golden.units._declared.cache_clear()
    families.declared.cache_clear()
    for name in [m for m in sys.modules if m == "toy_unit" or m.startswith("toy_unit.")]:
        sys.modules.pop(name)


def _run(site: Path, program: str, *args: str) -> subprocess.CompletedProcess:
    """`program` (Python) in a fresh interpreter with the toy distribution and the project on its path."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    return subprocess.run([sys.executable, "-c", program, *args], capture_output=True, text=True, env=env,
                          cwd=site.parent, timeout=300)


CLI = "import sys; from ci.cli import main; sys.exit(main(sys.argv[1:]))"
#: The CLI with the toy stage's model replaced by the wrong one (golden.units.MODELS).
WRONG_CLI = "import sys, golden.units; golden.units.MODELS['TOY'] = 'toy_unit.wrong'; " + CLI.split("; ", 1)[1]


def test_the_toy_units_registers_join_the_map(toy_site):
    """The table's group lands at its base and its done bits at 10/11 of GLB's three interrupt registers."""
    for layout, base in BASE.items():
        regmap = RegisterMap.for_layout(layout)
        assert regmap.at(base + 0x14).qualified == "TOY.D_SIZE"
        for name, word in (("S_INTR_MASK", "MASK"), ("S_INTR_SET", "SET"), ("S_INTR_STATUS", "STATUS")):
            register = regmap.get("GLB", name)
            assert [register.field(f"TOY_DONE_{word}{g}").lsb for g in (0, 1)] == [10, 11]
            assert register.field(f"SDP_DONE_{word}0").lsb == 0  # NVIDIA's own fields stay
    assert "TOY" not in RegisterMap("master").bases  # without the declarations: NVIDIA's map alone


@pytest.mark.parametrize("change, words", [
    ({"units": {"TOY": {"master": 0xB800, "nvdlav1": 0x1000}}}, "overlaps PDP"),
    ({"units": {"SDP": BASE}}, "already in the register map"),
    ({"interrupts": {"TOY": 8}}, "bit 8 is not free"),
])
def test_a_register_table_that_collides_with_the_map_is_refused(tmp_path, change, words):
    table = tmp_path / "registers.json"
    table.write_text(json.dumps({**REGISTERS, **change}))
    with pytest.raises(DeclarationError, match=words):
        RegisterMap("master", extra=(str(table),))


def test_the_plugin_family_is_in_the_one_registry(toy_site):
    toy = families.family("toy")
    assert toy.covers == "toy" and "toy" in families.names()
    assert "toy" in families.available(get_profile("nv_small"))
    assert families.breaker_modules()[-1] == "toy_unit.family"
    assert families.covergroups()["toy"] == "toy"


@pytest.mark.parametrize("module, words", [
    ("from stimulus.sdp.family import FAMILY\n", "family sdp is declared twice"),
    ("NOTHING = 1\n", "declares no FAMILY or FAMILIES"),
    ("from stimulus.families import Family\nFAMILY = Family('stray', ('NOSUCH',), print)\n",
     "family stray runs NOSUCH, which no unit declares"),
])
def test_a_family_declared_twice_without_a_declaration_or_of_no_unit_is_refused(tmp_path, monkeypatch, module,
                                                                               words):
    install(tmp_path / "site", "bad-family", "[nvdla_verif.families]\nbad = bad_family\n",
            {"bad_family.py": module}, monkeypatch)
    families.declared.cache_clear()
    try:
        with pytest.raises(DeclarationError, match=words) as raised:
            families.declared()
        assert raised.value.where == "bad_family"
    finally:
        families.declared.cache_clear()
        sys.modules.pop("bad_family", None)


@pytest.mark.parametrize("changes, words", [
    ({"name": "Toy"}, "lower-case"),
    ({"units": ()}, "stages"),
    ({"generator": None}, "generator"),
    ({"breakers": (object(),)}, "module names"),
])
def test_a_family_declaration_that_contradicts_itself_is_refused(changes, words):
    with pytest.raises(DeclarationError, match=words):
        Family(**{"name": "toy", "units": ("TOY",), "generator": lambda choose, profile, slot=0: None, **changes})


@pytest.mark.slow
def test_rules_generate_conform_and_coverage_take_the_toy_up(toy_site, tmp_path):
    listing = _run(toy_site, CLI, "rules", "--unit", "toy")
    assert listing.returncode == 0, listing.stderr
    assert "TOY-SIZE" in listing.stdout and "a layer adds to 1 to 64 bytes" in listing.stdout

    out = tmp_path / "traces"
    generated = _run(toy_site, CLI, "generate", "--unit", "toy", "--profile", "nv_small", "-n", "2", "--out",
                     str(out), "--seed", "4")
    assert generated.returncode == 0, generated.stderr
    traces = sorted(out.glob("nv_small/gen_toy_s4_*/*.cfg"))
    assert len(traces) == 2
    _check_a_trace_by_hand(traces[0])

    conformed = _run(toy_site, CLI, "conform", str(out))
    assert conformed.returncode == 0, conformed.stdout + conformed.stderr
    assert _rows(conformed.stdout, "PASSED") == 2 and "conform: PASSED" in conformed.stdout

    wrong = _run(toy_site, WRONG_CLI, "conform", str(out))
    assert wrong.returncode != 0 and _rows(wrong.stdout, "FAILED") == 2, wrong.stdout + wrong.stderr

    covered = _run(toy_site, CLI, "coverage", "--unit", "toy", "--profile", "nv_small", "-n", "5")
    assert covered.returncode == 0, covered.stderr
    report = covered.stdout.splitlines()
    # 4 size classes + zero/nonzero addend; their cross 4 x 2
    assert any(line.startswith("nv_small toy: cover points") and "of 6 bins" in line and "of 8 bins" in line
               for line in report), covered.stdout
    assert not any(" sdp:" in line or " conv:" in line for line in report)  # --unit toy: its covergroup only


def _check_a_trace_by_hand(trace: Path) -> None:
    """The trace programs the toy registers at their CSB addresses and its CRC is of src + addend, recomputed here
    from the trace's own source file and register writes (zlib's CRC-32, which check_crc uses)."""
    import zlib

    text = trace.read_text()
    writes = {}
    for line in text.splitlines():
        if line.startswith("reg_write(NVDLA_TOY."):
            name, value = line[len("reg_write("):].split(")")[0].split(",")
            writes[name.strip()] = int(value, 0)
    size, addend = writes["NVDLA_TOY.D_SIZE_0"], writes["NVDLA_TOY.D_ADDEND_0"]
    data = bytearray()
    for line in next(trace.parent.glob("*_src.dat")).read_text().splitlines():  # {offset:.., payload:0x.. ..} ,
        if "payload:" in line:
            offset = int(line.split("offset:")[1].split(",")[0], 16)
            words = line.split("payload:")[1].split("}")[0].split()
            data[offset:offset + len(words)] = bytes(int(word, 16) for word in words)
    expected = zlib.crc32(((np.frombuffer(data[:size], np.uint8).astype(int) + addend) % 256).astype(np.uint8)
                          .tobytes())
    crc = [line for line in text.splitlines() if line.startswith("check_crc(")][0]
    assert int(crc.split(",")[-1].strip(" );"), 0) == expected, crc


def test_the_illegal_layer_machinery_finds_and_uses_the_toy_rules_breaker(toy_site, tmp_path):
    program = f"""
import pathlib
from golden.config import get_profile
from golden.errors import ConfigurationError
from stimulus import illegal
from stimulus.choose import Seeded

profile = get_profile("nv_small")
assert illegal.reachable("TOY-SIZE", profile)
layer = illegal.illegal_layer("TOY-SIZE", Seeded([1]), profile)
assert layer.fields["TOY.D_SIZE.SIZE"] > 64 and layer.choices["illegal"] == "TOY-SIZE"
try:
    illegal.run_on_golden(layer, profile, pathlib.Path({str(tmp_path)!r}), "toy_illegal")
except ConfigurationError as exc:
    print("rejected:", exc.rule)
"""
    result = _run(toy_site, program)
    assert result.returncode == 0, result.stderr
    assert "rejected: TOY-SIZE" in result.stdout


def _rows(printed: str, word: str) -> int:
    """conform's per-trace rows with that status ("[  1/2] PASSED ..."), not its final verdict line."""
    return len(re.findall(rf"^\[\s*\d+/\d+\] {word} ", printed, re.MULTILINE))
