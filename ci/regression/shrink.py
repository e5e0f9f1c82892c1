"""Shrinking a failing generated layer: the smallest layer of the same family that still fails the same way.

A generator takes every decision from a chooser (stimulus/choose.py). `Recorder` wraps the seeded chooser the
regression used and records each decision as a number in [low, high]; `Recorder.replay(values)` makes them
again, clamped to the bounds the generator asks for then, the lower end past the recorded ones. Shrinking
moves one decision at a time towards its lower end (sizes to their smallest, choices to their first option,
flags off), keeps a change when the layer still fails with the same triage signature and its trace is no
larger, and stops after `budget` attempts: the same failing layer always shrinks to the same layer.

    shrink_buckets(out, manifest, records, settings, budget)   the smallest generated failure of each triage
                                                               bucket, shrunk: OUT/shrunk/ID.json + NAME/NAME.cfg
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Collection
from pathlib import Path

import numpy as np

from ci import shell
from ci.regression.engine import Settings, implementation_arguments, layer_bytes, play_layer
from ci.regression.results import buckets, shrunk_file
from ci.regression.signature import normalise, result_signature, text
from golden.config import get_profile
from golden.errors import NvdlaVerifError
from golden.status import FAILING
from stimulus.choose import Seeded
from stimulus.export import GenerationError, write_trace
from stimulus.families import draw_layers

#: Decisions that seed bulk data: replayed, never shrunk (another seed is not a smaller layer).
DATA = -1


class Recorder:
    """A chooser that draws from a Seeded source (values None) or replays values, recording every decision."""

    def __init__(self, seed=None, values: list[int] | None = None):
        self.source = Seeded(seed) if values is None else None
        self.values = values or []
        self.drawn: list[tuple[int, int, int]] = []  # (low, high, value); low DATA for a data seed

    def _draw(self, low: int, high: int, fresh) -> int:
        position = len(self.drawn)
        if self.source is not None:
            value = fresh()
        elif position < len(self.values):
            value = min(max(self.values[position], low), high)
        else:
            value = low
        self.drawn.append((low, high, value))
        return value

    def integer(self, low: int, high: int) -> int:
        return self._draw(low, high, lambda: self.source.integer(low, high))

    def size(self, low: int, high: int) -> int:
        return self._draw(low, high, lambda: self.source.size(low, high))

    def choice(self, options):
        return options[self._draw(0, len(options) - 1, lambda: self.source.integer(0, len(options) - 1))]

    def flag(self, chance: float = 0.5) -> bool:
        return bool(self._draw(0, 1, lambda: int(self.source.flag(chance))))

    def data(self) -> np.random.Generator:
        position = len(self.drawn)
        if self.source is not None:
            value = int(self.source.rng.integers(0, 1 << 63))
        else:
            value = self.values[position] if position < len(self.values) else 0
        self.drawn.append((DATA, DATA, value))
        return np.random.default_rng(value)

    def values_drawn(self) -> list[int]:
        return [value for _, _, value in self.drawn]


class _Attempts:
    def __init__(self, family, profile, settings: Settings, folder: Path, signature: str, budget: int, edit=None):
        self.family, self.profile, self.settings = family, profile, settings
        self.folder, self.signature, self.left = folder, signature, budget
        self.edit = edit or (lambda layers: layers)
        self.number = 0

    def fails(self, values: list[int], count: int) -> tuple[Path, list[int]] | None:
        """(trace, the decisions the generator made) when these decisions give a layer failing the same way."""
        self.left -= 1
        self.number += 1
        choose = Recorder(values=values)
        try:
            layers = self.edit(draw_layers(self.family, self.profile, choose, count))
        except Exception:  # a replayed decision the generator cannot use: not this failure
            return None
        name = f"try{self.number}"
        try:
            path = write_trace(layers, self.folder / name, name, self.profile)
        except GenerationError as exc:
            found = text({"unit": self.family.upper(), "implementation": "golden", "check": "generation",
                          "pattern": normalise(str(exc))})
            return (self.folder / name / f"{name}.cfg", choose.values_drawn()) if found == self.signature else None
        except NvdlaVerifError:
            return None
        s = self.settings
        result = play_layer(path, self.profile, s.impl, s.reference_spec(), s.timeout_scale, settings=s.decided)
        if result.status in FAILING and text(result_signature(result)) == self.signature:
            return path, choose.values_drawn()
        return None


def _key(path: Path, values: list[int], drawn: list[tuple[int, int, int]]) -> tuple[int, int]:
    offset = sum(v - low for (low, _, _), v in zip(drawn, values, strict=False) if low != DATA)
    return layer_bytes(path), offset


def shrink_item(record: dict, params: dict, settings: Settings, out: Path, budget: int = 40,
                edit=None) -> dict | None:
    """Shrink a failed generated item's layers; None when the failure does not reproduce (e.g. a flaky DUT).
    `edit(layers) -> layers` is applied to every drawing (the fuzzing loop's register-field edits)."""
    if params.get("corners"):
        return None  # corner-aimed layers: the recorder redraws the family's plain ones
    family, count = params["family"], params["layers"]
    profile = get_profile(params["profile"])
    name = record["id"].replace("/", "_")
    work = out / "work" / "shrink" / name
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    recorder = Recorder(seed=[params["seed"], params.get("index", 0)])
    draw_layers(family, profile, recorder, count)
    attempts = _Attempts(family, profile, settings, work, text(record["signature"]), budget, edit)
    first = attempts.fails(recorder.values_drawn(), count)
    if first is None:
        return None
    best_path, best = first
    drawn = Recorder(values=best)
    draw_layers(family, profile, drawn, count)
    changed = True
    while changed and attempts.left > 0:
        changed = False
        for index in range(len(best)):
            low, _, value = drawn.drawn[index] if index < len(drawn.drawn) else (DATA, DATA, 0)
            if low == DATA or value <= low:
                continue
            for candidate in sorted({low, (low + value) // 2, value - 1}):
                if attempts.left <= 0:
                    break
                trial = [*best[:index], candidate, *best[index + 1:]]
                found = attempts.fails(trial, count)
                if found and _key(found[0], found[1], _drawn(family, profile, found[1], count)) < _key(
                        best_path, best, drawn.drawn):
                    best_path, best = found
                    drawn = Recorder(values=best)
                    draw_layers(family, profile, drawn, count)
                    changed = True
                    break
    if count > 1 and attempts.left > 0 and (single := attempts.fails(best, 1)) is not None:
        count, (best_path, best) = 1, single  # the first layer alone fails the same way
    target = out / "shrunk" / name
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(best_path.parent, target)
    trace = target / best_path.name
    trace.rename(target / f"{name}.cfg")
    return {"id": record["id"], "path": f"shrunk/{name}/{name}.cfg", "bytes": layer_bytes(target / f"{name}.cfg"),
            "from_bytes": record.get("size_bytes"), "layers": count, "attempts": attempts.number, "decisions": best,
            "describe": _describe(family, profile, best, count),
            "reproduce": shell.line([*settings.command, "conform", f"shrunk/{name}/{name}.cfg",
                                     *shell.option("--profile", params["profile"]),
                                     *implementation_arguments(settings)])}


def _drawn(family, profile, values, count):
    recorder = Recorder(values=values)
    draw_layers(family, profile, recorder, count)
    return recorder.drawn


def _describe(family: str, profile, values: list[int], count: int) -> str:
    """What the generator chose for the shrunk layers, in its own words (Layer.choices)."""
    layers = draw_layers(family, profile, Recorder(values=values), count)
    return "; ".join(f"{layer.family}: " + ", ".join(f"{k}={v}" for k, v in layer.choices.items())
                     for layer in layers)[:300]


def shrink_buckets(out: Path, manifest: dict, records: list[dict], settings: Settings, budget: int,
                   shrinkable: Collection[str], say=print) -> None:
    """Shrink the smallest generated failure of each bucket (the one the report shows), once per folder; not a
    corner-aimed one (the shrinker redraws the family's plain layers, whose data would not aim). `shrinkable`:
    the test kinds that declare themselves so (ci/regression/kinds/base.py TestKind.shrinkable)."""
    params = {item["id"]: item["params"] for item in manifest["items"]}
    for bucket in buckets(records):
        member = generated_smallest([r for r in records if r["id"] in bucket["tests"]
                                     and not params.get(r["id"], {}).get("corners")], shrinkable)
        if member is None or shrunk_file(out, member["id"]).is_file() or member["id"] not in params:
            continue
        if params[member["id"]].get("corners"):  # aimed data is rebuilt from the layer: replaying choices is not it
            continue
        say(f"regress: shrinking {member['id']} ({bucket['signature'][:80]}), at most {budget} attempts", flush=True)
        info = shrink_item(member, params[member["id"]], settings, out, budget)
        if info is None:
            info = {"id": member["id"], "reproduced": False}
        else:
            say(f"regress: shrunk to {info['bytes']} bytes from {info['from_bytes']} in {info['attempts']} attempts",
                flush=True)
        shrunk_file(out, member["id"]).parent.mkdir(parents=True, exist_ok=True)
        shrunk_file(out, member["id"]).write_text(json.dumps(info, indent=1, sort_keys=True) + "\n")


def generated_smallest(members: list[dict], shrinkable: Collection[str]) -> dict | None:
    generated = [r for r in members if r["kind"] in shrinkable]
    return min(generated, key=lambda r: (r.get("size_bytes") or 0, r["id"])) if generated else None
