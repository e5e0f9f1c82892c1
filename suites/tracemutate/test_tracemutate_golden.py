"""The trace mutator (ci/tracemutate/) on the golden model, mutated traces (issue 17): no exception outside the
project family, no hang, no memory blow-up. Two seed sets: NVIDIA's traces, and traces of generated layers (every
stimulus family each of nv_small, nv_large and nv_full can run, a few fixed-seed traces each, written once per
session; ci/tracemutate/seeds.py).

CI plays a short budget of each (NVDLA_FUZZ_CASES, default 120 cases per seed set, derandomized so a CI run is
repeatable); the nightly run sets NVDLA_FUZZ_CASES=50000 (10^5 in all) and NVDLA_FUZZ_SEED. Findings are
written as reduced reproducer folders, and the counts as fuzz-report-<seeds>.json, under NVDLA_FUZZ_OUT
(default: pytest's tmp_path). Limits per case: NVDLA_FUZZ_TIMEOUT seconds (default 30), peak RSS 2 GiB; the
golden model's memory limit is NVDLA_VERIF_MEMORY_LIMIT (default here 512MiB, see golden/limits.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, seed, settings

from ci.tracemutate.harness import Fuzzer, environment_cases
from ci.tracemutate.mutations import Case, cases, load_seeds, make_seed
from ci.tracemutate.seeds import PROFILES, SEED, write_seed_traces
from golden.config import get_profile
from golden.player import play
from golden.settings import override
from stimulus.families import available


@pytest.fixture(scope="session")
def nvidia_seeds(nvdla_data):
    found = load_seeds(nvdla_data)
    if not found:
        pytest.skip(f"no NVIDIA traces under {nvdla_data}")
    return found


@pytest.fixture(scope="session")
def generated_seeds(tmp_path_factory):
    traces = write_seed_traces(tmp_path_factory.mktemp("generated-seeds"))
    return [make_seed(trace, profile, "generated") for trace, profile in traces]


@pytest.mark.slow
def test_generated_seeds_cover_every_family_of_every_profile_and_pass(generated_seeds):
    covered = {(s.profile, s.trace.parent.name.removeprefix("gen_").rsplit(f"_s{SEED}_", 1)[0])
               for s in generated_seeds}
    assert covered == {(p, f) for p in PROFILES for f in available(get_profile(p))}
    assert all(s is not None and s.registers for s in generated_seeds)
    for s in generated_seeds:
        result = play(s.trace, get_profile(s.profile))
        assert (result.status, len(result.checks) > 0) == ("passed", True), (s.trace, result.detail)


def test_a_generated_seed_checks_its_output(generated_seeds, tmp_path):
    """The nv_full seeds are checked by dump_mem against the golden bytes: one wrong byte fails the trace."""
    s = next(s for s in generated_seeds if s.profile == "nv_full")
    golden = next(name for name in s.files if "_golden_" in name)
    data = (s.trace.parent / golden).read_bytes()
    at = data.rindex(b"0x") + 2  # the last byte's first hex digit (record or byte-line syntax)
    wrong = data[:at] + (b"1" if data[at:at + 1] == b"0" else b"0") + data[at + 1:]
    case = Case(s, "datfile", "one golden byte", s.text, {golden: wrong})
    result = play(case.write(tmp_path), get_profile("nv_full"))
    assert result.status == "failed", result.detail


def _campaign(name: str, seeds, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("NVDLA_VERIF_MEMORY_LIMIT", override("NVDLA_VERIF_MEMORY_LIMIT") or "512MiB")
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")
    out = Path(override("NVDLA_FUZZ_OUT") or tmp_path / "out") / name
    out.mkdir(parents=True, exist_ok=True)
    fuzzer = Fuzzer(tmp_path / "scratch", out, timeout=float(override("NVDLA_FUZZ_TIMEOUT") or 30))
    count = environment_cases(120)
    chosen_seed = override("NVDLA_FUZZ_SEED")

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
        (out / f"fuzz-report-{name}.json").write_text(json.dumps(summary, indent=1) + "\n")
    assert summary["cases"] >= min(count, 50), summary
    assert not fuzzer.findings, json.dumps(fuzzer.findings, indent=1)


@pytest.mark.slow
def test_mutated_nvidia_traces_end_in_a_project_verdict(nvidia_seeds, tmp_path, monkeypatch):
    _campaign("nvidia", nvidia_seeds, tmp_path, monkeypatch)


@pytest.mark.slow
def test_mutated_generated_traces_end_in_a_project_verdict(generated_seeds, tmp_path, monkeypatch):
    _campaign("generated", generated_seeds, tmp_path, monkeypatch)
