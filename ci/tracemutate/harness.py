"""Play mutated traces (cases) on the golden model through golden.player.play, in a worker process that can be
killed.

Each case is played in a long-lived worker (spawned once, restarted after a hang or a memory blow-up):

    outcome     the verdict's status (golden.status.Verdict: passed, failed, unsupported, invalid, error), or
    internal    play() reported an exception outside the project family ("internal error ...")
    crash       the worker died (a signal, or an exception escaping play itself)
    hang        no verdict within the per-case time limit (the worker is killed)
    memory      the worker's peak resident memory passed the limit

The last four are findings: `Fuzzer.record` writes a reproducer folder for each (the case's files, a
case.json, and the trace reduced line by line to the fewest lines that still give the same finding).
"""

from __future__ import annotations

import json
import multiprocessing
import re
import resource
import shutil
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ci.tracemutate.mutations import Case
from golden.settings import override
from golden.status import Verdict

FINDINGS = ("internal", "crash", "hang", "memory")
GIB = 1 << 30
STARTUP_SECONDS = 300


#: What the worker plays a trace with ("module:function", called as play(path, profile)); tests substitute
#: a player that misbehaves on purpose.
GOLDEN_PLAYER = "golden.player:play"


def _peak_rss() -> int:
    """This process's peak resident size in bytes: VmHWM, which exec resets (ru_maxrss keeps the peak of the
    process that forked this one, e.g. a pytest worker that ran heavy tests before), else ru_maxrss."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _worker(connection, address_space: int, player: str = GOLDEN_PLAYER) -> None:
    """Play every trace path received; answer (status, detail, peak RSS bytes)."""
    resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    import importlib

    from golden.config import get_profile

    module, _, function = player.partition(":")
    play = getattr(importlib.import_module(module), function)
    connection.send("ready")

    while True:
        message = connection.recv()
        if message is None:
            return
        path, profile = message
        try:
            result = play(path, get_profile(profile))
            answer = (result.status, result.detail[:2000])
        except BaseException as exc:  # play() itself must never raise: report it as a crash
            answer = ("crash", f"{type(exc).__name__}: {str(exc)[:2000]}")
        connection.send((*answer, _peak_rss()))


@dataclass
class Outcome:
    kind: str  # a golden.status.Verdict, or one of FINDINGS
    detail: str
    seconds: float
    peak: int  # worker peak RSS in bytes so far

    @property
    def finding(self) -> bool:
        return self.kind in FINDINGS


class Worker:
    def __init__(self, timeout: float, memory_limit: int, address_space: int, player: str = GOLDEN_PLAYER):
        self.timeout, self.memory_limit, self.address_space = timeout, memory_limit, address_space
        self.player = player
        self.process = None
        self.connection = None

    def start(self) -> None:
        context = multiprocessing.get_context("spawn")
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_worker, args=(child, self.address_space, self.player),
                                       daemon=True)
        self.process.start()
        child.close()
        # the per-case time limit starts once the worker has imported the model (slow on a loaded machine)
        if not self.connection.poll(STARTUP_SECONDS) or self.connection.recv() != "ready":
            self.stop()
            raise RuntimeError(f"the fuzz worker did not start within {STARTUP_SECONDS} s")

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.join()
            self.process = None

    def play(self, path: Path, profile: str) -> Outcome:
        if self.process is None:
            self.start()
        started = time.perf_counter()
        self.connection.send((str(path), profile))
        if not self.connection.poll(self.timeout):
            self.stop()
            return Outcome("hang", f"no verdict within {self.timeout:g} s", self.timeout, 0)
        try:
            status, detail, peak = self.connection.recv()
        except EOFError:
            code = self.process.exitcode if self.process else None
            self.stop()
            return Outcome("crash", f"worker died (exit code {code})", time.perf_counter() - started, 0)
        seconds = time.perf_counter() - started
        if peak > self.memory_limit:
            self.stop()  # a fresh worker: ru_maxrss only grows
            return Outcome("memory", f"peak RSS {peak / GIB:.2f} GiB ({status}: {detail[:200]})", seconds, peak)
        if status == Verdict.ERROR and detail.startswith("internal error"):
            return Outcome("internal", detail, seconds, peak)
        return Outcome(status, detail, seconds, peak)


def _stem(detail: str) -> str:
    """An error detail without paths and numbers, to count errors by kind."""
    text = re.sub(r"\S*/\S*", "PATH", detail.split(" [rule:")[0])
    text = re.sub(r"0x[0-9a-fA-F]+|\d+", "N", text)
    return text[:90]


@dataclass
class Fuzzer:
    """Plays cases, counts outcomes, and writes a reduced reproducer for every finding."""

    scratch: Path
    out: Path
    timeout: float = 30.0
    memory_limit: int = 2 * GIB
    address_space: int = 6 * GIB
    player: str = GOLDEN_PLAYER
    counts: Counter = field(default_factory=Counter)
    kinds: Counter = field(default_factory=Counter)
    errors: Counter = field(default_factory=Counter)
    findings: list[dict] = field(default_factory=list)
    peak: int = 0
    seconds: float = 0.0
    slowest: float = 0.0

    def __post_init__(self) -> None:
        self.worker = Worker(self.timeout, self.memory_limit, self.address_space, self.player)
        self._serial = 0

    def close(self) -> None:
        self.worker.stop()

    def play(self, case: Case, keep: bool = False) -> tuple[Outcome, Path]:
        self._serial += 1
        folder = self.scratch / f"case{self._serial}"
        trace = case.write(folder)
        outcome = self.worker.play(trace, case.seed.profile)
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)
        return outcome, folder

    def record(self, case: Case) -> Outcome:
        outcome, folder = self.play(case, keep=True)
        self.counts[outcome.kind] += 1
        self.kinds[case.kind] += 1
        self.peak = max(self.peak, outcome.peak)
        self.seconds += outcome.seconds
        self.slowest = max(self.slowest, outcome.seconds)
        if outcome.kind == Verdict.ERROR:
            self.errors[_stem(outcome.detail)] += 1
        if outcome.finding:
            self.findings.append(self._reproducer(case, outcome, folder))
        shutil.rmtree(folder, ignore_errors=True)
        if sum(self.counts.values()) % 1000 == 0:  # a long run shows how far it is
            (self.out / "progress.json").write_text(json.dumps(self.summary(), indent=1) + "\n")
        return outcome

    def _reproducer(self, case: Case, outcome: Outcome, folder: Path) -> dict:
        target = self.out / f"finding{len(self.findings) + 1}-{outcome.kind}"
        shutil.rmtree(target, ignore_errors=True)
        reduced = self._reduce(case, outcome.kind, budget=8 if outcome.kind == "hang" else 120)
        shutil.copytree(folder, target, symlinks=False)
        (target / case.seed.trace.name).write_bytes(reduced.trace_text)
        info = {"finding": outcome.kind, "detail": outcome.detail, "seed": str(case.seed.trace),
                "profile": case.seed.profile, "mutation": f"{case.kind}: {case.description}",
                "trace": str(target / case.seed.trace.name),
                "replay": f"python -m ci.cli play {target / case.seed.trace.name} --profile {case.seed.profile}"}
        (target / "case.json").write_text(json.dumps(info, indent=1) + "\n")
        return info

    def _reduce(self, case: Case, kind: str, budget: int = 120) -> Case:
        """Drop chunks of trace lines while the finding stays the same (ddmin-like, bounded)."""
        lines = case.trace_text.split(b"\n")
        chunk = max(1, len(lines) // 2)
        while chunk >= 1 and budget > 0:
            start, changed = 0, False
            while start < len(lines) and budget > 0:
                trial = lines[:start] + lines[start + chunk:]
                budget -= 1
                candidate = Case(case.seed, case.kind, case.description, b"\n".join(trial), case.files)
                if trial and self.play(candidate)[0].kind == kind:
                    lines, changed = trial, True
                else:
                    start += chunk
            if not changed:
                chunk //= 2
        return Case(case.seed, case.kind, case.description, b"\n".join(lines), case.files)

    def summary(self) -> dict:
        total = sum(self.counts.values())
        return {"cases": total, "by_outcome": dict(self.counts.most_common()),
                "by_mutation": dict(self.kinds.most_common()),
                "findings": len(self.findings), "non_project_exceptions": self.counts["internal"] +
                self.counts["crash"], "hangs": self.counts["hang"], "memory_over_limit": self.counts["memory"],
                "peak_rss_gib": round(self.peak / GIB, 3), "mean_case_seconds": round(self.seconds / max(1, total), 4),
                "slowest_case_seconds": round(self.slowest, 2), "top_errors": dict(self.errors.most_common(25)),
                "finding_reproducers": self.findings}


def environment_cases(default: int) -> int:
    return int(override("NVDLA_FUZZ_CASES") or default)
