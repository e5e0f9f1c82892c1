"""Where `regress` runs its tests: one launcher per kind of machine room.

    local   today's run: pytest-xdist on this host (ci/commands/regress.py)
    slurm   the level's tests in shards, one Slurm job array (sbatch, squeue, scancel)
    lsf     the same on LSF (bsub, bjobs, bkill)

A batch launcher (base.Scheduler) only submits, reports task states and cancels; ci/regression/batch.py
partitions, watches, resubmits and merges, the same for every scheduler.
"""

from __future__ import annotations

import os
import socket

from ci.regression.launchers.base import LauncherError, Resources, Scheduler, TaskState
from ci.regression.launchers.lsf import Lsf
from ci.regression.launchers.slurm import Slurm

SCHEDULERS: dict[str, type[Scheduler]] = {"slurm": Slurm, "lsf": Lsf}
LAUNCHERS = ("local", *SCHEDULERS)

__all__ = ["LAUNCHERS", "SCHEDULERS", "LauncherError", "Resources", "Scheduler", "TaskState", "ran_on", "scheduler"]


def scheduler(name: str) -> Scheduler:
    """The batch scheduler `name` (slurm, lsf), checked to have its tools on PATH."""
    if name not in SCHEDULERS:
        raise LauncherError(f"--on {name}: no such batch launcher (one of {', '.join(SCHEDULERS)})")
    launcher = SCHEDULERS[name]()
    launcher.check_tools()
    return launcher


def ran_on(shard: str | None) -> dict:
    """Where this test runs, for its record: the node, the shard and the scheduler's task, if any."""
    where = {"node": socket.gethostname(), "shard": shard}
    for launcher in SCHEDULERS.values():
        task = launcher.current_task(os.environ)
        if task:
            where["task"] = f"{launcher.name} {task}"
    return where
