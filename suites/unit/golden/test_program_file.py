"""The compiled program's file form: written, validated against the published JSON Schema, read back to the same
steps; the golden model runs the read program to the same outcome; what a verdict expects is not in it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from golden.config import get_profile
from golden.formats.program_file import SCHEMA, ProgramFileError, read_program, write_program
from golden.implementation import Golden
from golden.steps import CheckRegion, LoadMemory, ReadRegister, compile_trace
from golden.trace import load_trace

TRACES = [("trace_tests/nv_small/sdp_3x3x33_bs_int8_reg_0", "nv_small"),
          ("trace_tests/nv_small/cdp_8x8x32_lrn3_int8_0", "nv_small"),
          ("traceplayer/sdp_relu_int16", "nv_full")]


def _same(a, b) -> bool:
    if isinstance(a, LoadMemory):
        return (a.memory, a.base, a.file) == (b.memory, b.base, b.file) and all(
            oa == ob and np.array_equal(da, db) for (oa, da), (ob, db) in zip(a.records, b.records, strict=True))
    if isinstance(a, CheckRegion):
        return (a.verb, a.sync, a.memory, a.base, a.size) == (b.verb, b.sync, b.memory, b.base, b.size)
    if isinstance(a, ReadRegister):
        kept = (a.register, a.address, a.poll) + ((a.mask, a.expected) if a.poll else ())
        return kept == (b.register, b.address, b.poll) + ((b.mask, b.expected) if b.poll else ())
    return a == b


@pytest.mark.parametrize("relative, profile", TRACES)
def test_a_program_survives_its_file_form(nvdla_data, tmp_path, relative, profile):
    jsonschema = pytest.importorskip("jsonschema")
    folder = nvdla_data / relative
    if not folder.is_dir():
        pytest.skip(f"{folder} is not in ../shared/nvdla")
    program = compile_trace(load_trace(folder))
    path = write_program(program, tmp_path)
    document = json.loads(path.read_text())
    jsonschema.validate(document, json.loads(SCHEMA.read_text()))
    back = read_program(tmp_path)
    assert back.trace is None and back.layout == program.layout and len(back.steps) == len(program.steps)
    assert all(_same(a, b) for a, b in zip(program.steps, back.steps, strict=True))
    for step in document["steps"]:  # what the verdict expects stays with the verdict
        assert "crc" not in step
        assert "expected" not in step or (step["op"] == "read_register" and step["poll"])
    original = Golden().run(program, get_profile(profile))
    replayed = Golden().run(back, get_profile(profile))
    assert original.status == replayed.status == "completed"
    assert original.regions.keys() == replayed.regions.keys()
    assert all(np.array_equal(original.regions[i], replayed.regions[i]) for i in original.regions)


def test_a_file_of_another_format_or_a_missing_field_is_one_error(tmp_path):
    (tmp_path / "program.json").write_text('{"format": "something else", "version": 1}')
    with pytest.raises(ProgramFileError, match="not an 'nvdla-verif program' version 1 file"):
        read_program(tmp_path)
    (tmp_path / "program.json").write_text(json.dumps({
        "format": "nvdla-verif program", "version": 1, "name": "x", "layout": "master",
        "steps": [{"op": "fill_memory", "memory": "pri_mem", "base": 0}]}))
    with pytest.raises(ProgramFileError, match=r"step 0 \(fill_memory\): missing or bad field 'size'"):
        read_program(tmp_path / "program.json")
