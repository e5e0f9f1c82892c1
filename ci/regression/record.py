"""A regression test's record: what OUT/results/ID.json holds and results.json lists, built here and nowhere else.

    Record.of(item, settings, status, verdict, detail, reproduce, **fields)   a test's run (ci/regression/kinds/)
    Record.crash(item, settings, exc)       a test whose run raised outside its kind's own handling
    Record.unfinished(item, manifest, ...)  a test with no record of its own (its worker died, the run stopped)
    record.to_json() -> dict, Record.from_json(dict)   the JSON row, key for key as written before records were typed

A field left ABSENT is no key of the JSON (a trace's path, its cycles, its coverage: only the kinds that have
them say them); `extra` holds the fields of a test kind added from outside the project.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from golden.errors import NvdlaVerifError
from golden.status import Status


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


#: A field the record does not have (no key in its JSON), as opposed to one that is None (null).
ABSENT = _Absent()


@dataclass
class Record:
    id: str
    kind: str
    tests: list
    testpoints: list
    status: Status  # golden.status.RECORDED; given as its word (a kind, an older run's JSON) it is read as one
    verdict: str
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
            self.status = Status(self.status)
        except ValueError:
            raise NvdlaVerifError(f"regression record {self.id}: status {self.status!r} is none of "
                                  f"{', '.join(Status)}") from None

    @classmethod
    def of(cls, item, settings, status: Status | str, verdict: str, detail: str, reproduce: str, **values) -> Record:
        """A test's record: the item's identity, the run's implementations, and the kind's fields."""
        known = {f.name for f in fields(cls)} - {"extra"}
        record = cls(item.id, item.kind, list(item.tests), list(item.testpoints), status, verdict, detail,
                     settings.impl, settings.reference_spec(), item.params.get("seed"), reproduce=reproduce,
                     **{k: v for k, v in values.items() if k in known})
        record.extra = {k: v for k, v in values.items() if k not in known}
        return record

    @classmethod
    def crash(cls, item, settings, exc: BaseException) -> Record:
        return cls(item.id, item.kind, list(item.tests), list(item.testpoints), Status.ERROR, "crash",
                   f"{type(exc).__name__}: {exc}", settings.impl, settings.reference_spec(), item.params.get("seed"),
                   signature={"unit": "?", "implementation": settings.impl, "check": "crash",
                              "pattern": type(exc).__name__}, seconds=0.0)

    @classmethod
    def unfinished(cls, item: dict, manifest: dict, status: Status | str, verdict: str, detail: str,
                   signature: dict | None) -> Record:
        """A manifest item (a dict) that left no record: its outcome from pytest's JUnit XML, or why it has none."""
        return cls(item["id"], item["kind"], item["tests"], item["testpoints"], status, verdict, detail,
                   manifest["impl"], manifest["ref"], item["params"].get("seed"), signature=signature, seconds=0.0)

    def to_json(self) -> dict:
        row = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "extra"}
        row["status"] = self.status.value
        return {**{k: v for k, v in row.items() if v is not ABSENT}, **self.extra}

    @classmethod
    def from_json(cls, row: dict) -> Record:
        names = {f.name for f in fields(cls)} - {"extra"}
        missing = sorted({f.name for f in fields(cls)[:10]} - set(row))
        if missing:
            raise NvdlaVerifError(f"a regression record without {', '.join(missing)}: {str(row)[:200]}")
        return cls(**{k: v for k, v in row.items() if k in names},
                   extra={k: v for k, v in row.items() if k not in names})
