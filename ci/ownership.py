"""One owner per output: a run locks its results folder or JSON file for as long as it runs, and writes only
into a folder that is new, empty or its own command's earlier output.

    with owned(target, kind):           raises OutputInUse naming the other run's pid and start time
    with owned(folder, layout=LAYOUT):  also claims the folder for LAYOUT's command (ForeignOutput otherwise)
    claim(folder, layout)               the claim alone (a folder inside one the run already holds)
    clear(folder, names)                remove earlier output, only entries the folder's manifest lists

The lock is an flock on a file beside the target (a folder's DIR/.nvdla-verif.lock, a file's .FILE.lock) that
holds the owner's pid, start time and command line; the kernel releases it when the owner ends, however it
ends, so a killed run never leaves the target locked. A run that ends removes the lock file (a killed one leaves
it, harmless: the next run takes it over).

A claimed folder holds DIR/.nvdla-verif-output.json: the kind of output (say "regress results") and the names
of the entries at its top that the command writes (names or globs, listed before any of them is written, so
that an interrupted run's are listed too). A later run of the same kind writes there again and cleans only
entries the manifest lists; whatever else is in the folder is a person's and is never touched. A folder that
is neither new, empty nor so claimed is refused (a layout may recognise its command's folders written before
manifests existed).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

from golden.errors import NvdlaVerifError

FOLDER_LOCK = ".nvdla-verif.lock"
MANIFEST = ".nvdla-verif-output.json"
#: Entries of any claimed folder that belong to this module, not to a command.
OWN = (FOLDER_LOCK, MANIFEST, f"{MANIFEST}.tmp")
#: Foreign entries named in a refusal.
NAMED = 3


class OutputInUse(NvdlaVerifError):
    """Another run is writing the same results folder or file."""


class ForeignOutput(NvdlaVerifError):
    """An output folder holds entries the command did not write (a person's files, another command's output)."""


@dataclass(frozen=True)
class Layout:
    """One kind of output folder: the entries its command writes at the folder's top (names or globs), and how
    to recognise one written before manifests existed (None: it cannot be, such a folder is refused)."""
    kind: str
    entries: tuple[str, ...]
    written_before_manifests: Callable[[Path], bool] | None = None


def _listed(patterns: Iterable[str], name: str) -> bool:
    return any(fnmatchcase(name, pattern) for pattern in patterns)


def _manifest(folder: Path) -> dict | None:
    """The folder's manifest, None when it has none (or one no command of this project wrote)."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("kind"), str) or not isinstance(
            manifest.get("entries"), list) or not all(isinstance(e, str) for e in manifest["entries"]):
        return None
    return manifest


def _refuse(folder: Path, foreign: list[str], why: str) -> None:
    if not foreign:
        return
    named = ", ".join(foreign[:NAMED]) + (f" and {len(foreign) - NAMED} more" if len(foreign) > NAMED else "")
    count = f"{len(foreign)} entries" if len(foreign) > 1 else "1 entry"
    raise ForeignOutput(f"{folder}: {why} ({count} it did not write: {named}); move them away or choose a new or "
                        "empty folder")


def check(folder: str | Path, layout: Layout) -> dict | None:
    """Refuse `folder` unless it is new, empty or `layout`'s earlier output; reads only. Returns its manifest."""
    folder = Path(folder)
    if not folder.exists() and not folder.is_symlink():
        return None
    if not folder.is_dir():
        raise ForeignOutput(f"{folder}: not a folder; choose a new or empty folder for the {layout.kind}")
    present = sorted(p.name for p in folder.iterdir() if p.name not in OWN)
    manifest = _manifest(folder)
    if manifest is not None:
        if manifest["kind"] != layout.kind:
            raise ForeignOutput(f"{folder}: a {manifest['kind']} folder, not a {layout.kind} one; choose a new or "
                                "empty folder")
        # the names this version writes that an earlier run did not list: a person's, when present
        _refuse(folder, [n for n in present if _listed(layout.entries, n) and not _listed(manifest["entries"], n)],
                f"names the {layout.kind} writes that its manifest does not list")
        return manifest
    if present and not (layout.written_before_manifests and layout.written_before_manifests(folder)):
        _refuse(folder, present, f"not empty and not a {layout.kind} folder, no {MANIFEST} in it")
    return None


def claim(folder: str | Path, layout: Layout) -> Path:
    """Make `folder` `layout`'s output folder (created when missing): check it, then write its manifest."""
    folder = Path(folder)
    manifest = check(folder, layout)
    entries = sorted({*layout.entries, *(manifest["entries"] if manifest else ())})
    folder.mkdir(parents=True, exist_ok=True)
    temporary = folder / f"{MANIFEST}.tmp"
    temporary.write_text(json.dumps({"kind": layout.kind, "entries": entries}, indent=1) + "\n")
    os.replace(temporary, folder / MANIFEST)
    return folder


def clear(folder: str | Path, names: Iterable[str]) -> None:
    """Remove the entries `names` of a claimed folder, each only when its manifest lists it (a symbolic link
    goes, never what it points to)."""
    folder = Path(folder)
    listed = (_manifest(folder) or {}).get("entries", [])
    for name in names:
        path = folder / name
        if not path.exists() and not path.is_symlink():
            continue
        if not _listed(listed, name):
            raise ForeignOutput(f"{path}: not listed in {folder / MANIFEST}; it was not written by this project "
                                "and is left as it is")
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink()


def lock_file(target: Path, kind: str) -> Path:
    return target / FOLDER_LOCK if kind == "folder" else target.with_name(f".{target.name}.lock")


@contextmanager
def owned(target: str | Path, kind: str = "folder", layout: Layout | None = None):
    """Hold `target` (kind "folder" or "file") for this run; refuse when another run holds it. With `layout`,
    also claim the folder for it (refused before anything is written in it). The lock file goes when the run
    ends (removed while it is still held: see _locked)."""
    target = Path(target).resolve()
    if layout is not None:
        check(target, layout)
    path = lock_file(target, kind)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = _locked(path, target)
    handle.seek(0)
    handle.truncate()
    handle.write(f"pid {os.getpid()}, started {time.strftime('%Y-%m-%d %H:%M:%S')}: "
                 f"{' '.join(sys.argv[1:])[:200]}\n")
    handle.flush()
    try:
        if layout is not None:
            claim(target, layout)
        yield target
    finally:
        try:
            path.unlink(missing_ok=True)  # still held: a run that opened it meanwhile finds it gone and retries
        finally:
            handle.close()


def _locked(path: Path, target: Path):
    """The lock file at `path`, opened and flocked. A run that ends removes its lock file while holding it, so a
    run that was waiting may have locked a file no longer at the path: it checks, after locking, that the file
    it holds is the one the path names, and otherwise starts again on the new one."""
    while True:
        handle = open(path, "a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "a run that has not written its pid yet"
            handle.close()
            raise OutputInUse(f"{target} is being written by another run ({holder}); wait for it to end or choose "
                              "another output") from None
        held = os.fstat(handle.fileno())
        try:
            current = os.stat(path)
        except FileNotFoundError:
            current = None
        if current is not None and (current.st_dev, current.st_ino) == (held.st_dev, held.st_ino):
            return handle
        handle.close()
