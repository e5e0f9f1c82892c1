"""What the project prints for a person to paste (reproduce, shrink and resume lines) runs exactly its words and
nothing else, whatever the names in it: each line is run by bash with a stub in place of nvdla-verif, which logs
the arguments, folder and environment it got; nvdla-verif's own parser then reads those arguments back."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from html import unescape
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ci.cli import build_parser
from ci.regression.engine import Settings
from ci.regression.item import Item
from ci.regression.items import reproduce_command
from suites.unit.ci.regress_helpers import regress, write_plan

#: Pieces a hostile name is made of: command substitutions, quotes, blanks, globs, operators, leading dashes.
PIECES = ["$(touch PWNED)", "$(touch${IFS}PWNED)", "`touch PWNED`", "'", '"', " ", "\t", "\n", "*", "?", "[",
          "]", ";", "&", "&&", "|", "||", "-", "--", "-rf", "\\", "$", "${IFS}", "$HOME", "~", "#", "!", "<", ">",
          "(", ")", "{", "}", "=", "%"]
OTHER = st.characters(blacklist_characters="\x00/", blacklist_categories=("Cs",))
#: A file or folder name (no slash, no NUL, not . or ..).
NAMES = st.lists(st.one_of(st.sampled_from(PIECES), st.text(OTHER, min_size=1, max_size=3)), min_size=1,
                 max_size=5).map("".join).filter(lambda name: name not in (".", ".."))
#: A test id: names joined by slashes.
IDS = st.lists(NAMES, min_size=1, max_size=3).map("/".join)
#: The issue's folder name (the examples add names that read as options).
PROBE = "sdp_9_pass_through_$(touch${IFS}PWNED)"
QUICK = settings(max_examples=40, deadline=None, database=None,
                 suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture
def stub(tmp_path) -> Path:
    """A program that appends to its log what it was started with: its folder, $NVDLA_TEST_VALUE, the number of
    its arguments and the arguments, each ended by a NUL."""
    program = tmp_path / "stub"
    program.write_text('#!/bin/bash\nprintf \'%s\\0\' "$PWD" "${NVDLA_TEST_VALUE-}" "$#" "$@" >> "$STUB_LOG"\n')
    program.chmod(0o755)
    return program


def pasted(line: str, folder: Path, tmp_path: Path) -> list[dict]:
    """The starts of the stub when `line` is pasted into bash in an empty folder; the folder stays empty."""
    log = tmp_path / "stub.log"
    log.write_bytes(b"")
    folder.mkdir(exist_ok=True)
    environment = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "STUB_LOG": str(log)}
    shell = subprocess.run(["bash", "-c", line], cwd=folder, env=environment, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=20)
    assert shell.returncode == 0, (line, shell.stderr)
    assert list(folder.iterdir()) == [], line  # nothing ran that made a file
    assert not any(tmp_path.rglob("PWNED")), line
    fields = [os.fsdecode(field) for field in log.read_bytes().split(b"\0")[:-1]]
    starts = []
    while fields:
        cwd, value, count, *fields = fields
        starts.append({"cwd": cwd, "value": value, "argv": fields[:int(count)]})
        fields = fields[int(count):]
    return starts


PARSER = build_parser()


def parsed(argv: list[str]):
    return PARSER.parse_args(argv)


@QUICK
@given(name=NAMES)
@example(name=PROBE)
def test_a_traces_reproduce_line_plays_that_trace_alone(stub, tmp_path, name):
    path = str(tmp_path / "data" / name / f"{name}.cfg")
    item = Item(f"nvidia/nv_small/{name}", "nvidia_traces", {"path": path, "profile": "nv_small"})
    rtl = ["--rtl-filelist", str(tmp_path / name / "my.f"), "--rtl-define=-DX"]
    line = reproduce_command(item, Settings(impl=f"command:./{name}", ref="golden", rtl=rtl, command=[str(stub)]))
    [started] = pasted(line, tmp_path / "fresh", tmp_path)
    args = parsed(started["argv"])
    assert (args.command, args.paths) == ("conform", [path])
    assert args.json == f"repro-nvidia-nv_small-{name}.json"
    assert (args.impl, args.ref, args.rtl_filelist, args.rtl_define) == (
        f"command:./{name}", "golden", str(tmp_path / name / "my.f"), ["-DX"])


@QUICK
@given(test=IDS, plan=NAMES)
@example(test="-rf", plan="-x")
@example(test="--help", plan=PROBE)
def test_a_regress_reproduce_line_runs_that_test_alone(stub, tmp_path, test, plan):
    item = Item(test, "random_sdp", {"seed": 3, "layers": 1})
    line = reproduce_command(item, Settings(level="nightly", seed=5, plan=f"/plans/{plan}", command=[str(stub)],
                                            nvdla_data=f"/data/{plan}"))
    [started] = pasted(line, tmp_path / "fresh", tmp_path)
    args = parsed(started["argv"])
    assert (args.command, args.level, args.seed, args.impl, args.plan, args.nvdla_data) == (
        "regress", "nightly", 5, "golden", f"/plans/{plan}", f"/data/{plan}")
    assert args.test == [test] and args.out == "regress-repro-" + test.replace("/", "-")


@QUICK
@given(test=IDS)
@example(test="-rf")
def test_a_generated_layers_reproduce_line_generates_then_plays_that_folder(stub, tmp_path, test):
    item = Item(test, "generated", {"family": "sdp_reg", "profile": "nv_small", "seed": 7, "layers": 2,
                                    "index": 1})
    generate, conform = (parsed(start["argv"]) for start in pasted(
        reproduce_command(item, Settings(command=[str(stub)])), tmp_path / "fresh", tmp_path))
    assert (generate.command, generate.unit, generate.seed, generate.index, generate.layers) == (
        "generate", "sdp_reg", 7, 1, 2)
    assert conform.command == "conform" and Path(conform.paths[0]) == Path(generate.out)
    assert generate.out == "repro-" + test.replace("/", "-")


@QUICK
@given(folder=NAMES, test=IDS, value=NAMES)
@example(folder=PROBE, test="-rf", value="-rf")
@example(folder="-", test="a```b", value="$(touch PWNED)")
def test_the_html_reports_shrunk_layer_command_plays_it_in_its_results_folder(stub, tmp_path, folder, test, value):
    """The page of a test whose failure was shrunk: the command that plays the shrunk layer (a record's line, its
    path relative to the results folder) runs in that folder, and the page's code block holds the same line."""
    markdown = pytest.importorskip("markdown")
    from ci.regression.report_page import rewrite

    out = tmp_path / "runs" / folder
    (out / "allure-results").mkdir(parents=True, exist_ok=True)
    page = out / "allure-results" / "1-result.json"
    page.write_text(json.dumps({"name": test, "description": "", "statusDetails": {"message": "failed"}}))
    relative = f"NVDLA_TEST_VALUE={shlex.quote(value)} {shlex.join([str(stub), 'conform', 'shrunk/x/x.cfg'])}"
    cut = {"id": test, "path": "shrunk/x/x.cfg", "layers": 1, "bytes": 8, "from_bytes": 9, "describe": "d",
           "reproduce": relative}
    record = {"id": test, "status": "failed", "verdict": "failed", "detail": "d", "impl": "golden", "ref": None}
    rewrite(out / "allure-results", [record], {test: cut}, out)
    written = json.loads(page.read_text())
    line = written["statusDetails"]["message"].split("play it: ", 1)[1]
    [started] = pasted(line, tmp_path / "fresh", tmp_path)
    assert started["cwd"] == str(out) and started["value"] == value
    assert parsed(started["argv"]).paths == ["shrunk/x/x.cfg"]
    html = markdown.markdown(written["description"], extensions=["fenced_code"])
    blocks = re.findall(r"<pre><code>(.*?)</code></pre>", html, re.S)
    assert len(blocks) == 1  # one fence from the first line to the last, whatever backticks the names hold
    if all(c.isprintable() or c == "\n" for c in line):  # Markdown rewrites tabs, CRs and its own STX/ETX
        assert unescape(blocks[0]) == line + "\n"


@QUICK
@given(folder=NAMES)
@example(folder="`touch PWNED`")
@example(folder="-rf")
def test_an_interrupted_runs_resume_line_resumes_that_folder(stub, tmp_path, capsys, folder):
    from ci.commands.regress import _interrupted

    out = tmp_path / "runs" / folder
    out.mkdir(parents=True, exist_ok=True)
    capsys.readouterr()
    _interrupted(out, {"items": [], "settings": {"command": [str(stub)]}})
    line = capsys.readouterr().err.split("runs the rest: ", 1)[1].removesuffix("\n")
    [started] = pasted(line, tmp_path / "fresh", tmp_path)
    args = parsed(started["argv"])
    assert args.command == "regress" and args.resume and args.out == str(out)


@pytest.mark.slow
def test_a_failing_trace_in_a_folder_named_with_a_command_reproduces_without_running_it(nvdla_data, tmp_path):
    """The issue's probe: NVIDIA's layout (FOLDER/FOLDER.cfg) under a name holding `$(...)`, its CRC wrong, run
    through regress; the reproduce line summary.txt and the record give, pasted into bash in a fresh folder,
    plays the trace (exit 1, its JSON written) and runs nothing of the name."""
    pytest.importorskip("hjson")
    original = nvdla_data / "trace_tests" / "nv_small" / "sdp_1x1x1_pass_through_int8"
    folder = tmp_path / "data" / "trace_tests" / "nv_small" / PROBE
    folder.mkdir(parents=True)
    (folder / "sdp_1x1x1_pass_through_int8.dat").write_bytes(
        (original / "sdp_1x1x1_pass_through_int8.dat").read_bytes())
    trace = (original / "sdp_1x1x1_pass_through_int8.cfg").read_text()
    assert trace.count("0xcb0ea2db") == 1
    (folder / f"{PROBE}.cfg").write_text(trace.replace("0xcb0ea2db", "0x12345678"))
    plan = write_plan(tmp_path / "plan.hjson",
                      '{"name": "nvidia", "kind": "nvidia_traces", "glob": "trace_tests/nv_small/*/*.cfg"}',
                      '{"name": "nvidia", "stage": "smoke", "desc": "d", "tests": ["nvidia"]}')
    out = tmp_path / "out"
    assert regress("--plan", str(plan), "--nvdla-data", str(tmp_path / "data"), "--impl", "golden", "--seed", "1",
                   "--out", str(out)) == 1
    [record] = [json.loads(path.read_text()) for path in (out / "results").glob("*.json")]
    assert record["status"] == "failed" and record["reproduce"]
    summary = (out / "summary.txt").read_text().splitlines()
    assert f"       {record['reproduce']}" in summary
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    shell = subprocess.run(["bash", "-c", record["reproduce"]], cwd=fresh,
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    assert not (fresh / "PWNED").exists() and not any(tmp_path.rglob("PWNED"))
    assert shell.returncode == 1, shell.stdout + shell.stderr
    [written] = [path for path in fresh.iterdir() if path.suffix == ".json"]
    assert written.name == f"repro-nvidia-nv_small-{PROBE}.json"
    assert "failed" in written.read_text()


def test_a_manifest_written_before_the_command_was_words_still_reads():
    """Older results folders hold how nvdla-verif was started as one shell-quoted string; resuming one reads
    the words back."""
    old = Settings(command="'/opt/my tools/python' -m ci.cli")
    assert old.command == ["/opt/my tools/python", "-m", "ci.cli"]
