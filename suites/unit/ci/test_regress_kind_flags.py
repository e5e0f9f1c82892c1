"""The report and shrinking ask a test kind what it is (TestKind.shrinkable, TestKind.mutant_runs), never its name:
a kind registered from outside that declares the flags gets its failures shown shrunk and its runs in the
mutant table, with no edit of ci/regression/."""

from __future__ import annotations

import pytest

from ci.regression import kinds
from ci.regression.kinds.base import TestKind
from ci.regression.results import buckets, mutant_table
from ci.regression.shrink import generated_smallest

SIGNATURE = {"unit": "SDP", "implementation": "rtl", "check": "crc", "pattern": "dst"}


class ToyMutants(TestKind):
    name = "toy_mutants"
    shrinkable = True
    mutant_runs = True


@pytest.fixture
def toy():
    kinds.register(ToyMutants)
    yield
    kinds.unregister(ToyMutants.name)


def _record(id: str, kind: str, size: int, status: str = "failed", verdict: str = "failed") -> dict:
    return {"id": id, "kind": kind, "status": status, "verdict": verdict, "detail": "CRC mismatch",
            "signature": SIGNATURE, "size_bytes": size, "caught_by": []}


def test_the_project_kinds_declare_what_they_are():
    assert kinds.having("shrinkable") == {"generated"}
    assert kinds.having("mutant_runs") == {"mutants"}


def test_a_kind_from_outside_is_shrunk_and_tabled_by_its_flags(toy):
    assert kinds.having("shrinkable") == {"generated", "toy_mutants"}
    records = [_record("nvidia/a", "nvidia_traces", 10), _record("toy/b", "toy_mutants", 300),
               _record("toy/m", "toy_mutants", 200, "passed", "caught")]
    # one bucket (one signature); the nvidia record is smallest overall, toy/b the smallest failing toy record
    [bucket] = buckets(records, {"toy/b": {"bytes": 40}}, kinds.having("shrinkable"))
    assert bucket["smallest"] == "nvidia/a" and bucket["shrunk"] == {"bytes": 40}
    assert generated_smallest(records[:2], kinds.having("shrinkable"))["id"] == "toy/b"
    assert [(row["mutant"], row["caught"]) for row in mutant_table(records, kinds.having("mutant_runs"))] == [
        ("b", False), ("m", True)]


def test_without_the_flags_nothing_is_shrunk_or_tabled():
    records = [_record("toy/b", "toy_mutants", 300)]
    [bucket] = buckets(records, {"toy/b": {"bytes": 40}}, kinds.having("shrinkable"))
    assert "shrunk" not in bucket
    assert mutant_table(records, kinds.having("mutant_runs")) == []
    assert generated_smallest(records, kinds.having("shrinkable")) is None
