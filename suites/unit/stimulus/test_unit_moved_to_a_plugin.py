"""One of the project's own units moved into a plugin distribution: a copy of golden/units/rubik/ (the golden slice)
and of stimulus/rubik/ (the stimulus slice), only their package names changed, installed with the entry points
nvdla_verif.units and nvdla_verif.families, while the project's own Rubik packages are taken off its lists and
made unimportable. `rules`, `generate`, `conform`, `coverage` and the illegal layers then do with the plugin
exactly what they do with the project's own unit: the same listing, the same trace bytes, passing verdicts, the
same coverage report, the same illegal layer rejected by the same rule. Nothing else in the project names the
unit, so nothing else needs to move."""

from __future__ import annotations

import filecmp
import os
import subprocess
import sys
from pathlib import Path

import pytest

from suites.unit.plugin_site import install

ROOT = Path(__file__).resolve().parents[3]
#: package of the project -> its name in the plugin distribution
RENAMES = {"golden.units.rubik": "moved_rubik", "stimulus.rubik": "moved_rubik_stimulus"}
ENTRY_POINTS = ("[nvdla_verif.units]\nrubik = moved_rubik\n\n"
                "[nvdla_verif.families]\nrubik = moved_rubik_stimulus.family\n")
#: Run with the plugin: the project's own Rubik packages off its lists and unimportable (None in sys.modules).
MOVED = """
import sys
for name in ("golden.units.rubik", "golden.units.rubik.rules", "stimulus.rubik", "stimulus.rubik.family",
             "stimulus.rubik.layers", "stimulus.rubik.illegal", "stimulus.rubik.covergroup"):
    sys.modules[name] = None
import golden.units
golden.units.PACKAGES = tuple(p for p in golden.units.PACKAGES if p != "golden.units.rubik")
import stimulus.families
stimulus.families.MODULES = tuple(m for m in stimulus.families.MODULES if m != "stimulus.rubik.family")
"""
CLI = "\nfrom ci.cli import main\nsys.exit(main(sys.argv[1:]))\n"
ILLEGAL = """
import pathlib
from golden.config import get_profile
from golden.errors import ConfigurationError
from golden.rules import rules
from stimulus import illegal
from stimulus.choose import Seeded

profile = get_profile("nv_full")
rule = next(r for r in rules("RUBIK") if illegal.reachable(r.id, profile))
print("rule module:", rule.module)
layer = illegal.illegal_layer(rule.id, Seeded([3]), profile)
print("layer:", sorted(layer.fields.items()))
try:
    illegal.run_on_golden(layer, profile, pathlib.Path(sys.argv[1]), "moved_illegal")
except ConfigurationError as exc:
    print("rejected:", exc.rule.split(" ")[0])
"""


def _copy(package: str, site: Path) -> dict[str, str]:
    """The files of a project package as the plugin's: relative path -> text with the package names renamed."""
    folder = ROOT.joinpath(*package.split("."))
    files = {}
    for source in sorted(folder.glob("*.py")):
        text = source.read_text()
        for old, new in RENAMES.items():
            text = text.replace(old, new)
        files[f"{RENAMES[package]}/{source.name}"] = text
    return files


@pytest.fixture
def moved_site(tmp_path, monkeypatch):
    files = {**_copy("golden.units.rubik", tmp_path), **_copy("stimulus.rubik", tmp_path)}
    assert "moved_rubik/rules.py" in files and "moved_rubik_stimulus/family.py" in files
    return install(tmp_path / "site", "moved-rubik", ENTRY_POINTS, files, monkeypatch)


def _run(program: str, *args: str, site: Path | None = None) -> subprocess.CompletedProcess:
    """`program` in a fresh interpreter: with the plugin and the project's Rubik moved out (site), or the project
    as it is (None)."""
    path = [str(site), str(ROOT)] if site else [str(ROOT)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    result = subprocess.run([sys.executable, "-c", (MOVED if site else "import sys\n") + program, *args],
                            capture_output=True, text=True, env=env, cwd=(site or ROOT).parent, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def test_the_moved_unit_is_the_plugins_and_lists_the_same_rules(moved_site):
    where = _run("import golden.units\nprint(golden.units.unit('RUBIK').run.__module__)\n"
                 "import stimulus.families as f\nprint(f.family('rubik').generator.__module__)", site=moved_site)
    assert where.stdout.split() == ["moved_rubik", "moved_rubik_stimulus.layers"]
    moved = _run(CLI, "rules", "--unit", "rubik", site=moved_site).stdout
    own = _run(CLI, "rules", "--unit", "rubik").stdout
    assert "RUBIK-" in own and moved == own


def test_generate_conform_and_coverage_do_with_the_moved_unit_what_they_do_with_the_projects(moved_site, tmp_path):
    arguments = ("generate", "--unit", "rubik", "--profile", "nv_full", "-n", "3", "--layers", "2", "--seed", "7")
    _run(CLI, *arguments, "--out", str(tmp_path / "moved"), site=moved_site)
    _run(CLI, *arguments, "--out", str(tmp_path / "own"))
    moved = sorted(p.relative_to(tmp_path / "moved") for p in (tmp_path / "moved").rglob("*") if p.is_file())
    own = sorted(p.relative_to(tmp_path / "own") for p in (tmp_path / "own").rglob("*") if p.is_file())
    assert moved == own and any(p.name == "input.txn" for p in moved)  # nv_full: the nvdlav1 form
    assert all(filecmp.cmp(tmp_path / "moved" / p, tmp_path / "own" / p, shallow=False) for p in moved)

    conformed = _run(CLI, "conform", str(tmp_path / "moved"), site=moved_site).stdout
    assert "conform: PASSED" in conformed

    coverage = ("coverage", "--unit", "rubik", "--profile", "nv_full", "-n", "4", "--seed", "2")
    moved_report = _run(CLI, *coverage, site=moved_site).stdout
    assert "nv_full rubik: cover points" in moved_report
    assert moved_report == _run(CLI, *coverage).stdout


def test_the_moved_units_rule_is_broken_and_rejected_as_the_projects_is(moved_site, tmp_path):
    moved = _run(ILLEGAL, str(tmp_path / "moved"), site=moved_site).stdout.splitlines()
    own = _run(ILLEGAL, str(tmp_path / "own")).stdout.splitlines()
    assert moved[0] == "rule module: moved_rubik.rules" and own[0] == "rule module: golden.units.rubik.rules"
    assert moved[1:] == own[1:] and moved[-1].startswith("rejected: RUBIK-")
