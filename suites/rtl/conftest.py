"""Shared fixtures of the RTL bench tests: the fixture DUT's build (once per session and worker;
the build cache and its lock make parallel workers share one build)."""

from __future__ import annotations

import importlib.util
import shutil

import pytest

from golden.config import get_profile


def _missing_tools() -> str | None:
    if shutil.which("verilator") is None:
        return "verilator is not installed (bash ci/install_rtl_tools.sh)"
    for module in ("cocotb", "pyuvm", "cocotbext.axi"):
        if importlib.util.find_spec(module.split(".")[0]) is None:
            return f"{module} is not installed (pip install -e .[rtl])"
    return None


@pytest.fixture(scope="session")
def fixture_build():
    reason = _missing_tools()
    if reason:
        pytest.skip(reason)
    from rtl.build import BuildOptions, build

    return build(BuildOptions())


@pytest.fixture(scope="session")
def nv_small():
    return get_profile("nv_small")
