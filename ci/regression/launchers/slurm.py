"""Slurm: a shard is one task of a job array (sbatch --array), watched with squeue and cancelled with scancel.

squeue --states=all still lists a task for MinJobAge after it ended (slurm.conf, 300 s by default) with its
final state (COMPLETED, FAILED, TIMEOUT, NODE_FAIL, PREEMPTED, CANCELLED, OUT_OF_MEMORY); a task it no longer
lists has ended too. No accounting (sacct) is needed.
"""

from __future__ import annotations

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

WAITING = {"PENDING", "CONFIGURING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD", "SUSPENDED"}
ACTIVE = {"RUNNING", "COMPLETING", "STAGE_OUT", "SIGNALING", "RESIZING"}


class Slurm(Scheduler):
    name = "slurm"
    tools = ("sbatch", "squeue", "scancel")
    index_variable = "SLURM_ARRAY_TASK_ID"

    def submit(self, script: Path, indices: list[int], resources: Resources, logs: Path, name: str) -> str:
        command = ["sbatch", "--parsable", f"--array={index_list(indices)}", f"--job-name={name}",
                   f"--cpus-per-task={resources.cpus}", f"--mem={resources.memory_mb}M",
                   f"--time={resources.minutes}", f"--output={logs}/shard-%a.log", "--open-mode=append",
                   "--export=ALL"]
        if resources.queue:
            command.append(f"--partition={resources.queue}")
        command += [*resources.extra, str(script)]
        reply = self.run(command).strip()
        job = reply.split(";")[0]
        if not job.isdigit():
            raise LauncherError(f"sbatch answered {reply!r}, not a job id")
        return job

    def states(self, job: str) -> dict[int, TaskState]:
        try:
            text = self.run(["squeue", "--noheader", "--array", "--states=all", f"--jobs={job}",
                             "--format=%K|%T|%N|%r"])
        except LauncherError as exc:
            if "Invalid job id" in str(exc):  # every task ended and was purged
                return {}
            raise
        return parse_squeue(text)

    def cancel(self, job: str) -> None:
        self.run(["scancel", job])

    def longest_minutes(self, queue: str | None) -> int | None:
        """The partition's MaxTime (`scontrol show partition`; the default partition without --partition)."""
        try:
            text = self.run(["scontrol", "show", "partition", "--oneliner", *([queue] if queue else [])])
        except LauncherError:
            return None
        for line in text.splitlines():
            fields = dict(word.split("=", 1) for word in line.split() if "=" in word)
            if queue or fields.get("Default") == "YES":
                return slurm_minutes(fields.get("MaxTime", "UNLIMITED"))
        return None

    @staticmethod
    def current_task(environ: Mapping[str, str]) -> str | None:
        if "SLURM_ARRAY_JOB_ID" in environ:
            return f"{environ['SLURM_ARRAY_JOB_ID']}_{environ.get('SLURM_ARRAY_TASK_ID', '')}"
        return environ.get("SLURM_JOB_ID")


def slurm_minutes(text: str) -> int | None:
    """A Slurm time ('UNLIMITED', 'MM', 'HH:MM:SS', 'D-HH:MM:SS', 'D-HH') in minutes; None when unlimited."""
    if text in ("UNLIMITED", "INFINITE", "NONE", ""):
        return None
    days, _, clock = text.rpartition("-")
    parts = [int(p) for p in clock.split(":")]
    if days:
        hours, minutes, seconds = (parts + [0, 0])[:3]
    elif len(parts) == 1:
        hours, minutes, seconds = 0, parts[0], 0
    else:
        hours, minutes, seconds = ([0] * (3 - len(parts)) + parts)[-3:]
    return (int(days or 0) * 24 + hours) * 60 + minutes + (1 if seconds else 0)


def parse_squeue(text: str) -> dict[int, TaskState]:
    """`squeue --array --format=%K|%T|%N|%r` lines -> states by array index (a pending range "1-3" is three)."""
    states = {}
    for line in text.splitlines():
        if line.count("|") != 3:
            continue
        index, state, node, reason = line.split("|")
        word = PENDING if state in WAITING else RUNNING if state in ACTIVE else ENDED
        for task in _indices(index):
            states[task] = TaskState(word, state if word == ENDED else reason, node)
    return states


def _indices(text: str) -> list[int]:
    """An array index field: '3', or a pending range such as '1-3,5' or '[1-4%2]'."""
    text = text.strip("[]").split("%")[0]
    found = []
    for part in filter(None, text.split(",")):
        start, _, end = part.partition("-")
        if start.isdigit() and (not end or end.isdigit()):
            found.extend(range(int(start), int(end or start) + 1))
    return found
