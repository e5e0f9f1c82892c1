"""One owner per output: a second run on the same --out or --json is refused naming the first; report merge
never writes into one of its inputs."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from ci.cli import main
from ci.ownership import OutputInUse, owned


def _holder(target, kind: str) -> subprocess.Popen:
    """Another process that holds the target, as a running nvdla-verif would."""
    code = (f"from ci.ownership import owned\nimport time\nwith owned({str(target)!r}, {kind!r}):\n"
            "    print('held', flush=True)\n    time.sleep(60)\n")
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "held"
    return process


def test_a_second_owner_is_refused_with_the_first_ones_pid(tmp_path):
    holder = _holder(tmp_path / "out", "folder")
    try:
        with pytest.raises(OutputInUse, match=rf"being written by another run \(pid {holder.pid}, started "):
            with owned(tmp_path / "out"):
                pass
    finally:
        holder.kill()
        holder.wait()
    with owned(tmp_path / "out"):  # the kernel released the killed owner's lock
        pass


def test_two_regress_runs_on_one_out_the_second_is_refused(nvdla_data, tmp_path, capsys):
    pytest.importorskip("hjson")
    holder = _holder(tmp_path / "out", "folder")
    try:
        code = main(["regress", "--impl", "golden", "--seed", "1", "--test", "nvidia/*", "--nvdla-data",
                     str(nvdla_data), "--out", str(tmp_path / "out")])
    finally:
        holder.kill()
        holder.wait()
    assert code == 2
    assert f"(pid {holder.pid}, started" in capsys.readouterr().err
    assert not (tmp_path / "out" / "manifest.json").exists()


def test_two_conform_runs_on_one_json_the_second_is_refused(nvdla_data, tmp_path, capsys):
    trace = nvdla_data / "trace_tests" / "nv_small" / "sdp_1x1x1_pass_through_int8"
    holder = _holder(tmp_path / "same.json", "file")
    started = time.monotonic()
    try:
        code = main(["conform", str(trace), "--json", str(tmp_path / "same.json")])
    finally:
        holder.kill()
        holder.wait()
    assert code == 2 and time.monotonic() - started < 30
    assert "being written by another run" in capsys.readouterr().err
    assert not (tmp_path / "same.json").exists()


def test_report_merge_refuses_to_write_into_one_of_its_inputs(tmp_path, capsys):
    (tmp_path / "s1").mkdir()
    (tmp_path / "s2").mkdir()
    code = main(["report", "merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "--out", str(tmp_path / "s1")])
    assert code == 2
    assert "is one of the folders to merge" in capsys.readouterr().err
    assert list((tmp_path / "s1").iterdir()) == []


@pytest.mark.parametrize("kind", ["file", "folder"])
def test_a_run_that_ends_leaves_no_lock_file(tmp_path, kind):
    target = tmp_path / ("results.json" if kind == "file" else "out")
    before = set(tmp_path.rglob("*"))
    with owned(target, kind):
        if kind == "file":
            target.write_text("{}\n")
    after = {path for path in set(tmp_path.rglob("*")) - before if path.name.endswith(".lock")}
    assert not after, after


def test_conform_json_leaves_no_lock_beside_its_output(tmp_path):
    from golden.examples import DEFAULT_TRACE

    assert main(["conform", str(DEFAULT_TRACE), "--profile", "nv_small", "--json", str(tmp_path / "r.json")]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


def test_a_lock_file_removed_while_it_is_being_locked_is_not_held(tmp_path, monkeypatch):
    """The run that held the lock ends (removing the file) between this run's open and its flock: this run must
    not hold the removed file, or a third run would lock the new one at the path as well."""
    import fcntl

    from ci import ownership

    target = tmp_path / "results.json"
    real, raced = fcntl.flock, []

    def racing(handle, operation):
        if not raced:
            raced.append(True)
            ownership.lock_file(target, "file").unlink()
        return real(handle, operation)

    monkeypatch.setattr(ownership.fcntl, "flock", racing)
    with owned(target, "file"):
        assert raced
        with pytest.raises(OutputInUse):
            with owned(target, "file"):
                pass
