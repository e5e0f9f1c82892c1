"""The status vocabularies (golden/status.py): the design's words, shown as words wherever a status is written."""

import json

import pytest

from golden.outcome import Outcome
from golden.status import RECORDED_AS, Ending, RecordStatus, Verdict
from golden.verdict import TraceResult


def test_the_verdicts_are_the_glossarys_words():
    # the design's one verdict path: passed, failed, not applicable, unsupported, invalid, error
    assert set(Verdict) == {"passed", "failed", "not applicable", "unsupported", "invalid", "error"}
    assert set(Ending) == {"completed", "timeout", "error", "unsupported", "invalid"}
    assert set(RecordStatus) == {"passed", "failed", "error", "skipped", "not applicable"}
    # every verdict has its record status: what the implementation lacks or the profile refuses is not run
    assert {str(v): str(s) for v, s in RECORDED_AS.items()} == {
        "passed": "passed", "failed": "failed", "error": "error", "not applicable": "not applicable",
        "unsupported": "skipped", "invalid": "skipped"}


def test_a_status_is_written_as_its_word():
    result = TraceResult("t", "nv_small", "not applicable", "made for nv_full")
    assert result.status is Verdict.NOT_APPLICABLE
    assert json.loads(json.dumps(result.as_dict()))["status"] == "not applicable"
    assert json.dumps({RecordStatus.FAILED: 1}) == '{"failed": 1}'
    assert f"{Verdict.PASSED.upper()}: {Ending.ERROR}" == "PASSED: error"
    assert Verdict.ERROR == Ending.ERROR == RecordStatus.ERROR  # the same word in each vocabulary
    assert TraceResult.from_dict(result.as_dict()).status == "not applicable"


def test_an_unknown_word_is_refused():
    with pytest.raises(ValueError, match="'pass'"):
        TraceResult("t", "nv_small", "pass")
    with pytest.raises(ValueError, match="'passed'"):
        Outcome("golden").stopped("passed", "a verdict is not how a run ends")
    assert Outcome("golden").stopped("timeout", "hung").status is Ending.TIMEOUT
