"""The machinery every test kind plays its layers with (ci/regression/kinds/ runs each kind's items).

    play_layer(path, profile, impl, ref, scale) -> TraceResult   a trace through the implementation and the
                                                                  scoreboards, under its time budget
    Run(record, results, trace_paths)     a test's record (ci/regression/record.py) and its TraceResults, for
                                          attachments

Every layer runs through the implementation interface and the scoreboards (scoreboards.verdict.verify).
A layer that runs past its time budget is stopped (SIGALRM) and recorded as failed with verdict "timeout";
the budget grows with the layer's size (the bytes of its trace and data files), per implementation kind.
"""

from __future__ import annotations

import shlex
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

import ci.implementations as registry
from ci import shell
from ci.options import reference_spec
from ci.regression.coverage import layer_hits
from ci.regression.item import Item
from ci.regression.record import Record
from golden.config import get_profile, infer_profile_name
from golden.errors import NvdlaVerifError
from golden.settings import Settings as Decided
from golden.status import RECORDED_AS, Ending, RecordStatus, Verdict
from golden.verdict import TraceResult
from scoreboards.verdict import verify

#: (floor seconds, bytes per second) of a layer's time budget, by implementation name; others use "command".
BUDGETS = {"golden": (60.0, 2e6), "dlhdl": (60.0, 1e6), "command": (120.0, 5e5), "rtl": (300.0, 2e4)}


class LayerTimeout(BaseException):
    """Raised in the test's thread when a layer runs past its budget (a BaseException so that no
    implementation's `except Exception` swallows it)."""


@dataclass
class Settings:
    impl: str = "golden"
    ref: str | None = None  # None: golden unless impl is golden
    profile: str | None = None  # a fixed profile for every layer
    level: str = "smoke"
    seed: int = 0
    work: Path = Path("regress-out/work")
    timeout_scale: float = 1.0
    plan: str | None = None
    rtl_coverage: bool = False  # Verilator line and toggle coverage of the RTL runs (ci/regression/code_coverage.py)
    #: The RTL selection as command-line arguments (ci.options.rtl_arguments), for reproduce commands; the run's
    #: implementations get it in `decided`.
    rtl: list[str] = field(default_factory=list)
    #: How the person started nvdla-verif, as the first words of a command that works from any folder
    #: (ci.cli.invocation); a manifest written before it was a list holds the words shell-quoted and joined.
    command: list[str] = field(default_factory=lambda: ["nvdla-verif"])
    #: NVIDIA's data the run read (absolute), so that a reproduce line works from any folder.
    nvdla_data: str | None = None
    #: What the command line decided for the implementations, the RTL bench and the worker processes
    #: (golden/settings.py; default: the person's overrides); the manifest carries it to the pytest workers, the
    #: batch shards and --resume.
    decided: Decided = field(default_factory=Decided.from_environment)

    def __post_init__(self):
        if isinstance(self.command, str):
            self.command = shlex.split(self.command)
        if isinstance(self.decided, dict):  # read from a manifest
            self.decided = Decided.from_json(self.decided)

    def to_manifest(self) -> dict:
        """The settings as the manifest holds them (the results folder is the manifest's own)."""
        fields = {name: value for name, value in vars(self).items() if name != "work"}
        return {**fields, "decided": self.decided.to_json()}

    def reference_spec(self) -> str | None:
        return reference_spec(self.impl, self.ref)

    def fixed_profile(self):
        """The profile --profile gives every layer (None: each layer's own)."""
        return get_profile(self.profile) if self.profile else None


@dataclass
class Run:
    record: Record
    results: list[TraceResult] = field(default_factory=list)
    trace_paths: list[Path] = field(default_factory=list)
    #: Files for the test's report page beyond its traces: (title, path); a .png shows as a picture.
    attachments: list[tuple[str, Path]] = field(default_factory=list)


def layer_bytes(path: Path) -> int:
    """The bytes of a trace and its data files: its folder, or the files named after it in a shared folder."""
    folder = path.parent
    if sum(1 for _ in folder.glob("*.cfg")) > 1:
        files = folder.glob(f"{path.stem}*")
    else:
        files = folder.iterdir()
    return sum(f.stat().st_size for f in files if f.is_file())


def budget_s(impl: str, size: int, scale: float) -> float:
    floor, rate = BUDGETS.get(impl.partition(":")[0], BUDGETS["command"])
    return scale * (floor + size / rate)


@contextmanager
def watchdog(seconds: float):
    """Raise LayerTimeout in this thread after `seconds` (main thread only; elsewhere no limit)."""
    if threading.current_thread() is not threading.main_thread() or seconds <= 0:
        yield
        return

    def expire(signum, frame):
        raise LayerTimeout(seconds)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class _Recording:
    """A reference implementation that keeps its last outcome (the layers the golden model ran, for coverage)."""

    def __init__(self, inner):
        self.inner, self.name, self.outcome = inner, inner.name, None

    def run(self, program, profile):
        self.outcome = None
        self.outcome = self.inner.run(program, profile)
        return self.outcome

    def __getattr__(self, name):
        return getattr(self.inner, name)


def play_layer(path: Path, profile, impl_spec: str, ref_spec: str | None, scale: float,
               implementation=None, ran: list | None = None, settings: Decided | None = None) -> TraceResult:
    """One trace through verify under its time budget; a timeout is a failed result, never a hang.
    `ran` receives the hardware layers the reference (else the golden implementation itself) completed;
    `settings`: what the implementations are created with (default: the person's overrides)."""
    size = layer_bytes(path)
    limit = budget_s(impl_spec, size, scale)
    settings = settings if settings is not None else Decided.from_environment()
    if implementation is None:
        # An external program gets the budget as its own limit, so that it kills its process group itself.
        command = settings.command
        own = replace(command, timeout_s=round(0.9 * limit, 1)) if command.timeout_s is None else command
        implementation = registry.create(impl_spec, replace(settings, command=own))
    reference = _Recording(registry.create(ref_spec, settings)) if ref_spec else None
    started = time.perf_counter()
    try:
        with watchdog(limit):
            result = verify(path, profile, implementation, reference)
        if ran is not None:
            ran.extend(_completed_layers(result, reference))
        return result
    except LayerTimeout:
        name = path.parent.name if path.suffix == ".txn" else path.stem
        return TraceResult(name, profile.name, Verdict.FAILED, f"timeout: no result within {limit:.0f} s (budget for "
                           f"{size} bytes of layer data on {implementation.name})", path=str(path),
                           implementation=implementation.name, seconds=time.perf_counter() - started)


def _completed_layers(result: TraceResult, reference: _Recording | None) -> list:
    if reference is not None:
        outcome = reference.outcome
        return list(outcome.layers) if outcome is not None and outcome.status == Ending.COMPLETED else []
    golden_ran = result.implementation == "golden" and result.status in (Verdict.PASSED, Verdict.FAILED)
    return list(result.layers) if golden_ran else []


def coverage_fields(profile, layers: list) -> dict:
    """The record's functional coverage: the bins the golden model's layers of this test hit (ci/regression/
    coverage.py), with a note for what could not be sampled."""
    try:
        hits, notes = layer_hits(profile, layers)
    except NvdlaVerifError as exc:  # cocotb-coverage missing: say so in every record, run the test all the same
        return {"coverage": None, "coverage_notes": [str(exc)]}
    return {"coverage": {profile.name: hits} if hits else {}, "coverage_notes": notes,
            "layers_sampled": sum(1 for layer in layers if layer.regs is not None)}


def shown_path(path: Path, settings: Settings) -> str:
    """A generated trace's path relative to the results folder (the same in every shard), others as they are."""
    try:
        return str(path.resolve().relative_to(settings.work.resolve().parent))
    except ValueError:
        return str(path)


def trace_status(result: TraceResult, expected_invalid: str | None) -> tuple[RecordStatus, str]:
    """(test status, a note replacing the detail or ''): the verdict as a record says it (RECORDED_AS)."""
    if expected_invalid:
        if result.status == Verdict.INVALID and expected_invalid in result.detail:
            return RecordStatus.PASSED, f"rejected as expected: {result.detail}"
        result.status, result.detail = Verdict.FAILED, (f"expected a rejection naming {expected_invalid}, got "
                                                        f"{result.status}: {result.detail}")
        return RecordStatus.FAILED, ""
    status = RECORDED_AS[result.status]
    if status == RecordStatus.SKIPPED:
        return status, f"{result.status}: {result.detail}"
    if status == RecordStatus.ERROR and result.detail.startswith("missing file"):
        return RecordStatus.SKIPPED, result.detail
    return status, ""


def lacking(item: Item, settings: Settings) -> str:
    """Why the implementation under test cannot run what the item was made for ('' when it can): the item's
    profile has something the implementation's declared one lacks (ci.conformance.not_applicable)."""
    from ci.conformance import not_applicable

    text = settings.profile or item.params.get("profile") or infer_profile_name(item.params.get("path", ""))
    if not text:
        return ""
    return not_applicable(registry.create(settings.impl, settings.decided), get_profile(text))


def regress_command(item: Item, settings: Settings) -> str:
    """A `regress` command that runs the item alone again, with its own results folder (a kind that has a more
    direct reproduction says its own)."""
    words = [*settings.command, "regress", *(shell.option("--plan", settings.plan) if settings.plan else []),
             "--level", settings.level, "--seed", str(settings.seed)]
    words += ["--impl", "golden"] if settings.impl == "golden" else []  # regress defaults to rtl
    words += implementation_arguments(settings)
    words += shell.option("--profile", settings.profile) if settings.profile else []
    words += shell.option("--nvdla-data", settings.nvdla_data) if settings.nvdla_data else []
    words += [*shell.option("--test", item.id), *shell.option("--out", f"regress-repro-{item.id.replace('/', '-')}")]
    return shell.line(words)


def implementation_arguments(settings: Settings) -> list[str]:
    """--impl with the RTL selection, and --ref, as `conform` takes them (none for the golden model alone)."""
    words = [*shell.option("--impl", settings.impl), *settings.rtl] if settings.impl != "golden" else []
    return words + (shell.option("--ref", settings.ref) if settings.ref else [])
