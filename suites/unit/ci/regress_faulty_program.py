"""An external implementation for the regression's soft-fail test: misbehaves on the traces named in
$NVDLA_FAULTS ("trace=hang,other=crash"; "*" names every trace; "wrong-byte-over-N": a wrong byte in regions
larger than N bytes; "slow": the golden model after a pause of $NVDLA_SLOW_S seconds, default 2), and is the
golden model (golden_program.py) on every other.

    python regress_faulty_program.py FOLDER
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    folder = Path(sys.argv[1])
    trace = Path(json.loads((folder / "request.json").read_text())["trace"]).stem
    faults = dict(pair.split("=") for pair in os.environ.get("NVDLA_FAULTS", "").split(",") if pair)
    fault = faults.get(trace, faults.get("*"))
    if fault == "hang":
        time.sleep(3600)
    if fault == "slow":
        time.sleep(float(os.environ.get("NVDLA_SLOW_S", "2")))
    if fault == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    extra = ["--fault", "wrong-byte"] if fault == "wrong-byte" else []
    if fault and fault.startswith("wrong-byte-over-"):
        extra = ["--fault", "wrong-byte", "--over", fault.rsplit("-", 1)[1]]
    os.execv(sys.executable, [sys.executable, str(HERE / "golden_program.py"), *extra, str(folder)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
