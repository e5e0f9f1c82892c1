"""Mutation run: build the fixture with each bug switch and play the default layer set on it.

    python -m ci.mutation [--jobs N] [--switch FX_BUG_...]... [--axi-pause P]

Each layer runs through the `rtl` implementation and is judged against the golden model by the
scoreboards (scoreboards.verdict.verify: the trace's checks, the surfaces, the whole-memory write
check). Prints which layers catch each mutant (a layer catches it when its status is not
"passed") and exits 1 when the unmutated fixture fails a layer or a mutant survives.
The layers run with random AXI back-pressure (every channel stalls with probability
P per cycle, default 0.3; $NVDLA_RTL_AXI_PAUSE), so the nightly also covers slow memory.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from golden.config import get_profile
from golden.implementation import Golden
from golden.settings import Settings, override
from golden.status import Verdict
from rtl.build import BUG_SWITCHES, BuildOptions, build
from rtl.implementation import Rtl
from rtl.suite import default_layers
from scoreboards.verdict import verify

NIGHTLY_AXI_PAUSE = 0.3


def run_mutant(task: tuple[str, list[tuple[str, str]], float]) -> tuple[str, dict[str, str], float]:
    switch, layers, axi_pause = task
    started = time.perf_counter()
    options = BuildOptions(defines=(switch,) if switch else (), jobs=1)
    build(options)
    profile = get_profile("nv_small")
    statuses = {}
    settings = Settings.from_environment().with_rtl(axi_pause=axi_pause)
    implementation, reference = Rtl(build_options=options, settings=settings), Golden()
    for name, path in layers:
        statuses[name] = verify(path, profile, implementation, reference).status
    return switch, statuses, time.perf_counter() - started


def mutation_table(switches=BUG_SWITCHES, jobs: int = 2, axi_pause: float = NIGHTLY_AXI_PAUSE
                   ) -> tuple[dict[str, dict[str, str]], dict[str, float]]:
    with tempfile.TemporaryDirectory(prefix="rtl-mutation-") as folder:
        layers = [(name, str(path)) for name, path in default_layers(Path(folder))]
        tasks = [("", layers, axi_pause)] + [(switch, layers, axi_pause) for switch in switches]
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(run_mutant, tasks))
    return {s: st for s, st, _ in results}, {s: t for s, _, t in results}


def format_table(table: dict[str, dict[str, str]], seconds: dict[str, float]) -> str:
    lines = ["| build | caught by | layers failing | time |", "|---|---|---|---|"]
    for switch, statuses in table.items():
        failing = [f"{name} ({status})" for name, status in statuses.items() if status != Verdict.PASSED]
        label = switch or "(no bug switch)"
        verdict = "-" if not switch else ("CAUGHT" if failing else "SURVIVED")
        lines.append(f"| {label} | {verdict} | {', '.join(failing) or 'none'} | {seconds[switch]:.0f} s |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--switch", action="append", choices=BUG_SWITCHES)
    parser.add_argument("--axi-pause", type=float,
                        default=float(override("NVDLA_RTL_AXI_PAUSE") or NIGHTLY_AXI_PAUSE))
    args = parser.parse_args(argv)
    table, seconds = mutation_table(tuple(args.switch or BUG_SWITCHES), args.jobs, args.axi_pause)
    print(format_table(table, seconds))
    baseline_ok = all(s == Verdict.PASSED for s in table[""].values())
    survivors = [s for s, st in table.items() if s and all(v == Verdict.PASSED for v in st.values())]
    return 0 if baseline_ok and not survivors else 1


if __name__ == "__main__":
    sys.exit(main())
