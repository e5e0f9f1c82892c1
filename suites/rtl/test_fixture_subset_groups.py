"""The fixture's subset is checked per register group: two back-to-back layers where only the first (group 0)
reads an operand from memory are unsupported, not run (found by the regression's generated SDP layers)."""

from __future__ import annotations

import pytest

pytest.importorskip("cocotb")  # rtl/build.py and rtl/runner.py import it (the `rtl` extra)

from golden.config import get_profile  # noqa: E402
from golden.player import prepare  # noqa: E402
from rtl.implementation import Rtl  # noqa: E402
from stimulus.families import layers, write_generated  # noqa: E402


def test_a_layer_outside_the_subset_in_group_0_is_unsupported_though_group_1_is_inside(tmp_path):
    profile = get_profile("nv_small")
    first, second = layers("sdp", profile, 2249587639, 0, 2)
    assert first.fields.get("SDP_RDMA.D_BRDMA_CFG.BRDMA_DISABLE") in (0, "NO")  # group 0 reads BS operands
    assert second.fields.get("SDP_RDMA.D_BRDMA_CFG.BRDMA_DISABLE") in (1, "YES")
    path = write_generated("sdp", profile, 2249587639, 0, tmp_path, 2)
    outcome = Rtl().run(prepare(path, profile), profile)
    assert outcome.status == "unsupported" and "BRDMA" in outcome.detail
