"""The register map agrees with NVIDIA's data: trace comments, trace names, and the RDL itself."""

from __future__ import annotations

import json
import re

import pytest

from golden.regs.regmap import TABLE, RegisterMap
from golden.trace import RegRead, RegWrite, find_traces, load_trace

_COMMENT = re.compile(r"^(NVDLA_\w+?)\.(\w+)")


def _named(comment: str, regmap: RegisterMap):
    """The register a traceplayer comment names; text is sometimes glued after the `_0` suffix."""
    match = _COMMENT.match(comment)
    if not match:
        return None
    unit, rest = match.groups()
    candidates = [m.end() for m in re.finditer(r"_0", rest)]
    for end in candidates:
        try:
            return regmap.lookup(f"{unit}.{rest[:end]}")
        except Exception:
            continue
    raise AssertionError(f"comment {comment!r} names no register")


def test_every_nvdlav1_access_resolves_to_the_register_in_its_comment(nvdla_data):
    regmap = RegisterMap.for_layout("nvdlav1")
    checked = uncommented = 0
    for path in (nvdla_data / "traceplayer").glob("*/input.txn"):
        for command in load_trace(path).commands:
            if not isinstance(command, RegWrite | RegRead):
                continue
            named = _named(command.comment, regmap)
            if named is None:
                uncommented += 1
                continue
            assert named == command.register, f"{command.where}: {command.comment}"
            checked += 1
    # README: all 1,606 commented accesses match; 4 uncommented reads of GLB.S_INTR_STATUS.
    assert (checked, uncommented) == (1606, 4)


_REFERENCE = re.compile(r"^\s*(?:reg_write|poll_reg_equal)\s*\(\s*(NVDLA_\w+\.\w+)\s*,")
_DECODE = re.compile(r"^\s*//\s*(NVDLA_\w+\.\w+)\.(\w+)\s*:")


def test_every_cfg_register_name_and_decoded_field_exists(nvdla_data):
    """Scans the raw text (not our parser): README counts 18,999 references and 1,245 field decodes."""
    regmap = RegisterMap.for_layout("master")
    references = decodes = 0
    for path in find_traces(nvdla_data / "trace_tests"):
        for line in path.read_text().splitlines():
            if match := _REFERENCE.match(line):
                regmap.lookup(match.group(1))
                references += 1
            elif match := _DECODE.match(line):
                regmap.lookup(match.group(1)).field(match.group(2))
                decodes += 1
    assert (references, decodes) == (18999, 1245)


def test_regmap_regenerates_from_the_rdl(nvdla_data, tmp_path):
    pytest.importorskip("systemrdl", reason="systemrdl-compiler not installed (the regs extra)")
    from golden.regs.generate import elaborate

    generated = elaborate(nvdla_data / "rdl")
    committed = json.loads(TABLE.read_text())
    assert generated["units"] == committed["units"]
    assert generated["registers"] == committed["registers"]
