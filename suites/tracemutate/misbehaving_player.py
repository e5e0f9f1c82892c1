"""A stand-in for golden.player.play that misbehaves on purpose, for the harness's own tests.

The trace's text says how: RAISE (play reports an exception from outside the project family, as
golden.player.play does: "internal error ..."), ESCAPE (an exception escapes play itself), DIE (the process
exits), HANG (no answer), HOG (300 MiB resident). Anything else passes.
"""

from __future__ import annotations

import os
import time
from types import SimpleNamespace


def play(path, profile):
    text = open(path, "rb").read()
    if b"RAISE" in text:
        return SimpleNamespace(status="error", detail="internal error KeyError: 'x' (misbehaving_player.py:1)")
    if b"ESCAPE" in text:
        raise KeyError("escaped")
    if b"DIE" in text:
        os._exit(3)
    if b"HANG" in text:
        time.sleep(600)
    if b"HOG" in text:
        hog = b"x" * (300 << 20)
        return SimpleNamespace(status="passed", detail=f"held {len(hog)} bytes")
    return SimpleNamespace(status="passed", detail=f"{profile.name}")
