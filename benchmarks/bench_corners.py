"""Cost of the corner observation hooks (golden/numerics/corners.py), all in one run:

* off/before: the shipped unit functions with nothing observing, against the same functions as they were
  before the hooks (their source read from git, `--before REF`, default main), on the same data;
* observed/off: the shipped functions inside `corners.observe()` against nothing observing.

Run: python benchmarks/bench_corners.py [--repeat R] [--before REF]
Workloads (2**20-element int8 data): SDP X1 (ALU + MUL), X2 (MUL) and the output convertor; CACC truncation
of int64 sums; PDP 3x3 average pooling; CDP LRN-5 (bench_pdp_cdp.py's registers).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import types
from pathlib import Path
from types import SimpleNamespace

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_pdp_cdp import cdp_regs  # noqa: E402
from benchmarks.timing import best_time  # noqa: E402
from golden.numerics import corners  # noqa: E402
from golden.units.cdp import lrn, lut  # noqa: E402
from golden.units.cdp.config import decode as cdp_decode  # noqa: E402
from golden.units.conv import cacc  # noqa: E402
from golden.units.lut import LutTables  # noqa: E402
from golden.units.pdp import pooling  # noqa: E402
from golden.units.sdp import datapath  # noqa: E402


def before(path: str, ref: str, name: str, **patch) -> types.ModuleType:
    """The module at `path` as it was at git `ref`, loaded under `name` (with names replaced by `patch`)."""
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{ref}:{path}"], check=True, capture_output=True,
                            text=True).stdout
    module = types.ModuleType(name)
    exec(compile(source, f"{ref}:{path}", "exec"), module.__dict__)
    module.__dict__.update(patch)
    return module


def workloads(mods, rng):
    x = rng.integers(-128, 128, 1 << 20).astype(np.int64)
    x1 = SimpleNamespace(bypass=False, alu_bypass=False, alu_operand=3, alu_shift=4, alu_algo="SUM", mul_shift=3,
                         mul_bypass=False, mul_operand=-77, mul_prelu=False, relu_bypass=True)
    x2 = SimpleNamespace(bypass=False, alu_bypass=True, mul_shift=2, mul_bypass=False, mul_operand=5,
                         mul_prelu=False, relu_bypass=False)
    cvt = SimpleNamespace(offset=-3, scale=11, shift=5)

    def sdp():
        y = mods["sdp"].int_x(mods["sdp"].int_x(x, x1, None, None), x2, None, None)
        return mods["sdp"].int_output(y, cvt, "int8")

    sums = rng.integers(-(1 << 20), 1 << 20, 1 << 20).astype(np.int64)
    cube = rng.integers(-128, 128, (64, 128, 128)).astype(np.int8)
    cfg = cdp_decode(cdp_regs())
    table = (20000 / (1 + np.arange(65) / 16) ** 0.75).astype(np.int64)
    lo_table = (20000 / (1 + np.arange(257) / 64) ** 0.75).astype(np.int64)
    tables = LutTables(table.astype(np.uint16), lo_table.astype(np.uint16))
    cdp_cube = rng.integers(-128, 128, (64, 112, 112)).astype(np.int8)
    return {
        "SDP X1+X2+cvt": sdp,
        "CACC truncate": lambda: mods["cacc"].deliver_int(sums, 4),
        "PDP average 3x3": lambda: mods["pdp"].pool_int(cube, "average", (3, 3), (2, 2), (1, 1, 0, 0),
                                                        recip=(0x5555, 0x5555)),
        "CDP LRN-5": lambda: mods["cdp"].lrn_int(cdp_cube, 64, cfg, tables),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--before", default="main", help="git ref of the code before the hooks (default main)")
    args = parser.parse_args()
    old_lut = before("golden/units/cdp/lut.py", args.before, "old_cdp_lut")
    old = {"sdp": before("golden/units/sdp/datapath.py", args.before, "old_datapath"),
           "cacc": before("golden/units/conv/cacc.py", args.before, "old_cacc"),
           "pdp": before("golden/units/pdp/pooling.py", args.before, "old_pooling"),
           "cdp": before("golden/units/cdp/lrn.py", args.before, "old_lrn", lookup=old_lut.lookup)}
    new = {"sdp": datapath, "cacc": cacc, "pdp": pooling, "cdp": lrn}
    assert lut.lookup is lrn.lookup
    then, now = workloads(old, np.random.default_rng(0)), workloads(new, np.random.default_rng(0))
    print(f"{'workload':18} {'before ms':>10} {'off ms':>8} {'observed ms':>12} {'off/before':>11} "
          f"{'observed/off':>13}")
    for name in now:
        then[name](), now[name]()
        t_before = t_off = t_obs = float("inf")
        for _ in range(args.repeat):  # interleaved, so that load from other processes hits all three alike
            t_before = min(t_before, best_time(then[name], 1))
            t_off = min(t_off, best_time(now[name], 1))
            with corners.observe():
                t_obs = min(t_obs, best_time(now[name], 1))
        print(f"{name:18} {t_before * 1e3:10.2f} {t_off * 1e3:8.2f} {t_obs * 1e3:12.2f} {t_off / t_before:11.3f} "
              f"{t_obs / t_off:13.2f}")


if __name__ == "__main__":
    main()
