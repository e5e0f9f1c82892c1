"""Failure signatures: what makes two failures "the same bug" for triage.

    signature(unit, implementation, check, message) -> "SDP | rtl | scoreboard | N of N elements mismatch ..."

The message is normalised so that two layers failing the same way give the same text: hexadecimal and
decimal numbers become #, file paths and trace names are dropped, whitespace collapses.
"""

from __future__ import annotations

import re

import golden.units
from golden.status import Verdict
from golden.verdict import TraceResult

#: Where a run kept its files: a temporary folder, different on every run (command and RTL implementations).
KEPT_FOLDER = re.compile(r"\((?:folder kept|run folder|log): [^)]*\)")
_PATH = re.compile(r"(?:/[^\s:;,()'\"]+){2,}/?")
_WHERE = re.compile(r"\b[\w.\-]+\.(?:cfg|txn|dat):\d+")
_HEX = re.compile(r"0x[0-9a-fA-F]+")
_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?%?")
_SPACE = re.compile(r"\s+")
_PATTERN_LENGTH = 90
#: A trace name's first word -> the unit it tests (the prefixes each unit declares: golden/units/declaration.py).
UNIT_PREFIXES = {prefix: unit.stage for unit in golden.units.declared() for prefix in unit.prefixes}


_RAISED = re.compile(r"^\s*([A-Za-z_][\w.]*(?:Error|Exception|Timeout|Failure|Exit)\w*)(?::.*)?$")


def _raised(message: str) -> str:
    """A Python traceback's last exception line ("pkg.mod.CsbTimeout: no CSB response ..."), else the message."""
    if "Traceback (most recent call last)" not in message:
        return message
    lines = [line.strip() for line in message.splitlines() if _RAISED.match(line)]
    return lines[-1] if lines else message


def normalise(message: str, *names: str) -> str:
    text = _raised(message)
    for name in names:
        if name:
            text = text.replace(name, "<layer>")
    text = _WHERE.sub("<where>", _PATH.sub("<path>", KEPT_FOLDER.sub("", text)))
    text = _NUMBER.sub("#", _HEX.sub("#", text))
    return shortened(_SPACE.sub(" ", text).strip(), _PATTERN_LENGTH)


def shortened(text: str, limit: int) -> str:
    """At most `limit` characters, cut at a word boundary and marked with "..." when cut."""
    if len(text) <= limit:
        return text
    cut = text[:limit - 4]
    return (cut[:cut.rfind(" ")] if " " in cut else cut) + " ..."


def unit_of(result: TraceResult) -> str:
    bad = [r for r in result.reports if not r.ok]
    if bad:
        return bad[0].unit
    prefix = result.name.split("_")[0].lower()
    if result.name.startswith("rtl_random_sdp"):
        return "SDP"
    return UNIT_PREFIXES.get(prefix, "?")


def result_signature(result: TraceResult) -> dict:
    """The signature parts of a failed or errored trace result."""
    failed = [c for c in result.checks if not c.passed]
    if result.status == Verdict.FAILED and failed:
        check, message = failed[0].command, failed[0].message
        if check.startswith("scoreboard vs "):
            check = "scoreboard"
    else:
        check, message = result.status, result.detail
    return {"unit": unit_of(result), "implementation": result.implementation, "check": check,
            "pattern": normalise(message, result.name)}


def text(parts: dict) -> str:
    return " | ".join(str(parts[k]) for k in ("unit", "implementation", "check", "pattern"))
