"""kind: mutants. The fixture DUT built with one bug switch (`ifdef FX_BUG_*` in rtl/fixture/*.v, a glob in
`switches`), the RTL bench's default layer set played against it (rtl/suite.py): caught when a layer fails a
check or a bench check stops it; an error only because the simulator never started is no catch."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

from ci.regression import engine
from ci.regression.engine import Run, Settings
from ci.regression.item import Item
from ci.regression.kinds.base import Expansion, TestKind
from ci.regression.record import Finding
from ci.regression.signature import result_signature
from golden.config import get_profile
from golden.status import RecordStatus, Verdict
from golden.trace import find_traces

FIXTURE_SOURCES = Path(__file__).resolve().parents[3] / "rtl" / "fixture"
#: Bug switches one test builds for itself, not mutants of the nightly: FX_BUG_CVT_OFFSET16 is the rare-value
#: mutant the fuzzing loop's test finds and random layers miss (suites/rtl/test_fuzz_loop_rtl.py).
OWN_TEST_SWITCHES = ("FX_BUG_CVT_OFFSET16",)
MUTANT_BUILD_S = 600.0  # a Verilator build of the fixture with one bug switch, before its layers run
MUTANT_LAYERS = 12  # about how many layers the bench's default set plays against a mutant (rtl/suite.py)
#: What a layer's error says when the simulator never ran the bench (cocotb's GPI could not load it, the
#: binary or a library is missing), as opposed to a bench check that stopped it (a CSB or interrupt timeout).
INFRASTRUCTURE_ERRORS = ("gpi_load_user", "GPI_USERS", "cannot be loaded", "cannot start", "No such file or directory")


def fixture_bug_switches(folder: Path = FIXTURE_SOURCES) -> list[str]:
    """The fixture's bug switches (`ifdef FX_BUG_...` in its Verilog), read from the source so that the plan
    needs neither the RTL packages nor a list to keep in step with rtl/build.py (OWN_TEST_SWITCHES left out)."""
    found = set()
    for source in sorted(folder.glob("*.v")):
        found.update(re.findall(r"`ifn?def\s+(FX_BUG_\w+)", source.read_text()))
    return sorted(found - set(OWN_TEST_SWITCHES))


class Mutants(TestKind):
    name = "mutants"
    required = ("switches",)
    rtl_coverage = False  # the mutants verify the bench, not the DUT
    mutant_runs = True

    def expand(self, test: dict, expansion: Expansion) -> list[Item]:
        switches = [s for s in fixture_bug_switches() if fnmatch.fnmatchcase(s, test["switches"])]
        return [Item(f"mutant/{s}", self.name, {"switch": s, "profile": "nv_small"}) for s in switches]

    def not_applicable(self, item: Item, settings: Settings) -> str:
        return ""  # the fixture built with a bug switch: the bench's own check, whatever the DUT

    def budget_s(self, item: Item, settings: Settings) -> float:
        scale = settings.timeout_scale
        return scale * MUTANT_BUILD_S + MUTANT_LAYERS * engine.budget_s("rtl", 0, scale)

    def run(self, item: Item, settings: Settings) -> Run:
        switch = item.params["switch"]
        if settings.impl != "rtl":
            return Run(self.record(item, settings, RecordStatus.SKIPPED, Finding.NOT_RUN,
                                   f"a fixture mutant needs --impl rtl (got {settings.impl})"))
        from rtl.build import BuildOptions, build
        from rtl.implementation import Rtl
        from rtl.suite import DATA_ROOT, default_layers

        # the fixture with the switch, played as the run's settings say (AXI back-pressure, build cache)
        fixture = settings.decided.with_rtl(filelist=None, top=None, defines=(switch,), profile=None, coverage=None)
        options = BuildOptions.from_settings(fixture.rtl)
        with engine.watchdog(settings.timeout_scale * MUTANT_BUILD_S):
            build(options)
        mutant = Rtl(build_options=options, settings=fixture)
        results, paths, caught = [], [], []
        profile = get_profile("nv_small")
        data = Path(settings.nvdla_data) if settings.nvdla_data else DATA_ROOT
        for name, folder in default_layers(settings.work / "mutant-layers", data):
            path = find_traces(folder)[0]  # NVIDIA's layers are test folders
            result = engine.play_layer(path, profile, "rtl", settings.reference_spec(), settings.timeout_scale,
                                       implementation=mutant, settings=settings.decided)
            results.append(result)
            paths.append(path)
            if result.status not in (Verdict.PASSED, Verdict.UNSUPPORTED, Verdict.INVALID):
                caught.append({"layer": name, "verdict": result.status, "signature": result_signature(result),
                               "size_bytes": engine.layer_bytes(path),
                               "detail": _in_work(result.detail, settings)[:300]})
        if caught and all(c["verdict"] == Verdict.ERROR and _infrastructure(c["detail"]) for c in caught):
            # Every layer that stopped did so because the simulation never started: a broken build, not a catch.
            return Run(self.record(item, settings, RecordStatus.ERROR, Finding.ERRORED,
                                   f"{switch}: no layer failed a check, {len(caught)} of {len(results)} errored: "
                                   f"{caught[0]['signature']['pattern']}",
                                   signature={**caught[0]["signature"], "check": "mutant run"}, caught_by=caught),
                       results, paths)
        if caught:
            smallest = min(caught, key=lambda c: c["size_bytes"])
            detail = f"caught by {len(caught)} of {len(results)} layers; smallest: {smallest['layer']}"
            return Run(self.record(item, settings, RecordStatus.PASSED, Finding.CAUGHT, detail, caught_by=caught),
                       results, paths)
        return Run(self.record(item, settings, RecordStatus.FAILED, Finding.SURVIVED,
                               f"{switch} survived all {len(results)} layers",
                               signature={"unit": "SDP", "implementation": "rtl", "check": "mutant",
                                          "pattern": "mutant survived the default layer set"}), results, paths)


def _in_work(detail: str, settings: Settings) -> str:
    """A detail that names the mutant's layers by their place in the results folder (the same in every run and
    shard), not by the absolute folder this run used."""
    return detail.replace(str(settings.work.resolve()), "work").replace(str(settings.work), "work")


def _infrastructure(detail: str) -> bool:
    return any(marker in detail for marker in INFRASTRUCTURE_ERRORS)
