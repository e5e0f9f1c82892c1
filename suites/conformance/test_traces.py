"""Conformance: every NVIDIA trace under --nvdla-data played on an implementation, one test per trace.

    pytest suites/conformance [-n auto] [--nvdla-data DIR] [--impl NAME[:ARG]] [--ref NAME[:ARG]] [--alluredir OUT]

Each trace runs through scoreboards.verdict.verify: the implementation (--impl, default golden) judged
against the trace's checks and, through the scoreboards, against the reference (--ref; default golden,
none when --impl is golden), as `nvdla-verif conform` does.

The profile comes from the folder names (nv_small, nv_large, traceplayer -> nv_full),
or from $NVDLA_CONFORM_PROFILE / $NVDLA_CONFORM_PROFILE_SPEC (a .spec file). Verdicts:
passed -> pass; failed -> fail; unsupported (a unit not modelled yet) -> xfail with the
unit named, never a pass; a missing input file (MISSING_FILES.tsv) -> skip naming the
file; invalid -> pass only when the trace is listed in EXPECTED_INVALID and was rejected
with that switch. Each test attaches the trace, the decoded registers and the mismatch
summary to its Allure test case.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ci.options import resolve
from golden.config import get_profile, infer_profile_name, load_spec
from golden.player import play
from golden.settings import override
from golden.trace import find_traces
from scoreboards.verdict import verify

try:
    import allure
except ImportError:  # allure-pytest is a test extra; the suite still runs without it
    allure = None

#: Traces that program a feature their profile lacks, with the switch the rejection must name.
#: ../shared/nvdla/README.md: nv_small.spec disables SDP EW, yet these tests program it.
EXPECTED_INVALID = {
    ("nv_small", "sdp_3x3x32_ew_lo_lin_int8"): "SDP_EW",
    ("nv_small", "sdp_3x3x33_ew_int8_reg_0"): "SDP_EW",
    ("nv_small", "sdp_3x3x33_ew_le_exp_int8"): "SDP_EW",
    ("nv_small", "sdp_3x3x33_ew_le_lin_int8"): "SDP_EW",
}


def _profile(path: Path):
    if spec := override("NVDLA_CONFORM_PROFILE_SPEC"):
        return load_spec(spec)
    name = override("NVDLA_CONFORM_PROFILE") or infer_profile_name(path)
    return get_profile(name) if name else None


def pytest_generate_tests(metafunc):
    if "trace_path" not in metafunc.fixturenames:
        return
    root = Path(metafunc.config.getoption("--nvdla-data"))
    paths = find_traces(root) if root.is_dir() else []
    params = [pytest.param(p, id=f"{infer_profile_name(p) or 'unknown'}/"
                           f"{p.parent.name if p.suffix == '.txn' else p.stem}") for p in paths]
    if not params:
        params = [pytest.param(None, id="no-traces", marks=pytest.mark.skip(
            reason=f"no NVIDIA traces under {root} (use --nvdla-data)"))]
    metafunc.parametrize("trace_path", params)


def _attach(name: str, body: str) -> None:
    if allure is not None:
        allure.attach(body, name=name, attachment_type=allure.attachment_type.TEXT)


@pytest.fixture(scope="session")
def implementations(request):
    """(implementation, reference) the --impl/--ref options name, created once per session."""
    return resolve(request.config.getoption("--impl"), request.config.getoption("--ref"))


def test_trace(trace_path, implementations):
    profile = _profile(trace_path)
    if profile is None:
        pytest.skip(f"cannot infer the profile of {trace_path}; set NVDLA_CONFORM_PROFILE")
    if allure is not None:
        allure.dynamic.suite(profile.name)
    _attach("trace", trace_path.read_text())
    result = verify(trace_path, profile, *implementations)
    if not result.layers and result.status == "failed":  # another implementation: the golden model decodes them
        result.layers = play(trace_path, profile).layers
    _attach("decoded registers", result.decoded_registers() or "(no layer ran)")
    _attach("mismatch summary", f"{result.status}: {result.detail}\n{result.mismatch_summary()}")
    expected_switch = EXPECTED_INVALID.get((profile.name, result.name))
    if result.status == "unsupported":
        pytest.xfail(f"unsupported: {result.detail}")
    if result.status == "error" and result.detail.startswith("missing file"):
        pytest.skip(result.detail)
    if expected_switch:
        assert result.status == "invalid" and expected_switch in result.detail, (
            f"expected a rejection naming {expected_switch}, got {result.status}: {result.detail}")
        return
    assert result.status == "passed", f"{result.status}: {result.detail}\n{result.mismatch_summary()}"
