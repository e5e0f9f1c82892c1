"""Output folders: a command writes only into a new or empty folder or its own earlier output, and never deletes
what it did not write; `report merge` never follows a symbolic link out of a shard."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ci.cli import main as cli
from ci.ownership import ForeignOutput, Layout, claim, clear
from suites.unit.ci.regress_helpers import data_root, regress, write_plan

pytest.importorskip("hjson")

TESTS = '{"name": "traces", "kind": "nvidia_traces", "glob": "trace_tests/nv_small/*/*.cfg"}'
POINTS = '{"name": "sdp", "stage": "smoke", "desc": "output folders", "tests": ["traces"], "covers": []}'
TRACES = ("sdp_1x1x1_pass_through_int8", "sdp_1x1x8_pass_through_int8_0")
#: A person's folder: files with the names regress and report merge write, and one of their own.
PERSONS = {"results/x": "my results", "junit.xml": "<my/>", "notes.txt": "my notes", "shrunk/mine.txt": "mine",
           "allure-results/keep.json": "{}", "summary.txt": "my summary"}


@pytest.fixture(scope="module")
def common(nvdla_data, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("outdirs")
    root = data_root(nvdla_data, tmp / "data", TRACES)
    plan = write_plan(tmp / "plan.hjson", TESTS, POINTS)
    return ["--plan", str(plan), "--nvdla-data", str(root), "--impl", "golden", "--seed", "5", "--shrink", "0"]


@pytest.fixture(scope="module")
def shards(common, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("shards")
    for index in (1, 2):
        assert regress(*common, "--shard", f"{index}/2", "--out", str(tmp / f"shard{index}")) == 0
    return [tmp / "shard1", tmp / "shard2"]


def persons_folder(folder: Path) -> Path:
    for name, text in PERSONS.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def everything(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text() if p.is_file() else "" for p in sorted(folder.rglob("*"))}


def refused_in_one_line(code: int, err: str, folder: Path) -> None:
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert str(folder) in lines[0] and "6 entries it did not write" in lines[0] and "move them away" in lines[0]


def test_regress_refuses_a_folder_holding_a_persons_files_and_deletes_nothing(common, tmp_path, capsys):
    out = persons_folder(tmp_path / "mine")
    before = everything(out)
    code = regress(*common, "--out", str(out))
    refused_in_one_line(code, capsys.readouterr().err, out)
    assert everything(out) == before


@pytest.mark.slow
def test_report_merge_refuses_a_folder_holding_a_persons_files_and_deletes_nothing(shards, tmp_path, capsys):
    out = persons_folder(tmp_path / "mine")
    before = everything(out)
    code = cli(["report", "merge", *map(str, shards), "--out", str(out)])
    refused_in_one_line(code, capsys.readouterr().err, out)
    assert everything(out) == before


def test_fuzz_refuses_a_folder_holding_a_persons_files_and_writes_nothing_in_it(tmp_path, capsys):
    pytest.importorskip("cocotb_coverage")
    out = persons_folder(tmp_path / "mine")
    before = everything(out)
    code = cli(["fuzz", "--impl", "golden", "--unit", "sdp", "--runs", "1", "--out", str(out)])
    refused_in_one_line(code, capsys.readouterr().err, out)
    assert everything(out) == before


@pytest.mark.slow
def test_a_second_run_a_resume_and_a_merge_again_work_on_their_own_output(common, shards, tmp_path, capsys):
    out = tmp_path / "out"
    assert regress(*common, "--out", str(out)) == 0
    (out / "notes.txt").write_text("a person's notes beside the results")
    assert regress(*common, "--out", str(out)) == 0
    assert len(list((out / "history").glob("*.json"))) == 1  # the first run's report is the second's history
    assert regress("--resume", "--out", str(out)) == 0
    assert "0 to run" in capsys.readouterr().out
    merged = tmp_path / "merged"
    for _ in range(2):
        assert cli(["report", "merge", *map(str, shards), "--out", str(merged)]) == 0
    assert json.loads((merged / "results.json").read_text())["counts"]["total"] == len(TRACES)
    (out / ".nvdla-verif-output.json").unlink()  # a folder an earlier version wrote: known by its run manifest
    assert regress(*common, "--out", str(out)) == 0
    assert (out / "notes.txt").read_text() == "a person's notes beside the results"


@pytest.mark.slow
def test_merge_copies_no_target_of_a_symlink_in_a_shard(shards, tmp_path, capsys):
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "private.txt").write_text("not the shard's")
    copies = []
    for shard in shards:
        copy = tmp_path / shard.name
        _copy_folder(shard, copy)
        copies.append(copy)
    (copies[0] / "allure-results" / "folder-attachment").symlink_to(secret)
    (copies[0] / "allure-results" / "hostname-attachment.txt").symlink_to("/etc/hostname")
    (copies[1] / "shrunk").mkdir(exist_ok=True)
    (copies[1] / "shrunk" / "layer").symlink_to(secret)
    (copies[1] / "rtl-coverage").symlink_to(secret)
    merged = tmp_path / "merged"
    assert cli(["report", "merge", *map(str, copies), "--out", str(merged)]) == 0
    assert "4 symbolic link(s)" in capsys.readouterr().err
    written = [p for p in merged.rglob("*")]
    assert not any(p.is_symlink() for p in written)
    assert not any(p.name in ("private.txt", "folder-attachment", "hostname-attachment.txt", "layer")
                   for p in written)
    hostname = Path("/etc/hostname").read_bytes()
    assert not any(p.is_file() and p.read_bytes() == hostname for p in written)


def test_merge_refuses_a_shard_whose_record_is_a_symlink(shards, tmp_path, capsys):
    copy = tmp_path / shards[0].name
    _copy_folder(shards[0], copy)
    record = next(iter(sorted((copy / "results").glob("*.json"))))
    record.unlink()
    record.symlink_to("/etc/hostname")
    assert cli(["report", "merge", str(copy), str(shards[1]), "--out", str(tmp_path / "merged")]) == 2
    err = capsys.readouterr().err
    assert "symbolic link in a shard" in err and str(record) in err
    assert not (tmp_path / "merged" / "results.json").exists()


def _copy_folder(source: Path, target: Path) -> None:
    """A copy of a shard that says it is where it is."""
    shutil.copytree(source, target)
    manifest = json.loads((target / "manifest.json").read_text())
    (target / "manifest.json").write_text(json.dumps({**manifest, "out": str(target)}))


LAYOUT = Layout("test output", ("report.txt", "parts", "part.*.gz"))


def test_clear_removes_only_what_the_manifest_lists(tmp_path):
    out = claim(tmp_path / "out", LAYOUT)
    (out / "parts").mkdir()
    (out / "part.1.gz").write_text("")
    (out / "notes.txt").write_text("mine")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    (out / "report.txt").symlink_to(outside)
    clear(out, ["parts", "part.1.gz", "report.txt"])
    assert sorted(p.name for p in out.iterdir()) == [".nvdla-verif-output.json", "notes.txt"]
    assert (outside / "keep.txt").read_text() == "keep"  # a listed link goes, never what it points to
    with pytest.raises(ForeignOutput, match="notes.txt: not listed"):
        clear(out, ["notes.txt"])
    assert (out / "notes.txt").read_text() == "mine"


def test_a_claimed_folder_is_refused_to_another_kind_and_to_names_it_did_not_list(tmp_path):
    out = claim(tmp_path / "out", Layout("test output", ("report.txt",)))
    with pytest.raises(ForeignOutput, match="a test output folder, not a second output one"):
        claim(out, Layout("second output", ("report.txt",)))
    (out / "parts").mkdir()  # a person's folder with a name a newer layout writes
    with pytest.raises(ForeignOutput, match=r"does not list \(1 entry it did not write: parts\)"):
        claim(out, LAYOUT)
    (out / "parts").rmdir()
    claim(out, LAYOUT)
    assert json.loads((out / ".nvdla-verif-output.json").read_text())["entries"] == ["part.*.gz", "parts",
                                                                                     "report.txt"]
