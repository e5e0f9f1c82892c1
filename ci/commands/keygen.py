"""`nvdla-verif keygen PREFIX`: a new Ed25519 key pair for signed certification packages: PREFIX.key, the private
key `certify --sign` takes (PEM, unencrypted, mode 600: keep it secret), and PREFIX.pub, the public key `verify
--key` takes (PEM; hand it to whoever checks your packages). Neither file is overwritten if it exists.
(`openssl genpkey -algorithm ed25519 -out PREFIX.key` and `openssl pkey -in PREFIX.key -pubout -out PREFIX.pub`
make the same kind of files.)
"""

from __future__ import annotations

from ci.suite.signature import new_key_pair

NAME = "keygen"
HELP = "make an Ed25519 key pair for `certify --sign` (PREFIX.key) and `verify --key` (PREFIX.pub)"


def add_arguments(parser) -> None:
    parser.add_argument("prefix", metavar="PREFIX", help="the key files' path without .key / .pub, e.g. keys/acme")


def run(args) -> int:
    private, public, key = new_key_pair(args.prefix)
    print(f"private key: {private} (certify --sign; keep it secret)")
    print(f"public key:  {public} (verify --key), fingerprint {key}")
    return 0
