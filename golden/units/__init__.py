"""Unit models, one module each (the contract is in golden/units/base.py).

`load(name)` imports the model of a pipeline stage lazily, so that a stage
whose model does not exist yet is reported as not modelled (the conformance
runner's "unsupported"), never as passed.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from golden.errors import NotModelledError

MODELS = {
    "CONV": "golden.units.conv",
    "SDP": "golden.units.sdp",
    "PDP": "golden.units.pdp",
    "CDP": "golden.units.cdp",
    "BDMA": "golden.units.bdma",
    "RUBIK": "golden.units.rubik",
}


def load(stage: str) -> ModuleType:
    """The model module of a stage (CONV, SDP, PDP, CDP, BDMA, RUBIK), or NotModelledError."""
    try:
        module = importlib.import_module(MODELS[stage])
    except KeyError:
        raise NotModelledError(f"no model for stage {stage}", unit=stage) from None
    except ModuleNotFoundError as exc:
        if exc.name != MODELS[stage]:
            raise
        raise NotModelledError(f"the {stage} unit is not modelled yet", unit=stage) from None
    if not hasattr(module, "run"):
        raise NotModelledError(f"the {stage} unit model has no run()", unit=stage)
    return module
