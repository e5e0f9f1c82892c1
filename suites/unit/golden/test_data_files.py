"""What a trace may read (issue 42): its data files lie inside its folder (or a data root the user names), and each
is in one of NVIDIA's memory-file syntaxes with the bytes the trace uses; anything else is one DataFileError
naming the file and the trace's line."""

from __future__ import annotations

from pathlib import Path

import pytest

from golden.config import get_profile
from golden.errors import DataFileError
from golden.player import play, prepare
from golden.trace import load_trace

NV_SMALL, NV_FULL = get_profile("nv_small"), get_profile("nv_full")
RECORDS = "{\n{offset:0x0, size:4, payload:0x01 0x02 0x03 0x04} ,\n}\n"
#: A register read-back that passes on the golden model whatever the loaded bytes are.
READBACK = "reg_write(NVDLA_SDP.D_DATA_CUBE_WIDTH_0, 0x3);\nreg_read_check(NVDLA_SDP.D_DATA_CUBE_WIDTH_0, 0x3);\n"


def _cfg(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    trace = folder / "t.cfg"
    trace.write_text(f'mem_load(pri_mem, 0x80000000, "{name}");\n' + READBACK)
    return trace


def _txn(folder: Path, name: str, size: int = 4, verb: str = "load_mem") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    trace = folder / "input.txn"
    trace.write_text(f"{verb} 0x80000000 {size:#x} {name}\n")
    return trace


def _refused(trace: Path, *words: str, data_root: Path | None = None) -> str:
    loaded = load_trace(trace, data_root=data_root) if data_root is not None else load_trace(trace)
    with pytest.raises(DataFileError) as caught:
        prepare(loaded, NV_FULL if trace.suffix == ".txn" else NV_SMALL)
    text = str(caught.value)
    assert f"{trace.name}:1" in text, text
    for word in words:
        assert word in text, text
    return text


@pytest.mark.parametrize("form", [_cfg, _txn])
def test_a_trace_reading_an_absolute_path_is_refused(tmp_path, form):
    _refused(form(tmp_path / "box", "/etc/hostname"), "/etc/hostname", "absolute")


def test_an_absolute_path_is_refused_by_play_too_and_the_trace_does_not_pass(tmp_path):
    result = play(_cfg(tmp_path / "box", "/etc/hostname"), NV_SMALL)
    assert result.status == "error" and "t.cfg:1" in result.detail and "/etc/hostname" in result.detail


@pytest.mark.parametrize("form", [_cfg, _txn])
def test_a_dotdot_escape_is_refused(tmp_path, form):
    (tmp_path / "outside.dat").write_text(RECORDS)
    _refused(form(tmp_path / "box", "../outside.dat"), "../outside.dat", "'..'")
    _refused(form(tmp_path / "box", "../../../../../../../../../../etc/passwd"), "etc/passwd")


def test_a_symlink_leading_out_is_refused_and_one_staying_inside_is_read(tmp_path):
    (tmp_path / "outside.dat").write_text(RECORDS)
    box = tmp_path / "box"
    box.mkdir()
    (box / "d.dat").symlink_to(tmp_path / "outside.dat")
    _refused(_cfg(box, "d.dat"), "d.dat", "symbolic link")
    (box / "sub").mkdir()
    (box / "sub" / "real.dat").write_text(RECORDS)
    (box / "e.dat").symlink_to(box / "sub" / "real.dat")
    assert play(_cfg(box, "e.dat"), NV_SMALL).status == "passed"
    assert play(_cfg(box, "sub/real.dat"), NV_SMALL).status == "passed"


def test_a_data_root_the_user_names_widens_the_box(tmp_path):
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "x.dat").write_text(RECORDS)
    trace = _cfg(tmp_path / "tests" / "box", "../../shared/x.dat")
    _refused(trace, "x.dat")
    assert play(load_trace(trace, data_root=tmp_path), NV_SMALL).status == "passed"
    assert play(trace, NV_SMALL, data_root=tmp_path).status == "passed"
    _refused(_cfg(tmp_path / "tests" / "box", "../../../x.dat"), "x.dat", data_root=tmp_path)


@pytest.mark.parametrize("content", [
    "<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head>\n<body>0x01 offset</body></html>\n",
    "<html><body><h1>502 Bad Gateway</h1></body></html>\n",
], ids=["html-mentioning-offset", "html"])
@pytest.mark.parametrize("form", [_cfg, _txn])
def test_an_html_page_in_place_of_a_dat_is_refused(tmp_path, form, content):
    _dat_refused(tmp_path, form, content.encode())


@pytest.mark.parametrize("content", [b"", b"\n\n", b"{\n}\n", b"\0" * 64], ids=["empty", "blank", "no-records", "nul"])
@pytest.mark.parametrize("form", [_cfg, _txn])
def test_an_empty_or_binary_dat_is_refused(tmp_path, form, content):
    _dat_refused(tmp_path, form, content)


def _dat_refused(tmp_path: Path, form, content: bytes) -> None:
    """A trace of `form` loading d.dat holding `content` is refused, naming the file."""
    box = tmp_path / "box"
    box.mkdir()
    (box / "d.dat").write_bytes(content)
    _refused(form(box, "d.dat"), "d.dat")


@pytest.mark.parametrize("verb", ["load_mem", "dump_mem"])
def test_a_dat_shorter_than_the_trace_uses_is_refused(tmp_path, verb):
    box = tmp_path / "box"
    box.mkdir()
    (box / "d.dat").write_text("W = 2\n0x01 0x02 0x03 0x04\n")
    _refused(_txn(box, "d.dat", 0x10, verb), "d.dat", "0x4", "0x10")


def test_nvidia_traceplayer_headers_are_read_and_a_line_of_anything_else_is_not(tmp_path):
    box = tmp_path / "box"
    box.mkdir()
    header = ("dumped memory,start_address=0x80400000 size=0x4\nmemory type:dram\n# dumped @ 2017-1-7 Sat 19:51:5\n"
              "Data_type=0x3 #DATA_TYPE_3_WEIGHT\nPrecision = INT16\n==========\n")
    (box / "d.dat").write_text(header + "0x01 0x02 0x03 0x04\ndump done\n")
    program = prepare(load_trace(_txn(box, "d.dat")), NV_FULL)
    assert program.steps[0].records[0][1].tolist() == [1, 2, 3, 4]
    (box / "d.dat").write_text(header + "Error: the file you asked for is gone\n0x01 0x02 0x03 0x04\n")
    assert "d.dat:7" in _refused(box / "input.txn", "Error: the file")
