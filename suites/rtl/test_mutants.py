"""Every bug switch of the fixture is caught by the default layer set (nightly: a few minutes).

Run: NVDLA_RTL_MUTATION=1 pytest suites/rtl/test_mutants.py   (or: python -m ci.mutation)
"""


import pytest

pytest.importorskip("cocotb")  # rtl/build.py and rtl/runner.py import it (the `rtl` extra)

from ci.mutation import format_table, mutation_table  # noqa: E402
from golden.settings import override  # noqa: E402
from rtl.build import BUG_SWITCHES  # noqa: E402

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(override("NVDLA_RTL_MUTATION") != "1",
                                 reason="nightly: set NVDLA_RTL_MUTATION=1 to build and run every mutant")]


def test_every_bug_switch_is_caught(fixture_build):
    table, seconds = mutation_table(BUG_SWITCHES, jobs=2)
    print(format_table(table, seconds))
    assert all(status == "passed" for status in table[""].values()), table[""]
    survivors = [s for s in BUG_SWITCHES if all(status == "passed" for status in table[s].values())]
    assert not survivors, f"mutants not caught: {survivors}"
