"""One owner per output: a run locks its results folder or JSON file for as long as it runs.

    with owned(target, kind):   raises OutputInUse naming the other run's pid and start time

The lock is an flock on a file beside the target (a folder's DIR/.nvdla-verif.lock, a file's .FILE.lock) that
holds the owner's pid, start time and command line; the kernel releases it when the owner ends, however it
ends, so a killed run never leaves the target locked.
"""

from __future__ import annotations

import fcntl
import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from golden.errors import NvdlaVerifError

FOLDER_LOCK = ".nvdla-verif.lock"


class OutputInUse(NvdlaVerifError):
    """Another run is writing the same results folder or file."""


def lock_file(target: Path, kind: str) -> Path:
    return target / FOLDER_LOCK if kind == "folder" else target.with_name(f".{target.name}.lock")


@contextmanager
def owned(target: str | Path, kind: str = "folder"):
    """Hold `target` (kind "folder" or "file") for this run; refuse when another run holds it."""
    target = Path(target).resolve()
    path = lock_file(target, kind)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = open(path, "a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "a run that has not written its pid yet"
        handle.close()
        raise OutputInUse(f"{target} is being written by another run ({holder}); wait for it to end or choose "
                          "another output") from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"pid {os.getpid()}, started {time.strftime('%Y-%m-%d %H:%M:%S')}: "
                 f"{' '.join(sys.argv[1:])[:200]}\n")
    handle.flush()
    try:
        yield target
    finally:
        handle.close()
