"""`--impl command`, protocol 2 (README "External programs"): a program written from the README alone passes
NVIDIA's traces, the statuses a program reports, result.json checked against its schema, and where failed
runs' folders are kept.

Every NVIDIA trace through the README's program (the 92 the golden model passes pass; about 45 s with -j 2):
    nvdla-verif conform ../shared/nvdla -j 2 --impl "command:python suites/unit/ci/readme_program.py"
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import golden.examples
from ci.cli import main
from ci.implementations.command import Command
from ci.implementations.command_files import REQUEST_SCHEMA, write_request
from golden.config import get_profile
from golden.implementation import Golden
from golden.player import prepare
from scoreboards.verdict import verify

README_PROGRAM = f"{sys.executable} {Path(__file__).with_name('readme_program.py')}"
TRACE = "trace_tests/nv_small/sdp_3x3x33_bs_int8_reg_0"
#: One trace of each kind: SDP, PDP, CDP, direct convolution, and a traceplayer trace that waits (txn `wait`).
HANDFUL = ["trace_tests/nv_small/sdp_1x1x1_pass_through_int8", "trace_tests/nv_small/pdp_8x8x64_2x2_int8",
           "trace_tests/nv_small/cdp_8x8x32_lrn3_int8_0", "trace_tests/nv_small/dc_1x1x8_1x1x8x1_int8_0",
           "traceplayer/conv_8x8_fc_int16"]


@pytest.fixture(autouse=True)
def _work_folders(tmp_path, monkeypatch):
    """Failed runs keep their folders in the temporary folder: this test's, not the machine's."""
    folder = tmp_path / "work-folders"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))


def _program(tmp_path: Path, result: dict | None, code: int = 0, name: str = "program.py") -> str:
    """A program that writes `result` as out/result.json (none when None) and exits with `code`."""
    script = tmp_path / name
    write = f"(pathlib.Path(sys.argv[1]) / 'out' / 'result.json').write_text(json.dumps({result!r}))\n"
    script.write_text("import json, pathlib, sys\n" + (write if result is not None else "") + f"sys.exit({code})\n")
    return f"{sys.executable} {script}"


def _run(nvdla_data: Path, program: str, trace: str = TRACE):
    path = nvdla_data / trace
    profile = get_profile("nv_full" if trace.startswith("traceplayer") else "nv_small")
    return verify(path, profile, Command(program, timeout_s=120), Golden())


@pytest.mark.parametrize("trace", HANDFUL)
def test_the_readme_program_passes_nvidia_traces_with_the_same_interrupts(nvdla_data, trace):
    result = _run(nvdla_data, README_PROGRAM, trace)
    assert result.status == "passed", result.detail
    if trace.startswith("trace_tests"):  # their intr_notify watches fire as on the golden model
        check = next(c for c in result.checks if c.command == "interrupts vs golden")
        assert check.passed and " -> " in check.message


def test_a_watch_takes_one_raise_of_its_bit(tmp_path):
    """Three SDP layers in groups 0, 1, 0 watched as SDP_0, SDP_1, SDP_0: the third watch must wait for the third
    layer, which only works when the first watch cleared the bit it saw (no NVIDIA trace watches a bit twice)."""
    example = Path(golden.examples.__file__).with_name("sdp_bias_relu_int8.cfg")
    shutil.copy(example.with_name("sdp_bias_relu_int8_input.dat"), tmp_path)
    lines = example.read_text().splitlines()
    text = [line for line in lines if line.startswith("mem_")][:2]
    for k, (group, dst) in enumerate([(0, 0x80100000), (1, 0x80200000), (0, 0x80300000)]):
        text += [f"mem_init(pri_mem, {dst:#x}, 0x400, ALL_ZERO);"]
        text += [re.sub(r"D_DST_BASE_ADDR_LOW_0, 0x\w+", f"D_DST_BASE_ADDR_LOW_0, {dst:#x}",
                        re.sub(r"S_POINTER_0, 0x\w+", f"S_POINTER_0, {group:#x}", line))
                 for line in lines if line.startswith("reg_write")]
        text += [f"intr_notify(SDP_{group}, s{k});", f"check_crc(s{k}, pri_mem, {dst:#x}, 0x400, 0xd97c87b3);"]
    (tmp_path / "three.cfg").write_text("\n".join(text) + "\n")
    result = verify(tmp_path / "three.cfg", get_profile("nv_small"), Command(README_PROGRAM), Golden())
    assert result.status == "passed", result.detail
    assert result.checks[-1].message == "fired ['SDP_0 -> s0', 'SDP_1 -> s1', 'SDP_0 -> s2']"


def test_interrupts_that_differ_fail_naming_both_lists(nvdla_data, tmp_path):
    script = tmp_path / "fewer.py"
    script.write_text(f"import json, pathlib, sys\nsys.path.insert(0, {str(Path(__file__).parent)!r})\n"
                      "import readme_program\nfolder = pathlib.Path(sys.argv[1])\nreadme_program.main(folder)\n"
                      "result = json.loads((folder / 'out/result.json').read_text())\n"
                      "result['interrupts'] = ['SDP_0 -> elsewhere']\n"
                      "(folder / 'out/result.json').write_text(json.dumps(result))\n")
    result = _run(nvdla_data, f"{sys.executable} {script}")
    check = next(c for c in result.checks if c.command == "interrupts vs golden")
    assert result.status == "failed" and not check.passed
    assert check.message.startswith("fired ['SDP_0 -> elsewhere'], expected ['SDP_0 -> ")


def test_the_request_is_protocol_2_and_names_the_original_trace(nvdla_data, tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    program = prepare(nvdla_data / TRACE, get_profile("nv_small"))
    write_request(program, get_profile("nv_small"), tmp_path)
    request = json.loads((tmp_path / "request.json").read_text())
    jsonschema.validate(request, json.loads(REQUEST_SCHEMA.read_text()))
    assert request["protocol"] == 2 and (tmp_path / request["program"]).is_file()
    where = request["regions"][0]["where"]
    assert where.rpartition(":")[0] == str(program.trace.path) and str(tmp_path) not in where


@pytest.mark.parametrize("code", [0, 3])
def test_a_reported_hang_fails_as_a_hang(nvdla_data, tmp_path, code):
    program = _program(tmp_path, {"protocol": 2, "status": "hang", "detail": "sync s0 never fired"}, code)
    result = _run(nvdla_data, program)
    assert result.status == "failed"
    assert result.detail.startswith("the implementation hung: ")
    assert "reports a hang: sync s0 never fired" in result.detail


@pytest.mark.parametrize("code", [0, 3])
def test_a_reported_unsupported_feature_is_named(nvdla_data, tmp_path, code):
    result = _run(nvdla_data, _program(tmp_path, {"protocol": 2, "status": "unsupported", "feature": "SDP BS"}, code))
    assert result.status == "unsupported" and result.detail.startswith("SDP BS not supported by ")


def test_a_reported_error_and_a_silent_nonzero_exit_are_errors(nvdla_data, tmp_path):
    reported = _run(nvdla_data, _program(tmp_path, {"protocol": 2, "status": "error", "detail": "no licence"}))
    assert reported.status == "error" and "reports an error: no licence" in reported.detail
    silent = _run(nvdla_data, _program(tmp_path, {"protocol": 2, "status": "completed"}, code=4))
    assert silent.status == "error" and "exited with status 4" in silent.detail


@pytest.mark.parametrize(("result", "words"), [
    ({"protocol": 2, "registers": {"7": -1}}, "registers/7: -1 is less than the minimum of 0 (schema rule 'minimum'"),
    ({"protocol": 2, "status": "unsupported"}, "(top level): 'feature' is a required property (schema rule 'required'"),
    ({"protocol": 2, "interrupts": ["SDP_0"]}, "interrupts/0: 'SDP_0' does not match"),
    ({"protocol": 2, "status": "crashed"}, "status: 'crashed' is not one of"),
    ({"protocol": 2, "cycle": 5}, "(top level): Additional properties are not allowed ('cycle' was unexpected)"),
])
def test_an_invalid_result_is_an_error_naming_the_field_and_rule(nvdla_data, tmp_path, result, words):
    outcome = _run(nvdla_data, _program(tmp_path, result))
    assert outcome.status == "error" and "result.json: " + words in outcome.detail, outcome.detail


def test_without_jsonschema_the_result_is_read_unchecked_and_it_says_so(nvdla_data, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "jsonschema", None)
    result = _run(nvdla_data, README_PROGRAM)
    assert result.status == "passed"
    assert result.warnings == ["result.json not checked against its schema: jsonschema is not installed "
                               "(pip install jsonschema)"]


def _conform(tmp_path: Path, program: str, monkeypatch, nvdla_data: Path) -> tuple[Path, Path]:
    scratch, run = tmp_path / "tmp", tmp_path / "run"
    scratch.mkdir(exist_ok=True)
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    main(["conform", str(nvdla_data / TRACE), "--json", str(run / "out.json"), "--impl", f"command:{program}"])
    return scratch, run / "kept"


def test_a_failed_run_folder_is_kept_in_the_output_folder(nvdla_data, tmp_path, monkeypatch):
    scratch, kept = _conform(tmp_path, _program(tmp_path, None, code=1), monkeypatch, nvdla_data)
    folders = list(kept.glob("nvdla-*"))
    assert len(folders) == 1 and (folders[0] / "request.json").is_file() and not list(scratch.iterdir())
    detail = json.loads((kept.parent / "out.json").read_text())["results"][0]["detail"]
    assert detail.endswith(f"(folder kept: {folders[0]})")


def test_a_passing_run_keeps_no_folder_unless_asked(nvdla_data, tmp_path, monkeypatch):
    scratch, kept = _conform(tmp_path, README_PROGRAM, monkeypatch, nvdla_data)
    assert not kept.exists() and not list(scratch.iterdir())
    monkeypatch.setenv("NVDLA_COMMAND_KEEP", "always")
    scratch, kept = _conform(tmp_path, README_PROGRAM, monkeypatch, nvdla_data)
    assert len(list(kept.glob("nvdla-*/out/result.json"))) == 1


@pytest.mark.parametrize(("program", "kept"), [(README_PROGRAM, 0), (f"{README_PROGRAM} --no-such-option", 1)])
@pytest.mark.slow
def test_regress_keeps_failed_run_folders_in_its_out_folder(nvdla_data, tmp_path, program, kept):
    pytest.importorskip("hjson")
    pytest.importorskip("xdist")
    out, scratch = tmp_path / "out", tmp_path / "tmp"
    scratch.mkdir()
    subprocess.run([sys.executable, "-m", "ci.cli", "regress", "--level", "smoke", "--impl", f"command:{program}",
                    "--nvdla-data", str(nvdla_data), "--test", "nvidia/nv_small/sdp_1x1x1*", "--seed", "1",
                    "--out", str(out), "-j", "1"], env={**os.environ, "TMPDIR": str(scratch)}, capture_output=True,
                   timeout=300, check=False)
    status = json.loads((out / "results.json").read_text())["tests"][0]["status"]
    assert status == ("error" if kept else "passed")
    assert len(list(out.glob("kept/nvdla-sdp_1x1x1*/request.json"))) == kept and not list(scratch.glob("nvdla-*"))
