"""What a batch scheduler does for `regress --on NAME`: submit shards as one job array, tell their states,
cancel them. Everything else (partitioning, watching, resubmitting, merging) is ci/regression/batch.py's.

    Resources(cpus, memory_mb, minutes, queue, extra)   what each shard asks for
    TaskState(state, reason, node)                     pending, running or ended (the scheduler's word why)
"""

from __future__ import annotations

import shutil
import subprocess
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from golden.errors import NvdlaVerifError

PENDING, RUNNING, ENDED = "pending", "running", "ended"


class LauncherError(NvdlaVerifError):
    """A scheduler is missing, refuses a submission or cannot be asked about its jobs."""


@dataclass(frozen=True)
class Resources:
    """One shard's request: CPUs (its -j), memory, a time limit, the partition or queue and extra submit
    arguments given as they are."""

    cpus: int
    memory_mb: int
    minutes: int
    queue: str | None = None
    extra: tuple[str, ...] = ()


@dataclass(frozen=True)
class TaskState:
    state: str  # PENDING, RUNNING or ENDED (the module's constants)
    reason: str = ""  # the scheduler's own word: COMPLETED, FAILED, TIMEOUT, NODE_FAIL, PREEMPTED, EXIT, ...
    node: str = ""


class Scheduler(ABC):
    name: str = ""
    tools: tuple[str, ...] = ()
    #: The environment variable a task of a job array finds its array index in.
    index_variable: str = ""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []  # every command run, in order

    def check_tools(self) -> None:
        missing = [tool for tool in self.tools if shutil.which(tool) is None]
        if missing:
            raise LauncherError(f"--on {self.name} needs {', '.join(missing)} on PATH (not found): run regress on "
                                f"a host that can submit to {self.name}")

    @abstractmethod
    def submit(self, script: Path, indices: list[int], resources: Resources, logs: Path, name: str) -> str:
        """Submit `script` as a job array over `indices`; the job's id. Each task's output goes to
        logs/shard-<index>.log (appended across attempts)."""

    @abstractmethod
    def states(self, job: str) -> dict[int, TaskState]:
        """The state of each task of `job` the scheduler still knows of, by array index."""

    @abstractmethod
    def cancel(self, job: str) -> None:
        """Cancel every task of `job` that has not ended."""

    def longest_minutes(self, queue: str | None) -> int | None:
        """The longest time limit the partition or queue allows (None: no limit known)."""
        return None

    @staticmethod
    @abstractmethod
    def current_task(environ: Mapping[str, str]) -> str | None:
        """The job and task this process runs in ("123_4"), from the scheduler's variables; None outside."""

    def run(self, command: list[str], stdin: str | None = None) -> str:
        self.calls.append(command)
        try:
            done = subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise LauncherError(f"{command[0]}: {exc}") from None
        if done.returncode != 0:
            raise LauncherError(f"{' '.join(command[:2])} ... exit {done.returncode}: "
                                f"{(done.stderr or done.stdout).strip()[:500]}")
        return done.stdout


def index_list(indices: list[int]) -> str:
    """1,2,3,5 -> '1-3,5' (the array syntax Slurm and LSF share)."""
    ranges, start = [], None
    ordered = sorted(set(indices))
    for position, index in enumerate(ordered):
        if start is None:
            start = index
        if position + 1 == len(ordered) or ordered[position + 1] != index + 1:
            ranges.append(str(start) if start == index else f"{start}-{index}")
            start = None
    return ",".join(ranges)
