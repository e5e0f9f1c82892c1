"""Random legal SDP layers inside the fixture's subset agree with the golden model on the fixture."""

import pytest

pytest.importorskip("cocotb")  # rtl/build.py and rtl/runner.py import it (the `rtl` extra)

from golden.implementation import Golden  # noqa: E402
from golden.trace import CheckCrc, RegWrite, load_trace  # noqa: E402
from rtl.implementation import Rtl  # noqa: E402
from rtl.suite import RANDOM_LAYERS  # noqa: E402
from scoreboards.verdict import verify  # noqa: E402
from stimulus.sdp.fixture import write_random_trace  # noqa: E402


@pytest.mark.parametrize("seed,layers", RANDOM_LAYERS)
def test_random_layers_match_the_golden_model(seed, layers, tmp_path, fixture_build, nv_small):
    cfg = write_random_trace(tmp_path, seed, layers)
    result = verify(cfg, nv_small, Rtl(), Golden())
    assert result.status == "passed", f"{result.status} {result.detail}"
    assert sum(c.command == "scoreboard vs golden" for c in result.checks) == layers
    assert sum(c.command == "check_crc" for c in result.checks) == layers


def test_two_layer_traces_use_both_register_groups(tmp_path):
    trace = load_trace(write_random_trace(tmp_path, 7, 2))
    pointers = [c.value for c in trace.commands if isinstance(c, RegWrite) and c.register.name == "S_POINTER"]
    assert pointers == [0, 0, 1, 1]
    assert len([c for c in trace.commands if isinstance(c, CheckCrc)]) == 2
