"""`nvdla-verif regress` from the package as a wheel installs it (setuptools' build_py: the packages and their
package data, nothing of suites/): the pytest session, its configuration and the testplan come with the package."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from suites.unit.ci.regress_helpers import data_root, write_plan

pytest.importorskip("hjson")
pytest.importorskip("xdist")

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("golden", "stimulus", "scoreboards", "rtl", "ci")
TESTS = """
    {"name": "nvidia", "kind": "nvidia_traces", "glob": "trace_tests/nv_small/*/*.cfg"}
    {"name": "random", "kind": "random_sdp", "layers": 1, "seeds": "fixed", "fixed_seeds": [4]}
"""
POINTS = """
    {"name": "both", "milestone": "smoke", "desc": "d", "tests": ["nvidia", "random"]}
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The folder a wheel of the project would install: built from a copy of the sources outside the checkout."""
    tmp = tmp_path_factory.mktemp("installed")
    source = tmp / "source"
    for name in PACKAGES:
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "node_modules"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    subprocess.run([sys.executable, "-c", "from setuptools import setup; setup()", "-q", "build_py",
                    "--build-lib", str(tmp / "lib")], cwd=source, check=True, capture_output=True)
    return tmp / "lib"


def _environment(lib: Path) -> dict:
    return {**os.environ, "PYTHONPATH": str(lib)}


def test_the_installed_package_holds_the_session_and_the_testplan(installed):
    for part in ("ci/regression/pytest_driver.py", "ci/regression/pytest_driver.ini", "ci/regression/testplan.hjson"):
        assert (installed / part).is_file(), part
    assert not (installed / "suites").exists()
    where = subprocess.run([sys.executable, "-c", "import ci.commands.regress as r, ci.regression.plan as p; "
                            "print(r.DRIVER); print(p.DEFAULT_PLAN)"], cwd=installed.parent,
                           env=_environment(installed), check=True, capture_output=True, text=True).stdout.split()
    assert where == [str(installed / "ci" / "regression" / name) for name in ("pytest_driver.py", "testplan.hjson")]


@pytest.mark.slow
def test_regress_runs_from_the_installed_package(installed, tmp_path, nvdla_data):
    data = data_root(nvdla_data, tmp_path / "data", names=("sdp_1x1x1_pass_through_int8",))
    plan = write_plan(tmp_path / "plan.hjson", TESTS, POINTS)
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-m", "ci.cli", "regress", "--plan", str(plan), "--nvdla-data", str(data),
                          "--impl", "golden", "--seed", "1", "--out", str(out)], cwd=tmp_path,
                         env=_environment(installed), capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    records = {r["id"]: r for r in json.loads((out / "results.json").read_text())["tests"]}
    assert {k: r["status"] for k, r in records.items()} == {"nvidia/nv_small/sdp_1x1x1_pass_through_int8": "passed",
                                                            "random_sdp/s4_1l": "passed"}
    names = [case.get("name") for case in _junit_cases(out / "pytest-junit.xml")]
    assert sorted(names) == ["test_item[nvidia/nv_small/sdp_1x1x1_pass_through_int8]", "test_item[random_sdp/s4_1l]"]


def test_the_old_testplan_path_reads_the_packaged_plan(tmp_path):
    from ci.regression.plan import DEFAULT_PLAN, load_plan

    old = tmp_path / "checkout" / "suites" / "testplan.hjson"  # a checkout made before the plan moved
    assert load_plan(old).path == DEFAULT_PLAN
    (tmp_path / "suites").mkdir()
    written = write_plan(tmp_path / "suites" / "testplan.hjson", TESTS, POINTS)  # a plan of one's own there is read
    assert load_plan(written).name == "test_plan"


def _junit_cases(path: Path) -> list:
    import xml.etree.ElementTree as ET

    return list(ET.parse(path).getroot().iter("testcase"))
