"""Repository-wide pytest options: where NVIDIA's reference data lives; the golden model's LimitationWarnings
summarised in one line instead of one long paragraph each."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from golden.settings import override

DEFAULT_NVDLA_DATA = Path(__file__).resolve().parent.parent / "shared" / "nvdla"


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
