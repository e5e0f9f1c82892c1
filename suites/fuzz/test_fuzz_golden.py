"""Fuzz the golden model with mutated NVIDIA traces (issue 17): no exception outside the project family, no
hang, no memory blow-up.

CI plays a short budget (NVDLA_FUZZ_CASES, default 120 cases, derandomized so a CI run is repeatable); the
nightly run sets NVDLA_FUZZ_CASES=100000 and NVDLA_FUZZ_SEED. Findings are written as reduced reproducer
folders, and the counts as fuzz-report.json, under NVDLA_FUZZ_OUT (default: pytest's tmp_path).
Limits per case: NVDLA_FUZZ_TIMEOUT seconds (default 30), peak RSS 2 GiB; the golden model's memory limit is
NVDLA_VERIF_MEMORY_LIMIT (default here 512MiB, see golden/limits.py).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from harness import Fuzzer, environment_cases
from hypothesis import HealthCheck, given, seed, settings
from mutations import cases, load_seeds


@pytest.fixture(scope="module")
def seeds(nvdla_data):
    found = load_seeds(nvdla_data)
    if not found:
        pytest.skip(f"no NVIDIA traces under {nvdla_data}")
    return found


def test_mutated_traces_end_in_a_project_verdict(seeds, tmp_path, monkeypatch):
    monkeypatch.setenv("NVDLA_VERIF_MEMORY_LIMIT", os.environ.get("NVDLA_VERIF_MEMORY_LIMIT", "512MiB"))
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")
    out = Path(os.environ.get("NVDLA_FUZZ_OUT", tmp_path / "out"))
    out.mkdir(parents=True, exist_ok=True)
    fuzzer = Fuzzer(tmp_path / "scratch", out, timeout=float(os.environ.get("NVDLA_FUZZ_TIMEOUT", 30)))
    count = environment_cases(120)
    chosen_seed = os.environ.get("NVDLA_FUZZ_SEED")

    @settings(max_examples=count, deadline=None, database=None, derandomize=chosen_seed is None,
              suppress_health_check=list(HealthCheck), print_blob=False)
    @given(case=cases(seeds))
    def play_one(case):
        fuzzer.record(case)

    if chosen_seed is not None:
        play_one = seed(int(chosen_seed))(play_one)
    try:
        play_one()
    finally:
        fuzzer.close()
        summary = fuzzer.summary()
        (out / "fuzz-report.json").write_text(json.dumps(summary, indent=1) + "\n")
    assert summary["cases"] >= min(count, 50), summary
    assert not fuzzer.findings, json.dumps(fuzzer.findings, indent=1)
