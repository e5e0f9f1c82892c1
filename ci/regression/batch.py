"""`regress --on slurm|lsf`: the level's tests as shards of one job array, watched, resubmitted and merged.

    OUT/manifest.json         the whole run (as a local run's, with its launcher settings)
    OUT/shards/NN/            one regress results folder per shard: each task runs
                              `nvdla-verif regress --resume --out OUT/shards/NN`, which runs what has no result
    OUT/batch/task.sh         the script every task of the array runs (its array index picks the shard)
    OUT/batch/state.json      the jobs submitted and every attempt of every shard
    OUT/logs/shard-N.log      what each shard printed, attempt after attempt

A shard is done when its task has ended and every one of its tests has a record; a task that ended before
that (node failure, preemption, its time limit, scancel) is submitted again, up to --retries times, and its
next attempt keeps the tests that finished. Then the shards are merged into OUT as `report merge` does: the
report of one local run with the same seed. Ctrl-C cancels the array; `regress --resume --out OUT` goes on.
The RTL is built once, before the array, into the build cache the tasks share (the settings' RTL cache, in every
shard's manifest; $NVDLA_RTL_CACHE: a folder on the file system every node sees).
"""

from __future__ import annotations

import json
import math
import shlex
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ci import shell
from ci.ownership import claim
from ci.regression.engine import Settings
from ci.regression.folder import RESULTS
from ci.regression.items import item_budget_s
from ci.regression.launchers import Resources, Scheduler, TaskState, scheduler
from ci.regression.launchers.base import ENDED, PENDING, RUNNING, LauncherError
from ci.regression.merge import merge_into
from ci.regression.plan import Item, PlanError, shard
from ci.regression.progress import clock
from ci.regression.results import FAILING, record_file
from golden.settings import Settings as Decided

#: Scheduler answers that may fail in a row (a busy controller) before the run gives up watching.
STATE_ERRORS_TOLERATED = 10
#: A task the scheduler does not list this long after its submission has ended (it left the queue).
LISTING_GRACE_S = 20.0
#: How often a progress line is printed when nothing changed.
QUIET_LINE_S = 60.0
#: What one test may use per CPU when --mem-per-shard is not given (an RTL build peaks higher: give it).
MEMORY_PER_CPU_MB = {"rtl": 4096}
DEFAULT_MEMORY_PER_CPU_MB = 2048
#: Time a shard is given on top of its tests' budgets: starting, building or waiting for the shared RTL build.
START_S = 120.0
RTL_BUILD_S = 1800.0


@dataclass(frozen=True)
class BatchOptions:
    """The launcher settings of a run (command line over the --launcher-config file over the defaults)."""

    on: str
    shards: int | None = None
    tests_per_shard: int | None = None
    queue: str | None = None
    cpus: int = 1
    memory_mb: int | None = None
    minutes: int | None = None
    submit_args: tuple[str, ...] = ()
    retries: int = 2
    poll_s: float = 15.0
    shrink: int = 40

    def shard_count(self, tests: int) -> int:
        if self.tests_per_shard:
            return max(1, math.ceil(tests / self.tests_per_shard))
        return max(1, min(self.shards or 4, tests))


@dataclass
class Attempt:
    job: str
    submitted: float
    ended: str = ""  # the scheduler's word once the task ended: COMPLETED, TIMEOUT, NODE_FAIL, left the queue
    node: str = ""


@dataclass
class Shard:
    index: int
    total: int
    folder: Path
    items: list[str]
    attempts: list[Attempt] = field(default_factory=list)
    finished: bool = False
    given_up: str = ""  # why its tests without a result have none

    @property
    def name(self) -> str:
        return f"{self.index}/{self.total}"

    def done_tests(self) -> int:
        return sum(record_file(self.folder, item).is_file() for item in self.items)

    def complete(self) -> bool:
        return self.done_tests() == len(self.items)


class Batch:
    """One batch run in OUT: its shards, their attempts on the scheduler and the merge."""

    def __init__(self, out: Path, manifest: dict, options: BatchOptions, launcher: Scheduler, command: list[str]):
        self.out, self.manifest, self.options, self.launcher, self.command = out, manifest, options, launcher, command
        self.shards: list[Shard] = []
        self.started = time.monotonic()
        self.failures: dict[Path, bool] = {}
        self.last_line, self.last_text = 0.0, ""

    # -- the shards and what they ask for ------------------------------------------------------------------
    def partition(self, items: list[Item]) -> None:
        """Write a results folder per shard (its manifest: the deterministic `--shard i/n` part of the tests)."""
        total = self.options.shard_count(len(items))
        for index in range(1, total + 1):
            part = shard(items, index, total)
            folder = claim(self.out / "shards" / f"{index:02d}", RESULTS)
            (folder / "results").mkdir(parents=True, exist_ok=True)
            manifest = {**self.manifest, "items": [i.as_dict() for i in part], "shard": f"{index}/{total}",
                        "out": str(folder)}
            manifest.pop("launcher", None)
            (folder / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
            self.shards.append(Shard(index, total, folder, [i.id for i in part]))

    def resources(self, settings: Settings, items: list[Item]) -> Resources:
        """Per shard: its -j as CPUs; memory per CPU by implementation; a time limit from the largest shard's
        test budgets (the engine's, from each layer's size) shared among its CPUs, plus start-up and, for the
        RTL, a build (the first shard to need it builds it under the cache's lock; the others wait for it)."""
        options, kind = self.options, settings.impl.partition(":")[0]
        memory = options.memory_mb or options.cpus * MEMORY_PER_CPU_MB.get(kind, DEFAULT_MEMORY_PER_CPU_MB)
        minutes = options.minutes
        if minutes is None:
            by_id = {item.id: item for item in items}
            longest = max(sum(item_budget_s(by_id[i], settings) for i in s.items) for s in self.shards)
            seconds = START_S + longest / options.cpus + (RTL_BUILD_S if kind == "rtl" else 0.0)
            minutes = math.ceil(seconds / 60)
            allowed = self.launcher.longest_minutes(options.queue)
            if allowed is not None and minutes > allowed:
                print(f"regress: the shards' worst-case time, {minutes} min, is more than the "
                      f"{options.queue or 'default'} partition allows: asking for its {allowed} min (a shard "
                      "that runs out is submitted again, keeping what it finished; --time-limit sets it)",
                      file=sys.stderr, flush=True)
                minutes = allowed
        return Resources(options.cpus, memory, minutes, options.queue, options.submit_args)

    def write_script(self) -> Path:
        """The task script: the array index picks the shard; `regress --resume` runs what has no result yet."""
        folder = self.out / "batch"
        folder.mkdir(parents=True, exist_ok=True)
        script = folder / "task.sh"
        shards = shlex.quote(str(self.out / "shards"))
        resume = shell.line([*self.command, "regress", "--resume", "--out"])
        options = shell.line(["-j", str(self.options.cpus), "--shrink", str(self.options.shrink)])
        shown = str(self.out).replace("\n", "\\n")  # a comment ends at a newline; what follows would run
        script.write_text(
            "#!/bin/bash\n"
            f"# nvdla-verif regress --on {self.options.on}: one shard of the run in {shown}\n"
            f"index=${{{self.launcher.index_variable}:?not a task of a job array}}\n"
            f"shard={shards}/$(printf %02d \"$index\")\n"
            f"echo \"nvdla-verif: shard $index on $(hostname) at $(date -u +%FT%TZ)\"\n"
            f"exec {resume} \"$shard\" {options}\n")
        script.chmod(0o755)
        return script

    # -- submitting, watching, resubmitting ----------------------------------------------------------------
    def submit(self, shards: list[Shard], resources: Resources) -> None:
        if not shards:
            return
        logs = self.out / "logs"
        logs.mkdir(exist_ok=True)
        job = self.launcher.submit(self.out / "batch" / "task.sh", [s.index for s in shards], resources, logs,
                                   f"nvdla-{self.manifest['level']}")
        for s in shards:
            s.attempts.append(Attempt(job, time.time()))
        print(f"regress: submitted {self.launcher.name} job {job}: shard(s) {_names(shards)}, "
              f"{resources.cpus} CPUs, {resources.memory_mb} MB, {resources.minutes} min each", flush=True)
        self.save()

    def watch(self, resources: Resources) -> None:
        """Until every shard is finished or given up: poll the scheduler, resubmit what ended unfinished."""
        errors = 0
        while not all(s.finished or s.given_up for s in self.shards):
            time.sleep(self.options.poll_s)
            try:
                states = self._states()
                errors = 0
            except LauncherError as exc:
                errors += 1
                print(f"regress: warning: {exc}", file=sys.stderr, flush=True)
                if errors >= STATE_ERRORS_TOLERATED:
                    raise
                continue
            again = [s for s in self.shards if self._ended(s, states) and not self._settle(s)]
            self.submit(again, resources)
            self.progress(states)

    def _active_jobs(self) -> list[str]:
        """The jobs of the current attempts of the shards still running or waiting."""
        return sorted({s.attempts[-1].job for s in self.shards if s.attempts and not (s.finished or s.given_up)})

    def _states(self) -> dict[str, dict[int, TaskState]]:
        return {job: self.launcher.states(job) for job in self._active_jobs()}

    def _ended(self, s: Shard, states: dict) -> bool:
        """Whether the shard's current task has ended (its attempt notes how); finished shards are not asked."""
        if s.finished or s.given_up or not s.attempts:
            return False
        attempt = s.attempts[-1]
        task = states.get(attempt.job, {}).get(s.index)
        if task is None and time.time() - attempt.submitted < LISTING_GRACE_S:
            return False
        if task is not None and task.state != ENDED:
            attempt.node = task.node or attempt.node
            return False
        attempt.ended = task.reason if task is not None else "left the queue"
        attempt.node = (task.node if task is not None else "") or attempt.node
        return True

    def _settle(self, s: Shard) -> bool:
        """A shard whose task ended: finished, given up (no retries left), or False: submit it again."""
        if s.complete():
            s.finished = True
        elif len(s.attempts) > self.options.retries:
            ends = "; ".join(f"{a.ended}{' on ' + a.node if a.node else ''}" for a in s.attempts)
            s.given_up = (f"no result: shard {s.name} ended {len(s.attempts)} times without finishing this test "
                          f"({ends}); its log: {self.out / 'logs' / f'shard-{s.index}.log'}")
            print(f"regress: shard {s.name} gave up after {len(s.attempts)} attempts ({ends}): "
                  f"{len(s.items) - s.done_tests()} tests have no result", file=sys.stderr, flush=True)
        else:
            print(f"regress: shard {s.name} ended unfinished ({s.attempts[-1].ended}, "
                  f"{s.done_tests()}/{len(s.items)} tests done): submitting it again, attempt "
                  f"{len(s.attempts) + 1} of {self.options.retries + 1}", flush=True)
        self.save()
        return s.finished or bool(s.given_up)

    def progress(self, states: dict) -> None:
        done = sum(s.done_tests() for s in self.shards)
        total = sum(len(s.items) for s in self.shards)
        failed = self._failed()
        tally = {PENDING: 0, RUNNING: 0}
        for s in self.shards:
            if not (s.finished or s.given_up) and s.attempts:
                task = states.get(s.attempts[-1].job, {}).get(s.index)
                tally[task.state if task is not None and task.state != ENDED else PENDING] += 1
        finished = sum(s.finished for s in self.shards)
        elapsed = time.monotonic() - self.started
        left = f", about {clock(elapsed / done * (total - done))} left" if done else ""
        text = (f"regress: [{done}/{total}] {failed} failed or errors; shards: {tally[RUNNING]} running, "
                f"{tally[PENDING]} pending, {finished} done of {len(self.shards)}")
        if text != self.last_text or time.monotonic() - self.last_line >= QUIET_LINE_S:
            print(f"{text}; {clock(elapsed)} elapsed{left}", flush=True)
            self.last_text, self.last_line = text, time.monotonic()

    def _failed(self) -> int:
        for s in self.shards:
            for path in (s.folder / "results").glob("*.json"):
                if path not in self.failures:
                    try:
                        self.failures[path] = json.loads(path.read_text())["status"] in FAILING
                    except (OSError, ValueError, KeyError):
                        continue  # being written: read it next time
        return sum(self.failures.values())

    def cancel(self) -> None:
        for job in self._active_jobs():
            try:
                self.launcher.cancel(job)
                print(f"regress: cancelled {self.launcher.name} job {job}", file=sys.stderr, flush=True)
            except LauncherError as exc:
                print(f"regress: could not cancel job {job}: {exc}", file=sys.stderr, flush=True)
        self.save()

    # -- state on disk, merging ----------------------------------------------------------------------------
    def save(self) -> None:
        state = {"on": self.options.on, "shards": [
            {"index": s.index, "total": s.total, "folder": str(s.folder), "items": s.items, "finished": s.finished,
             "given_up": s.given_up, "attempts": [asdict(a) for a in s.attempts]} for s in self.shards]}
        path = self.out / "batch" / "state.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(state, indent=1) + "\n")
        tmp.replace(path)

    def load(self) -> None:
        state = json.loads((self.out / "batch" / "state.json").read_text())
        self.shards = [Shard(s["index"], s["total"], Path(s["folder"]), s["items"],
                             [Attempt(**a) for a in s["attempts"]]) for s in state["shards"]]

    def merge(self) -> dict:
        """The shards' results merged into OUT; every test records its shard, node and task (ran_on)."""
        missing = {s.folder: s.given_up for s in self.shards if s.given_up}
        launcher = {"on": self.options.on, "shards": len(self.shards),
                    "attempts": {s.name: len(s.attempts) for s in self.shards}}
        return merge_into(self.out, [s.folder for s in self.shards], {"launcher": launcher}, missing,
                          keep={"launcher": self.manifest["launcher"]}, history=False)


def _names(shards: list[Shard]) -> str:
    return ", ".join(s.name for s in shards)


def run_batch(out: Path, manifest: dict, items: list[Item], settings: Settings, options: BatchOptions,
              command: list[str], resume: bool) -> dict:
    """Submit (or, with resume, submit again what has no result), watch, merge: the merged report."""
    launcher = scheduler(options.on)
    batch = Batch(out, manifest, options, launcher, command)
    if resume:
        if not (out / "batch" / "state.json").is_file():
            raise PlanError(f"{out}: no batch state to resume (batch/state.json)")
        batch.load()
    else:
        batch.partition(items)
    resources = batch.resources(settings, items)
    batch.write_script()
    todo = [s for s in batch.shards if not s.complete()]
    for s in batch.shards:
        s.finished, s.given_up = s.complete(), ""
    for s in todo:  # a resumed shard has its retries again
        s.attempts = []
    print(f"regress: {len(items)} tests in {len(batch.shards)} shards on {options.on}"
          + (f"; {sum(s.done_tests() for s in batch.shards)} tests have a result already" if resume else "")
          + f"; progress every {options.poll_s:g} s", flush=True)
    try:
        batch.submit(todo, resources)
        batch.watch(resources)
    except KeyboardInterrupt:
        batch.cancel()
        done = sum(s.done_tests() for s in batch.shards)
        resume = shell.line([*command, "regress", "--resume", "--out", str(out)])
        print(f"regress: interrupted: {done} of {len(items)} tests have a result in {out}; the job array is "
              f"cancelled; to go on: {resume}", file=sys.stderr, flush=True)
        raise
    return batch.merge()


def shared_cache(decided: Decided) -> Decided:
    """The settings with the RTL build cache the submitting regress builds into (it prepares the implementations
    before submitting), resolved, so that the tasks, which read them from their manifests, build nothing again."""
    from rtl.build import BuildOptions, cache_root

    return decided.with_rtl(cache=str(cache_root(BuildOptions.from_settings(decided.rtl)).resolve()))


#: The --launcher-config file: the same settings as the command line's (which win over it).
CONFIG_SCHEMA = {
    "type": "object", "additionalProperties": False,
    "properties": {
        "on": {"enum": ["local", "slurm", "lsf"]},
        "shards": {"type": "integer", "minimum": 1},
        "tests_per_shard": {"type": "integer", "minimum": 1},
        "queue": {"type": "string", "minLength": 1},
        "cpus_per_shard": {"type": "integer", "minimum": 1},
        "mem_per_shard": {"type": ["string", "integer"]},
        "time_limit": {"type": ["string", "integer"]},
        "submit_args": {"type": "array", "items": {"type": "string"}},
        "retries": {"type": "integer", "minimum": 0},
        "poll": {"type": "number", "exclusiveMinimum": 0},
    },
}


def load_config(path: str | None) -> dict:
    """The launcher settings of a --launcher-config JSON file, checked against CONFIG_SCHEMA ({} without one)."""
    if not path:
        return {}
    try:
        data = json.loads(Path(path).read_text())
    except OSError as exc:
        raise PlanError(f"--launcher-config {path}: {exc.strerror}") from None
    except ValueError as exc:
        raise PlanError(f"--launcher-config {path}: not JSON ({exc})") from None
    import jsonschema

    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(CONFIG_SCHEMA).iter_errors(data))
    if error is not None:
        where = "/".join(map(str, error.absolute_path)) or "(top level)"
        raise PlanError(f"--launcher-config {path}: {where}: {error.message}")
    return data


def memory_mb(text: str | int | None) -> int | None:
    """'8G', '4096M', '4096' (MB) -> MB."""
    if text is None:
        return None
    word = str(text).strip().upper().removesuffix("B")
    scale = {"K": 1 / 1024, "M": 1, "G": 1024, "T": 1024 * 1024}.get(word[-1:], None)
    number = word[:-1] if scale is not None else word
    try:
        value = float(number) * (scale or 1)
    except ValueError:
        raise PlanError(f"memory {text!r}: expected a size such as 8G or 4096M") from None
    if value < 1:
        raise PlanError(f"memory {text!r}: less than one MB")
    return math.ceil(value)


def minutes(text: str | int | None) -> int | None:
    """'90' (minutes), '1:30:00' or '1:30' (hours:minutes[:seconds]) -> whole minutes."""
    if text is None:
        return None
    parts = str(text).strip().split(":")
    try:
        numbers = [int(p) for p in parts]
    except ValueError:
        raise PlanError(f"time limit {text!r}: expected minutes or H:MM[:SS]") from None
    if len(numbers) > 3 or any(n < 0 for n in numbers):
        raise PlanError(f"time limit {text!r}: expected minutes or H:MM[:SS]")
    if len(numbers) == 1:
        total = numbers[0]
    else:
        hours, mins, secs = (numbers + [0])[:3]
        total = hours * 60 + mins + math.ceil(secs / 60)
    if total < 1:
        raise PlanError(f"time limit {text!r}: at least one minute")
    return total
