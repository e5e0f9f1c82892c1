"""The status words, declared once (the words of the design's "one verdict path").

A Status is a str (StrEnum): it compares equal to its word, and JSON, CSV and every printed line show the word.

How an implementation's run ended (golden/outcome.py, Outcome.status):
    completed    the program ran to its end (the verdict then reads the checks)
    timeout      the implementation hung: a failure
    error, unsupported, invalid   as below, decided by the run itself

The verdict of a trace (golden/verdict.py, TraceResult.status; the scoreboards, scoreboards/verdict.py):
    passed       every check passed (and at least one check ran)
    failed       a check failed, or the implementation hung
    unsupported  the implementation lacks a feature the trace uses (e.g. a unit not modelled)
    invalid      the trace needs a feature its profile lacks
    not applicable  made for a profile the implementation under test is not built as (its declared
                 profile lacks a feature, a data type, the register layout or the geometry): not run
    error        the trace or the run is broken: a missing input file, a trace that would hang,
                 nothing checked, an implementation that crashed or returned no outcome

A regression record (ci/regression/) uses passed, failed, error, not applicable and
    skipped      not run: no generator for it yet, an unknown profile, unsupported or invalid layers
"""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    UNSUPPORTED = "unsupported"
    INVALID = "invalid"
    NOT_APPLICABLE = "not applicable"
    SKIPPED = "skipped"
    COMPLETED = "completed"
    TIMEOUT = "timeout"


#: A trace's verdict, in the order reports count them (conform's table and JSON summary).
VERDICTS = (Status.PASSED, Status.FAILED, Status.UNSUPPORTED, Status.INVALID, Status.ERROR, Status.NOT_APPLICABLE)
#: How a run ended (Outcome.status).
ENDINGS = (Status.COMPLETED, Status.TIMEOUT, Status.ERROR, Status.UNSUPPORTED, Status.INVALID)
#: Endings that stopped the run before its end, decided by the run itself (the checks do not change them).
STOPPED = (Status.ERROR, Status.UNSUPPORTED, Status.INVALID)
#: A regression record's status, in the order its counts are written.
RECORDED = (Status.PASSED, Status.FAILED, Status.ERROR, Status.SKIPPED, Status.NOT_APPLICABLE)
#: Statuses that make a run (conform, regress, report) fail.
FAILING = (Status.FAILED, Status.ERROR)
