"""A test kind added from outside the project: a package (written here, with its dist-info's entry_points.txt
naming the kind under `nvdla_verif.test_kinds`) on the path is all it takes for a testplan to name the kind and
for `regress` to validate, expand and run it, in its pytest session too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from suites.unit.ci.regress_helpers import data_root, write_plan

pytest.importorskip("hjson")
pytest.importorskip("xdist")

KIND = '''
from ci.regression.engine import Run
from ci.regression.item import Item
from ci.regression.kinds.base import TestKind
from ci.regression.planning import PlanError


class Parity(TestKind):
    """Each number of `numbers` is an item; it passes when even."""

    name = "toy_parity"
    required = ("numbers",)

    def check(self, path, name, entry):
        if not all(isinstance(n, int) for n in entry["numbers"]):
            raise PlanError(f"{path}: test {name}: numbers must be integers")

    def expand(self, test, expansion):
        return [Item(f"toy/{n}", self.name, {"number": n}) for n in test["numbers"]]

    def run(self, item, settings):
        n = item.params["number"]
        status = "passed" if n % 2 == 0 else "failed"
        return Run(self.record(item, settings, status, "even" if status == "passed" else "odd", f"{n}",
                               parity=n % 2))
'''
TESTS = """
    {"name": "parity", "kind": "toy_parity", "numbers": [4, 7]}
"""
POINTS = """
    {"name": "toy", "milestone": "smoke", "desc": "d", "tests": ["parity"]}
"""


@pytest.fixture
def plugin(tmp_path) -> Path:
    """A site folder holding the toy package and its distribution's metadata."""
    site = tmp_path / "site"
    (site / "toy_kinds").mkdir(parents=True)
    (site / "toy_kinds" / "__init__.py").write_text(textwrap.dedent(KIND))
    info = site / "toy_kinds-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-kinds\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[nvdla_verif.test_kinds]\ntoy_parity = toy_kinds:Parity\n")
    return site


def test_an_installed_kind_is_registered_and_validates_its_entries(plugin, tmp_path, monkeypatch):
    from ci.regression import kinds
    from ci.regression.plan import PlanError, load_plan

    assert "toy_parity" not in kinds.names()
    monkeypatch.syspath_prepend(str(plugin))
    assert kinds.names()[:6] == ["nvidia_traces", "random_sdp", "mutants", "generated", "illegal", "fuzz"]
    assert kinds.names()[6:] == ["toy_parity"]
    plan = load_plan(write_plan(tmp_path / "plan.hjson", TESTS, POINTS))
    assert [i.id for i in plan.items("smoke", 1, tmp_path)] == ["toy/4", "toy/7"]
    bad = write_plan(tmp_path / "bad.hjson", TESTS.replace("[4, 7]", '[4, "x"]'), POINTS)
    with pytest.raises(PlanError, match=r"bad.hjson: test parity: numbers must be integers"):
        load_plan(bad)
    missing = write_plan(tmp_path / "missing.hjson", TESTS.replace('"numbers": [4, 7]', '"n": 1'), POINTS)
    with pytest.raises(PlanError, match=r"test parity: a toy_parity test needs 'numbers'"):
        load_plan(missing)


@pytest.mark.slow
def test_regress_runs_an_installed_kind(plugin, tmp_path, nvdla_data):
    data = data_root(nvdla_data, tmp_path / "data", names=("sdp_1x1x1_pass_through_int8",))
    plan = write_plan(tmp_path / "plan.hjson", TESTS, POINTS)
    out = tmp_path / "out"
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(plugin)])}
    run = subprocess.run([sys.executable, "-m", "ci.cli", "regress", "--plan", str(plan), "--nvdla-data", str(data),
                          "--impl", "golden", "--seed", "1", "--out", str(out), "-j", "2"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 1, run.stdout + run.stderr  # 7 is odd: a failed test
    records = {r["id"]: r for r in json.loads((out / "results.json").read_text())["tests"]}
    assert {k: (r["status"], r["verdict"], r["parity"]) for k, r in records.items()} == {
        "toy/4": ("passed", "even", 0), "toy/7": ("failed", "odd", 1)}
    assert records["toy/7"]["reproduce"].endswith("--test toy/7 --out regress-repro-toy-7")


def test_a_kind_registered_in_process_needs_a_name(monkeypatch):
    from ci.regression import kinds
    from ci.regression.kinds.base import TestKind
    from ci.regression.planning import PlanError

    class Nameless(TestKind):
        pass

    with pytest.raises(PlanError, match="no TestKind subclass with a name"):
        kinds.register(Nameless)

    class Named(TestKind):
        name = "toy_named"

    kinds.register(Named)
    try:
        assert kinds.names()[-1] == "toy_named" and isinstance(kinds.get("toy_named"), Named)
    finally:
        kinds.unregister("toy_named")
    assert "toy_named" not in kinds.names()
