"""Wrong selections of `regress` fail before any work, with one line naming what was wrong."""

from __future__ import annotations

import json

import pytest

from ci.cli import main

pytest.importorskip("hjson")


def _regress(*args: str) -> list[str]:
    return ["regress", "--level", "smoke", "--impl", "golden", *args]


def test_a_data_folder_without_traces_is_refused(tmp_path, capsys):
    assert main(_regress("--nvdla-data", str(tmp_path), "--out", str(tmp_path / "out"))) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path}: no NVIDIA trace (.cfg or input.txn) in it" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_a_test_pattern_that_matches_nothing_is_refused(nvdla_data, tmp_path, capsys):
    code = main(_regress("--nvdla-data", str(nvdla_data), "--seed", "1", "--test", "nvidia/*",
                         "--test", "no_such_test/*", "--out", str(tmp_path / "out")))
    assert code == 2
    assert "--test 'no_such_test/*' matches none of the" in capsys.readouterr().err


def test_an_unknown_profile_is_refused_before_any_test(nvdla_data, tmp_path, capsys):
    code = main(_regress("--nvdla-data", str(nvdla_data), "--profile", "nv_smal", "--out", str(tmp_path / "out")))
    assert code == 2
    assert "unknown hardware profile 'nv_smal'" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_resume_takes_the_seed_from_the_stopped_runs_manifest(nvdla_data, tmp_path, capsys):
    out = tmp_path / "out"
    selection = ("--nvdla-data", str(nvdla_data), "--test", "nvidia/nv_small/sdp_1x1x1_pass_through_int8",
                 "--out", str(out), "--shrink", "0")
    assert main(_regress("--seed", "77", *selection)) == 0
    (out / "results" / "nvidia__nv_small__sdp_1x1x1_pass_through_int8.json").unlink()
    capsys.readouterr()
    assert main(_regress(*selection, "--resume")) == 0
    printed = capsys.readouterr().out
    assert "base seed" not in printed and "1 to run" in printed
    assert json.loads((out / "results.json").read_text())["meta"]["seed"] == 77


def test_resume_refuses_another_rtl_selection_than_the_stopped_runs(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "manifest.json").write_text(json.dumps({"impl": "rtl", "settings": {"rtl": ["--rtl-profile", "nv_small"]}}))
    assert main(["regress", "--resume", "--out", str(out), "--impl", "rtl", "--rtl-profile", "nv_large"]) == 2
    assert "(--rtl-* differ)" in capsys.readouterr().err
    assert main(["regress", "--resume", "--out", str(tmp_path / "none")]) == 2
    assert "no run to resume (no manifest.json)" in capsys.readouterr().err
