"""The HTML report: Allure 3 single file, self-contained, opened in headless Chromium: the suites, a failing
test's attachments and the triage categories render (one test fails on purpose: a wrong byte). Then what each
test's page says, read from the Allure results of one small run of an external program: one test passes, one
fails (a wrong byte), one is skipped (a missing data file), one errors (the program crashes)."""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
import sys

import pytest

from ci.regression.html import ReportError, allure_command, outside_references, self_contained
from suites.unit.ci.regress_helpers import data_root, faulty_impl, regress, write_plan

TESTS = '{"name": "traces", "kind": "nvidia_traces", "glob": "trace_tests/nv_small/*/*.cfg"}'
POINTS = ('{"name": "sdp_report_check", "stage": "smoke", "desc": "report (README)", "tests": ["traces"], '
          '"covers": ["nv_small.sdp.width"]}')
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                  "--virtual-time-budget=20000", "--host-resolver-rules=MAP * ~NOTFOUND")


def test_the_analytics_tag_is_removed_and_outside_resources_are_refused():
    page = ('<html><head><script>window.x=1</script></head><body><div id="app"></div>'
            '<script async src="https://www.googletagmanager.com/gtag/js?id=G-1"></script>\n<script>\n'
            "window.dataLayer = window.dataLayer || [];\nfunction gtag(){dataLayer.push(arguments);}\n"
            "gtag('js', new Date());\n</script>\n<script>var ok=1</script></body></html>")
    clean = self_contained(page)
    assert "googletagmanager" not in clean and "gtag(" not in clean and "var ok=1" in clean
    for outside in ('<img src="https://example.org/a.png">', "<link href='//cdn.example/x.css'>",
                    "<style>body{background:url( 'http://x/y.png')}</style>"):
        with pytest.raises(ReportError, match="outside the file"):
            self_contained(page.replace('<div id="app">', outside + '<div id="app">'))
    assert outside_references('<svg xmlns="http://www.w3.org/2000/svg"></svg><a>https://x</a>') == []


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        pytest.skip("no chromium (bash ci/setup.sh --test installs Debian's)")
    return found


def _dom(chromium: str, page, route: str = "") -> str:
    done = subprocess.run([chromium, *CHROMIUM_FLAGS, "--dump-dom", f"{page.as_uri()}{route}"], capture_output=True,
                          text=True, timeout=180)
    return done.stdout


def _test_results(page) -> dict[str, dict]:
    """The test results the single-file report embeds: {report id: result}."""
    found = {}
    for name, value in re.findall(r'd\("data/test-results/([0-9a-f]+)\.json","([^"]*)"\)', page.read_text()):
        found[name] = json.loads(base64.b64decode(value))
    return found


def test_the_report_renders_suites_a_failing_tests_attachments_and_categories(nvdla_data, tmp_path):
    pytest.importorskip("hjson")
    pytest.importorskip("allure_pytest")
    chromium = _chromium()
    try:
        allure_command()
    except ReportError as exc:
        pytest.skip(str(exc))
    root = data_root(nvdla_data, tmp_path / "data", ("sdp_1x1x1_pass_through_int8", "sdp_3x3x33_bs_int8_reg_0"))
    plan = write_plan(tmp_path / "plan.hjson", TESTS, POINTS)
    out = tmp_path / "out"
    code = regress("--plan", str(plan), "--nvdla-data", str(root), "--impl", faulty_impl(), "--ref", "golden",
                   "--seed", "9", "--out", str(out), "--html",
                   env={"NVDLA_FAULTS": "sdp_3x3x33_bs_int8_reg_0=wrong-byte"})
    assert code == 1
    page = out / "report.html"
    text = page.read_text()
    assert outside_references(text) == [] and "googletagmanager" not in text
    assert not (out / "report").exists()  # one file, nothing beside it

    main = _dom(chromium, page)
    assert "sdp_report_check" in main  # the testpoint is the suite
    assert "nvidia/nv_small/sdp_1x1x1_pass_through_int8" in main and "nvidia/nv_small/sdp_3x3x33_bs_int8_reg_0" in main

    results = _test_results(page)
    failed = [key for key, r in results.items() if r["status"] == "failed"]
    assert len(failed) == 1 and results[failed[0]]["name"] == "nvidia/nv_small/sdp_3x3x33_bs_int8_reg_0"
    detail = _dom(chromium, page, f"#/{failed[0]}")
    for attachment in ("trace sdp_3x3x33_bs_int8_reg_0.cfg", "decoded registers", "mismatch report",
                       "mismatch picture SDP output", "reproduce"):
        assert attachment in detail, attachment
    assert "1 of 360 elements mismatch" in detail

    raw = [json.loads(f.read_text()) for f in (out / "allure-results").glob("*-result.json")]
    failing = next(r for r in raw if r["status"] == "failed")
    registers = next(a for a in failing["attachments"] if a["name"] == "decoded registers")
    assert "SDP.D_DP_BS_CFG" in (out / "allure-results" / registers["source"]).read_text()

    assert "testplan sign-off" not in [r["name"] for r in results.values()]  # the sign-off is no test
    assert "**Reproduce** (paste into a shell):" in failing["description"]
    assert "assert 'failed' == 'passed'" not in json.dumps(failing)
    assert detail.index("reproduce: ") < detail.index("Parameters")  # in the error box at the top of the page
    globals_tab = _dom(chromium, page, "#globalAttachments")
    for name in ("signoff.csv", "signoff.txt", "coverage.txt"):
        assert name in globals_tab, name
    table = (out / "signoff.csv").read_text()
    for cell in ("sdp_report_check", "pass rate", '"1"', '"2"', "50%"):
        assert cell in table, cell
    assert re.search(r"\d+\.\d% \(\d+/4 bins\)", table)  # nv_small.sdp.width: 4 bins
    assert (out / "allure-history.jsonl").stat().st_size > 0  # Allure's own history, for the next run's page

    # Two more runs in the folder: the faulty layer passes once, then fails again, so Allure calls it flaky.
    for seed, faults, code in (("10", "", 0), ("11", "sdp_3x3x33_bs_int8_reg_0=wrong-byte", 1)):
        assert regress("--plan", str(plan), "--nvdla-data", str(root), "--impl", faulty_impl(), "--ref", "golden",
                       "--seed", seed, "--out", str(out), "--html", env={"NVDLA_FAULTS": faults}) == code
    third = _test_results(page)
    assert all(len(r.get("history", [])) == 2 for r in third.values())  # the earlier runs, from Allure's history
    failing_again = next(key for key, r in third.items() if r["status"] == "failed")
    assert third[failing_again]["flaky"] is True
    assert re.search(r"History<small[^>]*>2<", _dom(chromium, page, f"#/{failing_again}"))
    assert "None" not in (out / "allure-results" / "environment.properties").read_text()

    bucket = json.loads((out / "results.json").read_text())["buckets"][0]["signature"]
    categories = _dom(chromium, page, "#/categories")
    assert bucket.replace("<", "&lt;").replace(">", "&gt;")[:60] in categories


PASSES, FAILS = "sdp_1x1x1_pass_through_int8", "sdp_3x3x33_bs_int8_reg_0"
SKIPS, ERRS = "sdp_1x1x8_pass_through_int8_0", "sdp_8x8x32_bypass_int8_0"


@pytest.fixture(scope="module")
def pages(nvdla_data, tmp_path_factory) -> dict:
    """{trace name: its Allure result, with "files": {attachment name: text}} of one run (no HTML: only the
    results Allure builds the page from), and the run's results.json as "report"."""
    pytest.importorskip("hjson")
    pytest.importorskip("allure_pytest")
    tmp = tmp_path_factory.mktemp("pages")
    root = data_root(nvdla_data, tmp / "data", (PASSES, FAILS, SKIPS, ERRS))
    for data in (root / "trace_tests" / "nv_small" / SKIPS).glob("*.dat"):
        data.unlink()
    plan = write_plan(tmp / "plan.hjson", TESTS, POINTS)
    out = tmp / "out"
    code = regress("--plan", str(plan), "--nvdla-data", str(root), "--impl", faulty_impl(), "--ref", "golden",
                   "--seed", "3", "--out", str(out), env={"NVDLA_FAULTS": f"{FAILS}=wrong-byte,{ERRS}=crash"})
    assert code == 1
    found = {"report": json.loads((out / "results.json").read_text()), "containers": []}
    for path in (out / "allure-results").glob("*-result.json"):
        result = json.loads(path.read_text())
        result["files"] = {a["name"]: (out / "allure-results" / a["source"]).read_text(errors="replace")
                           for a in result.get("attachments", [])}
        found[result["name"].rsplit("/", 1)[1]] = result
    found["containers"] = [json.loads(p.read_text()) for p in (out / "allure-results").glob("*-container.json")]
    assert {name: found[name]["status"] for name in (PASSES, FAILS, SKIPS, ERRS)} == {
        PASSES: "passed", FAILS: "failed", SKIPS: "skipped", ERRS: "broken"}
    return found


def _record(pages: dict, name: str) -> dict:
    return next(r for r in pages["report"]["tests"] if r["id"].endswith("/" + name))


def _plain(markdown: str) -> str:
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)


@pytest.mark.slow
def test_a_passed_test_of_another_implementation_shows_its_decoded_registers(pages):
    registers = pages[PASSES]["files"]["decoded registers"]
    assert "== layer 0: SDP" in registers and "SDP.D_DATA_CUBE_WIDTH = 0x00000000" in registers  # a 1x1x1 cube


@pytest.mark.slow
def test_only_a_mismatch_has_a_mismatch_report(pages):
    assert "mismatch report" not in pages[PASSES]["files"] and "mismatch report" not in pages[SKIPS]["files"]
    assert "1 of 360 elements mismatch" in pages[FAILS]["files"]["mismatch report"]


def test_a_skip_says_its_reason_as_a_skip_not_as_an_error(pages):
    skipped = pages[SKIPS]
    assert not skipped.get("statusDetails")  # Allure 3 heads a status message "Error"
    assert _plain(skipped["description"]).startswith(f"**skipped**: missing file: {SKIPS}.dat")


def test_an_error_page_says_what_broken_means_here(pages):
    description = pages[ERRS]["description"]
    assert description.startswith("**error**") and "Broken" in description and "not a mismatch" in description
    assert pages[ERRS]["statusDetails"]["message"].startswith(_record(pages, ERRS)["detail"])
    assert "Traceback" not in json.dumps(pages[ERRS]) and "RegressionError" not in json.dumps(pages[ERRS])


def test_a_failures_message_starts_with_its_detail_then_its_bucket(pages):
    message, record = pages[FAILS]["statusDetails"]["message"], _record(pages, FAILS)
    assert message.startswith(record["detail"]) and "#" not in message.splitlines()[0]
    bucket = next(b["signature"] for b in pages["report"]["buckets"] if b["parts"] == record["signature"])
    assert message.index(record["detail"]) < message.index(f"[{bucket}]")
    assert not pages[FAILS]["statusDetails"].get("trace")


def test_parameters_are_readable(pages):
    for name in (PASSES, FAILS, SKIPS, ERRS):
        shown = {p["name"]: p["value"] for p in pages[name]["parameters"]}
        assert shown["id"] == f"nvidia/nv_small/{name}" and shown["kind"] == "nvidia_traces"
        assert shown["profile"] == "nv_small" and not any("Item(" in v or "'" in v for v in shown.values())


def test_no_fixture_setup_or_teardown_is_listed(pages):
    listed = [c for c in pages["containers"] if c.get("children")]  # a fixture of a test: its page lists the steps
    assert [step for c in listed for step in c.get("befores", []) + c.get("afters", [])] == []


def test_the_suite_is_named_by_the_programs_base_name_and_the_description_has_the_whole_line(pages):
    level = pages["report"]["meta"]["level"]
    for name in (PASSES, FAILS, SKIPS, ERRS):
        labels = {label["name"]: label["value"] for label in pages[name]["labels"]}
        assert labels["parentSuite"] == f"{level} (command:regress_faulty_program.py vs golden)"
        assert faulty_impl().split(":", 1)[1] in _plain(pages[name]["description"])


@pytest.mark.parametrize("spec, label", [
    ("golden", "golden"), ("rtl", "rtl"), (None, "none"),
    (f"command:{sys.executable} -u /home/me/models/model.py --fast", "command:model.py"),
    ("command:./my_model --fast", "command:my_model"),
    ("command:env NVDLA_X=1 '/opt/my tools/bin/sim' -q", "command:sim"),
    ("dlhdl:/data/nets/lenet.json", "dlhdl:lenet.json"),
])
def test_an_implementation_label_is_short(spec, label):
    from ci.regression.report_page import implementation_label

    assert implementation_label(spec) == label
