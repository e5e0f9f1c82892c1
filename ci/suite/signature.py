"""Signed certification packages: Ed25519 signatures through the `cryptography` library.

    load_private_key(path, option), load_public_key(path, option)   a PEM key file, or SuiteError naming it
    sign_package(package, private_key) -> fingerprint               writes the package's signature.json
    check_signature(package, public_key=None) -> note               "unsigned", "signed by key FP (...)"; raises
                                                                    SignatureError for a signature it refuses
    new_key_pair(prefix) -> (private, public, fingerprint)          PREFIX.key (mode 600) and PREFIX.pub

What is signed: the UTF-8 bytes of the JSON text

    {"files":{"NAME":"SHA256",...},"format":"nvdla-verif-signature/1","statement":STATEMENT}

written with keys sorted at every level, no whitespace and every non-ASCII character escaped (Python's
`json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)`), where STATEMENT is the JSON value
of the package's statement.json and "files" is manifest.json's "files": the relative POSIX path of every file of
the package but manifest.json and signature.json, each with the hex sha256 of its bytes. The signature thus
covers the statement and, through their hashes, every other file (statement, results, waivers, log, summary, the
suite copy, coverage); `verify` checks that the files match those hashes as for an unsigned package.

signature.json: {"format": "nvdla-verif-signature/1", "algorithm": "Ed25519", "key": FINGERPRINT, "signature":
base64 of the 64-byte signature}. A key's FINGERPRINT is the hex sha256 of its 32 raw public bytes (for a PEM
public key: `openssl pkey -pubin -in KEY.pub -outform DER | tail -c 32 | sha256sum`).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import shlex
from pathlib import Path

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ci.suite import PACKAGE_MANIFEST, SuiteError, dumps

SIGNATURE = "signature.json"
SIGNATURE_FORMAT = "nvdla-verif-signature/1"
ALGORITHM = "Ed25519"
#: Larger key files are refused unread: a PEM Ed25519 key is about 120 bytes.
MOST_KEY_BYTES = 64 << 10


class SignatureError(SuiteError):
    """A package's signature that is missing, malformed, of another key or not over the package's contents."""


def fingerprint(key: Ed25519PublicKey) -> str:
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()


def load_private_key(path: str | Path, option: str = "--sign") -> Ed25519PrivateKey:
    data = _read_key_file(path, option)
    if b"-----BEGIN PUBLIC KEY-----" in data:
        raise SuiteError(f"{option} {path}: a public key; {option} takes the private key (PEM, e.g. "
                         "`openssl genpkey -algorithm ed25519` or `nvdla-verif keygen`)")
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except TypeError:
        raise SuiteError(f"{option} {path}: the private key is encrypted; give an unencrypted PEM key") from None
    except (ValueError, UnsupportedAlgorithm):
        raise SuiteError(f"{option} {path}: not a PEM private key") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SuiteError(f"{option} {path}: a key of type {_kind(key)}; an Ed25519 key expected")
    return key


def load_public_key(path: str | Path, option: str = "--key") -> Ed25519PublicKey:
    data = _read_key_file(path, option)
    if b"PRIVATE KEY-----" in data:
        raise SuiteError(f"{option} {path}: a private key; {option} takes the public key (PEM: `openssl pkey -in "
                         f"{shlex.quote(str(path))} -pubout`, or the .pub file of `nvdla-verif keygen`)")
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, UnsupportedAlgorithm):
        raise SuiteError(f"{option} {path}: not a PEM public key") from None
    if not isinstance(key, Ed25519PublicKey):
        raise SuiteError(f"{option} {path}: a key of type {_kind(key)}; an Ed25519 key expected")
    return key


def _read_key_file(path: str | Path, option: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            data = handle.read(MOST_KEY_BYTES + 1)
    except OSError as exc:
        raise SuiteError(f"{option} {path}: cannot read it: {exc.strerror}") from None
    if len(data) > MOST_KEY_BYTES:
        raise SuiteError(f"{option} {path}: not a PEM key (larger than {MOST_KEY_BYTES >> 10} KiB)")
    return data


def _kind(key) -> str:
    return type(key).__name__.removeprefix("_").replace("PrivateKey", "").replace("PublicKey", "") or "other"


def signed_bytes(statement, files: dict[str, str]) -> bytes:
    """The message an Ed25519 signature of a package is over (this module's docstring)."""
    message = {"files": files, "format": SIGNATURE_FORMAT, "statement": statement}
    return json.dumps(message, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def _signed_contents(package: Path) -> bytes:
    try:
        statement = json.loads((package / "statement.json").read_text())
        files = json.loads((package / PACKAGE_MANIFEST).read_text())["files"]
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
        raise SignatureError(f"{SIGNATURE}: cannot be checked: statement.json or {PACKAGE_MANIFEST} unreadable "
                             f"({type(exc).__name__})") from None
    if not isinstance(files, dict):
        raise SignatureError(f"{SIGNATURE}: cannot be checked: {PACKAGE_MANIFEST} lists no files")
    return signed_bytes(statement, files)


def sign_package(package: str | Path, key: Ed25519PrivateKey) -> str:
    """Write the package's signature.json (its statement.json and manifest.json written before); the key's
    fingerprint."""
    package = Path(package)
    signature = key.sign(_signed_contents(package))
    who = fingerprint(key.public_key())
    (package / SIGNATURE).write_text(dumps({"format": SIGNATURE_FORMAT, "algorithm": ALGORITHM, "key": who,
                                            "signature": base64.b64encode(signature).decode()}))
    return who


def check_signature(package: str | Path, key: Ed25519PublicKey | None = None) -> str:
    """What verify's first line says of the signature: "unsigned", "signed by key FP (not checked: give --key)"
    or, with a key, "signed by key FP (checked)"; SignatureError for a malformed signature file, and with a key
    for a package that is unsigned, signed by another key, or whose statement or hashes are not what was signed."""
    package = Path(package)
    path = package / SIGNATURE
    if not path.exists():
        if key is not None:
            raise SignatureError(f"unsigned (no {SIGNATURE}), and --key asks for a package signed by key "
                                 f"{fingerprint(key)}")
        return "unsigned"
    who, signature = _read_signature(path)
    if key is None:
        return f"signed by key {who} (not checked: give --key)"
    expected = fingerprint(key)
    if who != expected:
        raise SignatureError(f"{SIGNATURE}: signed by key {who}, not by the --key given ({expected})")
    try:
        key.verify(signature, _signed_contents(package))
    except InvalidSignature:
        raise SignatureError(f"{SIGNATURE}: the signature of key {who} is not over this package's statement and "
                             "file hashes (changed after signing)") from None
    return f"signed by key {who} (checked)"


def _read_signature(path: Path) -> tuple[str, bytes]:
    """The fingerprint and signature bytes of a signature file, or SignatureError saying what is wrong."""
    if path.is_symlink() or not path.is_file():
        raise SignatureError(f"{SIGNATURE}: malformed (not a regular file)")
    try:
        with open(path, "rb") as handle:
            data = json.loads(handle.read(MOST_KEY_BYTES + 1).decode())
    except (OSError, ValueError, RecursionError) as exc:
        raise SignatureError(f"{SIGNATURE}: malformed (not JSON: {type(exc).__name__})") from None
    if not isinstance(data, dict) or data.get("format") != SIGNATURE_FORMAT:
        raise SignatureError(f"{SIGNATURE}: malformed (not a signature file of format {SIGNATURE_FORMAT})")
    if data.get("algorithm") != ALGORITHM:
        raise SignatureError(f"{SIGNATURE}: malformed (algorithm {data.get('algorithm')!r}; {ALGORITHM} expected)")
    who = data.get("key")
    if not isinstance(who, str) or len(who) != 64 or any(c not in "0123456789abcdef" for c in who):
        raise SignatureError(f"{SIGNATURE}: malformed (key: a hex sha256 fingerprint expected)")
    try:
        signature = base64.b64decode(str(data.get("signature")), validate=True)
    except (binascii.Error, ValueError):
        signature = b""
    if len(signature) != 64:
        raise SignatureError(f"{SIGNATURE}: malformed (signature: base64 of 64 bytes expected)")
    return who, signature


def new_key_pair(prefix: str | Path) -> tuple[Path, Path, str]:
    """A new Ed25519 key pair: PREFIX.key (PEM PKCS#8, unencrypted, readable by its owner only) and PREFIX.pub
    (PEM SubjectPublicKeyInfo). An existing file of either name is refused, never overwritten."""
    private, public = Path(f"{prefix}.key"), Path(f"{prefix}.pub")
    there = [str(p) for p in (private, public) if p.exists() or p.is_symlink()]
    if there:
        raise SuiteError(f"{' and '.join(there)} already there; a key file is never overwritten")
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    _write_new(private, pem, 0o600)
    _write_new(public, key.public_key().public_bytes(serialization.Encoding.PEM,
                                                     serialization.PublicFormat.SubjectPublicKeyInfo), 0o644)
    return private, public, fingerprint(key.public_key())


def _write_new(path: Path, data: bytes, mode: int) -> None:
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except OSError as exc:
        raise SuiteError(f"{path}: cannot write it: {exc.strerror}") from None
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)
