"""`nvdla-verif rules`: the limitation rules of the registry (golden/rules.py) that validation enforces."""

from __future__ import annotations

from golden.rules import all_rules

NAME = "rules"
HELP = "list the hardware limitation rules the golden model enforces (id, unit, source, fields)"


def add_arguments(parser) -> None:
    parser.add_argument("--unit", help="only this unit's rules (e.g. PDP)")
    parser.add_argument("--fields", action="store_true", help="also list each rule's register fields")


def run(args) -> int:
    chosen = [r for r in all_rules() if not args.unit or r.unit == args.unit.upper()]
    if not chosen:
        print(f"no rules for unit {args.unit}")
        return 2
    width = max(len(r.id) for r in chosen)
    for r in chosen:
        print(f"{r.id:{width}}  {r.unit:5} {r.source}")
        print(f"{'':{width}}  {'':5} {r.text}")
        if args.fields:
            for field in r.fields:
                print(f"{'':{width}}  {'':5}   {field}")
    sources = {r.source.split(" (")[0] for r in chosen}
    print(f"{len(chosen)} rules from {len(sources)} sources")
    return 0
