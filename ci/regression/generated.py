"""The generated tests of the regression (ci/regression/engine.py runs the other kinds).

    run_generated(item, settings) -> Run   a stimulus family's layers, with the golden model's CRCs, as a trace
    run_illegal(item, settings) -> Run     a layer breaking one rule of the registry, rejected naming it
"""

from __future__ import annotations

import re

from ci.options import DEFAULT_REFERENCE
from ci.regression.engine import Item, Run, Settings, new_record, play_layer, run_trace_item, shown_path
from ci.regression.signature import normalise
from golden.config import get_profile
from golden.errors import NvdlaVerifError


def run_generated(item: Item, settings: Settings) -> Run:
    """A layer of a stimulus family (stimulus/families.py; aimed at arithmetic corners, stimulus/corner_data.py, for
    a test that says `corners`) written as a .cfg trace with the golden model's CRCs, then played like any trace; a
    layer the golden model does not run is an error of the generator or model."""
    from stimulus.corner_data import write_aimed
    from stimulus.export import GenerationError
    from stimulus.families import write_generated

    p = item.params
    write = write_aimed if p.get("corners") else write_generated
    try:
        path = write(p["family"], get_profile(p["profile"]), p["seed"], p.get("index", 0),
                     settings.work / "generated", p["layers"])
    except GenerationError as exc:
        detail = f"the golden model rejects its own generated layer: {exc}"
        signature = {"unit": p["family"].upper(), "implementation": "golden", "check": "generation",
                     "pattern": normalise(str(exc))}
        return Run(new_record(item, settings, "error", "error", detail, signature=signature))
    return run_trace_item(item, path, settings)


def run_illegal(item: Item, settings: Settings) -> Run:
    """A layer breaking one rule of the registry (stimulus/illegal.py) must be rejected naming that rule: by the
    implementation under test on its own (no reference to hide behind), or, for the RTL (hardware validates no
    register), by the reference. A layer that cannot launch on its own as a trace (on the fly) and an advisory
    rule (the model warns and runs) are checked on the golden model directly."""
    from golden import rules
    from stimulus import illegal
    from stimulus.choose import Seeded
    from stimulus.export import write_unchecked

    p = item.params
    rule_id = p["rule"]
    if p.get("no_generator"):
        return Run(new_record(item, settings, "skipped", "-", f"no illegal generator for rule {rule_id} yet "
                              "(stimulus/illegal.py)"))
    profile = get_profile(p["profile"])
    try:
        layer = illegal.illegal_layer(rule_id, Seeded([p["seed"], 0]), profile)
    except illegal.NoIllegalLayer as exc:
        return Run(new_record(item, settings, "error", "error", str(exc),
                              signature=_illegal_signature(p, "golden", "no illegal layer", str(exc))))
    folder = settings.work / "illegal" / profile.name
    name = f"{rule_id}_s{p['seed']}"
    flying = "ON_FLYING" in (layer.fields.get("PDP.D_OPERATION_MODE_CFG.FLYING_MODE"),
                             layer.fields.get("PDP_RDMA.D_FLYING_MODE.FLYING_MODE"))
    if rules.REGISTRY[rule_id].advisory:
        return _illegal_on_golden(item, settings, layer, profile, folder, name, "an advisory rule: a trace runs "
                                  "with a warning, the golden model's strict check must reject it")
    if flying or layer.fields.get("SDP.D_FEATURE_MODE_CFG.FLYING_MODE") == "ON":
        return _illegal_on_golden(item, settings, layer, profile, folder, name, "an on-the-fly layer cannot "
                                  "launch on its own as a trace")
    path = write_unchecked(illegal.sequence(layer), folder / name, name, profile)
    rtl = settings.impl.partition(":")[0] == "rtl"
    judge = (settings.reference_spec() or DEFAULT_REFERENCE) if rtl else settings.impl
    result = play_layer(path, profile, judge, None, settings.timeout_scale)
    named = re.search(rf"(rule: |also ){re.escape(rule_id)}(?![\w-])", result.detail) is not None
    shown = shown_path(path, settings)
    by = f" (by {result.implementation}: the RTL validates no register)" if rtl else ""
    if result.status == "error" and named:
        return Run(new_record(item, settings, "passed", "rejected",
                              f"rejected naming {rule_id}{by}: {result.detail}", path=shown, profile=profile.name),
                   [result], [path])
    detail = f"expected a rejection naming {rule_id}, got {result.status}: {result.detail}"
    verdict = "wrong rule" if result.status == "error" else "accepted"
    result.status, result.detail = "failed", detail
    return Run(new_record(item, settings, "failed", verdict, detail, path=shown, profile=profile.name,
                          signature=_illegal_signature(p, result.implementation, "rejection", detail)),
               [result], [path])


def _illegal_on_golden(item, settings, layer, profile, folder, name, why: str) -> Run:
    from golden.errors import ConfigurationError
    from stimulus import illegal

    rule_id = item.params["rule"]
    try:
        illegal.run_on_golden(layer, profile, folder, name)
    except ConfigurationError as exc:
        if rule_id in (exc.rule or "") or rule_id in str(exc):
            return Run(new_record(item, settings, "passed", "rejected", f"rejected naming {rule_id} (golden model, "
                                  f"directly: {why}): {exc}"))
        detail = f"expected a rejection naming {rule_id}, got: {exc}"
    except NvdlaVerifError as exc:
        detail = f"expected a rejection naming {rule_id}, got {type(exc).__name__}: {exc}"
    else:
        detail = f"the golden model ran a layer breaking {rule_id}"
    return Run(new_record(item, settings, "failed", "accepted", detail,
                          signature=_illegal_signature(item.params, "golden", "rejection", detail)))


def _illegal_signature(params: dict, implementation: str, check: str, detail: str) -> dict:
    return {"unit": params["unit"], "implementation": implementation, "check": check,
            "pattern": f"{params['rule']}: {normalise(detail)}"}
