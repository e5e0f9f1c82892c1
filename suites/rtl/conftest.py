"""Shared fixtures of the RTL bench tests: the fixture DUT's build (once per session and worker; the build cache and
its lock make parallel workers share one build). A test that asks for it is marked `rtl` (the repository's
conftest.py)."""

from __future__ import annotations

import pytest

from golden.config import get_profile


@pytest.fixture(scope="session")
def fixture_build(verilator):
    from rtl.build import BuildOptions, build

    return build(BuildOptions())


@pytest.fixture(scope="session")
def nv_small():
    return get_profile("nv_small")
