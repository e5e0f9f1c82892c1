"""The one status vocabulary: the design's words, shown as words wherever a status is written."""

import json

import pytest

from golden.outcome import Outcome
from golden.status import ENDINGS, RECORDED, VERDICTS, Status
from golden.verdict import TraceResult


def test_the_verdicts_are_the_glossarys_words():
    # the design's one verdict path: passed, failed, not applicable, unsupported, invalid, error
    assert set(VERDICTS) == {"passed", "failed", "not applicable", "unsupported", "invalid", "error"}
    assert set(ENDINGS) == {"completed", "timeout", "error", "unsupported", "invalid"}
    assert set(RECORDED) == {"passed", "failed", "error", "skipped", "not applicable"}
    assert {str(status) for status in Status} == set(VERDICTS) | set(ENDINGS) | set(RECORDED)


def test_a_status_is_written_as_its_word():
    result = TraceResult("t", "nv_small", "not applicable", "made for nv_full")
    assert result.status is Status.NOT_APPLICABLE
    assert json.loads(json.dumps(result.as_dict()))["status"] == "not applicable"
    assert json.dumps({Status.FAILED: 1}) == '{"failed": 1}'
    assert f"{Status.PASSED.upper()}: {Status.ERROR}" == "PASSED: error"
    assert TraceResult.from_dict(result.as_dict()).status == "not applicable"


def test_an_unknown_word_is_refused():
    with pytest.raises(ValueError, match="'pass'"):
        TraceResult("t", "nv_small", "pass")
    with pytest.raises(ValueError, match="'passed'"):
        Outcome("golden").stopped("passed", "a verdict is not how a run ends")
    assert Outcome("golden").stopped("timeout", "hung").status is Status.TIMEOUT
