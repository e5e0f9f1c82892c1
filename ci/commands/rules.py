"""`nvdla-verif rules`: the limitation rules of the registry (golden/rules.py) that validation enforces."""

from __future__ import annotations

from collections import Counter

from golden.errors import NvdlaVerifError
from golden.rules import all_rules

NAME = "rules"
HELP = "list the hardware limitation rules the golden model enforces (id, unit, source, fields)"


def add_arguments(parser) -> None:
    parser.add_argument("--unit", help="only this unit's rules (e.g. PDP)")
    parser.add_argument("--fields", action="store_true", help="also list each rule's register fields")


def run(args) -> int:
    registered = all_rules()
    units = list(dict.fromkeys(r.unit for r in registered))
    # by unit in registry order, each in the order its validation checks them (golden/rules.py: all_rules)
    chosen = [r for r in registered if not args.unit or r.unit == args.unit.upper()]
    if not chosen:
        raise NvdlaVerifError(f"no rules for unit {args.unit}; units with rules: {', '.join(units)}")
    width = max(len(r.id) for r in chosen)
    for r in chosen:
        print(f"{r.id:{width}}  {r.unit:5} {r.source}")
        print(f"{'':{width}}  {'':5} {r.text}")
        if args.fields:
            for field in r.fields:
                print(f"{'':{width}}  {'':5}   {field}")
    counts = Counter(r.unit for r in chosen)
    print("by unit: " + ", ".join(f"{unit} {counts[unit]}" for unit in units if counts[unit]))
    sources = {r.source.split(" (")[0] for r in chosen}
    print(f"{len(chosen)} rules from {len(sources)} sources")
    return 0
