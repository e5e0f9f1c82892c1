"""One regression item run by its kind (ci/regression/kinds/), with its record (the pytest session
ci/regression/pytest_driver.py calls run_item once per test and fails the test from the record).

    run_item(item, settings) -> Run               the kind's run, or why the item does not apply; its seconds
    item_budget_s(item, settings) -> float        the longest the item may take (a batch shard's time limit)
    reproduce_command(item, settings) -> str      what reproduces the item's result in a shell
"""

from __future__ import annotations

import time
from dataclasses import replace

from ci.regression import kinds
from ci.regression.code_coverage import collect_test
from ci.regression.engine import Run, Settings
from ci.regression.item import Item
from ci.regression.record import Finding
from golden.status import RecordStatus


def run_item(item: Item, settings: Settings) -> Run:
    """The item's run and record; with rtl_coverage, its simulations' code coverage in OUT/rtl-coverage/."""
    kind = kinds.get(item.kind)
    if not (settings.rtl_coverage and settings.impl.partition(":")[0] == "rtl" and kind.rtl_coverage):
        return _run_item(kind, item, settings)
    name = item.id.replace("/", "__")
    runs = settings.work / "rtl-coverage-runs" / name
    run = _run_item(kind, item, replace(settings, decided=settings.decided.with_rtl(coverage=str(runs))))
    run.record.rtl_simulations = collect_test(runs, settings.work.parent / "rtl-coverage" / f"{name}.dat.gz")
    return run


def _run_item(kind, item: Item, settings: Settings) -> Run:
    started = time.perf_counter()
    reason = kind.not_applicable(item, settings)
    if reason:
        run = Run(kind.record(item, settings, RecordStatus.NOT_APPLICABLE, Finding.NOT_RUN, reason))
    else:
        run = kind.run(item, settings)
    run.record.seconds = round(time.perf_counter() - started, 3)
    return run


def item_budget_s(item: Item, settings: Settings) -> float:
    return kinds.get(item.kind).budget_s(item, settings)


def reproduce_command(item: Item, settings: Settings) -> str:
    return kinds.get(item.kind).reproduce(item, settings)
