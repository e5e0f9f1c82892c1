"""`regress --rtl-coverage` on the fixture: a coverage build, each test's simulations merged as it finishes, the run
merged per unit into the sign-off; two shards merged give the one-run figures. The smallest layers only."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("cocotb")  # rtl/build.py and rtl/runner.py import it (the `rtl` extra)
pytest.importorskip("hjson")

from ci.cli import main as cli  # noqa: E402
from ci.regression.code_coverage import per_unit, sum_points  # noqa: E402
from suites.unit.ci.regress_helpers import data_root, regress, write_plan  # noqa: E402

TRACES = ("sdp_1x1x1_pass_through_int8", "sdp_1x1x8_pass_through_int8_0")
TESTS = '{"name": "tiny", "kind": "nvidia_traces", "glob": "trace_tests/nv_small/*/*.cfg"}'
POINTS = '{"name": "tiny_sdp", "stage": "smoke", "desc": "d", "tests": ["tiny"]}'


@pytest.fixture(scope="module")
def runs(nvdla_data, verilator, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("rtl-coverage")
    root = data_root(nvdla_data, tmp / "data", TRACES)
    plan = write_plan(tmp / "plan.hjson", TESTS, POINTS)
    common = ["--plan", str(plan), "--nvdla-data", str(root), "--impl", "rtl", "--seed", "1", "--rtl-coverage"]
    codes = [regress(*common, "--out", str(tmp / "single"))]
    codes += [regress(*common, "--shard", f"{i}/2", "--out", str(tmp / f"shard{i}")) for i in (1, 2)]
    codes.append(cli(["report", "merge", str(tmp / "shard1"), str(tmp / "shard2"), "--out", str(tmp / "merged")]))
    return tmp, codes


def _code(folder):
    return json.loads((folder / "results.json").read_text())["coverage"]["code"]


def test_each_tests_simulations_are_kept_and_merged_per_unit(runs):
    tmp, codes = runs
    assert codes == [0, 0, 0, 0]
    code = _code(tmp / "single")
    files = sorted((tmp / "single" / "rtl-coverage").glob("*.dat.gz"))
    assert [f.name for f in files] == [f"nvidia__nv_small__{t}.dat.gz" for t in sorted(TRACES)]
    records = json.loads((tmp / "single" / "results.json").read_text())["tests"]
    assert [r["rtl_simulations"] for r in records] == [1, 1]
    assert code["tests"] == 2 and {"GLB", "u_engine", "nvdla_fixture"} <= set(code["units"])
    for kind in ("line", "toggle"):
        hit, total = code["total"][kind]
        assert 0 < hit < total  # a 1x1x1 pass-through leaves most of the fixture's toggles untouched
    assert per_unit(sum_points(files)) == code["units"]  # verilator_coverage's merge (if installed) == the sum
    assert (tmp / "single" / "rtl-coverage.dat").read_text().startswith("# SystemC::Coverage-3")
    signoff = (tmp / "single" / "signoff.txt").read_text()
    assert "code coverage of the RTL" in signoff and "u_engine" in signoff


def test_merged_shards_give_the_one_run_code_coverage(runs):
    tmp, _ = runs
    assert _code(tmp / "merged")["units"] == _code(tmp / "single")["units"]
