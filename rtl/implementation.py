"""`--impl rtl`: the cocotb + pyuvm bench on a Verilator build as an implementation.

The DUT is the project's fixture unless $NVDLA_RTL_FILELIST / $NVDLA_RTL_TOP / $NVDLA_RTL_DEFINES
(the options --rtl-filelist/--rtl-top/--rtl-define) name the user's RTL (rtl/build.py), and
$NVDLA_RTL_PROFILE (--rtl-profile / --rtl-spec) the profile it was built as.
A layer outside the fixture's subset is `unsupported`, never simulated; a DUT that does not raise
its interrupt in time is a `timeout` (a failure); a simulation that writes no result is an `error`.
The bench only observes: what it collected is judged by scoreboards/verdict.py like any implementation's.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from golden.config import Profile, get_profile
from golden.outcome import Outcome
from golden.status import Ending
from golden.steps import Program
from rtl.build import BuildOptions, build
from rtl.runner import RtlRunResult, run_program_on_rtl

#: The hardware profile the RTL under test was built as (a profile name or an nvdla/hw .spec path), set by
#: --rtl-profile / --rtl-spec: a trace made for a profile it lacks something of is `not applicable`.
PROFILE_VARIABLE = "NVDLA_RTL_PROFILE"


def declared_profile() -> Profile | None:
    text = os.environ.get(PROFILE_VARIABLE)
    return get_profile(text) if text else None


class Rtl:
    name = "rtl"

    def __init__(self, argument: str | None = None, build_options: BuildOptions | None = None,
                 profile: Profile | None = None, work_dir: Path | None = None, keep: bool = False):
        self.build_options = build_options
        self.profile = profile or (declared_profile() if build_options is None else None)
        self.work_dir, self.keep = work_dir, keep
        #: The bench's own account of the last run (cycles, CSB stalls, its folder), for tests and benchmarks.
        self.last_run: RtlRunResult | None = None

    def prepare(self) -> None:
        """Once before any trace: build the DUT (or find its build), so that a build that fails is one error."""
        build(self.build_options or BuildOptions.from_env())

    def run(self, program: Program, profile: Profile) -> Outcome:
        options = self.build_options or BuildOptions.from_env()
        run = self.last_run = run_program_on_rtl(program, profile, options, work_dir=self.work_dir, keep=self.keep)
        # run.interrupts are the line's rises, not which watch fired (golden/outcome.py): not comparable
        outcome = Outcome(self.name, seconds=run.wall_s, cycles=run.cycles, memory=run.memory,
                          unavailable={"interrupts": "the bench records when dla_intr rose, not which watch fired"})
        outcome.regions = {index: np.frombuffer(data, np.uint8) for index, data in run.regions.items()}
        outcome.registers = dict(run.registers)
        outcome.written = {memory: [(address, np.frombuffer(data, np.uint8)) for address, data in runs]
                           for memory, runs in run.written.items()} if run.status == Ending.COMPLETED else None
        if run.status != Ending.COMPLETED:
            where = f" (run folder: {run.run_dir})" if run.run_dir and run.status != Ending.UNSUPPORTED else ""
            outcome.stopped(run.status, f"{run.message}{where}")
        return outcome
