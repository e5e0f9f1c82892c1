"""`--impl command` with golden_program.py called in this process: the request folder, program.json and its
memory images, the region files and result.json go through the file protocol as with a real process
(ci/implementations/command.py); only the process start is left out. For the sweeps over every NVIDIA trace,
where one process start per trace was most of the time; the real process is tested on a few traces beside them."""

from __future__ import annotations

import sys
from pathlib import Path
from unittest import mock

from ci.implementations.command import Command
from suites.unit.ci import golden_program

HERE = Path(__file__).resolve().parent


class InProcessCommand(Command):
    """Command('PYTHON golden_program.py ARGS') whose program runs as golden_program.main() in this process."""

    def __init__(self, argument: str):
        super().__init__(argument)
        assert Path(self.argv[1]).name == "golden_program.py", self.argv

    def _execute(self, folder: Path, outcome) -> tuple[int | None, str]:
        argv = ["golden_program.py", *self.argv[2:], str(folder)]
        with mock.patch.object(sys, "argv", argv), mock.patch.object(sys, "path", [str(HERE), *sys.path]):
            code = golden_program.main()  # sys.path: its --dlhdl imports dlhdl_golden from beside it, as a script
        return code, "" if code == 0 else f"exited with status {code}"
