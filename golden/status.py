"""The status words, declared once (the words of the design's "one verdict path").

Three vocabularies, each a str enum (StrEnum): a member compares equal to its word (and to the member of the same
word in another of them), and JSON, CSV and every printed line show the word.

Ending: how an implementation's run ended (golden/outcome.py, Outcome.status):
    completed    the program ran to its end (the verdict then reads the checks)
    timeout      the implementation hung: a failure
    error, unsupported, invalid   as below, decided by the run itself

Verdict: the judgement of a trace (golden/verdict.py, TraceResult.status):
    passed       every check passed (and at least one check ran)
    failed       a check failed, or the implementation hung
    unsupported  the implementation lacks a feature the trace uses (e.g. a unit not modelled)
    invalid      the trace needs a feature its profile lacks
    not applicable  made for a profile the implementation under test is not built as (its declared
                 profile lacks a feature, a data type, the register layout or the geometry): not run
    error        the trace or the run is broken: a missing input file, a trace that would hang,
                 nothing checked, an implementation that crashed or returned no outcome

RecordStatus: a regression record's (ci/regression/record.py) passed, failed, error, not applicable and
    skipped      not run: no generator for it yet, an unknown profile, unsupported or invalid layers

The translations between them are declared here once (RECORDED_AS); each translation into an outside vocabulary
is declared once beside the adapter that speaks it: JUnit (ci/regression/results.py JUNIT), Allure and pytest
(ci/regression/report_page.py ALLURE), the command protocol (ci/implementations/command.py PROTOCOL), the
certification results (ci/suite/verify.py Certification; ci/suite/certify.py RESULT).
"""

from __future__ import annotations

from enum import StrEnum


class Ending(StrEnum):
    COMPLETED = "completed"
    TIMEOUT = "timeout"
    ERROR = "error"
    UNSUPPORTED = "unsupported"
    INVALID = "invalid"


class Verdict(StrEnum):
    """In the order reports count them (conform's table and JSON summary)."""

    PASSED = "passed"
    FAILED = "failed"
    UNSUPPORTED = "unsupported"
    INVALID = "invalid"
    ERROR = "error"
    NOT_APPLICABLE = "not applicable"


class RecordStatus(StrEnum):
    """In the order a regression's counts are written."""

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    SKIPPED = "skipped"
    NOT_APPLICABLE = "not applicable"


#: Endings that stopped the run before its end, decided by the run itself (the checks do not change them): the
#: verdict is the ending's own word.
STOPPED = (Ending.ERROR, Ending.UNSUPPORTED, Ending.INVALID)
#: Verdicts (and record statuses, the same words) that make a run (conform, regress, report) fail.
FAILING = (Verdict.FAILED, Verdict.ERROR)
#: The record status of a trace's verdict (ci/regression/engine.py trace_status): what the implementation lacks
#: or the profile refuses is not run, not a failure.
RECORDED_AS = {Verdict.PASSED: RecordStatus.PASSED, Verdict.FAILED: RecordStatus.FAILED,
               Verdict.NOT_APPLICABLE: RecordStatus.NOT_APPLICABLE, Verdict.UNSUPPORTED: RecordStatus.SKIPPED,
               Verdict.INVALID: RecordStatus.SKIPPED, Verdict.ERROR: RecordStatus.ERROR}
