"""The documentation: README.md stays a short first page whose links lead somewhere, the site (docs/ and
mkdocs.yml) builds in strict mode with its reference pages generated from the code, and the cheap examples of the
README and the guides (a ```sh block after an `<!-- run: ... -->` comment) run as written."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]
EXAMPLE = re.compile(r"<!-- run: [^>]*-->\n```sh\n(.*?)```", re.DOTALL)
LINK = re.compile(r"\]\(([^)#]+)(#[^)]*)?\)")


def _examples() -> list[tuple[str, str]]:
    return [(f"{page.relative_to(ROOT)}#{number}", block) for page in PAGES
            for number, block in enumerate(EXAMPLE.findall(page.read_text()), 1)]


def _environment(**more) -> dict:
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path, "NO_MKDOCS_2_WARNING": "1", **more}


def test_the_readme_is_a_short_first_page_with_the_test_command_ci_runs():
    text = README.read_text()
    lines = text.splitlines()
    assert len(lines) <= 200
    assert [number for number, line in enumerate(lines, 1) if len(line) > 120] == []
    command = re.search(r"\.venv/bin/python -m pytest[^\n;&|]*", (ROOT / ".ci" / "run").read_text())
    assert command and command.group(0).strip() in text


def test_the_readme_links_lead_to_files():
    targets = [t for t, _ in LINK.findall(README.read_text()) if "://" not in t]
    assert any(t.startswith("docs/") for t in targets)
    assert [t for t in targets if not (ROOT / t).is_file()] == []


def test_the_readme_and_the_guides_have_examples_to_run():
    pages = {name.split("#")[0] for name, _ in _examples()}
    assert "README.md" in pages and any(page.startswith("docs") for page in pages)


def test_the_site_builds_strictly_with_its_reference_pages(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    site = tmp_path / "site"
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                             str(ROOT / "mkdocs.yml"), "--site-dir", str(site)],
                            capture_output=True, text=True, env=_environment(), timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    commands = (site / "reference" / "commands.html").read_text()
    assert "usage: nvdla-verif conform" in commands and "usage: nvdla-verif report merge" in commands
    from golden.rules import all_rules
    rules = (site / "reference" / "rules.html").read_text()
    assert [r.id for r in all_rules() if r.id not in rules] == []
    schemas = (site / "reference" / "schemas.html").read_text()
    assert [p.name for p in (ROOT / "golden" / "formats").glob("*.schema.json") if p.name not in schemas] == []
    for page in site.rglob("*.html"):
        assert "fonts.googleapis.com" not in page.read_text(), page  # the readers' machines have no network


@pytest.mark.parametrize("block", [block for _, block in _examples()], ids=[name for name, _ in _examples()])
def test_a_cheap_example_runs_as_written(block, tmp_path):
    bin_folder = tmp_path / "venv-bin"
    bin_folder.mkdir()
    (bin_folder / "python").symlink_to(sys.executable)
    launcher = bin_folder / "nvdla-verif"
    launcher.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m ci.cli "$@"\n')
    launcher.chmod(0o755)
    script = block.replace(".venv/bin/", f"{bin_folder}/")
    result = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path, capture_output=True,
                            text=True, env=_environment(), timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip()


@pytest.mark.slow
def test_the_readme_names_a_fast_tier_first_whose_markers_leave_out_rtl_cluster_and_slow_tests():
    pytest.importorskip("hjson")  # suites/cluster needs both to be collected
    pytest.importorskip("xdist")
    text = README.read_text()
    full = re.search(r"\.venv/bin/python -m pytest[^\n;&|]*", (ROOT / ".ci" / "run").read_text()).group(0).strip()
    fast = re.search(r'\.venv/bin/python -m pytest [^\n]*-m "([^"]+)"', text)
    assert fast and text.index(fast.group(0)) < text.index(full)

    def collected(expression: str, *paths: str) -> list[str]:
        done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--collect-only", "-q",
                               "-m", expression, *paths], cwd=ROOT, capture_output=True, text=True,
                              env=_environment(), timeout=300)
        assert done.returncode in (0, 5), done.stdout[-3000:] + done.stderr[-3000:]  # 5: nothing selected
        return [line for line in done.stdout.splitlines() if "::" in line]

    for marker in ("slow", "rtl", "cluster"):
        assert f"not {marker}" in fast.group(1), marker
    assert collected("cluster", "suites/cluster")  # the Slurm tests carry the marker the fast tier leaves out
    assert collected(fast.group(1), "suites/cluster") == []
