"""The pytest session of `nvdla-verif regress`: one test per item of the manifest it writes.

    python -m pytest -c ci/regression/pytest_driver.ini ci/regression/pytest_driver.py \
        -p ci.regression.progress --regress-manifest=OUT/pending.json -n 2 --alluredir OUT/allure-results

`nvdla-verif regress` (ci/commands/regress.py) chooses the items from the testplan (ci/regression/testplan.hjson)
and runs this module as a test file from wherever the package is installed; without a manifest its one test is
skipped. The manifest holds the run's settings, with what the command line decided for the implementations
(golden/settings.py): each worker reads them from it, nothing from the environment. Each test runs its item
through its test kind (ci/regression/kinds/), writes its record to OUT/results/ as soon as it finishes, and attaches
the trace, the decoded registers, the mismatch reports and their pictures to its Allure test case
(ci/regression/report_page.py says what its page shows). A failure's message gives its detail, then its triage
bucket in brackets, which the report's categories match.
"""

from __future__ import annotations

import functools
import json
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

from ci.regression import report_page
from ci.regression.engine import Settings
from ci.regression.item import Item
from ci.regression.items import run_item
from ci.regression.launchers import ran_on
from ci.regression.progress import MANIFEST_OPTION, manifest_path
from ci.regression.record import Record
from ci.regression.report_page import Shown
from ci.regression.results import NOT_RUN, write_record
from golden import limits
from golden.config import get_profile
from golden.errors import DiskFullError, NvdlaVerifError
from golden.player import play
from golden.status import RecordStatus, Verdict

try:
    import allure
except ImportError:  # allure-pytest is a test extra; the suite still runs without it
    allure = None

#: The run's manifest, as the --regress-manifest option names it (ci/regression/progress.py declares it).
_manifest_path: str | None = None


class RegressionError(Exception):
    """An item whose run is broken (error verdict): Allure shows it as broken, not failed."""


@functools.cache
def _manifest() -> dict | None:
    return json.loads(Path(_manifest_path).read_text()) if _manifest_path else None


def pytest_generate_tests(metafunc):
    global _manifest_path
    if "id" not in metafunc.fixturenames:
        return
    _manifest_path = manifest_path(metafunc.config)
    manifest = _manifest()
    if manifest is None:
        params = [pytest.param(None, id="no-manifest", marks=pytest.mark.skip(
            reason=f"run through `nvdla-verif regress` (names the manifest with {MANIFEST_OPTION})"))]
    else:
        params = [pytest.param(Shown(d["id"], Item.from_dict(d)), id=d["id"]) for d in manifest["items"]]
    metafunc.parametrize("id", params)


def test_item(id: Shown):  # the report's parameter `id`; no fixtures: the report would list each one's teardown
    item, manifest = id.item, _manifest()
    out = Path(manifest["out"])
    settings = Settings(**manifest["settings"], work=out / "work")
    if settings.decided.memory_limit is not None:  # --memory-limit, as the command line gave it
        limits.set_memory_limit(settings.decided.memory_limit)
    _labels(item, manifest)
    try:
        run = run_item(item, settings)
    except KeyboardInterrupt:  # the run is being stopped: no result, --resume runs this test again
        raise
    except OSError as exc:
        if exc.errno not in DiskFullError.ERRNOS:  # a full disk is no verdict either: --resume runs it again
            write_record(out, Record.crash(item, settings, exc).to_json())
        raise
    except BaseException as exc:  # an exception outside the engine's own handling still leaves a record
        write_record(out, Record.crash(item, settings, exc).to_json())
        raise
    run.record.ran_on = ran_on(manifest.get("shard"))
    record = run.record.to_json()
    write_record(out, record)
    if allure is not None:
        allure.dynamic.description(report_page.description(record))
        with tempfile.TemporaryDirectory(prefix="nvdla-pictures-") as pictures:
            _attach(run, record, Path(pictures))
    text = report_page.message(record)  # the error box at the top of the test's page: the detail first
    if record["status"] in NOT_RUN:
        pytest.skip(text)
    if record["status"] == RecordStatus.ERROR:
        raise RegressionError(text)
    if record["status"] != RecordStatus.PASSED:
        pytest.fail(text, pytrace=False)


def _labels(item: Item, manifest: dict) -> None:
    """The tree: level and implementations (short: the description has the whole --impl line), testpoint, kind."""
    if allure is None:
        return
    implementations = (f"{report_page.implementation_label(manifest['impl'])} vs "
                       f"{report_page.implementation_label(manifest['ref'])}")
    allure.dynamic.parent_suite(f"{manifest['level']} ({implementations})")
    allure.dynamic.suite(item.testpoints[0] if item.testpoints else item.kind)
    allure.dynamic.sub_suite(item.kind)
    allure.dynamic.title(item.id)
    for testpoint in item.testpoints[1:]:
        allure.dynamic.tag(testpoint)
    for name, value in report_page.parameters(item):  # excluded: Allure's history follows the test by its id
        allure.dynamic.parameter(name, value, excluded=True)


def _attach(run, record: dict, pictures: Path) -> None:
    """The record and reproduce line, then per layer (a mutant's: the layers that caught it) the trace, the
    decoded registers and, when something mismatched, the mismatch report and its pictures."""
    text_type = allure.attachment_type.TEXT
    allure.attach(json.dumps(record, indent=1, sort_keys=True), name="record", attachment_type=text_type)
    if record.get("reproduce"):
        allure.attach(record["reproduce"], name="reproduce", attachment_type=text_type)
    if record.get("coverage"):
        added = [f"{profile}.{key}: {', '.join(f'{b} x{n}' for b, n in bins.items())}"
                 for profile, items in record["coverage"].items() for key, bins in items.items()]
        allure.attach("\n".join(added), name="coverage added", attachment_type=text_type)
    for title, path in run.attachments:
        kind = allure.attachment_type.PNG if path.suffix == ".png" else text_type
        allure.attach.file(str(path), name=title, attachment_type=kind)
    several = len(run.results) > 1
    for number, (result, path) in enumerate(zip(run.results, run.trace_paths, strict=True)):
        if several and result.status in (Verdict.PASSED, Verdict.UNSUPPORTED):
            continue
        label = f" ({result.name})" if several else ""
        allure.attach.file(str(path), name=f"trace {path.name}", attachment_type=text_type)
        allure.attach(_decoded_registers(result, path), name=f"decoded registers{label}", attachment_type=text_type)
        bad = [r for r in result.reports if not r.ok]
        if not bad and all(check.passed for check in result.checks):
            continue
        mismatch = "\n\n".join(r.text() for r in bad) or result.mismatch_summary()
        allure.attach(f"{result.status}: {result.detail}\n{mismatch}", name=f"mismatch report{label}",
                      attachment_type=text_type)
        for index, report in enumerate(bad[:4]):
            try:
                picture = report.picture(pictures / f"mismatch_{number}_{index}.png")
            except ImportError:  # matplotlib is the `report` extra
                break
            allure.attach.file(str(picture), name=f"mismatch picture {report.title}{label}",
                               attachment_type=allure.attachment_type.PNG)


def _decoded_registers(result, path: Path) -> str:
    """The layers' registers field by field. Only the golden model's result carries its layers (another
    implementation's, e.g. the RTL's, has none, and play_trace gives it the reference's when that is the golden
    model): without them the golden model plays the trace again to decode it."""
    layers = result.layers
    if not layers:
        try:
            replayed = play(path, get_profile(result.profile))
        except NvdlaVerifError as exc:
            return f"(not decoded: {exc})"
        layers = replayed.layers
        if not layers:
            return f"(not decoded: the golden model ran no layer of it: {replayed.status}: {replayed.detail})"
    return replace(result, layers=layers).decoded_registers()
