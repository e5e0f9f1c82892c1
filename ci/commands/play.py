"""`nvdla-verif play [TRACE]`: play one trace on the golden model and print what it computed.

Without TRACE it plays the example layer the project ships (golden/examples/).
Exit status: 0 passed, 1 failed, 2 unsupported / invalid / error.
"""

from __future__ import annotations

import numpy as np

from golden.config import get_profile, infer_profile_name, load_spec
from golden.errors import NvdlaVerifError, ProfileError
from golden.examples import DEFAULT_PROFILE, DEFAULT_TRACE
from golden.formats.feature import unpack_feature
from golden.player import TraceResult, play
from golden.trace import load_trace

NAME = "play"
HELP = "play a trace (.cfg or input.txn) on the golden model; without TRACE, the shipped example layer"


def add_arguments(parser) -> None:
    parser.add_argument("trace", nargs="?", metavar="TRACE", help="a .cfg, an input.txn or a test folder")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--profile", help="hardware profile (default: from the folder names)")
    group.add_argument("--profile-spec", metavar="FILE", help="a .spec file defining the profile")
    parser.add_argument("--impl", choices=("golden", "rtl"), default="golden")
    parser.add_argument("--registers", action="store_true", help="print the decoded registers of every layer")


def _profile(args, path):
    if args.profile_spec:
        return load_spec(args.profile_spec)
    if args.profile:
        return get_profile(args.profile)
    if args.trace is None:
        return get_profile(DEFAULT_PROFILE)
    name = infer_profile_name(path)
    if name is None:
        raise ProfileError(f"{path}: cannot infer the hardware profile from the folder names; use --profile")
    return get_profile(name)


def run(args) -> int:
    path = args.trace or DEFAULT_TRACE
    trace = load_trace(path)
    profile = _profile(args, trace.path)
    print(f"playing {trace.path} ({len(trace.commands)} commands) on {args.impl}, profile {profile.name}")
    result = play(trace, profile, impl=args.impl)
    _print_layers(result)
    if args.registers:
        print(result.decoded_registers())
    for check in result.checks:
        if check.command != "read_reg" or not check.passed:
            print(f"  {'ok  ' if check.passed else 'FAIL'} {check.where}: {check.command}: {check.message}")
    reads = sum(c.command == "read_reg" for c in result.checks)
    if reads:
        print(f"  {reads} register read-back checks, {sum(not c.passed for c in result.checks)} failed")
    if result.unwritten_bytes_read:
        print(f"  note: the models read {result.unwritten_bytes_read} never-written bytes (read as 0)")
    print(f"{result.status.upper()}: {result.name}: {result.detail}  ({result.seconds:.2f} s)")
    return {"passed": 0, "failed": 1}.get(result.status, 2)


def _print_layers(result: TraceResult) -> None:
    for number, layer in enumerate(result.layers):
        print(f"layer {number}: {layer.describe()}")
        for surface in layer.surfaces:
            print(f"  wrote {surface.name or 'surface'}: {surface.memory} {surface.base:#x}, "
                  f"shape {surface.shape} {surface.precision}, line/surface stride "
                  f"{surface.line_stride:#x}/{surface.surface_stride:#x}")
            cube = _read_cube(result, surface)
            if cube is not None:
                _print_cube(cube)


def _read_cube(result: TraceResult, surface):
    if result.memory is None or len(surface.shape) != 3:
        return None
    try:
        memory = result.memory.by_name(surface.memory)
        channels, height, width = surface.shape
        per_atom = max(1, surface.atom_bytes // (1 if surface.precision == "int8" else 2))
        span = (-(-channels // per_atom) - 1) * surface.surface_stride + (height - 1) * surface.line_stride \
            + width * surface.atom_bytes
        buf = memory.read(surface.base, span, unwritten="allow")
        return unpack_feature(buf, 0, surface.shape, surface.precision, surface.line_stride,
                              surface.surface_stride, surface.atom_bytes)
    except (NvdlaVerifError, KeyError, ValueError):
        return None


def _print_cube(cube: np.ndarray) -> None:
    values = cube.astype(np.float64)
    print(f"  output (C, H, W) = {cube.shape}: min {values.min():g} max {values.max():g} "
          f"mean {values.mean():.3f}, zeros {int(np.count_nonzero(cube == 0))}")
    for channel in range(min(2, cube.shape[0])):
        print(f"  channel {channel}:")
        for row in cube[channel][:8]:
            print("    " + " ".join(f"{v:5}" for v in row[:16].tolist()))
