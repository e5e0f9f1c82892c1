"""Running out of memory or of disk space is one clear error naming the limit or the path, what was kept and how
to go on, never an "internal error"; a layer whose working set is clearly too big is refused before it runs."""

from __future__ import annotations

import errno
import json
import os
import re
import resource
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ci.cli import invocation
from ci.cli import main as cli
from golden import limits
from golden.config import get_profile
from golden.implementation import Implementation
from golden.player import play
from golden.status import Verdict

EXAMPLE = Path(__file__).resolve().parents[3] / "golden" / "examples" / "sdp_bias_relu_int8.cfg"
GIB = 1 << 30


def _sdp_layer(folder: Path, width: int, height: int, channels: int) -> Path:
    """The example SDP layer (bias, ReLU, int8 on nv_small) made width x height x channels, its input a fill."""
    line = width * 8
    surface = line * height
    size = surface * -(-channels // 8)
    sizes = {"WIDTH_0, 0x7": f"WIDTH_0, {width - 1:#x}", "HEIGHT_0, 0x7": f"HEIGHT_0, {height - 1:#x}",
             "CHANNEL_0, 0xf": f"CHANNEL_0, {channels - 1:#x}", "LINE_STRIDE_0, 0x40": f"LINE_STRIDE_0, {line:#x}",
             "SURFACE_STRIDE_0, 0x200": f"SURFACE_STRIDE_0, {surface:#x}", "0x80100000": "0xc0000000"}
    lines = [f"mem_init(pri_mem, 0x80000000, {size:#x}, ALL_ZERO);", f"mem_init(pri_mem, 0xc0000000, {size:#x}, "
             "ALL_ZERO);"]
    for text in EXAMPLE.read_text().splitlines():
        if text.startswith(("//", "mem_", "check_crc")):
            continue
        for old, new in sizes.items():
            text = text.replace(old, new)
        lines.append(text)
    path = folder / f"sdp_{width}x{height}x{channels}.cfg"
    path.write_text("\n".join(lines) + "\n")
    return path


def _address_space(limit: int):
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return cap


@pytest.mark.parametrize("memory_limit", [None, "16GiB"])
def test_an_sdp_layer_too_big_for_the_limits_is_refused_at_once(tmp_path, memory_limit):
    trace = _sdp_layer(tmp_path, 8192, 4096, 8)
    options = ["--memory-limit", memory_limit] if memory_limit else []
    env = {k: v for k, v in os.environ.items() if k != limits.ENVIRONMENT}  # the default limit, 4 GiB
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "ci.cli", *options, "play", "--profile", "nv_small", str(trace)],
                            capture_output=True, text=True, timeout=120, env=env, preexec_fn=_address_space(4 * GIB))
    took = time.monotonic() - started
    output = result.stdout + result.stderr
    assert "internal error" not in output and "MemoryError" not in output
    error = [line for line in result.stdout.splitlines() if line.startswith("ERROR:")]
    assert len(error) == 1, output
    assert "8192x4096x8" in error[0] and "4.0 GiB" in error[0]  # the layer, and the limit it is over
    assert ("ulimit -v" in error[0]) == bool(memory_limit)
    assert took < 15


class _Exhausted(Implementation):
    name = "exhausted"

    def run(self, program, profile):
        raise MemoryError("Unable to allocate 8.00 GiB for an array with shape (1, 8, 16384, 8192)")


def test_a_layer_out_of_memory_is_a_clear_error_naming_the_limits(monkeypatch):
    monkeypatch.setattr(limits, "_memory_limit", 3 * GIB)
    monkeypatch.setattr(limits, "address_space_limit", lambda: 5 * GIB, raising=False)
    result = play(EXAMPLE, get_profile("nv_small"), _Exhausted())
    assert result.status == Verdict.ERROR
    assert not result.detail.startswith("internal error")
    assert "8.00 GiB" in result.detail  # what failed
    assert "3.0 GiB" in result.detail and "--memory-limit" in result.detail
    assert "5.0 GiB" in result.detail and "ulimit -v" in result.detail


def test_memory_error_escaping_a_command_is_one_clear_error(monkeypatch, capsys):
    import ci.commands.profiles

    def exhausted(args):
        raise MemoryError()

    monkeypatch.setattr(ci.commands.profiles, "run", exhausted)
    assert cli(["profiles"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert "internal error" not in err and "--memory-limit" in err


def _fill_after(monkeypatch, cls, method: str, calls: int, filename: str | None = None) -> None:
    """cls.method finds the disk full from its `calls`-th call on."""
    original = getattr(cls, method)
    count = {"n": 0}

    def full(self, *args, **kwargs):
        count["n"] += 1
        if count["n"] >= calls:
            raise OSError(errno.ENOSPC, "No space left on device", *([filename] if filename else []))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(cls, method, full)


@pytest.mark.parametrize("writes, done", [(0, 0), (2, 1)])  # journal lines written before the disk is full
def test_a_full_disk_under_conform_is_one_clear_error_and_the_run_resumes(nvdla_data, tmp_path, monkeypatch,
                                                                          capsys, writes, done):
    from ci.journal import Journal

    traces = nvdla_data / "trace_tests" / "nv_small"
    out = tmp_path / "results.json"
    command = ["conform", str(traces / "sdp_1x1x1_pass_through_int8"), str(traces / "sdp_1x1x8_pass_through_int8_0"),
               str(traces / "sdp_8x8x32_bypass_int8_0"), "--impl", "golden", "--json", str(out)]
    with monkeypatch.context() as patched:
        _fill_after(patched, Journal, "_write", writes + 1)
        assert cli(command) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert "internal error" not in err and "No space left" not in err
    assert f"{out}.journal" in err and "--resume" in err
    assert cli([*command, "--resume"]) == 0
    assert f"playing {3 - done} traces" in capsys.readouterr().out
    assert json.loads(out.read_text())["summary"]["passed"] == 3


@pytest.mark.slow
def test_a_full_disk_under_regress_is_one_clear_error_and_the_printed_command_resumes(nvdla_data, tmp_path,
                                                                                   monkeypatch, capsys):
    pytest.importorskip("hjson")
    import ci.commands.regress

    out = tmp_path / "out"
    command = ["regress", "--level", "smoke", "--impl", "golden", "--seed", "3", "--nvdla-data", str(nvdla_data),
               "--out", str(out), "--test", "nvidia/nv_small/sdp_1x1x*", "--shrink", "0"]
    with monkeypatch.context() as patched:
        report = str(out / "results.json")
        patched.setattr(ci.commands.regress, "finish", lambda *a, **k: (_ for _ in ()).throw(
            OSError(errno.ENOSPC, "No space left on device", report)))
        assert cli(command) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert "internal error" not in err and report in err
    pasted = re.search(r"`([^`]*--resume[^`]*)`", err).group(1)
    words = shlex.split(pasted)
    assert words[words.index("regress"):] == ["regress", "--resume", "--out", str(out)]
    assert words[:words.index("regress")] == invocation()  # the whole line pastes, the program's words included
    assert cli(words[words.index("regress"):]) == 0
    report = json.loads((out / "results.json").read_text())
    assert sorted(t["status"] for t in report["tests"]) == ["passed", "passed"]


@pytest.fixture
def small_tmpfs(tmp_path):
    """A real 8 KiB tmpfs (two pages: the lock file's and one of the journal's), where this machine lets the test
    mount one (root, a mount namespace that allows it); the injected ENOSPC tests above cover the rest."""
    folder = tmp_path / "small"
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8k", "tmpfs", str(folder)], capture_output=True)
    if mounted.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    yield folder
    subprocess.run(["umount", str(folder)], check=True)


def test_a_real_full_disk_under_conform_is_one_clear_error_and_the_run_resumes(nvdla_data, small_tmpfs, tmp_path,
                                                                              capsys):
    traces = sorted(str(p) for p in (nvdla_data / "trace_tests" / "nv_small").glob("sdp_*"))[:20]
    out = small_tmpfs / "results.json"
    assert cli(["conform", *traces, "--json", str(out)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "internal error" not in err, err
    assert f"{out}.journal" in err and "--resume" in err
    subprocess.run(["mount", "-o", "remount,size=1m", str(small_tmpfs)], check=True)
    assert cli(["conform", *traces, "--json", str(out), "--resume"]) == 0
    resumed = re.search(r"playing (\d+) traces on golden \((\d+) done before", capsys.readouterr().out)
    assert resumed and int(resumed.group(2)) > 0 and sum(map(int, resumed.groups())) == len(traces)
    assert cli(["conform", *traces, "--json", str(tmp_path / "whole.json")]) == 0
    summary = json.loads(out.read_text())["summary"]
    assert summary == json.loads((tmp_path / "whole.json").read_text())["summary"]
