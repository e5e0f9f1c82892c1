"""The HTML report: Allure 3 (npm package `allure`, installed into ci/report/ by `bash ci/setup.sh --test`),
its "awesome" plugin in single-file mode, made self-contained.

    build(results_dir, page, name) -> Path     one HTML file; raises ReportError when it would load anything
                                               from outside itself

Allure 3's templates add a Google Analytics tag (`analyticsEnable: true` is hard-coded in the awesome
plugin's generator as of 3.18; ALLURE_NO_ANALYTICS only reaches the allure2 plugin). The report is meant
for a verification engineer's browser, often offline or behind a proxy, so build() removes that tag and
then refuses a page that still references an outside script, stylesheet, image or frame.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from golden.errors import NvdlaVerifError

REPORT_TOOLS = Path(__file__).resolve().parents[1] / "report"
ALLURE_TIMEOUT_S = 600
_ANALYTICS = re.compile(
    r"<script[^>]*googletagmanager[^>]*>\s*</script>\s*<script>(?:(?!</script>).)*?gtag\((?:(?!</script>).)*?</script>",
    re.S)
#: An attribute or CSS url() that makes the browser fetch something from another origin.
_OUTSIDE = re.compile(r"""(?:\b(?:src|href|action|data|poster)\s*=\s*["']?\s*(?:https?:)?//"""
                      r"""|url\(\s*["']?\s*(?:https?:)?//|@import\s+["']?(?:https?:)?//)""", re.I)


class ReportError(NvdlaVerifError):
    """The HTML report cannot be built or would not be self-contained."""


def allure_command() -> list[str]:
    local = REPORT_TOOLS / "node_modules" / ".bin" / "allure"
    if local.is_file():
        return [str(local)]
    found = shutil.which("allure")
    if found and _is_allure3(found):
        return [found]
    raise ReportError("the HTML report needs Allure 3 (npm package allure): bash ci/setup.sh --test installs it "
                      f"into {REPORT_TOOLS}")


def _is_allure3(path: str) -> bool:
    try:
        version = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return False
    return version.startswith("3.")


#: What a run's folder gives its report beside the test results: the sign-off and the coverage holes as the
#: report's global attachments (the sign-off is no test), and Allure's own history across the runs in the folder.
RUN_ATTACHMENTS = ("signoff.csv", "signoff.txt", "coverage.txt")
HISTORY = "allure-history.jsonl"


def build_run(out: Path, name: str, *, new_run: bool = True) -> Path:
    """OUT/report.html of a regress (or merged) results folder; `new_run` adds this run to the folder's Allure
    history (a rebuild of the same run's page does not)."""
    out = Path(out)
    return build(out / "allure-results", out / "report.html", name,
                 attachments=[out / f for f in RUN_ATTACHMENTS if (out / f).is_file()],
                 history=out / HISTORY, append_history=new_run)


def build(results_dir: Path, page: Path, name: str, categories: list[dict] | None = None, *,
          attachments: list[Path] = (), history: Path | None = None, append_history: bool = True) -> Path:
    results_dir, page = Path(results_dir), Path(page)
    if not results_dir.is_dir():
        raise ReportError(f"{results_dir}: no Allure results (was allure-pytest installed?)")
    if categories is None and (results_dir / "categories.json").is_file():
        categories = json.loads((results_dir / "categories.json").read_text())
    with tempfile.TemporaryDirectory(prefix="nvdla-allure-") as work:
        work = Path(work)
        config = {"name": name, "output": str(work / "site"),
                  "plugins": {"awesome": {"options": {"singleFile": True, "reportName": name,
                                                         "groupBy": ["parentSuite", "suite", "subSuite"]}}}}
        if categories:
            config["categories"] = categories
        if attachments:
            config["globalAttachments"] = [str(Path(a).resolve()) for a in attachments]
        if history is not None:
            config.update(historyPath=str(Path(history).resolve()), appendHistory=append_history)
        (work / "allurerc.json").write_text(json.dumps(config, indent=1))
        env = {**os.environ, "ALLURE_NO_ANALYTICS": "true", "NO_COLOR": "1"}
        try:
            done = subprocess.run([*allure_command(), "generate", str(results_dir.resolve()), "--config",
                                   str(work / "allurerc.json"), "--output", str(work / "site")],
                                  cwd=work, env=env, capture_output=True, text=True, timeout=ALLURE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise ReportError(f"allure generate ran over {ALLURE_TIMEOUT_S} s") from None
        index = next(iter(sorted((work / "site").rglob("index.html"))), None)
        if done.returncode or index is None:
            tail = (done.stdout + done.stderr).strip()[-600:]
            raise ReportError(f"allure generate failed (exit {done.returncode}): {tail}")
        text = self_contained(index.read_text(encoding="utf-8"))
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(text, encoding="utf-8")
    return page


def self_contained(text: str) -> str:
    """The page without Allure's analytics tag; a ReportError if it still references another origin."""
    text = _ANALYTICS.sub("", text)
    outside = outside_references(text)
    if outside:
        raise ReportError(f"the HTML report would load {len(outside)} thing(s) from outside the file, first: "
                          f"{outside[0]}")
    return text


def outside_references(text: str) -> list[str]:
    return [text[max(0, m.start() - 40):m.end() + 60] for m in _OUTSIDE.finditer(text)]
