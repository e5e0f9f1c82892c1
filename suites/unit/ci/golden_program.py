"""An external implementation for the command tests: the golden model in a separate process, speaking the
file protocol of `--impl command` (ci/implementations/command.py, README "External programs").

    python golden_program.py [--fault wrong-byte|exit-1|hang|nothing] [--over N] FOLDER

--over N: the wrong byte only in regions larger than N bytes (a bug that needs a large enough layer).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from golden.config import get_profile
from golden.implementation import Golden
from golden.memory import format_records
from golden.steps import compile_trace
from golden.trace import load_trace


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fault", choices=("wrong-byte", "exit-1", "hang", "nothing"))
    parser.add_argument("--over", type=int, default=0)
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
    program = compile_trace(load_trace(args.folder / request["trace"]))
    outcome = Golden().run(program, get_profile(request["profile"]))
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


if __name__ == "__main__":
    sys.exit(main())
