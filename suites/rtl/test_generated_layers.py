"""Layers of `nvdla-verif generate --unit sdp_reg` (register operands: the fixture's subset on nv_small) agree
with the golden model on the fixture RTL, one and two back-to-back layers per trace."""

import pytest

pytest.importorskip("cocotb")  # rtl/build.py and rtl/runner.py import it (the `rtl` extra)

from golden.implementation import Golden  # noqa: E402
from rtl.implementation import Rtl  # noqa: E402
from scoreboards.verdict import verify  # noqa: E402
from stimulus.families import write_generated  # noqa: E402


@pytest.mark.parametrize("index,count", [(0, 1), (1, 1), (2, 2)])
def test_generated_sdp_layers_match_the_golden_model(index, count, tmp_path, fixture_build, nv_small):
    cfg = write_generated("sdp_reg", nv_small, 14, index, tmp_path, count)
    result = verify(cfg, nv_small, Rtl(), Golden())
    assert result.status == "passed", f"{result.status} {result.detail}"
    assert sum(c.command == "scoreboard vs golden" for c in result.checks) == count
