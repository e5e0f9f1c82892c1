"""Runs an external program for ci/implementations/command.py and ends everything it started.

    python -I -S supervisor.py STOP_FD LOG TIMEOUT PROGRAM ARGS...      (cwd: the program's folder)

The program gets default signal dispositions, an empty signal mask, /dev/null as stdin, its own process
group, and one pipe for stdout and stderr, which this process streams to LOG keeping the first and the last
HEAD bytes (the number dropped between them is written where they were). When the program exits, runs past
TIMEOUT seconds, or STOP_FD (a pipe from the parent) reaches its end because the parent closed it or died,
every process the program started is killed with SIGKILL and reaped, and this process exits:

- Linux: this process is a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so a descendant whose parent
  exits, a `setsid` or double-forked daemon included, is reparented here instead of to init. Descendants are
  found by walking the parent pids of /proc/*/stat and signalled through a pidfd (no pid-reuse race), again
  until none is left.
- Elsewhere (macOS, the BSDs): only the program's process group is killed; a descendant that left it
  (setsid, setpgid) outlives the program.

On stdout: {"pid": PID} once the program started, then at the end one of {"end": "exited", "code": N},
{"end": "signal", "signal": N}, {"end": "timeout"}, {"end": "stopped"}, {"end": "cannot start", "error":
TEXT}, with "output" (bytes the program wrote), "dropped" (bytes of it not in LOG) and "ended" (processes it
left running, killed here). Standard library only, so that it starts quickly without site-packages.
"""

from __future__ import annotations

import ctypes
import json
import os
import selectors
import signal
import sys
import time

HEAD = 64 * 1024
TAIL = 64 * 1024
LINUX = sys.platform.startswith("linux")
PR_SET_CHILD_SUBREAPER = 36
F_SETPIPE_SZ = 1031
CHUNK = 1 << 20


class BoundedLog:
    """A log file holding the first `head` and the last `tail` bytes written to it; memory holds at most
    2 * `tail` bytes whatever is written."""

    def __init__(self, path: str, head: int = HEAD, tail: int = TAIL):
        self.file = open(path, "wb")  # noqa: SIM115  (closed by close())
        self.head, self.tail_size = head, tail
        self.written = self.size = 0
        self.tail = bytearray()

    def write(self, data: bytes) -> None:
        self.size += len(data)
        data = memoryview(data)
        room = self.head - self.written
        if room > 0:
            self.file.write(data[:room])
            self.written += min(room, len(data))
            data = data[room:]
        if len(data) >= self.tail_size:
            self.tail = bytearray(data[-self.tail_size:])
            return
        self.tail += data
        if len(self.tail) > 2 * self.tail_size:
            del self.tail[:-self.tail_size]

    def close(self) -> int:
        """Write the tail and close; the number of bytes dropped."""
        tail = self.tail[-self.tail_size:]
        dropped = self.size - self.written - len(tail)
        if dropped:
            self.file.write(f"\n[... {dropped} bytes of output dropped: the log keeps the first {self.head} "
                            f"and the last {self.tail_size} bytes ...]\n".encode())
        self.file.write(tail)
        self.file.close()
        return dropped


def _descendants(root: int) -> list[int]:
    """The live processes below `root`, from /proc/*/stat's parent pids (zombies left out)."""
    children: dict[int, list[tuple[int, str]]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rpartition(b")")[2].split()
        except OSError:  # gone meanwhile
            continue
        children.setdefault(int(fields[1]), []).append((int(entry), fields[0].decode()))
    found, todo = [], [root]
    while todo:
        for pid, state in children.get(todo.pop(), ()):
            todo.append(pid)
            if state not in "ZX":
                found.append(pid)
    return found


def _kill(pid: int, ours: set[int]) -> None:
    """SIGKILL `pid` through a pidfd, after checking that the pid still names a child of one of `ours`."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    except (AttributeError, OSError):  # no pidfd (a kernel before 5.3)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        return
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            parent = int(stat.read().rpartition(b")")[2].split()[1])
        if parent in ours:
            signal.pidfd_send_signal(fd, signal.SIGKILL)
    except (OSError, ValueError, IndexError):
        pass
    finally:
        os.close(fd)


class Supervisor:
    def __init__(self, argv: list[str], log: BoundedLog, stop_fd: int, timeout: float):
        self.argv, self.log, self.stop_fd, self.timeout = argv, log, stop_fd, timeout
        self.pid = 0
        self.status: int | None = None  # the program's wait status, once reaped
        self.ended = 0
        self.stop = False

    def start(self) -> None:
        out_r, out_w = os.pipe()
        if LINUX:
            try:
                import fcntl
                fcntl.fcntl(out_r, F_SETPIPE_SZ, CHUNK)
            except OSError:
                pass
        defaults = signal.valid_signals() - {signal.SIGKILL, signal.SIGSTOP}
        try:
            self.pid = os.posix_spawnp(self.argv[0], self.argv, os.environ, setpgroup=0, setsigmask=(),
                                       setsigdef=defaults, file_actions=[
                                           (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                                           (os.POSIX_SPAWN_DUP2, out_w, 1), (os.POSIX_SPAWN_DUP2, out_w, 2)])
        finally:
            os.close(out_w)
        self.out = out_r

    def watch(self) -> str:
        """Stream the output until the program exits, the time is up or the parent stops us."""
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_w, False)
        signal.set_wakeup_fd(wake_w)
        selector = selectors.DefaultSelector()
        for fd in (self.out, self.stop_fd, wake_r):
            selector.register(fd, selectors.EVENT_READ)
        deadline = time.monotonic() + self.timeout
        while True:
            if self._exited():
                return "exited"
            if self.stop:
                return "stopped"
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "timeout"
            for key, _ in selector.select(remaining):
                data = os.read(key.fd, CHUNK)
                if key.fd == self.out and data:
                    self.log.write(data)
                elif key.fd == self.out:
                    selector.unregister(self.out)
                elif key.fd == self.stop_fd and not data:
                    self.stop = True

    def _exited(self) -> bool:
        """Collect the program if it ended; True when it did."""
        found, status = os.waitpid(self.pid, os.WNOHANG)
        if found:
            self.status = status
        return found != 0

    def _reap_all(self) -> bool:
        """Collect every child that ended; True while some child still runs."""
        while True:
            try:
                found, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return False
            if not found:
                return True
            if found == self.pid:
                self.status = status

    def end_all(self) -> None:
        """SIGKILL the program and everything below it, and reap, until no child is left (on Linux every
        orphan of the program is our child)."""
        me = os.getpid()
        killed: set[int] = set()
        while True:
            if LINUX:
                victims = _descendants(me)
                ours = {me, *victims}
                for pid in victims:
                    _kill(pid, ours)
                killed.update(victims)
            else:
                try:
                    os.killpg(self.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            if not self._reap_all():
                break
            time.sleep(0.002)
        self.ended = len(killed - {self.pid})

    def drain(self) -> None:
        """The output still in the pipe (every writer is gone; elsewhere than Linux one may not be)."""
        os.set_blocking(self.out, False)
        try:
            while data := os.read(self.out, CHUNK):
                self.log.write(data)
        except BlockingIOError:
            pass
        os.close(self.out)


def _report(line: dict) -> None:
    try:
        print(json.dumps(line), flush=True)
    except OSError:  # the parent is gone
        pass


def main(argv: list[str]) -> int:
    stop_fd, log_path, timeout, program = int(argv[0]), argv[1], float(argv[2]), argv[3:]
    os.set_inheritable(stop_fd, False)
    supervisor = Supervisor(program, BoundedLog(log_path), stop_fd, timeout)
    signal.pthread_sigmask(signal.SIG_SETMASK, ())
    for stop in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(stop, lambda *_: setattr(supervisor, "stop", True))
    signal.signal(signal.SIGCHLD, lambda *_: None)  # only to wake select() through the wakeup fd
    if LINUX:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    try:
        supervisor.start()
    except OSError as exc:
        supervisor.log.close()
        _report({"end": "cannot start", "error": exc.strerror or str(exc)})
        return 0
    _report({"pid": supervisor.pid})
    end = "stopped"
    try:
        end = supervisor.watch()
    finally:
        supervisor.end_all()
        supervisor.drain()
        dropped = supervisor.log.close()
    line = {"end": end, "output": supervisor.log.size, "dropped": dropped, "ended": supervisor.ended}
    if end == "exited" and os.WIFSIGNALED(supervisor.status):
        line.update(end="signal", signal=os.WTERMSIG(supervisor.status))
    elif end == "exited":
        line["code"] = os.waitstatus_to_exitcode(supervisor.status)
    _report(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
