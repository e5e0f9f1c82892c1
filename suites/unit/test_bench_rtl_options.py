"""benchmarks/bench_rtl.py takes the RTL and the profile as conform does (--rtl-*, --profile) and refuses a trace
name it cannot find with one error before building anything (issue 46: it dropped such names and exited 0)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks" / "bench_rtl.py"


def _bench(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(BENCH), *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "NVDLA_RTL_CACHE": str(cwd / "cache")})


def test_unknown_trace_names_are_one_error_and_nothing_is_built(tmp_path):
    run = _bench("no_such_trace", "sdp_1x1x1_pass_through_int8", "neither_this", cwd=tmp_path)
    assert run.returncode == 2, run.stdout + run.stderr
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert "no_such_trace" in run.stderr and "neither_this" in run.stderr and "Traceback" not in run.stderr
    assert "sdp_1x1x1_pass_through_int8," not in run.stderr  # a name that exists is not named
    assert not (tmp_path / "cache").exists() and "build" not in run.stdout


def test_it_takes_conforms_rtl_and_profile_options(tmp_path):
    from ci.cli import build_parser

    conform = build_parser()._subparsers._group_actions[0].choices["conform"]
    wanted = {o for action in conform._actions for o in action.option_strings
              if o.startswith("--rtl-") or o.startswith("--profile")}
    shown = _bench("--help", cwd=tmp_path)
    assert shown.returncode == 0 and all(option in shown.stdout for option in wanted), (wanted, shown.stdout)
    run = _bench("--rtl-filelist", str(tmp_path / "missing.f"), cwd=tmp_path)
    assert run.returncode == 2 and "missing.f: RTL file list not found" in run.stderr, run.stderr
    run = _bench("--profile", "no_such_profile", cwd=tmp_path)
    assert run.returncode == 2 and "no_such_profile" in run.stderr and "Traceback" not in run.stderr, run.stderr
