"""kind: illegal. Layers that break one rule of the registry (golden/rules.py; stimulus/illegal.py draws them),
`count` per rule that `rules` (a glob over rule ids) selects and the profile can break: each must be rejected
naming its rule, by the implementation under test on its own (no reference to hide behind), or, for the RTL
(hardware validates no register), by the reference. A layer that cannot launch on its own as a trace (on the fly)
and an advisory rule (the model warns and runs) are checked on the golden model directly. A rule without an
illegal generator is an item too, skipped with that reason, so the gap shows."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

from ci.options import default_reference
from ci.regression import engine
from ci.regression.engine import Run, Settings
from ci.regression.item import Item
from ci.regression.kinds.base import Expansion, TestKind
from ci.regression.kinds.generated import check_drawn
from ci.regression.planning import seeds
from ci.regression.record import Finding
from ci.regression.signature import normalise
from golden.config import get_profile
from golden.errors import NvdlaVerifError
from golden.status import RecordStatus, Verdict


class Illegal(TestKind):
    name = "illegal"
    required = ("seeds",)
    optional = ("profile", "rules", "fixed_seeds", "count")
    seeded = True

    def check(self, path: Path, name: str, entry: dict) -> None:
        check_drawn(path, name, entry)

    def expand(self, test: dict, expansion: Expansion) -> list[Item]:
        from golden import rules
        from stimulus import illegal

        profile_text = test.get("profile", expansion.target)
        profile = get_profile(profile_text)
        pattern = test.get("rules", "*")
        items = []
        for rule in rules.all_rules():
            if not fnmatch.fnmatchcase(rule.id, pattern):
                continue
            if rule.id in illegal.BREAKERS and not illegal.reachable(rule.id, profile):
                continue  # the profile lacks what breaking it needs (e.g. a unit or a precision)
            for s in seeds(test, expansion.level, expansion.seed, f"{test['name']}:{rule.id}"):
                params = {"rule": rule.id, "unit": rule.unit, "profile": profile_text, "seed": s}
                if rule.id not in illegal.BREAKERS:
                    params["no_generator"] = True
                items.append(Item(f"illegal/{profile.name}/{rule.id}/s{s}", self.name, params))
        return items

    def run(self, item: Item, settings: Settings) -> Run:
        from golden import rules
        from stimulus import illegal
        from stimulus.choose import Seeded
        from stimulus.export import write_unchecked

        p = item.params
        rule_id = p["rule"]
        if p.get("no_generator"):
            return Run(self.record(item, settings, RecordStatus.SKIPPED, Finding.NOT_RUN,
                                   f"no illegal generator for rule {rule_id} yet (stimulus/illegal.py)"))
        profile = get_profile(p["profile"])
        try:
            layer = illegal.illegal_layer(rule_id, Seeded([p["seed"], 0]), profile)
        except illegal.NoIllegalLayer as exc:
            return Run(self.record(item, settings, RecordStatus.ERROR, Verdict.ERROR, str(exc),
                                   signature=_signature(p, "golden", "no illegal layer", str(exc))))
        folder = settings.work / "illegal" / profile.name
        name = f"{rule_id}_s{p['seed']}"
        flying = "ON_FLYING" in (layer.fields.get("PDP.D_OPERATION_MODE_CFG.FLYING_MODE"),
                                 layer.fields.get("PDP_RDMA.D_FLYING_MODE.FLYING_MODE"))
        if rules.find(rule_id).advisory:
            return self._on_golden(item, settings, layer, profile, folder, name, "an advisory rule: a trace runs "
                                   "with a warning, the golden model's strict check must reject it")
        if flying or layer.fields.get("SDP.D_FEATURE_MODE_CFG.FLYING_MODE") == "ON":
            return self._on_golden(item, settings, layer, profile, folder, name, "an on-the-fly layer cannot "
                                   "launch on its own as a trace")
        path = write_unchecked(illegal.sequence(layer), folder / name, name, profile)
        rtl = settings.impl.partition(":")[0] == "rtl"
        judge = (settings.reference_spec() or default_reference(settings.impl)) if rtl else settings.impl
        result = engine.play_layer(path, profile, judge, None, settings.timeout_scale, settings=settings.decided)
        named = re.search(rf"(rule: |also ){re.escape(rule_id)}(?![\w-])", result.detail) is not None
        shown = engine.shown_path(path, settings)
        by = f" (by {result.implementation}: the RTL validates no register)" if rtl else ""
        if result.status == Verdict.ERROR and named:
            return Run(self.record(item, settings, RecordStatus.PASSED, Finding.REJECTED,
                                   f"rejected naming {rule_id}{by}: {result.detail}", path=shown, profile=profile.name),
                       [result], [path])
        detail = f"expected a rejection naming {rule_id}, got {result.status}: {result.detail}"
        verdict = Finding.WRONG_RULE if result.status == Verdict.ERROR else Finding.ACCEPTED
        result.status, result.detail = Verdict.FAILED, detail
        return Run(self.record(item, settings, RecordStatus.FAILED, verdict, detail, path=shown, profile=profile.name,
                               signature=_signature(p, result.implementation, "rejection", detail)),
                   [result], [path])

    def _on_golden(self, item, settings, layer, profile, folder, name, why: str) -> Run:
        from golden.errors import ConfigurationError
        from stimulus import illegal

        rule_id = item.params["rule"]
        try:
            illegal.run_on_golden(layer, profile, folder, name)
        except ConfigurationError as exc:
            if rule_id in (exc.rule or "") or rule_id in str(exc):
                return Run(self.record(item, settings, RecordStatus.PASSED, Finding.REJECTED,
                                       f"rejected naming {rule_id} (golden model, directly: {why}): {exc}"))
            detail = f"expected a rejection naming {rule_id}, got: {exc}"
        except NvdlaVerifError as exc:
            detail = f"expected a rejection naming {rule_id}, got {type(exc).__name__}: {exc}"
        else:
            detail = f"the golden model ran a layer breaking {rule_id}"
        return Run(self.record(item, settings, RecordStatus.FAILED, Finding.ACCEPTED, detail,
                               signature=_signature(item.params, "golden", "rejection", detail)))


def _signature(params: dict, implementation: str, check: str, detail: str) -> dict:
    return {"unit": params["unit"], "implementation": implementation, "check": check,
            "pattern": f"{params['rule']}: {normalise(detail)}"}
