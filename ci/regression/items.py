"""One regression item run by its kind, with its record (the pytest session ci/regression/pytest_driver.py calls
run_item once per test and fails the test from the record).

    run_item(item, settings) -> Run   NVIDIA traces and random SDP layers, mutants (ci/regression/engine.py);
                                      generated and illegal layers (ci/regression/generated.py)
"""

from __future__ import annotations

import time
from pathlib import Path

from ci.options import environment
from ci.regression.code_coverage import collect_test
from ci.regression.engine import Item, Run, Settings, new_record, not_applicable, run_mutant, run_trace_item
from ci.regression.generated import run_generated, run_illegal


def run_item(item: Item, settings: Settings) -> Run:
    """The item's run and record; with rtl_coverage, its simulations' code coverage in OUT/rtl-coverage/."""
    if not (settings.rtl_coverage and settings.impl.partition(":")[0] == "rtl" and item.kind != "mutants"):
        return _run_item(item, settings)
    name = item.id.replace("/", "__")
    runs = settings.work / "rtl-coverage-runs" / name
    with environment({"NVDLA_RTL_COVERAGE": str(runs)}):
        run = _run_item(item, settings)
    run.record["rtl_simulations"] = collect_test(runs, settings.work.parent / "rtl-coverage" / f"{name}.dat.gz")
    return run


def _run_item(item: Item, settings: Settings) -> Run:
    started = time.perf_counter()
    reason = not_applicable(item, settings)
    if reason:
        run = Run(new_record(item, settings, "not applicable", "-", reason))
    elif item.kind == "nvidia_traces":
        run = run_trace_item(item, Path(item.params["path"]), settings)
    elif item.kind == "random_sdp":
        from stimulus.fixture_sdp import write_random_trace

        folder = settings.work / "random"
        path = write_random_trace(folder, item.params["seed"], item.params["layers"])
        run = run_trace_item(item, path, settings)
    elif item.kind == "generated":
        run = run_generated(item, settings)
    elif item.kind == "illegal":
        run = run_illegal(item, settings)
    elif item.kind == "mutants":
        run = run_mutant(item, settings)
    else:
        run = Run(new_record(item, settings, "skipped", "-", f"{item.kind} tests are not available yet"))
    run.record["seconds"] = round(time.perf_counter() - started, 3)
    return run
