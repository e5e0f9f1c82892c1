"""`--impl command` keeps a hostile or broken external program in its box (README "External programs"): its
files are bounded by the request."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from ci.implementations.command import Command
from golden.config import get_profile
from golden.player import prepare
from golden.status import Status

TRACE = "trace_tests/nv_small/sdp_1x1x1_pass_through_int8"
#: The address space nvdla-verif gets in the tests that flood it: less than the flood, plenty for the run.
ADDRESS_SPACE = 2 << 30


@pytest.fixture(autouse=True)
def scratch(tmp_path, monkeypatch) -> Path:
    """The temporary folder the runs in this process make their work folders in."""
    folder = tmp_path / "scratch"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def _program(tmp_path: Path, body: str, name: str = "program.py") -> str:
    """A Python program: `folder` is its request folder, `request` its request.json."""
    script = tmp_path / name
    script.write_text("import json, os, pathlib, signal, sys, time\nfolder = pathlib.Path(sys.argv[-1])\n"
                      "request = json.loads((folder / 'request.json').read_text())\n" + textwrap.dedent(body))
    return f"{sys.executable} {script}"


def _conform_capped(nvdla_data: Path, tmp_path: Path, program: str) -> tuple[subprocess.CompletedProcess, dict]:
    """`nvdla-verif conform` in a process whose address space is ADDRESS_SPACE, with its own $TMPDIR."""
    scratch = tmp_path / "capped"
    scratch.mkdir()
    capped = ("import resource, sys\n"
              f"resource.setrlimit(resource.RLIMIT_AS, ({ADDRESS_SPACE}, {ADDRESS_SPACE}))\n"
              "from ci.cli import main\nsys.exit(main(sys.argv[1:]))\n")
    out = tmp_path / "run" / "out.json"
    completed = subprocess.run(
        [sys.executable, "-c", capped, "conform", str(nvdla_data / TRACE), "--json", str(out),
         "--impl", f"command:{program}"], capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "TMPDIR": str(scratch), "OPENBLAS_NUM_THREADS": "1"})
    assert "internal error" not in completed.stdout + completed.stderr
    assert not list(scratch.iterdir())
    return completed, json.loads(out.read_text())["results"][0]


def _kept(tmp_path: Path) -> Path:
    (folder,) = (tmp_path / "run" / "kept").iterdir()
    return folder


def test_a_region_file_far_larger_than_its_region_is_refused_unread(nvdla_data, tmp_path):
    huge = 1900 << 20
    program = _program(tmp_path, f"""
        for region in request["regions"]:
            with open(folder / "out" / region["file"], "wb") as file:
                file.truncate({huge})
        """)
    _, result = _conform_capped(nvdla_data, tmp_path, program)
    assert result["status"] == "error"
    named = re.search(r"(\S+/out/region_\d+\.dat): (\d+) bytes, more than the (\d+) bytes a (0x[0-9a-f]+)-byte "
                      r"region's file may take", result["detail"])
    assert named, result["detail"]
    region = json.loads((_kept(tmp_path) / "request.json").read_text())["regions"][0]
    assert named[1].endswith(region["file"]) and int(named[2]) == huge
    assert int(named[4], 16) == region["size"] < int(named[3]) < huge


def _run(nvdla_data: Path, program: str, timeout_s: float = 60):
    profile = get_profile("nv_small")
    return Command(program, timeout_s=timeout_s).run(prepare(nvdla_data / TRACE, profile), profile)


@pytest.mark.parametrize(("body", "words"), [
    ("(folder / 'out' / 'result.json').write_text(' ' * (16 << 20) + json.dumps({'protocol': 2}))",
     r"out/result\.json: 16777231 bytes, more than the \d+ bytes result\.json may take"),
    ("os.symlink('/etc/hostname', folder / 'out' / request['regions'][0]['file'])",
     r"out/region_\d+\.dat: not a regular file"),
])
def test_a_result_file_out_of_bounds_is_the_programs_error(nvdla_data, tmp_path, body, words):
    outcome = _run(nvdla_data, _program(tmp_path, body + "\n"))
    assert outcome.status == Status.ERROR and re.search(words, outcome.detail), outcome.detail


