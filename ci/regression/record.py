"""A regression test's record: what OUT/results/ID.json holds and results.json lists, built here and nowhere else.

    Record.of(item, settings, status, verdict, detail, reproduce, **fields)   a test's run (ci/regression/kinds/)
    Record.crash(item, settings, exc)       a test whose run raised outside its kind's own handling
    Record.unfinished(item, manifest, ...)  a test with no record of its own (its worker died, the run stopped)
    record.to_json() -> dict, Record.from_json(dict)   the JSON row, key for key as written before records were typed

The verdict column is a trace's verdict word (golden.status.Verdict) or a Finding: what a kind of test found, or
why no test judged.

A field left ABSENT is no key of the JSON (a trace's path, its cycles, its coverage: only the kinds that have
them say them); `extra` holds the fields of a test kind added from outside the project.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import StrEnum

from golden.errors import NvdlaVerifError
from golden.status import RecordStatus, Verdict


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


#: A field the record does not have (no key in its JSON), as opposed to one that is None (null).
ABSENT = _Absent()


class Finding(StrEnum):
    """A record's verdict where it is no trace verdict (a test kind from outside the project may write its own)."""

    NOT_RUN = "-"
    CRASH = "crash"  # the test's run raised outside its kind's own handling
    NO_RESULT = "no result"  # its batch shard never finished it
    CAUGHT = "caught"  # a fixture mutant: a layer failed on it
    SURVIVED = "survived"  # a fixture mutant every layer passed
    ERRORED = "errored"  # a fixture mutant whose layers only errored for want of a simulation
    REJECTED = "rejected"  # an illegal layer refused naming its rule
    ACCEPTED = "accepted"  # an illegal layer run as if it were legal
    WRONG_RULE = "wrong rule"  # an illegal layer refused naming another rule
    FINDINGS = "findings"  # a fuzz campaign that found something
    AGREED = "agreed"  # a fuzz campaign that found nothing


@dataclass
class Record:
    id: str
    kind: str
    tests: list
    testpoints: list
    status: RecordStatus  # given as its word (a kind, an older run's JSON) it is read as one
    verdict: Verdict | Finding | str
    detail: str
    impl: str
    ref: str | None
    seed: int | None
    signature: dict | None = None  # the triage bucket's parts (ci/regression/signature.py)
    size_bytes: int = 0
    reproduce: str = ""
    seconds: float = ABSENT
    path: str = ABSENT
    profile: str = ABSENT
    cycles: int | None = ABSENT
    coverage: dict | None = ABSENT
    coverage_notes: list = ABSENT
    layers_sampled: int = ABSENT
    caught_by: list = ABSENT  # a mutant's: the layers that caught it
    rtl_simulations: int = ABSENT
    ran_on: dict = ABSENT
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        try:
            self.status = RecordStatus(self.status)
        except ValueError:
            raise NvdlaVerifError(f"regression record {self.id}: status {self.status!r} is none of "
                                  f"{', '.join(RecordStatus)}") from None

    @classmethod
    def of(cls, item, settings, status: RecordStatus | str, verdict: str, detail: str, reproduce: str,
           **values) -> Record:
        """A test's record: the item's identity, the run's implementations, and the kind's fields."""
        known = {f.name for f in fields(cls)} - {"extra"}
        record = cls(item.id, item.kind, list(item.tests), list(item.testpoints), status, verdict, detail,
                     settings.impl, settings.reference_spec(), item.params.get("seed"), reproduce=reproduce,
                     **{k: v for k, v in values.items() if k in known})
        record.extra = {k: v for k, v in values.items() if k not in known}
        return record

    @classmethod
    def crash(cls, item, settings, exc: BaseException) -> Record:
        return cls(item.id, item.kind, list(item.tests), list(item.testpoints), RecordStatus.ERROR, Finding.CRASH,
                   f"{type(exc).__name__}: {exc}", settings.impl, settings.reference_spec(), item.params.get("seed"),
                   signature={"unit": "?", "implementation": settings.impl, "check": Finding.CRASH,
                              "pattern": type(exc).__name__}, seconds=0.0)

    @classmethod
    def unfinished(cls, item: dict, manifest: dict, status: RecordStatus | str, verdict: str, detail: str,
                   signature: dict | None) -> Record:
        """A manifest item (a dict) that left no record: its outcome from pytest's JUnit XML, or why it has none."""
        return cls(item["id"], item["kind"], item["tests"], item["testpoints"], status, verdict, detail,
                   manifest["impl"], manifest["ref"], item["params"].get("seed"), signature=signature, seconds=0.0)

    def to_json(self) -> dict:
        row = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "extra"}
        row["status"], row["verdict"] = str(self.status), str(self.verdict)  # the words, as read back from the file
        return {**{k: v for k, v in row.items() if v is not ABSENT}, **self.extra}

    @classmethod
    def from_json(cls, row: dict) -> Record:
        names = {f.name for f in fields(cls)} - {"extra"}
        missing = sorted({f.name for f in fields(cls)[:10]} - set(row))
        if missing:
            raise NvdlaVerifError(f"a regression record without {', '.join(missing)}: {str(row)[:200]}")
        return cls(**{k: v for k, v in row.items() if k in names},
                   extra={k: v for k, v in row.items() if k not in names})
