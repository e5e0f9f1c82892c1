"""A real single-host Slurm cluster for the tests: munged, slurmctld and slurmd started as root in a folder of
their own, with their own slurm.conf (SLURM_CONF), key and free ports, and stopped afterwards.

    with SlurmCluster(folder) as cluster:   cluster.env: the variables that point sbatch/squeue at it

Debian's slurm-wlm and munge (bash ci/install_cluster_tools.sh). `unavailable()` says why no cluster can start
here (not root, a daemon missing), for the tests' skip reason.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "sinfo")
START_TIMEOUT_S = 60.0
MAX_MINUTES = 5  # the partition's MaxTime: shards asking for more are held to it


def unavailable() -> str | None:
    missing = [tool for tool in DAEMONS if not shutil.which(tool) and not Path("/usr/sbin", tool).exists()]
    if missing:
        return f"no Slurm here ({', '.join(missing)} missing): bash ci/install_cluster_tools.sh"
    if os.geteuid() != 0:
        return "a test Slurm cluster starts its daemons as root (slurmd launches the jobs)"
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _tool(name: str) -> str:
    return shutil.which(name) or str(Path("/usr/sbin", name))


class SlurmCluster:
    def __init__(self, folder: Path, cpus: int | None = None):
        self.folder = folder
        self.cpus = cpus or os.cpu_count() or 1
        self.host = socket.gethostname().split(".")[0]
        self.conf = folder / "slurm.conf"
        self.env = {"SLURM_CONF": str(self.conf)}
        self.pids: list[Path] = []

    def __enter__(self) -> SlurmCluster:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> None:
        folder = self.folder
        for sub in ("state", "spool", "log"):
            (folder / sub).mkdir(parents=True, exist_ok=True)
        folder.chmod(0o755)  # munged's socket must be reachable
        key = folder / "munge.key"
        key.write_bytes(os.urandom(128))
        key.chmod(0o600)
        socket_path = folder / "munge.sock"
        self._run([_tool("munged"), "--force", f"--socket={socket_path}", f"--key-file={key}",
                   f"--log-file={folder / 'log' / 'munged.log'}", f"--pid-file={folder / 'munged.pid'}",
                   f"--seed-file={folder / 'munged.seed'}"])
        self.pids.append(folder / "munged.pid")
        memory_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20 * 9 // 10
        self.conf.write_text("\n".join([
            "ClusterName=nvdlatest", f"SlurmctldHost={self.host}(127.0.0.1)", "SlurmUser=root", "SlurmdUser=root",
            "AuthType=auth/munge", "CredType=cred/munge", f"AuthInfo=socket={socket_path}",
            f"SlurmctldPort={_free_port()}", f"SlurmdPort={_free_port()}",
            f"StateSaveLocation={folder / 'state'}", f"SlurmdSpoolDir={folder / 'spool'}",
            f"SlurmctldPidFile={folder / 'slurmctld.pid'}", f"SlurmdPidFile={folder / 'slurmd.pid'}",
            f"SlurmctldLogFile={folder / 'log' / 'slurmctld.log'}", f"SlurmdLogFile={folder / 'log' / 'slurmd.log'}",
            "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none", "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_CPU", "SchedulerType=sched/backfill", "MpiDefault=none", "ReturnToService=2",
            "JobAcctGatherType=jobacct_gather/none", "AccountingStorageType=accounting_storage/none",
            "MinJobAge=600", "KillWait=5", "SlurmctldTimeout=30", "SlurmdTimeout=30",
            f"NodeName={self.host} NodeAddr=127.0.0.1 CPUs={self.cpus} RealMemory={memory_mb} State=UNKNOWN",
            f"PartitionName=test Nodes=ALL Default=YES MaxTime={MAX_MINUTES} State=UP", ""]))
        env = {**os.environ, **self.env}
        self._run([_tool("slurmctld"), "-i"], env)
        self.pids.append(folder / "slurmctld.pid")
        self._run([_tool("slurmd")], env)
        self.pids.append(folder / "slurmd.pid")
        self._wait_idle(env)

    def _run(self, command: list[str], env: dict | None = None) -> None:
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
        if done.returncode != 0:
            raise RuntimeError(f"{command[0]} did not start: {done.stderr.strip()[:500]}")

    def _wait_idle(self, env: dict) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        state = ""
        while time.monotonic() < deadline:
            done = subprocess.run([_tool("sinfo"), "--noheader", "--format=%T"], capture_output=True, text=True,
                                  env=env)
            state = done.stdout.strip()
            if state == "idle":
                return
            time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"the test cluster's node is {state or 'not listed'} after {START_TIMEOUT_S:.0f} s; "
                           f"see {self.folder / 'log'}")

    def stop(self) -> None:
        for pid_file in reversed(self.pids):
            try:
                os.kill(int(pid_file.read_text().split()[0]), signal.SIGTERM)
            except (OSError, ValueError, IndexError):
                continue
        self.pids.clear()
        time.sleep(0.5)

    def squeue(self, job: str) -> str:
        return subprocess.run([_tool("squeue"), "--noheader", "--array", f"--jobs={job}", "--format=%K|%T"],
                              capture_output=True, text=True, env={**os.environ, **self.env}).stdout

    def scancel(self, task: str) -> None:
        subprocess.run([_tool("scancel"), task], check=True, env={**os.environ, **self.env})
