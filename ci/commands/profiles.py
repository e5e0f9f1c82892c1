"""`nvdla-verif profiles`: list the hardware profiles and their parameters."""

from __future__ import annotations

import dataclasses

from golden.config import PROFILES, get_profile, load_spec

NAME = "profiles"
HELP = "list the built-in hardware profiles (or show one, or a .spec file's)"


def add_arguments(parser) -> None:
    parser.add_argument("name", nargs="?", help="a profile name to show in full")
    parser.add_argument("--spec", metavar="FILE", help="show the profile a .spec file defines")


def run(args) -> int:
    if args.spec or args.name:
        profile = load_spec(args.spec) if args.spec else get_profile(args.name)
        for field in dataclasses.fields(profile):
            value = getattr(profile, field.name)
            if isinstance(value, frozenset):
                value = ",".join(sorted(value))
            print(f"{field.name:34} {value}")
        return 0
    print(f"{'profile':22} {'layout':8} {'types':16} atom  MAC C/K  features")
    for name, p in PROFILES.items():
        features = [s for s in ("winograd", "batch", "weight_compression", "sdp_ew", "sdp_lut", "bdma",
                                "rubik", "secondary_memif") if getattr(p, s)]
        print(f"{name:22} {p.layout:8} {','.join(sorted(p.feature_types)):16} {p.memory_atomic_size:4}  "
              f"{p.mac_atomic_c:3}/{p.mac_atomic_k:<3}  {' '.join(features)}")
    return 0
