"""Signed certification packages (issue 42, authenticity): `certify --sign KEY` and `verify --key PUBLIC` with
Ed25519 keys, on a suite of two tests (one NVIDIA trace, one generated SDP layer)."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed448
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ci.cli import main
from suites.unit.ci.test_suite_certify import _edit, _rehash


def _pem_pair(folder: Path, name: str, key=None) -> tuple[Path, Path]:
    """A key pair as `openssl genpkey` and `openssl pkey -pubout` write it (PKCS#8 and SubjectPublicKeyInfo PEM)."""
    key = key or Ed25519PrivateKey.generate()
    private, public = folder / f"{name}.pem", folder / f"{name}.pub.pem"
    private.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    public.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                     serialization.PublicFormat.SubjectPublicKeyInfo))
    return private, public


def _raw_fingerprint(public: Path) -> str:
    import hashlib

    key = serialization.load_pem_public_key(public.read_bytes())
    return hashlib.sha256(key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)).hexdigest()


@pytest.fixture(scope="module")
def keys(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("keys")
    _pem_pair(folder, "vendor")
    _pem_pair(folder, "other")
    return folder


@pytest.fixture(scope="module")
def suite(nvdla_data, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("suite") / "suite"
    assert main(["suite", "build", "--profile", "nv_small", "--version", "2026.1", "--out", str(out),
                 "--nvdla-data", str(nvdla_data), "--family", "sdp", "--max-layers", "1",
                 "--nvidia", "sdp_1x1x1_pass_through_int8"]) == 0
    return out


@pytest.fixture(scope="module")
def signed(suite, keys, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("package") / "signed"
    assert main(["certify", "--suite", str(suite), "--impl", "golden", "--out", str(out),
                 "--sign", str(keys / "vendor.pem")]) == 0
    return out


@pytest.fixture(scope="module")
def unsigned(suite, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("package") / "unsigned"
    assert main(["certify", "--suite", str(suite), "--impl", "golden", "--out", str(out)]) == 0
    return out


def _verify(capsys, package: Path, *words: str) -> tuple[int, list[str]]:
    capsys.readouterr()
    code = main(["verify", str(package), *words])
    return code, capsys.readouterr().out.splitlines()


def _copy(package: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "pkg"
    shutil.copytree(package, copy)
    return copy


def test_a_signed_package_verifies_with_its_public_key(signed, keys, capsys):
    fingerprint = _raw_fingerprint(keys / "vendor.pub.pem")
    signature = json.loads((signed / "signature.json").read_text())
    assert signature["algorithm"] == "Ed25519" and signature["key"] == fingerprint
    assert len(base64.b64decode(signature["signature"])) == 64
    code, lines = _verify(capsys, signed, "--key", str(keys / "vendor.pub.pem"))
    assert code == 0 and lines[0] == ("conformant: 2 passed, 0 waived, 0 not supported of 2 tests; "
                                      f"signed by key {fingerprint} (checked)"), lines
    code, lines = _verify(capsys, signed)
    assert code == 0 and lines[0].endswith(f"; signed by key {fingerprint} (not checked: give --key)"), lines


def test_an_unsigned_package_says_so_in_the_first_line_and_is_refused_with_a_key(unsigned, keys, capsys):
    code, lines = _verify(capsys, unsigned)
    assert code == 0 and lines[0] == "conformant: 2 passed, 0 waived, 0 not supported of 2 tests; unsigned", lines
    code, lines = _verify(capsys, unsigned, "--key", str(keys / "vendor.pub.pem"))
    assert code == 1 and lines[0].startswith("invalid package: unsigned (no signature.json)"), lines


def _flip_signature_byte(package: Path) -> None:
    def flip(data):
        raw = bytearray(base64.b64decode(data["signature"]))
        raw[10] ^= 0x01
        data["signature"] = base64.b64encode(bytes(raw)).decode()
    _edit(package / "signature.json", flip)


def _forge_statement(package: Path) -> None:
    _edit(package / "statement.json", lambda d: d["implementation"].update(version="9.9"))
    _rehash(package)


def _forge_results(package: Path) -> None:
    _edit(package / "results.json", lambda d: d["results"][0].update(detail="edited"))
    _rehash(package)


NOT_OVER = "is not over this package's statement and file hashes"


@pytest.mark.parametrize("tamper, reason", [
    (_flip_signature_byte, NOT_OVER),
    (_forge_statement, NOT_OVER),
    (_forge_results, NOT_OVER),
    (lambda p: _edit(p / "signature.json", lambda d: d.update(signature="not base64!")),
     "signature.json: malformed (signature: base64 of 64 bytes expected)"),
    (lambda p: (p / "signature.json").write_text("{"), "signature.json: malformed (not JSON"),
    (lambda p: _edit(p / "signature.json", lambda d: d.update(algorithm="RSA")), "signature.json: malformed"),
], ids=["signature byte", "statement re-hashed", "results re-hashed", "not base64", "not JSON", "algorithm"])
def test_a_tampered_signed_package_is_refused_in_one_line(suite, signed, keys, tmp_path, capsys, tamper, reason):
    package = _copy(signed, tmp_path)
    tamper(package)
    code, lines = _verify(capsys, package, "--suite", str(suite), "--key",
                          str(keys / "vendor.pub.pem"))
    assert code == 1 and lines[0].startswith("invalid package: ") and reason in lines[0], lines


def test_a_changed_hash_in_the_manifest_is_refused(signed, keys, tmp_path, capsys):
    package = _copy(signed, tmp_path)
    _edit(package / "manifest.json", lambda d: d["files"].update({"waivers.json": "0" * 64}))
    code, lines = _verify(capsys, package, "--key", str(keys / "vendor.pub.pem"))
    assert code == 1 and lines[0].startswith("invalid package: signature.json: ") and NOT_OVER in lines[0], lines
    assert any("waivers.json: altered" in line for line in lines[1:]), lines


def test_a_package_signed_by_another_key_is_refused(signed, keys, capsys):
    other = _raw_fingerprint(keys / "other.pub.pem")
    code, lines = _verify(capsys, signed, "--key", str(keys / "other.pub.pem"))
    assert code == 1 and lines[0].startswith("invalid package: signature.json: signed by key "), lines
    assert f"not by the --key given ({other})" in lines[0], lines


def test_a_re_signed_forgery_names_the_forgers_key(signed, keys, tmp_path, capsys):
    """A forger can rewrite, re-hash and re-sign with a key of their own, but not with the vendor's."""
    from ci.suite.signature import load_private_key, sign_package

    package = _copy(signed, tmp_path)
    _forge_results(package)
    sign_package(package, load_private_key(keys / "other.pem"))
    code, lines = _verify(capsys, package, "--key", str(keys / "vendor.pub.pem"))
    assert code == 1 and f"signed by key {_raw_fingerprint(keys / 'other.pub.pem')}, not by" in lines[0], lines


def _key_cases(folder: Path) -> list[tuple[list[str], str]]:
    _pem_pair(folder, "ed448", ed448.Ed448PrivateKey.generate())
    _pem_pair(folder, "ecdsa", ec.generate_private_key(ec.SECP256R1()))
    (folder / "text.pem").write_text("hello\n")
    (folder / "huge.pem").write_bytes(b"-" * (1 << 20))
    encrypted = Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.BestAvailableEncryption(b"pw"))
    (folder / "encrypted.pem").write_bytes(encrypted)
    return [
        (["--sign", "missing.pem"], "--sign {f}/missing.pem: cannot read it: No such file or directory"),
        (["--sign", "text.pem"], "--sign {f}/text.pem: not a PEM private key"),
        (["--sign", "huge.pem"], "--sign {f}/huge.pem: not a PEM key (larger than 64 KiB)"),
        (["--sign", "vendor.pub.pem"], "--sign {f}/vendor.pub.pem: a public key; --sign takes the private key"),
        (["--sign", "ed448.pem"], "--sign {f}/ed448.pem: a key of type Ed448; an Ed25519 key expected"),
        (["--sign", "ecdsa.pem"], "--sign {f}/ecdsa.pem: a key of type EC"),
        (["--sign", "encrypted.pem"], "--sign {f}/encrypted.pem: the private key is encrypted"),
        (["--key", "missing.pem"], "--key {f}/missing.pem: cannot read it: No such file or directory"),
        (["--key", "text.pem"], "--key {f}/text.pem: not a PEM public key"),
        (["--key", "vendor.pem"], "--key {f}/vendor.pem: a private key; --key takes the public key"),
        (["--key", "ed448.pub.pem"], "--key {f}/ed448.pub.pem: a key of type Ed448; an Ed25519 key expected"),
    ]


def test_a_bad_key_file_is_one_error_naming_it_before_anything_runs(suite, unsigned, keys, tmp_path, capsys):
    folder = tmp_path / "k"
    shutil.copytree(keys, folder)
    for option, message in _key_cases(folder):
        out = tmp_path / "never"
        argv = (["certify", "--suite", str(suite), "--impl", "golden", "--out", str(out)] if option[0] == "--sign"
                else ["verify", str(unsigned)]) + [option[0], str(folder / option[1])]
        capsys.readouterr()
        assert main(argv) == 2, argv
        captured = capsys.readouterr()
        err = captured.err.strip()
        assert message.format(f=folder) in err and len(err.splitlines()) == 1, err
        assert not out.exists() and "certify" not in captured.out, captured.out


def test_keygen_writes_a_pair_that_signs_and_verifies_and_never_overwrites(suite, tmp_path, capsys):
    prefix = tmp_path / "acme"
    assert main(["keygen", str(prefix)]) == 0
    private, public = Path(f"{prefix}.key"), Path(f"{prefix}.pub")
    assert private.stat().st_mode & 0o077 == 0, oct(private.stat().st_mode)
    assert _raw_fingerprint(public) in capsys.readouterr().out
    package = tmp_path / "pkg"
    assert main(["certify", "--suite", str(suite), "--impl", "golden", "--out", str(package), "--sign",
                 str(private)]) == 0
    code, lines = _verify(capsys, package, "--key", str(public))
    assert code == 0 and lines[0].endswith(f"signed by key {_raw_fingerprint(public)} (checked)"), lines
    before = private.read_bytes()
    assert main(["keygen", str(prefix)]) == 2
    assert "already there; a key file is never overwritten" in capsys.readouterr().err
    assert private.read_bytes() == before
