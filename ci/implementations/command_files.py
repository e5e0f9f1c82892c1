"""The files of `--impl command` (docs/guides/external-programs.md): request.json that nvdla-verif writes, and
out/ that the program writes back. Protocol 2 is request.json's "protocol": 2 (golden/formats/
command_request.schema.json); a result.json with "protocol": 2 is checked against
golden/formats/command_result.schema.json and may carry a status. A result without it is read as protocol 1.

What the program writes is bounded by what the request asked for: a region's file by its size
(region_file_limit, request.json's max_file_bytes), result.json by the number of steps (result_limit,
max_result_bytes). Each must be a regular file; a larger one, or a symlink, folder or device in its place, is
the program's error naming the file and the bound, found before anything is read.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from functools import cache
from pathlib import Path

import numpy as np

from golden.config import Profile
from golden.errors import NvdlaVerifError
from golden.formats.program_file import FILE, SCHEMA, write_program
from golden.memory import read_memory_file
from golden.outcome import Outcome
from golden.steps import CheckRegion, Program, ReadRegister

PROTOCOL = 2
REQUEST_SCHEMA = SCHEMA.with_name("command_request.schema.json")
RESULT_SCHEMA = SCHEMA.with_name("command_result.schema.json")
#: A region's file may take this many bytes per byte of the region (one record per byte with a 32-bit offset,
#: `{offset:0x12345678, size:1, payload:0xab},`, takes 44), plus FILE_SLACK.
REGION_FILE_BYTES_PER_BYTE = 48
FILE_SLACK = 64 * 1024
#: result.json may take RESULT_BYTES, plus this many per step of the program (a register value, a watch).
RESULT_BYTES = 1 << 20
RESULT_BYTES_PER_STEP = 128


def region_file_limit(size: int) -> int:
    """The most bytes the file of a `size`-byte region may have."""
    return REGION_FILE_BYTES_PER_BYTE * size + FILE_SLACK


def result_limit(program: Program) -> int:
    """The most bytes the program's result.json may have."""
    return RESULT_BYTES + RESULT_BYTES_PER_STEP * len(program.steps)


def write_request(program: Program, profile: Profile, folder: Path) -> None:
    """The request folder: the compiled program (program.json and its memory images, always), and the trace
    with its files when the program is that trace's own compile (an adapter's rewritten program has none)."""
    write_program(program, folder)
    request = {"version": 1, "protocol": PROTOCOL, "program": FILE, "layout": program.layout,
               "profile": profile.name}
    trace = program.trace
    if trace is not None:
        shutil.copy(trace.path, folder / trace.path.name)
        for _, path in trace.files():
            shutil.copy(path, folder / path.name)
        request.update(trace=trace.path.name, format=trace.format)
    regions = [{"id": i, "memory": s.memory, "base": s.base, "size": s.size, "file": f"region_{i}.dat",
                "max_file_bytes": region_file_limit(s.size), "where": s.where} for i, s in program.regions]
    reads = [{"id": i, "register": s.register.trace_name, "address": s.address, "where": s.where}
             for i, s in enumerate(program.steps) if isinstance(s, ReadRegister)]
    request.update(regions=regions, reads=reads, max_result_bytes=result_limit(program))
    (folder / "request.json").write_text(json.dumps(request, indent=1) + "\n")
    (folder / "out").mkdir()


def read_result(program: Program, out: Path, outcome: Outcome) -> dict:
    """Fill the outcome from out/; returns result.json's content ({} without one). A result.json that breaks
    the contract is a NvdlaVerifError naming the field and the rule."""
    for index, step in program.regions:
        path = out / f"region_{index}.dat"
        if _written(path, region_file_limit(step.size), f"a {step.size:#x}-byte region's file"):
            outcome.regions[index] = _image(path, step)
    if not outcome.regions and program.regions:
        outcome.unavailable["regions"] = "the program wrote no region file"
    result = out / "result.json"
    outcome.unavailable["interrupts"] = "the program reported no interrupts"
    limit = result_limit(program)
    if not _written(result, limit, "result.json"):
        outcome.unavailable["registers"] = "the program wrote no out/result.json"
        return {}
    with open(result, "rb") as file:
        text = file.read(limit)
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise NvdlaVerifError(f"{result}: not JSON: {exc}") from None
    if isinstance(data, dict) and data.get("protocol") == PROTOCOL:
        _check(data, result, outcome)
        if "interrupts" in data:
            outcome.interrupts = list(data["interrupts"])
            del outcome.unavailable["interrupts"]
    try:
        outcome.registers = {int(k): int(v) & 0xFFFFFFFF for k, v in data.get("registers", {}).items()}
        outcome.cycles = int(data["cycles"]) if "cycles" in data else None
    except (ValueError, TypeError, AttributeError) as exc:
        raise NvdlaVerifError(f"{result}: not the result.json of the contract: {exc}") from None
    if "registers" not in data:
        outcome.unavailable["registers"] = "the program reported no register reads"
    return data


def _written(path: Path, limit: int, what: str) -> bool:
    """Whether the program wrote `path`; one that is not a regular file, or holds more than `limit` bytes, is an
    error. Checked without following a symlink; nothing of the program runs any more to change it."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return False
    if not stat.S_ISREG(info.st_mode):
        raise NvdlaVerifError(f"{path}: not a regular file (a symlink, folder or device); the program must write "
                              "its files in out/ itself")
    if info.st_size > limit:
        raise NvdlaVerifError(f"{path}: {info.st_size} bytes, more than the {limit} bytes {what} may take "
                              "(request.json's limits, docs/guides/external-programs.md)")
    return True


def _check(data: dict, path: Path, outcome: Outcome) -> None:
    try:
        import jsonschema
    except ModuleNotFoundError:
        outcome.notes.append(f"{path.name} not checked against its schema: jsonschema is not installed "
                             "(pip install jsonschema)")
        return
    error = jsonschema.exceptions.best_match(_validator(jsonschema).iter_errors(data))
    if error is not None:
        where = "/".join(map(str, error.absolute_path)) or "(top level)"
        raise NvdlaVerifError(f"{path}: {where}: {error.message} (schema rule {error.validator!r}: "
                              f"{RESULT_SCHEMA.name})")


@cache
def _validator(jsonschema):
    return jsonschema.Draft202012Validator(json.loads(RESULT_SCHEMA.read_text()))


def _image(path: Path, step: CheckRegion) -> np.ndarray:
    """The region's bytes from the program's .dat file (records at offsets from the region's base)."""
    image = np.zeros(step.size, np.uint8)
    end = 0
    for offset, data in read_memory_file(path):
        if offset + data.size > step.size:
            raise NvdlaVerifError(f"{path}: bytes at offset {offset:#x}+{data.size:#x} lie outside the "
                                  f"{step.size:#x}-byte region")
        image[offset:offset + data.size] = data
        end = max(end, offset + data.size)
    return image[:end] if end < step.size else image
