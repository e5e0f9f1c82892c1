"""`nvdla-verif fuzz --impl`: the coverage-directed loop on the golden model (and an external program that gets
some layers wrong): state on disk, resuming, stop conditions, Ctrl-C, findings, the golden-side feedback."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("cocotb_coverage")

import ci.fuzzing.campaign as campaign_module  # noqa: E402
from ci.cli import main as cli  # noqa: E402
from ci.fuzzing.campaign import FuzzError  # noqa: E402
from ci.fuzzing.feedback import (  # noqa: E402
    CbufBanks,
    FieldTransitions,
    GoldenRun,
    Seen,
    rule_distances,
    stages_enabled,
    value_class,
    worth,
)
from golden import rules  # noqa: E402
from golden.config import get_profile  # noqa: E402
from golden.regs.regmap import RegisterMap  # noqa: E402
from golden.regs.values import RegisterValues  # noqa: E402

HERE = Path(__file__).resolve().parent


def fuzz(out: Path, *extra: str) -> int:
    """A campaign on the golden model (a directed one weighs four candidates a run: each is a golden run too)."""
    return cli(["fuzz", "--impl", "golden", "--unit", "sdp", "--seed", "3", "--choices", "4", "--out", str(out),
                *extra])


def ran(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]


def state(out: Path) -> dict:
    return json.loads((out / "state.json").read_text())


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    out = tmp_path_factory.mktemp("fuzz") / "whole"
    assert fuzz(out, "--directed", "--runs", "6") == 0
    return out


@pytest.mark.slow
def test_a_directed_campaign_keeps_its_runs_corpus_and_report(whole):
    rows = ran(whole)
    assert [r["run"] for r in rows] == [1, 2, 3, 4, 5, 6]
    assert all(r["status"] == "passed" for r in rows)
    assert all(sum(r["golden_new"].values()) > 0 for r in rows)  # directed: only candidates with novelty run
    saved = state(whole)
    assert saved["runs"] == 6 and saved["findings"] == []
    for entry in saved["corpus"]:  # replayable candidates and their traces
        assert json.loads((whole / "corpus" / f"{entry}.json").read_text())["id"] == entry
        assert list((whole / "corpus" / entry).glob("*.cfg"))
    bins = [r["golden"]["bins"] for r in rows]
    assert bins == sorted(bins) and bins[0] > 0
    summary = (whole / "summary.txt").read_text()
    assert "directed" in summary and "runs 6" in summary
    assert json.loads((whole / "report.json").read_text())["runs"] == rows
    assert not (whole / "work").exists()


@pytest.mark.slow
def test_a_campaign_continued_in_its_folder_is_the_campaign_run_at_once(whole, tmp_path):
    out = tmp_path / "split"
    assert fuzz(out, "--directed", "--runs", "2") == 0
    assert fuzz(out, "--directed", "--runs", "6") == 0
    assert [r["id"] for r in ran(out)] == [r["id"] for r in ran(whole)]
    assert state(out)["seen"] == state(whole)["seen"]


@pytest.mark.slow
def test_a_continued_campaign_keeps_its_options(whole, tmp_path):
    out = tmp_path / "kept"
    assert fuzz(out, "--directed", "--runs", "1") == 0
    with pytest.raises(FuzzError, match="other options"):
        from ci.fuzzing.campaign import Campaign, Options

        Campaign(out, Options("golden", None, False, 3, "nv_small", ["sdp"], 2), get_profile("nv_small"))
    assert cli(["fuzz", "--impl", "golden", "--unit", "sdp", "--seed", "4", "--out", str(out), "--runs", "2"]) == 2


@pytest.mark.slow
def test_ctrl_c_leaves_the_campaign_to_continue(whole, tmp_path, monkeypatch):
    out = tmp_path / "interrupted"
    real = campaign_module.play_layer
    calls = []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(campaign_module, "play_layer", interrupted)
    assert fuzz(out, "--directed", "--runs", "6") == 130
    assert state(out)["runs"] == 3 and len(ran(out)) == 3
    monkeypatch.setattr(campaign_module, "play_layer", real)
    assert fuzz(out, "--directed", "--runs", "6") == 0
    assert [r["id"] for r in ran(out)] == [r["id"] for r in ran(whole)]


def test_stop_conditions(tmp_path):
    assert fuzz(tmp_path / "time", "--runs", "5", "--time", "0") == 0
    assert state(tmp_path / "time")["runs"] == 0
    from ci.fuzzing.campaign import Campaign, Options

    options = Options("golden", None, True, 3, "nv_small", ["sdp"], runs=10, patience=3)
    campaign = Campaign(tmp_path / "patience", options, get_profile("nv_small"))
    campaign.state.update(runs=5, last_new=2)
    assert campaign.stop_reason() == "no new coverage for 3 runs"
    campaign.state.update(last_new=3)
    assert campaign.stop_reason() is None
    campaign.state.update(runs=10, last_new=10)
    assert campaign.stop_reason() == "budget of 10 runs reached"


def test_the_random_baseline_runs_generated_layers_only(tmp_path):
    out = tmp_path / "random"
    assert fuzz(out, "--runs", "3") == 0
    assert {r["kind"] for r in ran(out)} == {"generated"}
    assert fuzz(tmp_path / "other", "--runs", "3") == 0  # the same seed draws the same layers
    assert [r["family"] for r in ran(out)] == [r["family"] for r in ran(tmp_path / "other")]
    text = cli(["fuzz", "--impl", "golden", "--out", str(tmp_path / "other"), "--compare", str(out), "--report"])
    assert text == 0 and "against random" in (tmp_path / "other" / "summary.txt").read_text()


@pytest.mark.slow
def test_a_wrong_implementation_gives_findings_bucketed_and_shrunk(tmp_path, monkeypatch):
    monkeypatch.setenv("NVDLA_FAULTS", "*=wrong-byte")
    program = f"command:{sys.executable} {HERE / 'regress_faulty_program.py'}"
    out = tmp_path / "faulty"
    code = cli(["fuzz", "--impl", program, "--unit", "sdp", "--seed", "3", "--out", str(out), "--runs", "2",
                "--shrink", "3"])
    assert code == 1
    findings = [json.loads((out / "findings" / f"{i}.json").read_text()) for i in state(out)["findings"]]
    assert len(findings) == 2 and {f["status"] for f in findings} == {"failed"}
    assert findings[0]["signature"]["check"] == "scoreboard"
    assert "shrunk" in findings[0] and "shrunk" not in findings[1]  # one shrink per bucket
    assert "finding buckets" in (out / "summary.txt").read_text()


# -- the golden-side feedback ---------------------------------------------------------------------------------
def test_value_classes_name_a_fields_ends_and_magnitude():
    regmap = RegisterMap.for_profile(get_profile("nv_small"))
    offset = regmap.get("SDP", "D_CVT_OFFSET").field("CVT_OFFSET")  # 32 bits, two's complement
    assert [value_class(v, offset) for v in (0, 1, 0xFFFFFFFF, 0x80000000, 0x1234, 0xFFFF0000)] == \
        ["0", "1", "ones", "top", "2^12", "-2^16"]
    precision = regmap.get("SDP", "D_DATA_FORMAT").field("OUT_PRECISION")
    assert value_class(0, precision) == "INT8"


def _sdp(surface_stride: int) -> RegisterValues:
    """A 2x3x16 int8 SDP layer on nv_small (8-byte atoms: two surfaces, lines of 16 bytes, packed line stride)."""
    fields = {"SDP_RDMA.D_DATA_CUBE_WIDTH.WIDTH": 1, "SDP_RDMA.D_DATA_CUBE_HEIGHT.HEIGHT": 2,
              "SDP_RDMA.D_DATA_CUBE_CHANNEL.CHANNEL": 15, "SDP.D_DATA_CUBE_WIDTH.WIDTH": 1,
              "SDP.D_DATA_CUBE_HEIGHT.HEIGHT": 2, "SDP.D_DATA_CUBE_CHANNEL.CHANNEL": 15,
              "SDP_RDMA.D_SRC_LINE_STRIDE.SRC_LINE_STRIDE": 16,
              "SDP_RDMA.D_SRC_SURFACE_STRIDE.SRC_SURFACE_STRIDE": surface_stride}
    return RegisterValues.encode(RegisterMap.for_profile(get_profile("nv_small")), fields)


@pytest.mark.parametrize(("surface_stride", "distance"), [(48, "0"), (49, "1"), (52, "few"), (64, "far")])
def test_rule_distance_of_a_surface_stride(surface_stride, distance):
    # in-memory-data-formats, feature surfaces: a surface starts after the previous one's last line, here
    # 16 * (3 - 1) + 16 = 48 bytes: 48 is at the bound, 49 one step inside, 52 a few, 64 sixteen away
    key = "SDP-SRC-SURFACE-STRIDE/SDP_RDMA.D_SRC_SURFACE_STRIDE.SRC_SURFACE_STRIDE"
    assert rule_distances(_sdp(surface_stride), "SDP", get_profile("nv_small"))[key] == distance


def test_every_declared_unit_has_rule_distances_a_rubik_contract_too():
    # programming guide, Rubik/Contract: DATAOUT_CHANNEL+1 = (DATAIN_CHANNEL+1) / ((x stride+1) * (y stride+1)), an
    # equation, so moving DATAOUT_CHANNEL by one either way breaks it: distance 0 (the loop once knew four units)
    from stimulus.families import layers

    profile = get_profile("nv_full")
    regmap = RegisterMap.for_profile(profile)
    layer = layers("rubik", profile, 5, 1)[0]
    assert stages_enabled(layer.enable) == ["RUBIK"]
    values = layer.values(regmap)
    key = "RUBIK-CONTRACT-CHANNELS/RBK.D_DATAOUT_SIZE_1.DATAOUT_CHANNEL"
    assert rule_distances(values, "RUBIK", profile)[key] == "0" and rules.violated("RUBIK", values, profile) == []
    channels = values.value("RBK", "D_DATAOUT_SIZE_1")
    assert "RUBIK-CONTRACT-CHANNELS" in rules.violated("RUBIK", values.with_values({("RBK", "D_DATAOUT_SIZE_1"):
                                                                                  channels + 1}), profile)


def test_transitions_and_novelty():
    class Layer:
        def __init__(self, regs):
            self.regs, self.stages = regs, ("SDP",)

    run = GoldenRun(get_profile("nv_small"), [Layer(_sdp(48)), Layer(_sdp(64))])
    assert FieldTransitions().features(run) == {"SDP_RDMA.D_SRC_SURFACE_STRIDE.SRC_SURFACE_STRIDE:2^5->2^6"}
    seen = Seen()
    seen.add({"fields": {"a=1"}})
    assert seen.new({"fields": {"a=1", "a=2"}, "bins": set()}) == {"fields": {"a=2"}}
    assert Seen.from_dict(seen.as_dict()) == seen


def _corner_features(trace: Path) -> set[str]:
    """The stage=class corners the golden model meets playing a trace (an observer of its own)."""
    from golden.implementation import Golden
    from golden.numerics import corners
    from golden.player import observe, prepare

    profile = get_profile("nv_small")
    with corners.observe() as seen:
        observe(Golden(), prepare(trace, profile), profile)
    return {f"{stage}={cls}" for stage in seen.stages() for cls in seen.hit(stage)}


@pytest.mark.slow
def test_the_directed_loop_reaches_corners_random_layers_of_the_same_budget_miss(tmp_path):
    directed, random = tmp_path / "directed", tmp_path / "random"
    for out, extra in ((directed, ["--directed"]), (random, [])):
        assert cli(["fuzz", "--impl", "golden", "--unit", "sdp_reg", "--seed", "2", "--runs", "10", "--choices", "4",
                    "--out", str(out), *extra]) == 0
    kinds = {json.loads(p.read_text())["kind"] for p in (directed / "corpus").glob("*.json")}
    assert "corners" in kinds
    reached = set().union(*(_corner_features(t) for t in (directed / "corpus").glob("*/*.cfg")))
    missed = set(state(random)["seen"]["corners"])  # every random run's golden corners (all of them ran)
    assert "sdp.cvt_out.round=tie+" in reached - missed
    assert len(reached - missed) >= 3


def test_an_edit_of_a_single_register_reaches_every_layer_that_programs_it():
    """Both register groups share a S_ register: a mutation gives it one value in the whole trace, or the golden
    model ends the trace as a race (the campaign's c000197 edited S_LUT_INFO in its second layer only)."""
    from types import SimpleNamespace

    from ci.fuzzing.candidates import shared_edits
    regmap = RegisterMap.for_profile(get_profile("nv_small"))
    key, double = "CDP.S_LUT_INFO.LUT_LE_INDEX_SELECT", "CDP.D_DATOUT_SCALE.DATOUT_SCALE"
    layers = [SimpleNamespace(fields={key: 0, double: 1}), SimpleNamespace(fields={double: 1}),
              SimpleNamespace(fields={key: 0, double: 1})]
    assert shared_edits([2, key, 255], layers, regmap) == [[0, key, 255], [2, key, 255]]
    assert shared_edits([1, double, 7], layers, regmap) == [[1, double, 7]]


def test_a_second_process_on_a_running_campaign_stops_with_one_clear_error(tmp_path, capsys):
    """Two processes continuing one campaign replayed the same runs into runs.jsonl, and one deleted the other's
    work folder mid-run (seen on the nv_small acceptance campaign); the folder's lock stops the second one."""
    import fcntl

    from ci.ownership import lock_file
    out = tmp_path / "camp"
    out.mkdir()
    with open(lock_file(out.resolve(), "folder"), "w") as holder:
        holder.write("pid 4242\n")
        holder.flush()
        fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as the running process holds it
        assert fuzz(out, "--runs", "1") == 2
        err = capsys.readouterr().err
        assert "is being written by another run (pid 4242)" in err and "Traceback" not in err
        assert not (out / "state.json").exists()
    assert fuzz(out, "--runs", "1") == 0  # the lock released: the campaign starts
    assert state(out)["runs"] == 1


def _conv(entries: int, lines: int, batches: int, data_bank: int, weight_bank: int, weight_bytes: int):
    class Layer:
        stages = ("CONV", "SDP")
        regs = RegisterValues.encode(RegisterMap.for_profile(get_profile("nv_small")), {
            "CDMA.D_ENTRY_PER_SLICE.ENTRIES": entries - 1, "CSC.D_DATAIN_SIZE_EXT_0.DATAIN_HEIGHT_EXT": lines - 1,
            "CDMA.D_BATCH_NUMBER.BATCHES": batches - 1, "CDMA.D_BANK.DATA_BANK": data_bank - 1,
            "CDMA.D_BANK.WEIGHT_BANK": weight_bank - 1, "CDMA.D_WEIGHT_BYTES.WEIGHT_BYTES": weight_bytes})
    return Layer()


def test_cbuf_banks_a_convolution_fills():
    # nv_small's CBUF: 32 banks of 512 entries of 8 bytes (hw_spec nv_small: CBUF_BANK_DEPTH, CBUF_BANK_WIDTH).
    # 100 entries x 21 lines = 2,100 entries: banks 0-4 (the fifth holds 52); 9,000 weight bytes need three
    # banks of 4,096, from the first bank after the six data banks: 6, 7, 8
    run = GoldenRun(get_profile("nv_small"), [_conv(100, 21, 1, 6, 4, 9000)])
    assert CbufBanks().features(run) == {f"data/bank={b}" for b in range(5)} | {"weight/bank=6", "weight/bank=7",
                                                                               "weight/bank=8"}
    full = GoldenRun(get_profile("nv_small"), [_conv(125, 123, 1, 31, 1, 128)])  # the campaign's 40,000 toggles
    assert len(CbufBanks().features(full)) == 31 + 1


def test_a_new_bin_outweighs_new_field_classes():
    assert worth({"bins": {"a"}}) > worth({"fields": {"x=1", "y=1", "z=1"}})
    assert worth({"cbuf": {"data/bank=9"}}) > worth({"transitions": {"x:1->2", "y:1->2"}}) > 0
    assert worth({}) == 0


def test_a_directed_step_runs_the_candidate_worth_most_of_the_first_four(tmp_path):
    """Each candidate's novelty is made up here; the step weighs the first `--choices 4` with novelty (none for a
    candidate without) and runs the best; random runs the first."""
    offered = [{}, {"fields": {"f=1", "g=1"}}, {"bins": {"b"}}, {"fields": {"h=1"}}, {"corners": {"c"}},
               {"bins": {"never weighed"}, "cbuf": {"x"}}]
    for directed, expected in ((True, 2), (False, 0)):
        camp = campaign_module.Campaign.__new__(campaign_module.Campaign)
        camp.options = campaign_module.Options("golden", None, directed, 1, "nv_small", ["sdp"], 1, choices=4)
        camp.state, camp.seen = {"step": 0, "skipped": 0}, Seen()
        chosen = []
        camp._candidate = lambda fallback, c=camp: c.state["step"] - 1  # a candidate is its number here
        camp._golden = lambda number: (tmp_path, offered[number])
        camp._run = lambda candidate, path, found, new, into=chosen: into.append(candidate)
        camp.step()
        assert chosen == [expected]
        assert camp.state["step"] == (5 if directed else 1) and camp.state["skipped"] == (1 if directed else 0)
