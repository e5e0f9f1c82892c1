"""Register-configuration fuzzing: legal and illegal layers through the golden model, findings reported.

A finding is a legal layer the model rejects or fails on (rejected without reason), an illegal layer it
accepts (accepted against a rule), an illegal layer rejected for another rule than the one it breaks, or
anything raised outside the project's error family (a crash). Every case is reproducible from its seed.
"""

from __future__ import annotations

import tempfile
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from golden import rules
from golden.config import Profile
from golden.errors import ConfigurationError, NvdlaVerifError
from stimulus import illegal
from stimulus.choose import Seeded
from stimulus.export import play_layers
from stimulus.families import available
from stimulus.families import family as declared_family


@dataclass
class Finding:
    kind: str  # rejected-without-reason, accepted-against-rule, wrong-rule, crash, no-illegal-layer, generator-error
    case: str  # what to rerun: family or rule, seed, index
    detail: str


@dataclass
class FuzzReport:
    legal: int = 0
    illegal: int = 0
    findings: list[Finding] = field(default_factory=list)


def _crash(exc: BaseException) -> str:
    frame = traceback.extract_tb(exc.__traceback__)[-1]
    return f"{type(exc).__name__}: {exc} ({frame.filename}:{frame.lineno})"


def run_legal(family: str, profile: Profile, seed: int, index: int, folder: Path) -> Finding | None:
    case = f"legal {family} seed {seed} case {index}"
    try:
        layer = declared_family(family).generator(Seeded([seed, index]), profile, 0)
        result = play_layers([layer], folder / f"{family}_{index}", f"{family}_{index}", profile)
        if result.memory is None:  # the run stopped (the checks themselves hold CRC 0 and fail: not a finding)
            return Finding("rejected-without-reason", case, f"{result.status}: {result.detail}")
    except NvdlaVerifError as exc:
        return Finding("rejected-without-reason", case, str(exc))
    except Exception as exc:  # the point of fuzzing: report it, go on
        return Finding("crash", case, _crash(exc))
    return None


def run_illegal(rule_id: str, profile: Profile, seed: int, index: int, folder: Path) -> Finding | None:
    case = f"illegal {rule_id} seed {seed} case {index}"
    try:
        layer = illegal.illegal_layer(rule_id, Seeded([seed, index]), profile)
    except illegal.NoIllegalLayer as exc:
        return Finding("no-illegal-layer", case, str(exc))
    except NvdlaVerifError as exc:  # a breaker wrote what the register map cannot hold
        return Finding("generator-error", case, str(exc))
    except Exception as exc:
        return Finding("crash", case, _crash(exc))
    try:
        illegal.run_on_golden(layer, profile, folder, f"{rule_id}_{index}")
    except ConfigurationError as exc:
        named = {part.strip().removeprefix("also ").split(" ")[0] for part in (exc.rule or "").split(";")}
        if rule_id not in named:
            return Finding("wrong-rule", case, str(exc))
        return None
    except NvdlaVerifError as exc:
        return Finding("wrong-rule", case, str(exc))
    except Exception as exc:
        return Finding("crash", case, _crash(exc))
    return Finding("accepted-against-rule", case, f"the golden model ran a layer breaking {rule_id}")


def fuzz(profile: Profile, seed: int, count: int, families: list[str] | None = None, progress=None) -> FuzzReport:
    """`count` legal layers per family and `count` illegal ones spread over the families' rules."""
    families = families or available(profile)
    rule_ids = [r.id for r in rules.all_rules() if r.unit.lower() in families and r.id in illegal.BREAKERS
                and illegal.reachable(r.id, profile)]
    report = FuzzReport()
    with tempfile.TemporaryDirectory(prefix="nvdla-fuzz-") as tmp:
        folder = Path(tmp)
        for index in range(count):
            for family in families:
                if (finding := run_legal(family, profile, seed, index, folder)) is not None:
                    report.findings.append(finding)
                report.legal += 1
            if rule_ids:
                rule_id = rule_ids[index % len(rule_ids)]
                if (finding := run_illegal(rule_id, profile, seed, index, folder)) is not None:
                    report.findings.append(finding)
                report.illegal += 1
            if progress:
                progress(index + 1, report)
    return report
