"""The last line of a run that judges (conform, certify, regress): its verdict, what it counted, and its exit code
with the rule that gave it, so that a person sees why a run with red rows exits 0 or one without exits 1.

    final_line("conform", 1, "3 failed, 2 errors of 92 traces", "a trace that counts did not pass",
               "not counted: 11 lack a data file (not run)")
        -> "conform: FAILED: 3 failed, 2 errors of 92 traces (exit 1: a trace that counts did not pass;
            not counted: 11 lack a data file (not run))"

The verdict is a Verdict word of golden/status.py (PASSED for exit 0, FAILED otherwise), as every per-test line
shows them.
"""

from __future__ import annotations

from golden.status import Verdict


def final_line(command: str, code: int, counted: str, rule: str, aside: str = "") -> str:
    word = (Verdict.PASSED if code == 0 else Verdict.FAILED).upper()
    return f"{command}: {word}: {counted} (exit {code}: {rule}" + (f"; {aside}" if aside else "") + ")"


def numbers(counts: dict[str, int], plural: dict[str, str] | None = None) -> str:
    """"3 failed, 2 errors" from {status: count}, in the order given, leaving out zeros (`plural`: the word
    of a count other than 1, e.g. {"error": "errors"})."""
    words = []
    for word, count in counts.items():
        if count:
            words.append(f"{count} {(plural or {}).get(word, word) if count != 1 else word}")
    return ", ".join(words)
