"""Repository-wide pytest options: where NVIDIA's reference data lives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

DEFAULT_NVDLA_DATA = Path(__file__).resolve().parent.parent / "shared" / "nvdla"


def pytest_addoption(parser):
    parser.addoption(
        "--nvdla-data", default=os.environ.get("NVDLA_DATA", str(DEFAULT_NVDLA_DATA)),
        help="folder with NVIDIA's traces, RDL and configs (default: ../shared/nvdla or $NVDLA_DATA)")
    parser.addoption(
        "--impl", default=os.environ.get("NVDLA_CONFORM_IMPL", "golden"), metavar="NAME[:ARG]",
        help="suites/conformance: the implementation to play NVIDIA's traces on (default: golden)")
    parser.addoption(
        "--ref", default=os.environ.get("NVDLA_CONFORM_REF"), metavar="NAME[:ARG]",
        help="suites/conformance: the reference (default: golden, none when --impl is golden; 'none': the "
             "trace's own checks only)")


@pytest.fixture(scope="session")
def nvdla_data(request) -> Path:
    path = Path(request.config.getoption("--nvdla-data"))
    if not path.is_dir():
        pytest.skip(f"NVIDIA reference data not found at {path} (use --nvdla-data)")
    return path
