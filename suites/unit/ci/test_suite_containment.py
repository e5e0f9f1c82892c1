"""A suite is self-contained (issue 42): every test and every file it reads lies inside the suite folder and is
hashed; certify, verify and suite build refuse anything else in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ci.cli import main
from ci.suite import MANIFEST, MUSTPASS, SUITE_FORMAT, Suite, dumps, file_hashes, sha256

#: A trace that passes on the golden model: a register written and read back.
TRACE = "reg_write(NVDLA_SDP.D_DATA_CUBE_WIDTH_0, 0x3);\nreg_read_check(NVDLA_SDP.D_DATA_CUBE_WIDTH_0, 0x3);\n"
TEST = "nvidia/readback"


def _suite(folder: Path, trace: str = "nvidia/nv_small/readback/readback.cfg", link_to: Path | None = None) -> Path:
    """A one-test nv_small suite as `suite build` lays it out, its test's trace at `trace` (relative); with
    `link_to`, the folder's trace is a symbolic link to that file."""
    inner = folder / "nvidia" / "nv_small" / "readback"
    inner.mkdir(parents=True)
    if link_to is None:
        (inner / "readback.cfg").write_text(TRACE)
    else:
        (inner / "readback.cfg").symlink_to(link_to)
    (folder / MUSTPASS).write_text(f"{TEST}\n")
    manifest = {"format": SUITE_FORMAT, "suite_version": "1", "profile": "nv_small",
                "tests": [{"id": TEST, "source": "nvidia", "family": "readback", "units": [], "trace": trace}],
                "files": file_hashes(folder)}
    (folder / MANIFEST).write_text(dumps(manifest))
    return folder


def _escaped(tmp_path: Path) -> Path:
    """The probe: the suite's one test names a trace outside the folder (not among the hashed files)."""
    outside = tmp_path / "outside" / "x"
    outside.mkdir(parents=True)
    (outside / "x.cfg").write_text(TRACE)
    return _suite(tmp_path / "suite", "../outside/x/x.cfg")


def _said(capsys) -> str:
    captured = capsys.readouterr()
    return captured.out + captured.err


def test_certify_refuses_a_suite_whose_test_lies_outside_it(tmp_path, capsys):
    suite = _escaped(tmp_path)
    code = main(["certify", "--suite", str(suite), "--impl", "golden", "--out", str(tmp_path / "package")])
    said = _said(capsys)
    assert code == 2, said
    assert "../outside/x/x.cfg" in said and "outside the suite folder" in said
    assert not (tmp_path / "package" / "statement.json").exists()


def _forged(tmp_path: Path, capsys) -> tuple[Path, Path]:
    """A package certified on a clean suite, then both suite and package edited so that the test's trace lies
    outside and every hash the package states matches again (what a forger would do)."""
    suite = _suite(tmp_path / "suite")
    package = tmp_path / "package"
    assert main(["certify", "--suite", str(suite), "--impl", "golden", "--out", str(package)]) == 0, _said(capsys)
    outside = tmp_path / "outside" / "x"
    outside.mkdir(parents=True)
    (outside / "x.cfg").write_text(TRACE)
    manifest = json.loads((suite / MANIFEST).read_text())
    manifest["tests"][0]["trace"] = "../outside/x/x.cfg"
    for copy in (suite / MANIFEST, package / "suite" / MANIFEST):
        copy.write_text(dumps(manifest))
    statement = json.loads((package / "statement.json").read_text())
    statement["suite"]["sha256"] = sha256(suite / MANIFEST)
    (package / "statement.json").write_text(dumps(statement))
    listed = json.loads((package / "manifest.json").read_text())
    listed["files"] = file_hashes(package, skip=("manifest.json", "certify.journal"))
    (package / "manifest.json").write_text(dumps(listed))
    capsys.readouterr()
    return suite, package


@pytest.mark.parametrize("with_suite", [True, False], ids=["with-suite", "package-alone"])
def test_verify_refuses_a_suite_whose_test_lies_outside_it(tmp_path, capsys, with_suite):
    suite, package = _forged(tmp_path, capsys)
    code = main(["verify", str(package), *(["--suite", str(suite)] if with_suite else [])])
    said = _said(capsys)
    assert code != 0, said
    first = said.splitlines()[0]
    assert "invalid" in first and "../outside/x/x.cfg" in first and "outside the suite folder" in first, said


def test_a_suite_whose_test_is_a_symbolic_link_out_or_not_hashed_is_refused(tmp_path, capsys):
    (tmp_path / "elsewhere.cfg").write_text(TRACE)
    suite = _suite(tmp_path / "linked", link_to=tmp_path / "elsewhere.cfg")
    code = main(["certify", "--suite", str(suite), "--impl", "golden", "--out", str(tmp_path / "package")])
    said = _said(capsys)
    assert code == 2 and "readback.cfg: a symbolic link" in said, said
    unhashed = _suite(tmp_path / "unhashed", "nvidia/nv_small/readback/absent.cfg")
    assert "absent.cfg is not among the files" in "\n".join(Suite(unhashed).check())


def test_suite_build_refuses_an_nvidia_trace_reading_an_absolute_path(tmp_path, capsys):
    data = tmp_path / "nvdla"
    folder = data / "trace_tests" / "nv_small" / "evil_0"
    folder.mkdir(parents=True)
    (folder / "evil_0.cfg").write_text('mem_load(pri_mem, 0x80000000, "/etc/hostname");\n' + TRACE)
    out = tmp_path / "suite"
    code = main(["suite", "build", "--profile", "nv_small", "--version", "1", "--out", str(out),
                 "--nvdla-data", str(data), "--family", "sdp", "--max-layers", "1"])
    said = _said(capsys)
    assert code == 2, said
    line = [text for text in said.splitlines() if "evil_0" in text]
    assert len(line) == 1 and "/etc/hostname" in line[0] and "evil_0.cfg:1" in line[0], said
    assert not out.exists() or not any(out.iterdir())


@pytest.mark.parametrize("change", [
    {"tests": [{"trace": "x.cfg"}]}, {"tests": "all"}, {"suite_version": None}, {"files": []},
])
def test_a_malformed_suite_manifest_is_one_suite_error(tmp_path, change):
    from ci.suite import SuiteError

    manifest = {"format": SUITE_FORMAT, "suite_version": "1", "profile": "nv_small", "files": {}, "tests": [],
                **change}
    (tmp_path / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(SuiteError, match="malformed suite manifest"):
        Suite(tmp_path)
