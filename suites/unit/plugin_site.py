"""A distribution installed the way pip leaves one: a folder on sys.path with <name>-<version>.dist-info
(METADATA, entry_points.txt) beside the modules, so importlib.metadata finds its entry points."""

from __future__ import annotations

from pathlib import Path


def install(site: Path, distribution: str, entry_points: str, files: dict[str, str], monkeypatch) -> Path:
    """Write `files` (relative path -> text) and the distribution's metadata under `site`, put it on sys.path."""
    info = site / f"{distribution.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(entry_points)
    for relative, text in files.items():
        path = site / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    monkeypatch.syspath_prepend(str(site))
    return site
