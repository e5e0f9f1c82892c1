"""A test's record (ci/regression/record.py) writes the JSON the untyped records wrote: the same keys (a field
a kind does not have is no key, a null one is null) and values, and reads back to the same record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ci.regression.engine import Settings
from ci.regression.item import Item
from ci.regression.record import ABSENT, Record
from ci.regression.results import collect_records
from golden.status import RecordStatus

ITEM = Item("random_sdp/s9_2l", "random_sdp", {"seed": 9, "layers": 2}, ("random_2l",), ("sdp_random",))
#: Keys every record had before records were typed (the record of ci/regression/engine.py's new_record).
COMMON = {"id", "kind", "tests", "testpoints", "status", "verdict", "detail", "impl", "ref", "seed", "signature",
          "size_bytes", "reproduce"}


def test_a_run_record_has_the_common_keys_and_only_the_fields_its_kind_gave():
    settings = Settings(impl="command:/bin/model", ref="golden")
    record = Record.of(ITEM, settings, "failed", "failed", "CRC mismatch", "nvdla-verif regress ...",
                       size_bytes=120, path="work/random/x.cfg", profile="nv_small", cycles=None)
    row = record.to_json()
    assert set(row) == COMMON | {"path", "profile", "cycles"}
    assert row == {"id": "random_sdp/s9_2l", "kind": "random_sdp", "tests": ["random_2l"],
                   "testpoints": ["sdp_random"], "status": "failed", "verdict": "failed", "detail": "CRC mismatch",
                   "impl": "command:/bin/model", "ref": "golden", "seed": 9, "signature": None, "size_bytes": 120,
                   "reproduce": "nvdla-verif regress ...", "path": "work/random/x.cfg", "profile": "nv_small",
                   "cycles": None}
    assert record.seconds is ABSENT and "seconds" not in row
    record.seconds = 1.5
    assert record.to_json()["seconds"] == 1.5


def test_a_plugin_kinds_own_fields_stay_in_the_json_and_read_back():
    record = Record.of(ITEM, Settings(), "passed", "even", "4", "r", parity=0)
    row = record.to_json()
    assert row["parity"] == 0 and row["ref"] is None  # golden alone: no reference
    assert Record.from_json(row) == record
    assert json.dumps(Record.from_json(row).to_json(), sort_keys=True) == json.dumps(row, sort_keys=True)


def test_a_crash_record_says_the_exception():
    row = Record.crash(ITEM, Settings(impl="golden"), KeyError("x")).to_json()
    assert row == {"id": ITEM.id, "kind": "random_sdp", "tests": ["random_2l"], "testpoints": ["sdp_random"],
                   "status": "error", "verdict": "crash", "detail": "KeyError: 'x'", "impl": "golden", "ref": None,
                   "seed": 9, "size_bytes": 0, "seconds": 0.0, "reproduce": "",
                   "signature": {"unit": "?", "implementation": "golden", "check": "crash", "pattern": "KeyError"}}


def test_a_test_without_a_record_gets_one_saying_the_run_stopped(tmp_path: Path):
    manifest = {"impl": "golden", "ref": None, "items": [ITEM.as_dict()]}
    (row,) = collect_records(tmp_path, manifest)
    assert row["status"] == "error" and row["verdict"] == "crash" and row["seconds"] == 0.0
    assert row["signature"]["check"] == "crash" and row["reproduce"] == "" and row["size_bytes"] == 0
    assert set(row) == COMMON | {"seconds"}


def test_a_row_missing_a_common_key_is_refused():
    row = Record.crash(ITEM, Settings(), KeyError("x")).to_json()
    del row["status"]
    with pytest.raises(Exception, match="without status"):
        Record.from_json(row)


def test_a_status_word_reads_as_its_status_and_an_unknown_one_is_refused():
    row = Record.of(ITEM, Settings(), "not applicable", "-", "lacks fp16", "r").to_json()
    assert row["status"] == "not applicable" and type(row["status"]) is str  # the word on disk
    assert Record.from_json(row).status is RecordStatus.NOT_APPLICABLE
    with pytest.raises(Exception, match="status 'pass'"):
        Record.from_json({**row, "status": "pass"})
