"""One test of a regression run: what it plays (its id), its kind, the kind's parameters, and the testplan's tests
and testpoints that listed it (ci/regression/plan.py expands the plan into items; ci/regression/kinds/ runs them)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Item:
    id: str
    kind: str
    params: dict = field(compare=False, hash=False)  # the kind's: path, profile, seed, layers, switch, rule, ...
    tests: tuple[str, ...] = ()
    testpoints: tuple[str, ...] = ()

    def as_dict(self) -> dict:
        return {"id": self.id, "kind": self.kind, "params": self.params, "tests": list(self.tests),
                "testpoints": list(self.testpoints)}

    @classmethod
    def from_dict(cls, data: dict) -> Item:
        return cls(data["id"], data["kind"], data["params"], tuple(data["tests"]), tuple(data["testpoints"]))
