"""A pytest plugin `nvdla-verif regress` loads (-p ci.regression.progress): a progress line as tests finish.

    regress: [12/40] 1 failed, 0 errors, 2 skipped, 3 not applicable; 1m20s elapsed, about 3m10s left

At most one line every PROGRESS_EVERY_S seconds, and always for a failure and for the last test, so a
long run shows where it is without flooding the log. Runs in pytest-xdist's controller too.

It also declares the option regress names the run's manifest with, --regress-manifest=OUT/pending.json: the one
way the session and its workers (pytest-xdist hands them the options) learn the run, its items and its settings.
"""

from __future__ import annotations

import json
import time

from ci.regression.results import NOT_APPLICABLE

PROGRESS_EVERY_S = 10.0
#: The option that names the run's manifest (ci/regression/pytest_driver.py reads it).
MANIFEST_OPTION = "--regress-manifest"


class Progress:
    def __init__(self, total: int):
        self.total, self.done, self.failed, self.errors, self.skipped, self.not_applicable = total, 0, 0, 0, 0, 0
        self.started = time.monotonic()
        self.last_line = self.started

    def count(self, report) -> bool:
        """Count a finished test; True when it is worth a line now."""
        if report.when == "call" or (report.when == "setup" and not report.passed):
            self.done += 1
            if report.skipped and NOT_APPLICABLE in str(report.longrepr):
                self.not_applicable += 1
            elif report.skipped:
                self.skipped += 1
            elif report.failed and report.when == "call" and "RegressionError" not in str(report.longrepr)[-4000:]:
                self.failed += 1
            elif report.failed:
                self.errors += 1
            return report.failed or self.done == self.total
        if report.when == "teardown" and report.failed:
            self.errors += 1
            return True
        return False

    def line(self) -> str:
        elapsed = time.monotonic() - self.started
        left = elapsed / self.done * (self.total - self.done) if self.done else 0.0
        return (f"regress: [{self.done}/{self.total}] {self.failed} failed, {self.errors} errors, "
                f"{self.skipped} skipped, {self.not_applicable} not applicable; {clock(elapsed)} elapsed, "
                f"about {clock(left)} left")


def clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


_progress: Progress | None = None
_terminal = None


def pytest_addoption(parser):
    parser.addoption(MANIFEST_OPTION, metavar="FILE", help="the manifest of the `nvdla-verif regress` run whose "
                     "items this session runs (regress writes it: OUT/pending.json)")


def manifest_path(config) -> str | None:
    return config.getoption(MANIFEST_OPTION.lstrip("-").replace("-", "_"), None)


def pytest_configure(config):
    global _progress, _terminal
    _terminal = config.pluginmanager.getplugin("terminalreporter")
    manifest = manifest_path(config)
    if manifest and not hasattr(config, "workerinput"):  # the controller (or a run without xdist)
        with open(manifest) as f:
            _progress = Progress(len(json.load(f)["items"]))


def pytest_runtest_logreport(report):
    if _progress is None:
        return
    if _progress.count(report) or time.monotonic() - _progress.last_line >= PROGRESS_EVERY_S:
        _progress.last_line = time.monotonic()
        if _terminal is not None:
            _terminal.ensure_newline()
            _terminal.write_line(_progress.line())
        else:
            print(_progress.line(), flush=True)
