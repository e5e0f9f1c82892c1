"""Repository-wide pytest options: where NVIDIA's reference data lives; the tiers' markers set from what a test uses
(`rtl`, `cluster`); the golden model's LimitationWarnings summarised in one line instead of one long paragraph each."""

from __future__ import annotations

import importlib.util
import re
from collections import Counter
from pathlib import Path

import pytest

from golden.settings import override

DEFAULT_NVDLA_DATA = Path(__file__).resolve().parent.parent / "shared" / "nvdla"
#: A test that asks for one of these fixtures (verilator below, fixture_build of suites/rtl/conftest.py) needs
#: Verilator, so it is an `rtl` test.
RTL_FIXTURES = {"verilator", "fixture_build"}
CLUSTER_SUITE = Path(__file__).resolve().parent / "suites" / "cluster"


def pytest_addoption(parser):
    parser.addoption(
        "--nvdla-data", default=override("NVDLA_DATA") or str(DEFAULT_NVDLA_DATA),
        help="folder with NVIDIA's traces, RDL and configs (default: ../shared/nvdla or $NVDLA_DATA)")
    parser.addoption(
        "--impl", default=override("NVDLA_CONFORM_IMPL") or "golden", metavar="NAME[:ARG]",
        help="suites/conformance: the implementation to play NVIDIA's traces on (default: golden)")
    parser.addoption(
        "--ref", default=override("NVDLA_CONFORM_REF"), metavar="NAME[:ARG]",
        help="suites/conformance: the reference (default: golden, none when --impl is golden; 'none': the "
             "trace's own checks only)")


@pytest.fixture(scope="session")
def nvdla_data(request) -> Path:
    path = Path(request.config.getoption("--nvdla-data"))
    if not path.is_dir():
        pytest.skip(f"NVIDIA reference data not found at {path} (use --nvdla-data)")
    return path


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(items):
    """`rtl` on every test that needs Verilator (it asks for a fixture of RTL_FIXTURES, itself or through another
    fixture), `cluster` on every test of suites/cluster: the markers follow what a test uses, not a hand-kept list.
    The cluster tests share one xdist worker (pyproject.toml's --dist loadgroup), so one Slurm cluster is started
    per run, not one per worker."""
    for item in items:
        if RTL_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.rtl)
        if CLUSTER_SUITE in item.path.parents:
            item.add_marker(pytest.mark.cluster)
            item.add_marker(pytest.mark.xdist_group("cluster"))


def _missing_rtl_tools() -> str | None:
    for module in ("cocotb", "pyuvm", "cocotbext.axi"):
        if importlib.util.find_spec(module.split(".")[0]) is None:
            return f"{module} is not installed (pip install -e .[rtl])"
    from rtl.toolchain import ToolchainError, find_verilator, missing_build_tools

    try:
        find_verilator()
    except ToolchainError as exc:
        return exc.message
    missing = missing_build_tools()
    return f"a Verilator build needs {', '.join(missing)} (bash ci/install_rtl_tools.sh)" if missing else None


@pytest.fixture(scope="session")
def verilator():
    """Verilator, cocotb and a C++ toolchain are there, or the test is skipped saying which is missing."""
    reason = _missing_rtl_tools()
    if reason:
        pytest.skip(reason)


#: The category of golden/rules.py's advisory warnings, as pytest's warning reports name it.
LIMITATION = "LimitationWarning"
_RULE = re.compile(r"\[rule: ([^\]]+)\]")


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter):
    """Take the LimitationWarnings (an advisory rule an NVIDIA trace breaks; the model computes the defined result
    and the test judges it) out of pytest's warnings summary, and say them once: how many, per rule."""
    warnings = terminalreporter.stats.get("warnings", [])
    limitations = [w for w in warnings if f"{LIMITATION}:" in w.message]
    if limitations:
        terminalreporter.stats["warnings"] = [w for w in warnings if w not in limitations]
        rules = Counter(match.group(1) if (match := _RULE.search(w.message)) else "?" for w in limitations)
        terminalreporter.write_line(
            f"{len(limitations)} {LIMITATION}s (advisory rules the layers break; the golden model computes the "
            "defined result): " + ", ".join(f"{rule} x{n}" for rule, n in rules.most_common()))
    return (yield)
