"""How a command stops on SIGINT (Ctrl-C) and SIGTERM (a scheduler, `kill`), whatever it inherited.

A shell starts a background job (`cmd &`) with SIGINT ignored, and an ignored signal stays ignored across
exec: a Python program that keeps that disposition never sees Ctrl-C, and neither do the children it starts.
So the command line installs its own handlers for both (`install`): each raises KeyboardInterrupt, and since
a caught signal is reset to the default when a child execs, every program it starts (pytest and its workers,
simulators, external programs) begins with default dispositions.

Stopping a child's process group (`stop_group`): SIGINT first (pytest ends its session, no test half
recorded), SIGTERM after a short grace (for anything that ignores SIGINT), SIGKILL after another.
A process pool (`process_pool`) is stopped by its parent alone: its workers leave SIGINT to it (a Ctrl-C at
the terminal reaches the whole foreground group) and end on SIGTERM, after the task they run has cleaned up.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from functools import partial

#: Seconds a process group is given to end after SIGINT, then after SIGTERM, before SIGKILL.
INTERRUPT_GRACE_S = 5.0
TERMINATE_GRACE_S = 3.0
STOPPING = (signal.SIGINT, signal.SIGTERM)


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def install() -> Callable[[], None]:
    """Make SIGINT and SIGTERM raise KeyboardInterrupt in this process (unblocked, even if they were inherited
    ignored or blocked); returns what puts the previous handlers and mask back."""
    blocked = signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPPING)
    previous = {sig: signal.signal(sig, _interrupt) for sig in STOPPING}

    def restore() -> None:
        for sig, handler in previous.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)

    return restore


def stop_group(process: subprocess.Popen, interrupt_s: float = INTERRUPT_GRACE_S,
               terminate_s: float = TERMINATE_GRACE_S) -> str:
    """End `process` and its process group (it leads one: start_new_session): SIGINT, SIGTERM, then SIGKILL,
    each after the previous one's grace; another Ctrl-C or SIGTERM meanwhile goes straight to SIGKILL.
    Returns what the process still printed on its stdout pipe (drained, so that it cannot block on it)."""
    printed = []
    for sig, grace in ((signal.SIGINT, interrupt_s), (signal.SIGTERM, terminate_s), (signal.SIGKILL, None)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        try:
            printed.append(_drain(process, grace))
            break
        except subprocess.TimeoutExpired:
            continue
        except KeyboardInterrupt:  # asked again: no more grace
            interrupt_s = terminate_s = 0.0
            continue
    _kill_leftovers(process.pid)
    return "".join(p for p in printed if p)


def _drain(process: subprocess.Popen, timeout: float | None) -> str:
    if process.stdout is None:
        process.wait(timeout=timeout)
        return ""
    out, _ = process.communicate(timeout=timeout)
    return out or ""


def _kill_leftovers(group: int) -> None:
    """Whatever of the group outlived its leader (the leader's exit does not end its children)."""
    try:
        os.killpg(group, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# -- process pools -------------------------------------------------------------------------------------------
_busy = False
_stopping = False


def _worker_signals() -> None:
    """A pool worker: SIGINT is its parent's to act on (a no-op handler, so that what the worker execs starts
    with the default), SIGTERM ends it (during a task, as KeyboardInterrupt, so that the task cleans up)."""
    signal.signal(signal.SIGINT, lambda signum, frame: None)
    signal.signal(signal.SIGTERM, _worker_stop)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPPING)


def _worker_stop(signum, frame):
    global _stopping
    if not _busy:
        _leave(128 + signum)
    if not _stopping:  # once: a second SIGTERM (the pool's own, as it breaks) must not cut the task's cleanup short
        _stopping = True
        raise KeyboardInterrupt


def _leave(code: int) -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def _task(function: Callable, item):
    global _busy
    _busy = True
    try:
        return function(item)
    except KeyboardInterrupt:  # stopped by the parent: the task has cleaned up; end quietly
        _leave(128 + signal.SIGTERM)
    finally:
        _busy = False


class Pool:
    """A process pool whose map() its parent can stop at once (see process_pool)."""

    def __init__(self, executor: ProcessPoolExecutor):
        self.executor = executor

    def map(self, function: Callable, items: Iterable) -> Iterator:
        """function over items in the workers, results in order (function and items must pickle)."""
        return self.executor.map(partial(_task, function), items, chunksize=1)


@contextmanager
def process_pool(jobs: int) -> Iterator[Pool]:
    """A pool of `jobs` worker processes; when the block ends by an exception (Ctrl-C, SIGTERM, an error), the
    tasks not started are dropped and the workers are ended (SIGTERM, SIGKILL after TERMINATE_GRACE_S)
    instead of being waited for."""
    executor = ProcessPoolExecutor(max_workers=jobs, initializer=_worker_signals)
    try:
        yield Pool(executor)
    except BaseException:
        _stop_pool(executor)
        raise
    executor.shutdown(wait=True)


def _stop_pool(executor: ProcessPoolExecutor) -> None:
    executor.shutdown(wait=False, cancel_futures=True)
    workers = multiprocessing.active_children()  # this process's pool workers
    for worker in workers:
        worker.terminate()
    deadline = time.monotonic() + TERMINATE_GRACE_S
    for worker in workers:
        try:
            worker.join(max(0.0, deadline - time.monotonic()))
        except KeyboardInterrupt:  # asked again: no more grace
            deadline = 0.0
        if worker.is_alive():
            worker.kill()
            worker.join()
