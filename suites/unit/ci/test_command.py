"""`--impl command`: an external program through the file protocol, here the golden model in another process."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import pytest

from ci.cli import main
from ci.implementations.command import Command
from golden.config import get_profile, infer_profile_name
from golden.implementation import Golden
from golden.trace import find_traces
from scoreboards.verdict import verify
from suites.unit.ci.in_process_command import InProcessCommand

PROGRAM = f"{sys.executable} {Path(__file__).with_name('golden_program.py')}"
TRACE = "trace_tests/nv_small/sdp_3x3x33_bs_int8_reg_0"


@pytest.fixture(autouse=True)
def _work_folders(tmp_path, monkeypatch):
    """Failed runs keep their folders in the temporary folder: this test's, not the machine's."""
    folder = tmp_path / "work-folders"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))


def _run(nvdla_data, fault: str | None, timeout_s: float = 60):
    command = Command(PROGRAM + (f" --fault {fault}" if fault else ""), timeout_s=timeout_s)
    return verify(nvdla_data / TRACE, get_profile("nv_small"), command, Golden())


def test_golden_in_another_process_passes_with_the_scoreboards(nvdla_data):
    result = _run(nvdla_data, None)
    assert result.status == "passed", result.detail
    assert [c.command for c in result.checks] == ["scoreboard vs golden", "check_crc"]
    assert result.implementation == "command"


def test_one_wrong_byte_fails_naming_the_element(nvdla_data):
    result = _run(nvdla_data, "wrong-byte")
    assert result.status == "failed"
    board = next(c for c in result.checks if c.command == "scoreboard vs golden")
    assert not board.passed and "SDP output at pri_mem 0x900001c0 (W=3 H=3 C=40 int8)" in board.message
    assert "1 of 360 elements mismatch" in board.message
    assert "C=0 H=0 W=0 @0x900001c0: got 1, expected 0" in board.message
    report = next(r for r in result.reports if not r.ok)
    assert report.unit == "SDP" and set(report.first[0]) >= {"c", "h", "w", "got", "expected"}
    assert abs(report.first[0]["got"] - report.first[0]["expected"]) == 1


@pytest.mark.parametrize(("fault", "status", "words", "timeout_s"), [
    ("exit-1", "error", "exited with status 1; its output ends: golden_program: failing on purpose", 60),
    ("hang", "error", "did not finish within 2 s", 2),  # only the hang waits for the limit
    ("nothing", "failed", "not returned: the program wrote no region file", 60),
])
def test_a_broken_program_is_one_clear_result(nvdla_data, fault, status, words, timeout_s):
    result = _run(nvdla_data, fault, timeout_s=timeout_s)
    assert result.status == status and words in result.detail


def test_conform_goes_on_past_a_failing_program(nvdla_data, tmp_path, capsys):
    out = tmp_path / "out.json"
    code = main(["conform", str(nvdla_data / "trace_tests/nv_small"), "-k", "sdp_3x3x33_bs", "--json", str(out),
                 "--impl", f"command:{PROGRAM} --fault exit-1"])
    results = json.loads(out.read_text())["results"]
    assert code == 1 and len(results) == 4 and {r["status"] for r in results} == {"error"}


def _one_per_profile_and_unit(paths: list[Path]) -> list[Path]:
    """The first trace of each profile folder and unit (the name's first word: sdp, pdp, cdp, dc, ...)."""
    firsts: dict[tuple[str, str], Path] = {}
    for path in paths:
        name = path.parent.name if path.suffix == ".txn" else path.stem
        firsts.setdefault((infer_profile_name(path) or "", name.split("_")[0]), path)
    return list(firsts.values())


def _statuses(json_path: Path) -> dict[tuple[str, str], str]:
    return {(r["profile"], r["name"]): r["status"] for r in json.loads(json_path.read_text())["results"]}


@pytest.fixture(scope="module")
def golden_statuses(nvdla_data, tmp_path_factory) -> dict[tuple[str, str], str]:
    """Every NVIDIA trace's status on the golden model, as `conform` gives it."""
    out = tmp_path_factory.mktemp("golden") / "golden.json"
    assert main(["conform", str(nvdla_data), "-j", "2", "--json", str(out)]) == 0
    golden = _statuses(out)
    assert list(golden.values()).count("passed") == 92
    return golden


@pytest.mark.slow
def test_a_trace_of_each_profile_and_unit_has_the_golden_status_through_a_program(nvdla_data, golden_statuses,
                                                                                   tmp_path):
    """The program in its own process, on one trace of each profile and unit."""
    chosen = _one_per_profile_and_unit(find_traces(nvdla_data))
    assert len(chosen) >= 10
    out = tmp_path / "command.json"
    assert main(["conform", *map(str, chosen), "-j", "2", "--json", str(out), "--impl", f"command:{PROGRAM}"]) == 0
    command = _statuses(out)
    assert len(command) == len(chosen) and command == {key: golden_statuses[key] for key in command}


@pytest.mark.slow
def test_every_nvidia_trace_has_the_golden_status_through_the_file_protocol(nvdla_data, golden_statuses):
    """Every NVIDIA trace through the file protocol (request folder, program.json, region files, result.json),
    golden_program.py called in this process (suites/unit/ci/in_process_command.py; the process: the test above),
    judged against the golden model as `conform --impl command:` judges it."""
    command = InProcessCommand(PROGRAM)
    statuses = {}
    for path in find_traces(nvdla_data):
        name = infer_profile_name(path)
        result = verify(path, get_profile(name), command, Golden())
        statuses[name, result.name] = result.status
    assert statuses == golden_statuses


def test_ref_none_judges_by_the_trace_checks_only(nvdla_data, tmp_path):
    """`--ref none`: no scoreboard, the trace's check_crc alone passes or fails the implementation."""
    def conform(fault: str, name: str) -> dict:
        out = tmp_path / name
        main(["conform", str(nvdla_data / TRACE), "--json", str(out), "--ref", "none",
              "--impl", f"command:{PROGRAM}" + (f" --fault {fault}" if fault else "")])
        return json.loads(out.read_text())["results"][0]

    good, bad = conform("", "good.json"), conform("wrong-byte", "bad.json")
    assert good["status"] == "passed" and bad["status"] == "failed"
    assert "scoreboard" not in json.dumps(good) + json.dumps(bad)
    assert "check_crc" in json.dumps(bad)


def test_conform_draws_the_pictures_of_a_failing_trace_as_play_does(nvdla_data, tmp_path, capsys):
    trace = nvdla_data / "trace_tests" / "nv_small" / "sdp_8x8x32_bypass_int8_0"
    program = f"command:{sys.executable} {Path(__file__).with_name('golden_program.py')} --fault wrong-byte"
    assert main(["conform", str(trace), "--impl", program, "--pictures", str(tmp_path / "pics"), "-j", "2"]) == 1
    pictures = sorted((tmp_path / "pics").glob("*.png"))
    assert pictures and pictures[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"picture: {pictures[0]}" in capsys.readouterr().out
