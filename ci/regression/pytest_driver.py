"""The pytest session of `nvdla-verif regress`: one test per item of the manifest it writes.

    NVDLA_REGRESS_MANIFEST=OUT/pending.json python -m pytest -c ci/regression/pytest_driver.ini \
        ci/regression/pytest_driver.py -p ci.regression.progress -n 2 --alluredir OUT/allure-results

`nvdla-verif regress` (ci/commands/regress.py) chooses the items from the testplan (ci/regression/testplan.hjson)
and runs this module as a test file from wherever the package is installed; without a manifest its one test is
skipped. Each test runs its item through its test kind (ci/regression/kinds/), writes its record to OUT/results/
as soon as it finishes, and attaches the trace, the decoded registers, the mismatch reports and their pictures to
its Allure test case. Failure messages start with the failure's triage bucket, which the report's categories
match.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ci import shell
from ci.regression.engine import Settings
from ci.regression.item import Item
from ci.regression.items import run_item
from ci.regression.launchers import ran_on
from ci.regression.record import Record
from ci.regression.results import record_message, write_record
from golden.config import get_profile
from golden.errors import DiskFullError
from golden.player import play

try:
    import allure
except ImportError:  # allure-pytest is a test extra; the suite still runs without it
    allure = None

MANIFEST = os.environ.get("NVDLA_REGRESS_MANIFEST")


class RegressionError(Exception):
    """An item whose run is broken (error verdict): Allure shows it as broken, not failed."""


def _manifest() -> dict | None:
    return json.loads(Path(MANIFEST).read_text()) if MANIFEST else None


def pytest_generate_tests(metafunc):
    if "item" not in metafunc.fixturenames:
        return
    manifest = _manifest()
    if manifest is None:
        params = [pytest.param(None, id="no-manifest", marks=pytest.mark.skip(
            reason="run through `nvdla-verif regress` (sets NVDLA_REGRESS_MANIFEST)"))]
    else:
        params = [pytest.param(Item.from_dict(d), id=d["id"]) for d in manifest["items"]]
    metafunc.parametrize("item", params)


@pytest.fixture(scope="session")
def manifest() -> dict:
    return _manifest()


def test_item(item: Item, manifest: dict, tmp_path: Path):
    out = Path(manifest["out"])
    settings = Settings(**manifest["settings"], work=out / "work")
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
    _describe(record)
    _attach(run, record, tmp_path)
    message = record_message(record)
    if record["status"] in ("failed", "error") and record.get("reproduce"):
        message += f"\n\nreproduce: {record['reproduce']}"  # in the error box at the top of the test's page
    if record["status"] in ("skipped", "not applicable"):
        pytest.skip(message)
    if record["status"] == "error":
        raise RegressionError(message)
    if record["status"] != "passed":
        pytest.fail(message, pytrace=False)


def _labels(item: Item, manifest: dict) -> None:
    if allure is None:
        return
    allure.dynamic.parent_suite(f"{manifest['level']} ({manifest['impl']} vs {manifest['ref'] or 'none'})")
    allure.dynamic.suite(item.testpoints[0] if item.testpoints else item.kind)
    allure.dynamic.sub_suite(item.kind)
    allure.dynamic.title(item.id)
    for testpoint in item.testpoints[1:]:
        allure.dynamic.tag(testpoint)
    if item.params.get("seed") is not None:
        allure.dynamic.parameter("seed", item.params["seed"])


def _describe(record: dict) -> None:
    """A failing test's page starts with what reproduces it (ci/regression/finish.py adds the shrunk layer)."""
    if allure is None or record["status"] not in ("failed", "error") or not record.get("reproduce"):
        return
    allure.dynamic.description(f"**Reproduce** (paste into a shell):\n\n{shell.fenced(record['reproduce'])}\n\n"
                               f"{record['status']}: {record['detail'][:2000]}")


def _attach(run, record: dict, tmp_path: Path) -> None:
    """The record and reproduce line, then per layer (a mutant's: the layers that caught it) the trace, the
    decoded registers, the mismatch report and its pictures."""
    if allure is None:
        return
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
        if several and result.status in ("passed", "unsupported"):
            continue
        label = f" ({result.name})" if several else ""
        allure.attach.file(str(path), name=f"trace {path.name}", attachment_type=text_type)
        if not result.layers and result.status == "failed":  # another implementation: the golden model decodes
            result.layers = play(path, get_profile(result.profile)).layers
        allure.attach(result.decoded_registers() or "(no layer decoded)", name=f"decoded registers{label}",
                      attachment_type=text_type)
        bad = [r for r in result.reports if not r.ok]
        mismatch = "\n\n".join(r.text() for r in bad) or result.mismatch_summary()
        allure.attach(f"{result.status}: {result.detail}\n{mismatch}", name=f"mismatch report{label}",
                      attachment_type=text_type)
        for index, report in enumerate(bad[:4]):
            try:
                picture = report.picture(tmp_path / f"mismatch_{number}_{index}.png")
            except ImportError:  # matplotlib is the `report` extra
                break
            allure.attach.file(str(picture), name=f"mismatch picture {report.title}{label}",
                               attachment_type=allure.attachment_type.PNG)
