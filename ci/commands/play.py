"""`nvdla-verif play [TRACE]`: play one trace on an implementation (default: the golden model) and print
what it computed.

Without TRACE it plays the example layer the project ships (golden/examples/).
Exit status: 0 passed, 1 failed, 2 unsupported / invalid / error.
"""

from __future__ import annotations

import numpy as np

from ci.conformance import draw_pictures
from ci.options import (
    add_data_root_option,
    add_implementation_options,
    add_profile_options,
    fixed_profile,
    implementations,
    profile_for,
    settings_from,
)
from golden.config import get_profile
from golden.errors import NvdlaVerifError
from golden.examples import DEFAULT_PROFILE, DEFAULT_TRACE
from golden.formats.feature import unpack_feature
from golden.status import Verdict
from golden.trace import load_trace
from golden.verdict import TraceResult, surface_span
from scoreboards.verdict import verify

NAME = "play"
HELP = "play a trace (.cfg or input.txn) on the golden model; without TRACE, the shipped example layer"


def add_arguments(parser) -> None:
    parser.add_argument("trace", nargs="?", metavar="TRACE", help="a .cfg, an input.txn or a test folder")
    add_profile_options(parser)
    add_data_root_option(parser)
    parser.add_argument("--registers", action="store_true", help="print the decoded registers of every layer")
    parser.add_argument("--pictures", metavar="DIR", help="draw each mismatching surface's picture into DIR (PNG)")
    add_implementation_options(parser)


def run(args) -> int:
    implementation, reference = implementations(args, settings_from(args))
    trace = load_trace(args.trace or DEFAULT_TRACE, data_root=args.data_root)
    fixed = fixed_profile(args) or (get_profile(DEFAULT_PROFILE) if args.trace is None else None)
    profile = profile_for(trace.path, fixed)
    compared = f", compared with {reference.name}" if reference is not None else ""
    print(f"playing {trace.path} ({len(trace.commands)} commands) on {implementation.name}{compared}, "
          f"profile {profile.name}")
    result = verify(trace, profile, implementation, reference)
    _print_layers(result)
    if args.registers:
        print(result.decoded_registers())
    for check in result.checks:
        if check.command != "read_reg" or not check.passed:
            print(f"  {'ok  ' if check.passed else 'FAIL'} {check.where}: {check.command}: {check.message}")
    reads = sum(c.command == "read_reg" for c in result.checks)
    if reads:
        print(f"  {reads} register read-back checks, {sum(not c.passed for c in result.checks)} failed")
    for report in result.reports:
        if not report.ok:
            print("  " + report.text().replace("\n", "\n  "))
    for picture in draw_pictures(result, args.pictures) if args.pictures else []:
        print(f"  picture: {picture}")
    for warning in result.warnings:
        print(f"  warning: {warning}")
    if result.unwritten_bytes_read:
        print(f"  note: the models read {result.unwritten_bytes_read} never-written bytes (read as 0)")
    print(f"{result.status.upper()}: {result.name}: {result.detail}  ({result.seconds:.2f} s)")
    return {Verdict.PASSED: 0, Verdict.FAILED: 1}.get(result.status, 2)


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
        start, end = surface_span(surface)
        buf = memory.read(start, end - start, unwritten="allow")
        return unpack_feature(buf, 0, surface.shape, surface.precision, surface.line_stride,
                              surface.surface_stride, surface.atom_bytes)
    except (NvdlaVerifError, KeyError, ValueError):
        return None


#: How much of an output cube play prints: channels, rows and columns from the first.
SHOWN_CHANNELS, SHOWN_ROWS, SHOWN_COLUMNS = 2, 8, 16


def _print_cube(cube: np.ndarray) -> None:
    values = cube.astype(np.float64)
    channels, rows, columns = cube.shape
    print(f"  output (C, H, W) = {cube.shape}: min {values.min():g} max {values.max():g} "
          f"mean {values.mean():.3f}, zeros {int(np.count_nonzero(cube == 0))}")
    cut = [f"rows 0-{SHOWN_ROWS - 1} of {rows}"] if rows > SHOWN_ROWS else []
    cut += [f"columns 0-{SHOWN_COLUMNS - 1} of {columns}"] if columns > SHOWN_COLUMNS else []
    for channel in range(min(SHOWN_CHANNELS, channels)):
        print(f"  channel {channel}" + (f" ({', '.join(cut)})" if cut else "") + ":")
        for row in cube[channel][:SHOWN_ROWS]:
            print("    " + " ".join(f"{v:5}" for v in row[:SHOWN_COLUMNS].tolist()))
    if channels > SHOWN_CHANNELS:
        print(f"  ... {channels - SHOWN_CHANNELS} more channels not shown (channels {SHOWN_CHANNELS}-{channels - 1})")
