"""What a generator asks the rule registry (golden/rules.py) while it draws a layer: whether the attributes it has
settled so far keep some rules, by the rules' own predicates, so that no generator restates a rule."""

from __future__ import annotations

from functools import cache
from types import SimpleNamespace

from golden import rules


def keeps(rule_ids, facts: rules.Facts | None = None, **drawn) -> bool:
    """Whether a configuration with the `drawn` attributes (those of the unit's decoded configuration the rules
    read: golden/units/<unit>/config.py) keeps every one of these rules; `facts` when a rule reads them."""
    settled = SimpleNamespace(**drawn)
    return all(rules.find(rule_id).check(settled, facts) is None for rule_id in rule_ids)


@cache
def ids(unit: str, prefix: str) -> tuple[str, ...]:
    """The ids of a unit's rules that start with `prefix` ("PDP-SPLIT-"), in checking order (asked once: asking
    imports the unit's rule modules, which register all its rules)."""
    return tuple(r.id for r in rules.rules(unit) if r.id.startswith(prefix))


def largest(rule_ids, low: int, high: int, attributes) -> int:
    """The largest value v in [low, high] whose `attributes(v)` keep the rules (rules that bound v from above:
    every smaller value keeps them too); low - 1 when none does."""
    return max((v for v in range(low, high + 1) if keeps(rule_ids, **attributes(v))), default=low - 1)
