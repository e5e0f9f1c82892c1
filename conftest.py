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


@pytest.fixture(scope="session")
def nvdla_data(request) -> Path:
    path = Path(request.config.getoption("--nvdla-data"))
    if not path.is_dir():
        pytest.skip(f"NVIDIA reference data not found at {path} (use --nvdla-data)")
    return path
