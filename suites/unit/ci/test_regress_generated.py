"""Generated layer families and illegal layers in the regression: each generated layer is played through the
implementation interface with the golden model's CRCs, each illegal one must be rejected naming its rule, and
a failure's reproduce command rebuilds the same trace."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ci.cli import main as cli
from suites.unit.ci.regress_helpers import after_invocation, faulty_impl, regress, write_plan

pytest.importorskip("hjson")
pytest.importorskip("xdist")

TESTS = """
    {"name": "gen_sdp_reg", "kind": "generated", "family": "sdp_reg", "layers": 2, "seeds": "fixed",
     "fixed_seeds": [1, 2]}
    {"name": "gen_pdp", "kind": "generated", "family": "pdp", "seeds": "per_run", "count": {"smoke": 2}}
    {"name": "illegal_sdp_rdma", "kind": "illegal", "rules": "SDP-RDMA-*", "seeds": "fixed", "fixed_seeds": [5]}
    {"name": "illegal_advisory", "kind": "illegal", "rules": "SDP-BS-PRELU-ALU", "seeds": "fixed", "fixed_seeds": [5]}
"""
POINTS = """
    {"name": "generated", "stage": "smoke", "desc": "d", "tests": ["gen_sdp_reg", "gen_pdp"], "covers": ["sdp", "pdp"]}
    {"name": "illegal", "stage": "smoke", "desc": "d", "tests": ["illegal_sdp_rdma", "illegal_advisory"]}
"""


def _records(out: Path) -> dict[str, dict]:
    return {r["id"]: r for r in json.loads((out / "results.json").read_text())["tests"]}


@pytest.fixture(scope="module")
def plan(tmp_path_factory, nvdla_data):
    tmp = tmp_path_factory.mktemp("generated")
    return tmp, write_plan(tmp / "plan.hjson", TESTS, POINTS)


@pytest.fixture(scope="module")
def golden_run(plan, nvdla_data) -> tuple[int, Path]:
    """The plan's run on the golden model (once per worker: the tests below read its folder)."""
    tmp, path = plan
    out = tmp / "golden"
    code = regress("--plan", str(path), "--nvdla-data", str(nvdla_data), "--impl", "golden", "--seed", "3",
                   "--out", str(out), "-j", "2")
    return code, out


@pytest.mark.slow
def test_generated_and_illegal_layers_pass_on_the_golden_model(golden_run):
    code, out = golden_run
    records = _records(out)
    assert code == 0, {k: r["detail"] for k, r in records.items() if r["status"] != "passed"}
    generated = [r for r in records.values() if r["kind"] == "generated"]
    assert sorted(r["id"] for r in generated if "sdp_reg" in r["id"]) == ["gen/nv_small/sdp_reg/s1_2l",
                                                                           "gen/nv_small/sdp_reg/s2_2l"]
    assert len([r for r in generated if "/pdp/" in r["id"]]) == 2
    assert all(r["layers_sampled"] == (2 if "_2l" in r["id"] else 1) for r in generated)
    illegal = [r for r in records.values() if r["kind"] == "illegal"]
    assert len(illegal) >= 7  # the registry's SDP-RDMA-* rules, and one advisory rule
    for r in illegal:
        rule = r["id"].split("/")[2]
        assert r["verdict"] == "rejected" and f"rejected naming {rule}" in r["detail"]
    assert "advisory" in records["illegal/nv_small/SDP-BS-PRELU-ALU/s5"]["detail"]
    signoff = json.loads((out / "results.json").read_text())["signoff"]
    assert signoff[0]["coverage"]["hit"] > 0 and signoff[1]["passed"] == len(illegal)


@pytest.mark.slow
def test_an_implementation_that_accepts_an_illegal_layer_fails_it(plan, nvdla_data):
    tmp, path = plan
    out = tmp / "accepts"
    code = regress("--plan", str(path), "--nvdla-data", str(nvdla_data), "--impl", "command:/bin/true", "--seed", "3",
                   "--out", str(out), "--test", "illegal/*/SDP-RDMA-WIDTH/*")
    assert code == 1
    record = _records(out)["illegal/nv_small/SDP-RDMA-WIDTH/s5"]
    assert record["status"] == "failed" and record["verdict"] == "accepted"
    assert "expected a rejection naming SDP-RDMA-WIDTH" in record["detail"]
    bucket = json.loads((out / "results.json").read_text())["buckets"][0]
    assert bucket["parts"]["check"] == "rejection" and bucket["parts"]["pattern"].startswith("SDP-RDMA-WIDTH")


@pytest.mark.slow
def test_a_generated_layers_reproduce_command_rebuilds_the_same_trace(golden_run, tmp_path, monkeypatch):
    _, out = golden_run
    record = _records(out)["gen/nv_small/sdp_reg/s2_2l"]
    generate, conform = record["reproduce"].split(" && ")
    monkeypatch.chdir(tmp_path)
    assert cli(after_invocation(generate)) == 0
    rebuilt = sorted(tmp_path.rglob("*.cfg"))
    assert len(rebuilt) == 1
    original = out / record["path"]
    assert rebuilt[0].read_text() == original.read_text()
    assert cli(after_invocation(conform)) == 0


@pytest.mark.slow
def test_a_failing_generated_layer_is_shrunk_in_its_bucket(tmp_path, nvdla_data):
    tests = ('{"name": "gen", "kind": "generated", "family": "sdp_reg", "layers": 2, "seeds": "fixed", '
             '"fixed_seeds": [1, 2, 3, 4]}')
    path = write_plan(tmp_path / "plan.hjson", tests, '{"name": "g", "stage": "smoke", "desc": "d", "tests": ["gen"]}')
    out = tmp_path / "out"
    # A bug that needs an output surface over 100 bytes: the shrunk layer is smaller, and still over 100.
    env = {"NVDLA_FAULTS": "*=wrong-byte-over-100"}
    code = regress("--plan", str(path), "--nvdla-data", str(nvdla_data), "--impl", faulty_impl(), "--ref", "golden",
                   "--seed", "1", "--out", str(out), "--shrink", "25", env=env)
    assert code == 1
    report = json.loads((out / "results.json").read_text())
    bucket = report["buckets"][0]
    failing = [r for r in report["tests"] if r["status"] == "failed"]
    assert bucket["count"] == len(failing) >= 1
    cut = bucket["shrunk"]
    smallest = min(failing, key=lambda r: (r["size_bytes"], r["id"]))
    assert cut["id"] == smallest["id"] and cut["bytes"] < cut["from_bytes"] == smallest["size_bytes"]
    assert cut["layers"] in (1, 2) and cut["attempts"] <= 25
    summary = (out / "summary.txt").read_text()
    assert f"shrunk: {cut['id']} to {cut['layers']} layer(s)" in summary
    assert f"cd -- {out} && {cut['reproduce']}" in summary
    pages = [json.loads(f.read_text()) for f in (out / "allure-results").glob("*-result.json")]
    page = next(p for p in pages if p["name"] == cut["id"])  # the shrunk layer first on its test's page
    assert page["description"].startswith("**shrunk to") and "play it: cd" in page["statusDetails"]["message"]
    command = after_invocation(cut["reproduce"])
    assert command[0] == "conform"
    shrunk = out / command[1]
    assert cli(["conform", str(shrunk), "--profile", "nv_small"]) == 0  # the golden CRCs are right
    saved = os.environ.get("NVDLA_FAULTS")
    os.environ["NVDLA_FAULTS"] = env["NVDLA_FAULTS"]
    try:
        assert cli([command[0], str(shrunk), *command[2:]]) == 1  # and the implementation still fails it
    finally:
        os.environ.pop("NVDLA_FAULTS") if saved is None else os.environ.__setitem__("NVDLA_FAULTS", saved)


@pytest.mark.parametrize("family", ["sdp", "pdp", "cdp", "conv", "sdp_pdp"])
def test_the_shrinkers_recorded_decisions_replay_the_seeded_layers(family):
    from ci.regression.shrink import Recorder, draw_layers
    from golden.config import get_profile
    from stimulus.families import layers

    profile = get_profile("nv_small")
    expected = layers(family, profile, 21, 0, 2)
    recorder = Recorder(seed=[21, 0])
    assert _same(draw_layers(family, profile, recorder, 2), expected)
    assert _same(draw_layers(family, profile, Recorder(values=recorder.values_drawn()), 2), expected)
    smaller = draw_layers(family, profile, Recorder(values=[]), 1)  # every decision at its lower end
    assert smaller[0].family == expected[0].family



def test_a_shrink_replay_of_a_deconvolution_draws_its_rubik_contract_too():
    """A deconvolution is stride_x * stride_y convolution phases and then one Rubik contract layer interleaving them
    (programming guide: "Deconvolution is a software feature"; stimulus/deconv/layers.py): the shrinker's replay of a
    recorded draw is the whole sequence, as `generate` writes it, not its first phase alone."""
    from ci.regression.shrink import Recorder, draw_layers
    from golden.config import get_profile
    from stimulus.families import layers

    profile = get_profile("nv_full")
    recorder = Recorder(seed=[21, 0])
    draw_layers("deconv", profile, recorder, 1)
    replayed = draw_layers("deconv", profile, Recorder(values=recorder.values_drawn()), 1)
    stride_y, stride_x = replayed[0].choices["stride"]
    assert [layer.choices["phase"] for layer in replayed] == [*range(stride_y * stride_x), "contract"]
    assert replayed[-1].enable == ("RBK",)
    assert _same(replayed, layers("deconv", profile, 21, 0, 1))

def _same(got, expected) -> bool:
    return [(x.fields, [i.data for i in x.images]) for x in got] == [(x.fields, [i.data for i in x.images])
                                                                     for x in expected]
