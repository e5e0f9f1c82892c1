"""The trace mutator's harness (ci/tracemutate/harness.py): its verdict rules on a player that misbehaves on
purpose (misbehaving_player.py): each kind of finding is classified, and its reproducer holds the trace reduced to
the one line that causes it."""

from __future__ import annotations

import json

import pytest

from ci.tracemutate.harness import Fuzzer
from ci.tracemutate.mutations import Case, Seed

LINES = [f"reg_write(NVDLA_SDP.D_DATA_CUBE_WIDTH_0, {n:#x});".encode() for n in range(5)]


def _case(folder, trigger: bytes) -> Case:
    text = b"\n".join([*LINES[:3], trigger, *LINES[3:]])
    trace = folder / "t.cfg"
    trace.parent.mkdir()
    trace.write_bytes(text)
    return Case(Seed(trace, "nv_small", text, ()), "text", "the trigger line", text)


@pytest.mark.parametrize("trigger, kind", [(b"RAISE", "internal"), (b"ESCAPE", "crash"), (b"DIE", "crash"),
                                           (b"HANG", "hang"), (b"HOG", "memory")])
def test_a_finding_is_classified_and_reduced_to_its_line(tmp_path, trigger, kind):
    out = tmp_path / "out"
    out.mkdir()
    fuzzer = Fuzzer(tmp_path / "scratch", out, timeout=5, memory_limit=200 << 20,
                    player="misbehaving_player:play")
    try:
        assert fuzzer.record(_case(tmp_path / "seed", b"// " + trigger)).kind == kind
        assert fuzzer.record(_case(tmp_path / "fine", b"// fine")).kind == "passed"  # a worker after the finding
    finally:
        fuzzer.close()
    summary = fuzzer.summary()
    assert summary["findings"] == 1 and summary["by_outcome"] == {kind: 1, "passed": 1}
    info = json.loads((out / f"finding1-{kind}" / "case.json").read_text())
    assert info["finding"] == kind
    assert (out / f"finding1-{kind}" / "t.cfg").read_bytes() == b"// " + trigger
