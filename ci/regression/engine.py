"""Playing a regression item's layers and recording the result (ci/regression/items.py dispatches by kind).

    run_trace_item(item, path, settings) -> Run   a trace through the implementation and the scoreboards
    run_mutant(item, settings) -> Run              a fixture mutant on the bench's default layer set
    (Run.record: a JSON-able dict; Run.results: the TraceResults, for attachments)

Every layer runs through the implementation interface and the scoreboards (ci.conformance.run_trace).
A layer that runs past its time budget is stopped (SIGALRM) and recorded as failed with verdict "timeout";
the budget grows with the layer's size (the bytes of its trace and data files), per implementation kind.
"""

from __future__ import annotations

import os
import shlex
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import ci.implementations as registry
from ci.conformance import run_trace
from ci.options import environment, reference_spec
from ci.regression.coverage import layer_hits
from ci.regression.plan import Item
from ci.regression.signature import result_signature
from golden.config import get_profile, infer_profile_name
from golden.errors import NvdlaVerifError
from golden.trace import find_traces
from golden.verdict import TraceResult

#: (floor seconds, bytes per second) of a layer's time budget, by implementation name; others use "command".
BUDGETS = {"golden": (60.0, 2e6), "dlhdl": (60.0, 1e6), "command": (120.0, 5e5), "rtl": (300.0, 2e4)}
MUTANT_BUILD_S = 600.0  # a Verilator build of the fixture with one bug switch, before its layers run
MUTANT_LAYERS = 12  # about how many layers the bench's default set plays against a mutant (rtl/suite.py)


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
    #: processes receive it through the environment (ci.options.rtl_environment).
    rtl: list[str] = field(default_factory=list)
    #: How the person started nvdla-verif, as a command that works from any folder (ci.cli.invocation).
    command: str = "nvdla-verif"

    def reference_spec(self) -> str | None:
        return reference_spec(self.impl, self.ref)


@dataclass
class Run:
    record: dict
    results: list[TraceResult] = field(default_factory=list)
    trace_paths: list[Path] = field(default_factory=list)


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


def item_budget_s(item: Item, settings: Settings) -> float:
    """The longest the item may take: its layers' budgets (a trace's from its size, a layer still to be
    generated at the floor), a mutant's build and the bench's layers at the floor (a batch shard's time limit
    is the sum over its tests)."""
    impl, scale = settings.impl, settings.timeout_scale
    if item.kind == "nvidia_traces":
        path = Path(item.params["path"])
        return budget_s(impl, layer_bytes(path) if path.exists() else 0, scale)
    if item.kind == "mutants":
        return scale * MUTANT_BUILD_S + MUTANT_LAYERS * budget_s("rtl", 0, scale)
    return int(item.params.get("layers", 1)) * budget_s(impl, 0, scale)


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


def _profile_for(path: Path, settings: Settings, default: str | None = None):
    name = settings.profile or default or infer_profile_name(path)
    return get_profile(name) if name else None


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
               implementation=None, ran: list | None = None) -> TraceResult:
    """One trace through run_trace under its time budget; a timeout is a failed result, never a hang.
    `ran` receives the hardware layers the reference (else the golden implementation itself) completed."""
    size = layer_bytes(path)
    limit = budget_s(impl_spec, size, scale)
    if implementation is None:
        # An external program gets the budget as its own limit, so that it kills its process group itself.
        own = {"NVDLA_COMMAND_TIMEOUT": f"{0.9 * limit:.1f}"} if "NVDLA_COMMAND_TIMEOUT" not in os.environ else {}
        with environment(own):
            implementation = registry.create(impl_spec)
    reference = _Recording(registry.create(ref_spec)) if ref_spec else None
    started = time.perf_counter()
    try:
        with watchdog(limit):
            result = run_trace(path, profile, implementation, reference)
        if ran is not None:
            ran.extend(_completed_layers(result, reference))
        return result
    except LayerTimeout:
        name = path.parent.name if path.suffix == ".txn" else path.stem
        return TraceResult(name, profile.name, "failed", f"timeout: no result within {limit:.0f} s (budget for "
                           f"{size} bytes of layer data on {implementation.name})", path=str(path),
                           implementation=implementation.name, seconds=time.perf_counter() - started)


def _completed_layers(result: TraceResult, reference: _Recording | None) -> list:
    if reference is not None:
        outcome = reference.outcome
        return list(outcome.layers) if outcome is not None and outcome.status == "completed" else []
    golden_ran = result.implementation == "golden" and result.status in ("passed", "failed")
    return list(result.layers) if golden_ran else []


def new_record(item: Item, settings: Settings, status: str, verdict: str, detail: str, **extra) -> dict:
    record = {"id": item.id, "kind": item.kind, "tests": list(item.tests), "testpoints": list(item.testpoints),
              "status": status, "verdict": verdict, "detail": detail, "impl": settings.impl,
              "ref": settings.reference_spec(), "seed": item.params.get("seed"), "signature": None,
              "size_bytes": 0, "reproduce": reproduce_command(item, settings)}
    record.update(extra)
    return record


def run_trace_item(item: Item, path: Path, settings: Settings) -> Run:
    profile = _profile_for(path, settings, item.params.get("profile") if item.kind != "nvidia_traces" else None)
    if profile is None:
        return Run(new_record(item, settings, "skipped", "-", f"cannot infer the profile of {path}; use --profile"))
    ran: list = []
    result = play_layer(path, profile, settings.impl, settings.reference_spec(), settings.timeout_scale, ran=ran)
    status, note = _status(result, item.params.get("expected_invalid"))
    record = new_record(item, settings, status, result.status, note or result.detail, size_bytes=layer_bytes(path),
                        path=shown_path(path, settings), profile=profile.name, cycles=result.cycles,
                        **_coverage_fields(profile, ran))
    if status in ("failed", "error"):
        record["signature"] = result_signature(result)
    return Run(record, [result], [path])


def _coverage_fields(profile, layers: list) -> dict:
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


def _status(result: TraceResult, expected_invalid: str | None) -> tuple[str, str]:
    """(test status, a note replacing the detail or ''): passed, failed, error or skipped."""
    if expected_invalid:
        if result.status == "invalid" and expected_invalid in result.detail:
            return "passed", f"rejected as expected: {result.detail}"
        result.status, result.detail = "failed", (f"expected a rejection naming {expected_invalid}, got "
                                                  f"{result.status}: {result.detail}")
        return "failed", ""
    if result.status == "passed":
        return "passed", ""
    if result.status == "failed":
        return "failed", ""
    if result.status == "not applicable":
        return "not applicable", ""
    if result.status in ("unsupported", "invalid"):
        return "skipped", f"{result.status}: {result.detail}"
    if result.detail.startswith("missing file"):
        return "skipped", result.detail
    return "error", ""


def run_mutant(item: Item, settings: Settings) -> Run:
    """Build the fixture with one bug switch, play the bench's default layer set: caught when a layer fails a
    check or the bench stops it (error); an error only because the simulator never started is no catch."""
    switch = item.params["switch"]
    if settings.impl != "rtl":
        return Run(new_record(item, settings, "skipped", "-",
                              f"a fixture mutant needs --impl rtl (got {settings.impl})"))
    from rtl.build import BuildOptions, build
    from rtl.implementation import Rtl
    from rtl.suite import default_layers

    options = BuildOptions(defines=(switch,))
    with watchdog(settings.timeout_scale * MUTANT_BUILD_S):
        build(options)
    mutant = Rtl(build_options=options)
    results, paths, caught = [], [], []
    profile = get_profile("nv_small")
    for name, folder in default_layers(settings.work / "mutant-layers"):
        path = find_traces(folder)[0]  # NVIDIA's layers are test folders
        result = play_layer(path, profile, "rtl", settings.reference_spec(), settings.timeout_scale,
                            implementation=mutant)
        results.append(result)
        paths.append(path)
        if result.status not in ("passed", "unsupported", "invalid"):
            caught.append({"layer": name, "verdict": result.status, "signature": result_signature(result),
                           "size_bytes": layer_bytes(path), "detail": _in_work(result.detail, settings)[:300]})
    if caught and all(c["verdict"] == "error" and _infrastructure(c["detail"]) for c in caught):
        # Every layer that stopped did so because the simulation never started: a broken build, not a catch.
        return Run(new_record(item, settings, "error", "errored", f"{switch}: no layer failed a check, "
                              f"{len(caught)} of {len(results)} errored: {caught[0]['signature']['pattern']}",
                              signature={**caught[0]["signature"], "check": "mutant run"}, caught_by=caught),
                      results, paths)
    if caught:
        smallest = min(caught, key=lambda c: c["size_bytes"])
        detail = f"caught by {len(caught)} of {len(results)} layers; smallest: {smallest['layer']}"
        return Run(new_record(item, settings, "passed", "caught", detail, caught_by=caught), results, paths)
    return Run(new_record(item, settings, "failed", "survived", f"{switch} survived all {len(results)} layers",
                          signature={"unit": "SDP", "implementation": "rtl", "check": "mutant",
                                     "pattern": "mutant survived the default layer set"}), results, paths)


def _in_work(detail: str, settings: Settings) -> str:
    """A detail that names the mutant's layers by their place in the results folder (the same in every run and
    shard), not by the absolute folder this run used."""
    return detail.replace(str(settings.work.resolve()), "work").replace(str(settings.work), "work")


#: What a layer's error says when the simulator never ran the bench (cocotb's GPI could not load it, the
#: binary or a library is missing), as opposed to a bench check that stopped it (a CSB or interrupt timeout).
INFRASTRUCTURE_ERRORS = ("gpi_load_user", "GPI_USERS", "cannot be loaded", "cannot start", "No such file or directory")


def _infrastructure(detail: str) -> bool:
    return any(marker in detail for marker in INFRASTRUCTURE_ERRORS)


def not_applicable(item: Item, settings: Settings) -> str:
    """Why the item does not apply to the implementation under test ('' when it does): it was made for a profile
    the implementation's declared one lacks something of (ci.conformance.not_applicable), or its family is none
    of that profile's."""
    from ci.conformance import not_applicable as lacking
    from stimulus.families import available

    if item.kind == "mutants":  # the fixture built with a bug switch: the bench's own check, whatever the DUT
        return ""
    text = settings.profile or item.params.get("profile") or infer_profile_name(item.params.get("path", ""))
    if not text:
        return ""
    profile = get_profile(text)
    reason = lacking(registry.create(settings.impl), profile)
    if not reason and item.kind == "generated" and item.params["family"] not in available(profile):
        reason = f"family {item.params['family']} is none of {profile.name}'s ({', '.join(available(profile))})"
    return reason


def reproduce_command(item: Item, settings: Settings) -> str:
    """A command that reproduces the item's result when pasted into a shell in any folder: the implementation
    with its RTL selection and profile, and a results folder of its own."""
    nvdla, options = settings.command, implementation_options(settings)
    name = item.id.replace("/", "-")
    if item.kind == "nvidia_traces":
        profile = f" --profile {shlex.quote(settings.profile)}" if settings.profile else ""
        return f"{nvdla} conform {shlex.quote(item.params['path'])}{options}{profile} --json repro-{name}.json"
    if item.kind == "generated":
        p = item.params
        folder = f"repro-{name}"
        corners = " --corners" if p.get("corners") else ""
        index = f"--index {p['index']} " if p.get("index") else ""
        return (f"{nvdla} generate --unit {p['family']} --profile {shlex.quote(p['profile'])} --seed {p['seed']} "
                f"{index}-n 1 --layers {p['layers']}{corners} --out {folder} && {nvdla} conform {folder}{options}")
    plan = f" --plan {shlex.quote(settings.plan)}" if settings.plan else ""
    profile = f" --profile {shlex.quote(settings.profile)}" if settings.profile else ""
    impl = "" if options.startswith(" --impl") else " --impl golden"  # regress defaults to rtl
    return (f"{nvdla} regress{plan} --level {settings.level} --seed {settings.seed}{impl}{options}{profile} "
            f"--test {shlex.quote(item.id)} --out regress-repro-{name}")


def implementation_options(settings: Settings) -> str:
    """--impl with the RTL selection, and --ref, as `conform` takes them (empty for the golden model alone)."""
    rtl = "".join(f" {shlex.quote(word)}" for word in settings.rtl)
    impl = f" --impl {shlex.quote(settings.impl)}{rtl}" if settings.impl != "golden" else ""
    return impl + (f" --ref {shlex.quote(settings.ref)}" if settings.ref else "")
