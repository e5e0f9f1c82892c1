"""Shared fixtures of the RTL bench tests: the fixture DUT's build (once per session and worker;
the build cache and its lock make parallel workers share one build)."""

from __future__ import annotations

import importlib.util

import pytest

from golden.config import get_profile


def _missing_tools() -> str | None:
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
def fixture_build():
    reason = _missing_tools()
    if reason:
        pytest.skip(reason)
    from rtl.build import BuildOptions, build

    return build(BuildOptions())


@pytest.fixture(scope="session")
def nv_small():
    return get_profile("nv_small")
