"""An external implementation for the command tests: the golden model in a separate process, speaking the
file protocol of `--impl command` (ci/implementations/command.py, README "External programs"). It speaks
protocol 1 (its result.json has no "protocol"), which nvdla-verif reads as before; readme_program.py speaks 2.

    python golden_program.py [--fault wrong-byte|exit-1|hang|nothing] [--over N] [--dlhdl N] FOLDER

--over N: the wrong byte only in regions larger than N bytes (a bug that needs a large enough layer).
--dlhdl N: keep the tensors in the DL HDL Toolbox layout with ConvThreadNumber N (behind `--impl dlhdl:command:`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from golden.config import get_profile
from golden.formats.program_file import read_program
from golden.implementation import Golden
from golden.memory import format_records
from golden.steps import compile_trace
from golden.trace import load_trace


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fault", choices=("wrong-byte", "exit-1", "hang", "nothing"))
    parser.add_argument("--over", type=int, default=0)
    parser.add_argument("--dlhdl", type=int, metavar="N")
    parser.add_argument("folder", type=Path)
    args = parser.parse_args()
    request = json.loads((args.folder / "request.json").read_text())
    if args.fault == "exit-1":
        print("golden_program: failing on purpose", file=sys.stderr)
        return 1
    if args.fault == "hang":
        time.sleep(3600)
    if args.fault == "nothing":
        return 0
    if request.get("program"):  # the compiled program (the trace is there only when it is the trace's compile)
        program = read_program(args.folder / request["program"])
    else:
        program = compile_trace(load_trace(args.folder / request["trace"]))
    outcome = _implementation(args.dlhdl).run(program, get_profile(request["profile"]))
    out = args.folder / "out"
    for region in request["regions"]:
        data = outcome.regions.get(region["id"])
        if data is None:
            continue
        if args.fault == "wrong-byte" and data.size > args.over:
            data = data.copy()
            data[0] ^= 0x01  # the first element of the first surface in the region
        (out / region["file"]).write_text(format_records([(0, data)]))
    registers = {str(r["id"]): outcome.registers[r["id"]] for r in request["reads"] if r["id"] in outcome.registers}
    (out / "result.json").write_text(json.dumps({"registers": registers, "interrupts": outcome.interrupts}))
    return 0


def _implementation(conv_thread_number: int | None):
    if conv_thread_number is None:
        return Golden()
    from dlhdl_golden import GoldenInDlhdl  # beside this file

    from golden.formats import dlhdl

    return GoldenInDlhdl(*dlhdl.geometry(conv_thread_number))


if __name__ == "__main__":
    sys.exit(main())
