"""golden.verdict.judge with the scoreboards as its comparison (scoreboards.compare): the trace's checks,
the scoreboards against the reference, and how they combine."""

from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np

from golden import verdict
from golden.config import get_profile
from golden.hardware import WrittenSurface
from golden.outcome import Outcome
from golden.steps import CheckRegion, Program
from golden.units.base import Surface, Tolerance
from scoreboards import compare, compare_region

NV_FULL = get_profile("nv_full")
BASE = 0x8000_0000


def judge(program: Program, outcome: Outcome, reference: Outcome, profile):
    return verdict.judge(program, outcome, profile, reference, compare)


def _program(crc: int, size: int) -> Program:
    step = CheckRegion("t.cfg:3", "check_crc", "done", "pri_mem", BASE, size, crc=crc)
    return Program("t", Path("t.cfg"), "master", [step], None)


def _case(values: np.ndarray, rule: str | None):
    """A one-line fp16 surface of `values` written by CACC (CC DC, max_exp 0, R*S*C = 1) or bit-exact."""
    expected = values.astype(np.float16).view(np.uint8)
    surface = Surface("pri_mem", BASE, (values.size, 1, 1), "fp16", 0, 0, 2 * values.size)
    tolerance = None if rule is None else Tolerance(rule, max_exp=np.zeros((values.size, 1, 1), np.int64), taps=1)
    reference = Outcome("golden", regions={0: expected}, surfaces=[WrittenSurface("CACC", surface, 0, tolerance)])
    return _program(zlib.crc32(expected), expected.size), reference, expected


def test_within_the_threshold_the_scoreboard_replaces_the_crc():
    program, reference, expected = _case(np.array([1.0, 2.0, 4.0, 8.0]), "CC DC")
    got = expected.view(np.float16).copy()
    got[1] = np.nextafter(got[1], np.float16(np.inf))  # one fp16 step: within 2^(0-20)*1*2 + 2^(1-10)
    result = judge(program, Outcome("other", regions={0: got.view(np.uint8)}), reference, NV_FULL)
    assert result.status == "passed", result.detail
    crc = next(c for c in result.checks if c.command == "check_crc")
    assert crc.passed and "within the FP16 threshold" in crc.message and "CRC" in crc.message


def test_the_same_difference_fails_where_the_surface_is_bit_exact():
    program, reference, expected = _case(np.array([1.0, 2.0, 4.0, 8.0]), None)
    got = expected.view(np.float16).copy()
    got[1] = np.nextafter(got[1], np.float16(np.inf))
    result = judge(program, Outcome("other", regions={0: got.view(np.uint8)}), reference, NV_FULL)
    assert result.status == "failed"
    assert result.detail.startswith("2 of 2 checks failed; first: t.cfg:3: scoreboard vs golden")
    assert "C=1 H=0 W=0" in result.detail


def test_a_region_the_implementation_did_not_return_fails():
    program, reference, _ = _case(np.array([1.0]), "CC DC")
    result = judge(program, Outcome("other"), reference, NV_FULL)
    assert result.status == "failed" and "not returned" in result.detail


def test_a_region_no_layer_wrote_gets_a_warning():
    program, reference, expected = _case(np.array([1.0]), None)
    reference.surfaces = []
    result = judge(program, Outcome("other", regions={0: expected}), reference, NV_FULL)
    assert result.status == "passed"
    assert result.warnings == ["t.cfg:3: check_crc pri_mem[0x80000000, +0x2) checks only memory the trace never "
                               "wrote (no hardware layer wrote into it)"]


def test_a_program_without_checks_is_an_error():
    program = Program("t", Path("t.cfg"), "master", [], None)
    result = judge(program, Outcome("other"), Outcome("golden"), NV_FULL)
    assert result.status == "error" and result.detail.startswith("nothing checked")


def test_writes_outside_the_reference_surfaces_fail_even_when_the_checks_pass():
    program, reference, expected = _case(np.array([1.0, 2.0]), None)
    neighbour = np.ones(8, np.uint8)
    inside = Outcome("rtl", regions={0: expected}, written={"pri_mem": [(BASE, expected)]})
    assert judge(program, inside, reference, NV_FULL).status == "passed"
    outside = Outcome("rtl", regions={0: expected}, written={"pri_mem": [(BASE, expected), (BASE + 0x100, neighbour)]})
    result = judge(program, outside, reference, NV_FULL)
    assert result.status == "failed"
    check = next(c for c in result.checks if c.command == "memory writes")
    assert not check.passed and "wrote 8 bytes outside every surface golden's layers write: pri_mem 0x80000100 " \
                                "(+0x8)" in check.message
    assert next(c for c in result.checks if c.command == "check_crc").passed


def test_interrupts_are_compared_in_any_order_only_when_both_sides_report_them():
    program, reference, expected = _case(np.array([1.0]), None)
    reference.interrupts = ["SDP_0 -> s0", "PDP_0 -> s1"]

    def judged(interrupts: list[str], unavailable: dict | None = None):
        outcome = Outcome("other", regions={0: expected}, interrupts=interrupts, unavailable=unavailable or {})
        result = judge(program, outcome, reference, NV_FULL)
        return result.status, [c.message for c in result.checks if c.command == "interrupts vs golden"]

    assert judged(["PDP_0 -> s1", "SDP_0 -> s0"]) == ("passed", ["fired ['PDP_0 -> s1', 'SDP_0 -> s0']"])
    assert judged(["SDP_0 -> s0"]) == ("failed", ["fired ['SDP_0 -> s0'], expected ['SDP_0 -> s0', 'PDP_0 -> s1']"])
    assert judged([], {"interrupts": "the bench cannot tell"}) == ("passed", [])


def test_a_region_report_names_the_unit_cube_and_the_first_mismatches_in_w_h_c():
    # int8 cube C=20 H=8 W=8 in 8-byte atoms: line stride 0x40, surface stride 0x200 (3 surfaces)
    surface = Surface("pri_mem", BASE, (20, 8, 8), "int8", 0x40, 0x200, 8, name="SDP output")
    step = CheckRegion("t.cfg:3", "check_crc", "done", "pri_mem", BASE, 0x600, crc=0)
    expected = np.zeros(0x600, np.uint8)
    got = expected.copy()
    got[[0x48 + 1, 0x200 + 7, 0x5FF]] = 1  # (W=1 H=1 C=1), (W=0 H=0 C=15), the last byte of a padding lane
    comparison = compare_region(step, got, expected, [WrittenSurface("SDP", surface, 0)])
    sdp, rest = comparison.reports
    assert (sdp.unit, sdp.cube_text(), sdp.mismatches, sdp.compared) == ("SDP", "W=8 H=8 C=20 int8", 2, 1280)
    assert [(m["w"], m["h"], m["c"], m["address"]) for m in sdp.first] == [(1, 1, 1, BASE + 0x49),
                                                                           (0, 0, 15, BASE + 0x207)]
    assert rest.unit == "memory" and rest.mismatches == 1 and rest.first[0]["address"] == BASE + 0x5FF
