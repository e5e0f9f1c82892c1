"""LSF: a shard is one element of a job array (bsub -J 'name[1-4]'), watched with bjobs and cancelled with
bkill. Not tried on a real LSF cluster here (none runs on this machine): the tests check the submission
against a recorded one and run the array through stand-in bsub/bjobs/bkill programs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from ci.regression.launchers.base import (
    ENDED,
    PENDING,
    RUNNING,
    LauncherError,
    Resources,
    Scheduler,
    TaskState,
    index_list,
)

WAITING = {"PEND", "PSUSP", "USUSP", "SSUSP", "WAIT"}
ACTIVE = {"RUN", "PROV"}
SUBMITTED = re.compile(r"Job <(\d+)> is submitted")


class Lsf(Scheduler):
    name = "lsf"
    tools = ("bsub", "bjobs", "bkill")
    index_variable = "LSB_JOBINDEX"

    def submit(self, script: Path, indices: list[int], resources: Resources, logs: Path, name: str) -> str:
        command = ["bsub", "-J", f"{name}[{index_list(indices)}]", "-n", str(resources.cpus),
                   "-R", f"span[hosts=1] rusage[mem={resources.memory_mb}]", "-M", f"{resources.memory_mb}MB",
                   "-W", str(resources.minutes), "-o", f"{logs}/shard-%I.log", "-env", "all"]
        if resources.queue:
            command += ["-q", resources.queue]
        command += [*resources.extra, str(script)]
        reply = self.run(command)
        found = SUBMITTED.search(reply)
        if not found:
            raise LauncherError(f"bsub answered {reply.strip()[:200]!r}, not 'Job <ID> is submitted'")
        return found.group(1)

    def states(self, job: str) -> dict[int, TaskState]:
        try:
            text = self.run(["bjobs", "-noheader", "-a", "-o", "jobindex stat exec_host exit_reason delimiter='|'",
                             job])
        except LauncherError as exc:
            if "not found" in str(exc):  # LSF forgot the ended job (CLEAN_PERIOD)
                return {}
            raise
        return parse_bjobs(text)

    def cancel(self, job: str) -> None:
        self.run(["bkill", job])

    @staticmethod
    def current_task(environ: Mapping[str, str]) -> str | None:
        if "LSB_JOBID" not in environ:
            return None
        index = environ.get("LSB_JOBINDEX", "0")
        return environ["LSB_JOBID"] + (f"[{index}]" if index != "0" else "")


def parse_bjobs(text: str) -> dict[int, TaskState]:
    """`bjobs -o 'jobindex stat exec_host exit_reason delimiter=|'` lines -> states by array index. An EXIT
    task's reason is its exit_reason (e.g. TERM_RUNLIMIT, TERM_HOST_FAIL) when LSF gives one."""
    states = {}
    for line in text.splitlines():
        fields = line.split("|")
        if len(fields) != 4 or not fields[0].strip().isdigit():
            continue
        index, stat, host, reason = (f.strip() for f in fields)
        word = PENDING if stat in WAITING else RUNNING if stat in ACTIVE else ENDED
        states[int(index)] = TaskState(word, (reason if reason not in ("", "-") else stat) if word == ENDED else "",
                                       "" if host == "-" else host)
    return states
