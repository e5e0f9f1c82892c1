"""What a regress results folder holds (`regress --out`, `report merge --out`, a batch run's shards): the entries
the project writes at its top, for its ownership manifest (ci/ownership.py).

A folder written before manifests existed is recognised by its run manifest, manifest.json, which every
regress and merge wrote first: a JSON object with the run's level, seed, settings and tests. Only the entries
named here are ever rewritten or cleaned in it; anything else there stays as it is.
"""

from __future__ import annotations

import json
from pathlib import Path

from ci.ownership import Layout
from ci.regression.html import HISTORY
from ci.regression.results import PYTEST_JUNIT

RUN_MANIFEST = "manifest.json"
ENTRIES = (
    RUN_MANIFEST, "pending.json", "pytest.log", PYTEST_JUNIT, "junit.xml", "summary.txt", "results.json",
    "signoff.csv", "signoff.txt", "coverage.txt", "report.html", HISTORY, "rtl-coverage.dat",
    "rtl-coverage-inputs", "results", "allure-results", "work", "shrunk", "rtl-coverage", "shards", "batch", "logs",
    "history", "kept", "fuzz", ".pytest_cache",
)


def written_before_manifests(folder: Path) -> bool:
    try:
        manifest = json.loads((folder / RUN_MANIFEST).read_text())
    except (OSError, ValueError):
        return False
    return isinstance(manifest, dict) and {"level", "seed", "settings", "items"} <= manifest.keys()


RESULTS = Layout("regress results", ENTRIES, written_before_manifests)
