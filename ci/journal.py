"""A run's journal: each result appended as one JSON line the moment it is known, so that a run killed
halfway loses nothing and `--resume` redoes only what has no line yet.

The first line is the run's header (what was asked: implementation, reference, options); a journal whose
header differs belongs to another run and is refused rather than mixed in.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from golden.errors import NvdlaVerifError


class Journal:
    def __init__(self, path: Path, header: dict):
        self.path, self.header = Path(path), header
        self._file = None

    def finished(self) -> dict[str, dict]:
        """key -> result of every line of an earlier run of the same header (empty when there is none)."""
        if not self._has_header():
            return {}
        lines = self.path.read_text().splitlines()
        try:
            header = json.loads(lines[0]) if lines else None
            if header != self.header:
                raise NvdlaVerifError(f"{self.path}: the journal is of another run ({header}); remove it or run "
                                      "without --resume")
            done = {}
            for number, line in enumerate(lines[1:], 2):
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError:
                    if number == len(lines):
                        break  # the line the kill cut short
                    raise
                done[entry["key"]] = entry["result"]
            return done
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise NvdlaVerifError(f"{self.path}: not a journal of nvdla-verif: {exc}") from None

    def _has_header(self) -> bool:
        """Whether there is a journal past its header: not when a full disk stopped the run before the header
        was whole (an empty file, or the start of this run's header line)."""
        try:
            with open(self.path) as file:
                first = file.readline(1 << 16)
        except FileNotFoundError:
            return False
        return not (json.dumps(self.header) + "\n").startswith(first) or first.endswith("\n")

    def open(self, resume: bool) -> None:
        keep = resume and self._has_header()
        if keep:
            self._trim_cut_line()
        self._file = open(self.path, "a" if keep else "w")  # closed in close()
        if not keep:
            self._write(self.header)

    def record(self, key: str, result: dict) -> None:
        self._write({"key": key, "result": result})

    def _write(self, entry: dict) -> None:
        self._file.write(json.dumps(entry) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def _trim_cut_line(self) -> None:
        text = self.path.read_text()
        if text and not text.endswith("\n"):
            self.path.write_text(text[:text.rfind("\n") + 1])

    def close(self, done: bool) -> None:
        if self._file is not None:
            self._file.close()
        if done:
            self.path.unlink(missing_ok=True)
