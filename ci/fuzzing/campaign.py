"""The coverage-directed fuzzing loop of `nvdla-verif fuzz --impl I` and its state in OUT.

Each step draws a candidate (ci/fuzzing/candidates.py), writes it as a trace with the golden model's results
(stimulus/export.py; a layer the rule registry or the golden model rejects is dropped) and asks the golden-side
feedback (ci/fuzzing/feedback.py) what it adds. With `directed`, only a candidate that adds something runs on the
implementation; otherwise every generated layer does (the baseline). A run is judged as conform and regress judge
(ci.regression.engine.play_layer: scoreboards.verdict.verify under the layer's time budget); a failed or errored
run is a finding, bucketed by its triage signature, and the first of each bucket is shrunk (ci/regression/
shrink.py). On the RTL the runs use the line+toggle coverage build; a run that reaches coverage points no
earlier run reached puts its candidate in the corpus (elsewhere: a run with golden-side novelty).

OUT holds:
    state.json           options, counters, the golden-side features seen, the corpus ids (written last, atomically:
                         what it names is the campaign; anything else an interrupted step left is dropped on resume)
    corpus/ID.json       a corpus candidate (replayable), corpus/ID/ its trace
    runs.jsonl           one line per implementation run (coverage after it, per unit)
    rtl-coverage.N.dat.gz  the merged Verilator counts after run N (the one state.json names)
    findings/ID.json     a finding's record (as regress records tests), findings/ID/ its trace; shrunk/ as regress
    summary.txt, report.json, coverage.png, uncovered.txt   the report (ci/fuzzing/report.py)
    .nvdla-verif.lock    held by the `fuzz` process running the campaign (ci/ownership.py): one process per campaign
    .nvdla-verif-output.json  what of OUT is the campaign's (ci/ownership.py): a folder that is neither new, empty
                         nor a campaign's is refused; the campaign's cleaning stays inside those entries
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ci import shell
from ci.fuzzing import CHOICES
from ci.fuzzing.candidates import Candidate, Mutator, aimed, derived, generated
from ci.fuzzing.feedback import GoldenRun, Seen, features, stages_enabled, worth
from ci.options import families_for
from ci.ownership import Layout, claim
from ci.regression.code_coverage import dat_text, per_unit, read_points, sum_points
from ci.regression.engine import Settings, implementation_arguments, layer_bytes, play_layer
from ci.regression.results import buckets
from ci.regression.signature import result_signature, text
from golden import rules
from golden.config import Profile
from golden.errors import NvdlaVerifError
from golden.implementation import Golden
from golden.numerics import corners
from golden.player import observe, prepare
from golden.regs.regmap import RegisterMap
from golden.settings import RtlSettings
from golden.settings import Settings as Decided
from golden.status import FAILING, Ending
from stimulus.export import write_trace
from stimulus.families import aimable

#: The test kind a finding's record has: a generated layer's, so that regress's triage buckets it and its
#: shrinking replays it as one (ci/regression/kinds/generated.py, shrinkable).
FINDING_KIND = "generated"

STATE_VERSION = 1
#: Candidates tried in a row without golden-side novelty before a directed step runs a plain generated layer.
MAX_TRIES = 60
#: Of the fresh candidates of a directed step, the share aimed at arithmetic corners (families with an aimer).
CORNER_SHARE = 0.3
#: Options a resumed campaign must keep.
KEPT = ("impl", "ref", "directed", "seed", "profile", "families", "rtl")


class FuzzError(NvdlaVerifError):
    """A campaign that cannot start or continue (another campaign's OUT, bad options)."""


def _written_before_manifests(folder: Path) -> bool:
    """A campaign's folder from before ownership manifests: its state.json."""
    try:
        state = json.loads((folder / "state.json").read_text())
    except (OSError, ValueError):
        return False
    return isinstance(state, dict) and {"version", "options", "corpus", "findings"} <= state.keys()


CAMPAIGN = Layout("fuzzing campaign", (
    "state.json", "state.json.tmp", "corpus", "findings", "runs.jsonl", "rtl-coverage.*.dat.gz",
    "rtl-coverage.*.dat.gz.tmp", "work", "shrunk", "summary.txt", "report.json", "coverage.png", "uncovered.txt"),
    _written_before_manifests)


@dataclass
class Options:
    impl: str
    ref: str | None
    directed: bool
    seed: int
    profile: str
    families: list[str]
    runs: int
    minutes: float | None = None
    patience: int | None = None
    choices: int = CHOICES
    shrink: int = 40
    rtl: list[str] = field(default_factory=list)  # the RTL selection as arguments (reproduce commands)
    axi_pause: float = 0.0
    command: list[str] = field(default_factory=lambda: ["nvdla-verif"])  # the first words (ci.cli.invocation)
    #: What the command line decided for the implementations (golden/settings.py; default: the person's
    #: overrides); each run changes the RTL bench's AXI back-pressure and coverage folder in a copy.
    decided: Decided = field(default_factory=Decided.from_environment)

    @property
    def code_coverage(self) -> bool:
        return self.impl.partition(":")[0] == "rtl"


def campaign_families(profile: Profile, requested: list[str] | None, fixture: bool) -> list[str]:
    """The families a campaign draws: those asked for, else the profile's (the fixture RTL: its SDP register
    subset, sdp_reg)."""
    return families_for(profile, requested or (["sdp_reg"] if fixture else None))


class Campaign:
    def __init__(self, out: Path, options: Options, profile: Profile, say=print):
        self.out, self.options, self.profile, self.say = out, options, profile, say
        self.regmap = RegisterMap.for_profile(profile)
        self.settings = Settings(impl=options.impl, ref=options.ref, profile=profile.name, work=out / "work",
                                 rtl=list(options.rtl), command=options.command, decided=options.decided)
        self.state = self._load()
        self.seen = Seen.from_dict(self.state["seen"])
        self.corpus = [Candidate.from_dict(json.loads((out / "corpus" / f"{i}.json").read_text()))
                       for i in self.state["corpus"]]
        self.points = self._load_points()
        self.findings = [json.loads((out / "findings" / f"{i}.json").read_text()) for i in self.state["findings"]]
        self.session_started = time.perf_counter()

    # -- state ---------------------------------------------------------------------------------------------
    def _load(self) -> dict:
        path = self.out / "state.json"
        wanted = {k: getattr(self.options, k) for k in KEPT}
        claim(self.out, CAMPAIGN)
        if not path.is_file():
            return {"version": STATE_VERSION, "options": wanted, "step": 0, "runs": 0, "elapsed_s": 0.0,
                    "last_new": 0, "seen": {}, "corpus": [], "findings": [], "coverage": None, "dropped": {},
                    "skipped": 0}
        state = json.loads(path.read_text())
        differs = [k for k in KEPT if state["options"].get(k) != wanted[k]]
        if differs:
            raise FuzzError(f"{self.out}: the campaign there has other options ({', '.join(differs)}); continue it "
                            "with the same ones or use another --out")
        self._drop_unnamed(state)
        return state

    def _drop_unnamed(self, state: dict) -> None:
        """What an interrupted step wrote and state.json does not name."""
        corpus, findings = set(state["corpus"]), set(state["findings"])
        for folder, kept in (("corpus", corpus), ("findings", findings)):
            for path in (self.out / folder).glob("*") if (self.out / folder).is_dir() else []:
                if path.name.removesuffix(".json") not in kept:
                    shutil.rmtree(path) if path.is_dir() else path.unlink()
        for path in self.out.glob("rtl-coverage.*.dat.gz"):
            if path.name != state["coverage"]:
                path.unlink()
        runs = self.out / "runs.jsonl"
        if runs.is_file():
            lines = runs.read_text().splitlines()[:state["runs"]]
            runs.write_text("".join(line + "\n" for line in lines))
        shutil.rmtree(self.out / "work", ignore_errors=True)

    def _load_points(self) -> dict[str, int]:
        name = self.state["coverage"]
        if not name:
            return {}
        with gzip.open(self.out / name, "rt", errors="surrogateescape") as f:
            return read_points(f.read())

    def _commit(self, row: dict | None) -> None:
        """The step's results, state.json last (a rename: an interruption before it leaves the previous state)."""
        if row is not None:
            if self.options.code_coverage and self.points:
                name = f"rtl-coverage.{self.state['runs']}.dat.gz"
                _atomic_write(self.out / name, gzip.compress(dat_text(self.points).encode(errors="surrogateescape")))
                self.state["coverage"] = name
            with open(self.out / "runs.jsonl", "a") as f:
                f.write(json.dumps(row, sort_keys=True) + "\n")
        self.state["seen"] = self.seen.as_dict()
        self.state["elapsed_s"] = self.elapsed()
        _atomic_write(self.out / "state.json", (json.dumps(self.state, indent=1, sort_keys=True) + "\n").encode())
        for path in self.out.glob("rtl-coverage.*.dat.gz"):
            if path.name != self.state["coverage"]:
                path.unlink()

    def elapsed(self) -> float:
        return self.state.get("session_base", self.state["elapsed_s"]) + time.perf_counter() - self.session_started

    # -- the loop ------------------------------------------------------------------------------------------
    def stop_reason(self) -> str | None:
        o, s = self.options, self.state
        if s["runs"] >= o.runs:
            return f"budget of {o.runs} runs reached"
        if o.minutes is not None and self.elapsed() >= 60 * o.minutes:
            return f"time limit of {o.minutes:g} minutes reached"
        if o.patience is not None and s["runs"] - s["last_new"] >= o.patience:
            return f"no new coverage for {o.patience} runs"
        return None

    def run(self) -> str:
        self.state["session_base"] = self.state["elapsed_s"]
        self.say(f"fuzz: {'directed' if self.options.directed else 'random'} campaign on {self.options.impl} "
                 f"({self.profile.name}, families {', '.join(self.options.families)}, seed {self.options.seed}); "
                 f"{self.state['runs']} runs done before; results in {self.out}", flush=True)
        try:
            while (reason := self.stop_reason()) is None:
                self.step()
        except KeyboardInterrupt:
            self.say(f"fuzz: interrupted: {self.state['runs']} runs kept in {self.out}; the same command continues "
                     "the campaign", file=sys.stderr, flush=True)
            raise
        self._commit(None)
        self.say(f"fuzz: stopped: {reason}", flush=True)
        return reason

    def step(self) -> None:
        """Find a candidate worth running, run it, commit. Random: the first the golden model runs. Directed: of
        the first `choices` candidates with golden-side novelty, the one whose novelty is worth most
        (feedback.worth; the earliest of equals); after MAX_TRIES without any, a plain generated layer."""
        best, choices = None, 0
        for tries in range(MAX_TRIES + 1):
            self.state["step"] += 1
            candidate = self._candidate(fallback=tries == MAX_TRIES and best is None)
            evaluated = self._golden(candidate)
            if evaluated is None:
                continue
            path, found = evaluated
            new = self.seen.new(found)
            if not self.options.directed:
                best = (candidate, path, found, new)
                break
            if not new and (tries < MAX_TRIES or best is not None):
                self.state["skipped"] += 1
                continue
            if best is None or worth(new) > worth(best[3]):
                best = (candidate, path, found, new)
            choices += 1
            if choices == self.options.choices or tries == MAX_TRIES:
                break
        if best is not None:
            self._run(*best)

    def _rng(self) -> np.random.Generator:
        return np.random.default_rng([self.options.seed, self.state["step"]])

    def _side_rng(self) -> np.random.Generator:
        """A stream of its own for choosing corner-aimed candidates (the main stream's draws stay as they were)."""
        return np.random.default_rng([self.options.seed, self.state["step"], 1])

    def _candidate(self, fallback: bool) -> Candidate:
        o, rng, number = self.options, self._rng(), self.state["step"]
        if not o.directed or fallback:
            return generated(number, o.families, rng, o.axi_pause)
        if not self.corpus or rng.random() < 0.3:
            can_aim = aimable()
            aimed_families = [f for f in o.families if f in can_aim]
            if aimed_families and self._side_rng().random() < CORNER_SHARE:
                return aimed(number, aimed_families, rng, o.axi_pause)
            return generated(number, o.families, rng, o.axi_pause, pair=rng.random() < 0.25)
        parent = self.corpus[int(rng.integers(len(self.corpus)))]
        mutator = Mutator(self.profile, self.seen.by_source.get("fields", set()))
        try:
            child = derived(number, parent, self.profile, mutator, rng, with_axi=o.code_coverage)
        except NvdlaVerifError:
            child = None
        return child or generated(number, o.families, rng, o.axi_pause)

    def _drop(self, why: str) -> None:
        self.state["dropped"][why] = self.state["dropped"].get(why, 0) + 1

    def _golden(self, candidate: Candidate) -> tuple[Path, dict] | None:
        """The candidate's trace (golden results in its checks) and its golden-side features; None: dropped."""
        try:
            layers = candidate.draw(self.profile)
            for layer in layers:
                values = layer.values(self.regmap)
                for stage in stages_enabled(layer.enable):
                    if ids := rules.violated(stage, values, self.profile):
                        self._drop(f"rule {ids[0]}")
                        return None
            folder = self.out / "work" / candidate.id
            path = write_trace(layers, folder, candidate.id, self.profile)
            with corners.observe() as seen:
                outcome = observe(Golden(), prepare(path, self.profile), self.profile)
        except NvdlaVerifError as exc:
            self._drop(getattr(exc, "rule", None) and f"rule {str(exc.rule).split(' ')[0]}" or "golden model")
            return None
        completed = list(outcome.layers) if outcome.status == Ending.COMPLETED else []
        run = GoldenRun(self.profile, completed, outcome, candidate.axi_pause, candidate.family,
                        seen if completed else None)
        return path, features(run)

    def _run(self, candidate: Candidate, path: Path, found: dict, new: dict) -> None:
        o = self.options
        runs_folder = self.out / "work" / "coverage" / candidate.id
        decided = o.decided.with_rtl(axi_pause=candidate.axi_pause,
                                     coverage=str(runs_folder) if o.code_coverage else None)
        result = play_layer(path, self.profile, o.impl, self.settings.reference_spec(), 1.0, settings=decided)
        self.seen.add(found)
        new_points = 0
        if o.code_coverage:
            points = sum_points(sorted(runs_folder.glob("*.dat"))) if runs_folder.is_dir() else {}
            new_points = sum(1 for k, c in points.items() if c > 0 and self.points.get(k, 0) == 0)
            for key, count in points.items():
                self.points[key] = self.points.get(key, 0) + count
        joins = new_points > 0 if o.code_coverage else bool(new)
        self.state["runs"] += 1
        run = self.state["runs"]
        if joins:
            self.state["last_new"] = run
            self._keep(self.out / "corpus", candidate, path)
            self.corpus.append(candidate)
            self.state["corpus"].append(candidate.id)
        finding = None
        if result.status in FAILING:
            finding = self._finding(candidate, path, result, run)
        row = self._row(run, candidate, result.status, new, new_points, finding)
        self._commit(row)
        shutil.rmtree(self.out / "work", ignore_errors=True)
        self.say(progress_line(row, o.runs), flush=True)

    def _keep(self, folder: Path, candidate: Candidate, path: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copytree(path.parent, folder / candidate.id, dirs_exist_ok=True)
        (folder / f"{candidate.id}.json").write_text(json.dumps(candidate.as_dict(), indent=1) + "\n")

    def _finding(self, candidate: Candidate, path: Path, result, run: int) -> dict:
        """The failing run as a regress record (kind generated, so that buckets() and shrinking treat it alike);
        the first of a new bucket is shrunk."""
        signature = result_signature(result)
        trace = f"findings/{candidate.id}/{path.name}"
        record = {"id": candidate.id, "kind": FINDING_KIND, "status": result.status, "verdict": result.status,
                  "detail": result.detail[:500], "signature": signature, "size_bytes": layer_bytes(path),
                  "run": run, "candidate": candidate.as_dict(), "path": trace,
                  "reproduce": shell.line([*self.options.command, "conform", trace, "--profile", self.profile.name,
                                           *implementation_arguments(self.settings)],
                                          _environment(candidate, self.options.decided.rtl))}
        known = {text(f["signature"]) for f in self.findings}
        self._keep(self.out / "findings", candidate, path)
        if text(signature) not in known and self.options.shrink > 0:
            record["shrunk"] = self._shrink(candidate, record)
        (self.out / "findings" / f"{candidate.id}.json").write_text(json.dumps(record, indent=1) + "\n")
        self.findings.append(record)
        self.state["findings"].append(candidate.id)
        return record

    def _shrink(self, candidate: Candidate, record: dict) -> dict:
        from ci.fuzzing.candidates import apply_edits
        from ci.regression.shrink import shrink_item

        self.say(f"fuzz: shrinking {candidate.id} ({text(record['signature'])[:80]}), at most "
                 f"{self.options.shrink} attempts", flush=True)
        # the same (coverage) build; the counts are thrown away
        coverage = str(self.out / "work" / "shrink-coverage") if self.options.code_coverage else None
        decided = self.options.decided.with_rtl(axi_pause=candidate.axi_pause, coverage=coverage)
        info = shrink_item(record, candidate.params(self.profile), replace(self.settings, decided=decided), self.out,
                           self.options.shrink, edit=lambda layers: apply_edits(layers, candidate.edits))
        return info or {"reproduced": False}

    def _row(self, run: int, candidate: Candidate, status: str, new: dict, new_points: int,
             finding: dict | None) -> dict:
        row = {"run": run, "id": candidate.id, "kind": candidate.kind, "family": candidate.family,
               "status": status, "elapsed_s": round(self.elapsed(), 2), "corpus": len(self.corpus),
               "findings": len(self.findings), "buckets": len(buckets(self.findings)),
               "golden": self.seen.counts(), "golden_new": {k: len(v) for k, v in new.items()},
               "rtl_new_points": new_points, "finding": finding["signature"] if finding else None}
        if self.options.code_coverage:
            units = per_unit(self.points)
            row["rtl_units"] = units
            row["rtl_total"] = {kind: [sum(u[kind][0] for u in units.values()), sum(u[kind][1] for u in units.values())]
                                for kind in ("line", "toggle")}
        return row


def _environment(candidate: Candidate, rtl: RtlSettings) -> dict[str, str]:
    """The overrides a reproduce command needs (golden/settings.py): the AXI back-pressure, a fixture build's bug
    switches (which no option names)."""
    values = {"NVDLA_RTL_AXI_PAUSE": f"{candidate.axi_pause:g}"} if candidate.axi_pause else {}
    if rtl.defines and not rtl.filelist:
        values["NVDLA_RTL_DEFINES"] = " ".join(rtl.defines)
    return values


def progress_line(row: dict, budget: int) -> str:
    coverage = ""
    if "rtl_total" in row:
        line, toggle = (_percent(row["rtl_total"][k]) for k in ("line", "toggle"))
        coverage = f"line {line:5.1f}% toggle {toggle:5.1f}% | "
    return (f"fuzz: [{row['run']}/{budget}] {row['kind']:10} {row['status']:8} {coverage}golden bins "
            f"{row['golden'].get('bins', 0)} fields {row['golden'].get('fields', 0)} | corpus {row['corpus']} | "
            f"findings {row['findings']} | {row['elapsed_s']:.0f} s")


def _percent(pair) -> float:
    hit, total = pair
    return 100.0 * hit / total if total else 0.0


def _atomic_write(path: Path, data: bytes) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)
