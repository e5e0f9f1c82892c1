"""The reference pages, generated from the code each time the site is built (mkdocs.yml `hooks:`).

A page here is the code's own statement, read where the code keeps it: the command-line parser (`--help`),
golden/status.py, the rule registry, the profiles, the JSON schemas under golden/formats/ and the testplan. Nothing
is copied into the docs folder, so nothing goes stale: on_files adds each page as a generated file
(mkdocs.structure.files.File.generated), and a broken page fails `mkdocs build --strict` like a broken link.

A plain mkdocs hook rather than the mkdocs-gen-files plugin: mkdocs runs hooks itself (no extra dependency), and
each page is a function returning its Markdown text, in one module a contributor can read top to bottom.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[2]
#: Help texts are wrapped as on a terminal this wide, whatever terminal builds the site.
HELP_COLUMNS = 80


def on_config(config):
    # Document the checkout the site is built from, not whichever copy of the project is installed.
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    return config


def on_files(files, config):
    for path, render in PAGES.items():
        files.append(File.generated(config, path, content=render()))
    return files


def commands() -> str:
    from ci.cli import build_parser

    lines = ["# Commands", "",
             f"Every command's `--help`, as `nvdla-verif` prints it on a terminal {HELP_COLUMNS} columns wide "
             "(generated from the command-line parser, `ci/cli.py` and `ci/commands/`, when the site is built).",
             ""]
    with _columns(HELP_COLUMNS):
        parser = build_parser()
        lines += _help("nvdla-verif", parser, level=2)
        for name, command in _subcommands(parser):
            lines += _help(f"nvdla-verif {name}", command, level=2)
            for inner, sub in _subcommands(command):
                lines += _help(f"nvdla-verif {name} {inner}", sub, level=3)
    return "\n".join(lines)


def _help(title: str, parser: argparse.ArgumentParser, level: int) -> list[str]:
    return [f"{'#' * level} `{title}`", "", "```text", parser.format_help().rstrip(), "```", ""]


def _subcommands(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    for action in parser._actions:  # argparse has no public way to list a parser's subcommands
        if isinstance(action, argparse._SubParsersAction):
            yield from action.choices.items()


@contextlib.contextmanager
def _columns(width: int):
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(width)
    try:
        yield
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before


def statuses() -> str:
    from ci.suite.certify import RESULT
    from ci.suite.verify import SHOWN
    from golden import status

    groups = {"a trace's verdict": tuple(status.Verdict), "how a run ended": tuple(status.Ending),
              "a regression record": tuple(status.RecordStatus), "fails a run": status.FAILING}
    lines = ["# Status words", "",
             "One word per status, everywhere: the terminal, `summary.txt`, JSON, CSV and the HTML report "
             "print these words (generated from `golden/status.py`).", "",
             "| word | " + " | ".join(groups) + " | a certification result |",
             "|---|" + "---|" * len(groups) + "---|"]
    for word in dict.fromkeys([*status.Verdict, *status.Ending, *status.RecordStatus]):
        marks = ["yes" if word in members else "" for members in groups.values()]
        lines.append(f"| `{word}` | " + " | ".join(marks) + f" | {_code(RESULT.get(word, ''))} |")
    lines += ["", "What each word means, as `golden/status.py` states it:", "", "```text",
              (status.__doc__ or "").strip(), "```", "",
              "`certify` turns a verdict into a certification result (`ci/suite/certify.py`), before "
              "waivers: a waiver turns a `fail` or `error` into `waived`. The package's `results.json` keeps "
              "these results; `certify`'s terminal and `certify.log` say each test's status word, as `conform` "
              "does, and `summary.html` and `verify` write "
              + ", ".join(f"{_code(result)} as {_code(shown)}" for result, shown in SHOWN.items() if result != shown)
              + ".", ""]
    return "\n".join(lines)


def rules() -> str:
    from golden.rules import all_rules

    registered = all_rules()
    units = list(dict.fromkeys(r.unit for r in registered))
    lines = ["# Rules", "",
             f"The {len(registered)} hardware limitation rules of the registry (`golden/rules.py`) that "
             "validation enforces, by unit in the order the registry lists them and, within a unit, in the order "
             "its validation checks them: what `nvdla-verif rules --fields` prints (generated when the site is "
             "built). An advisory rule warns instead of refusing the layer.", "",
             "Units: " + ", ".join(f"[{u}](#{u.lower()}) ({sum(r.unit == u for r in registered)})" for u in units),
             ""]
    for unit in units:
        lines += [f"## {unit}", "", "| rule | what it requires, and the fields it reads | source |", "|---|---|---|"]
        for rule in (r for r in registered if r.unit == unit):
            name = f"`{rule.id}`" + (" (advisory)" if rule.advisory else "")
            fields = ", ".join(f"`{f}`" for f in rule.fields)
            lines.append(f"| {name} | {_cell(rule.text)}<br>{fields} | {_cell(rule.source)} |")
        lines.append("")
    return "\n".join(lines)


def profiles() -> str:
    import dataclasses

    from golden.config import PROFILES

    names = list(PROFILES)
    lines = ["# Profiles", "",
             "The built-in hardware profiles (`golden/config.py`), every parameter: what `nvdla-verif profiles "
             "NAME` prints (generated when the site is built). `--spec FILE` reads an nvdla/hw `.spec` file "
             "into a profile of its own.", "",
             "| parameter | " + " | ".join(f"`{n}`" for n in names) + " |",
             "|---|" + "---|" * len(names)]
    for field in dataclasses.fields(next(iter(PROFILES.values()))):
        values = [getattr(PROFILES[n], field.name) for n in names]
        lines.append(f"| `{field.name}` | " + " | ".join(_cell(_value(v)) for v in values) + " |")
    return "\n".join(lines) + "\n"


def _value(value) -> str:
    if isinstance(value, frozenset | set):
        return ", ".join(sorted(map(str, value)))
    return str(value)


def schemas() -> str:
    lines = ["# JSON schemas", "",
             "The schemas the project publishes for the files it exchanges with other programs "
             "(`golden/formats/*.schema.json`), generated when the site is built: each file's top-level fields, "
             "its definitions, and the schema itself.", ""]
    for path in sorted((ROOT / "golden" / "formats").glob("*.schema.json")):
        schema = json.loads(path.read_text())
        lines += [f"## `{path.name}`", "", f"**{schema.get('title', path.stem)}**", "",
                  _cell(schema.get("description", "")), ""]
        lines += _properties(schema)
        for name, definition in schema.get("$defs", {}).items():
            lines += [f"### `{name}` ({path.stem.split('.')[0]})", "", _cell(definition.get("description", "")), ""]
            lines += _properties(definition)
            for choice in definition.get("oneOf", []):
                op = choice.get("properties", {}).get("op", {}).get("const")
                lines += [f"**{_code(op) if op else 'one of'}**: {_cell(choice.get('description', ''))}", ""]
                lines += _properties(choice)
        lines += [f'??? note "{path.name}"', "", "    ```json"]
        lines += ["    " + line for line in json.dumps(schema, indent=2).splitlines()]
        lines += ["    ```", ""]
    return "\n".join(lines)


def _properties(schema: dict) -> list[str]:
    properties = schema.get("properties")
    if not properties:
        return []
    required = set(schema.get("required", []))
    lines = ["| field | required | value | meaning |", "|---|---|---|---|"]
    for name, spec in properties.items():
        lines.append(f"| `{name}` | {'yes' if name in required else ''} | {_cell(_kind(spec))} | "
                     f"{_cell(spec.get('description', ''))} |")
    return lines + [""]


def _kind(spec: dict) -> str:
    if "const" in spec:
        return json.dumps(spec["const"])
    if "enum" in spec:
        return " or ".join(json.dumps(v) for v in spec["enum"])
    if "$ref" in spec:
        return "see " + spec["$ref"].rsplit("/", 1)[-1]
    kind = spec.get("type", "")
    if kind == "array" and "items" in spec:
        return f"array of {_kind(spec['items'])}"
    bounds = [f"{word} {spec[key]}" for key, word in (("minimum", "at least"), ("maximum", "at most"),
                                                       ("minLength", "length at least"), ("pattern", "matching"))
              if key in spec]
    return ", ".join([kind if isinstance(kind, str) else " or ".join(kind), *bounds])


def testplan() -> str:
    from ci.regression import kinds
    from ci.regression.plan import DEFAULT_PLAN, load_plan
    from ci.regression.planning import LEVELS

    plan = load_plan(DEFAULT_PLAN)
    lines = ["# Testplan", "",
             f"The testplan `regress` runs by default (`ci/regression/testplan.hjson`, plan `{plan.name}`), "
             "generated when the site is built. A level runs its own testpoints and those of the levels before it: "
             + ", then ".join(f"`{level}`" for level in LEVELS) + ". How the plan is read and what each field "
             "means: [the testplan guide](../guides/regression/testplan.md).", ""]
    for level in LEVELS:
        points = [tp for tp in plan.testpoints if tp["milestone"] == level]
        lines += [f"## {level.capitalize()} testpoints ({len(points)})", "",
                  "| testpoint | what it verifies | tests | covers |", "|---|---|---|---|"]
        for point in points:
            tests = "<br>".join(f"[`{t}`](#{_anchor(t)})" for t in point["tests"])
            covers = "<br>".join(f"`{c}`" for c in point["covers"])
            lines.append(f"| `{point['name']}` | {_cell(point['desc'])} | {tests} | {covers} |")
        lines.append("")
    lines += ["## Tests", "", "Each test's kind and fields, as the plan gives them.", ""]
    for name, test in plan.tests.items():
        fields = {k: v for k, v in test.items() if k not in ("name", "kind")}
        lines += [f"### {name} {{#{_anchor(name)}}}", "", f"kind `{test['kind']}`", ""]
        lines += [f"- `{key}`: {_cell(json.dumps(value))}" for key, value in fields.items()] + [""]
    lines += ["## Test kinds", "", "The kinds a test can be (`ci/regression/kinds/`, and those plugins add):", "",
              "| kind | fields it needs | optional fields | seeded | what it runs |", "|---|---|---|---|---|"]
    for name in kinds.names():
        kind = kinds.get(name)
        doc = " ".join((sys.modules[type(kind).__module__].__doc__ or "").split("\n\n")[0].split())
        lines.append(f"| `{name}` | {', '.join(f'`{f}`' for f in kind.required)} | "
                     f"{', '.join(f'`{f}`' for f in getattr(kind, 'optional', ()))} | "
                     f"{'yes' if kind.seeded else ''} | {_cell(doc)} |")
    return "\n".join(lines) + "\n"


def environment() -> str:
    from golden import settings

    lines = ["# Environment variables", "",
             "The `NVDLA_*` variables a person may set, generated from `golden/settings.py` (`OVERRIDES`), the one "
             "module that reads them. A command-line option that says the same wins over its variable. Nothing "
             "else travels through the environment: what the command line decides is one settings object "
             "(`golden/settings.py` `Settings`) handed to the implementations, the RTL bench and `regress`'s "
             "worker processes (in the run's `manifest.json`, which `--resume` reads too).", "",
             "| variable | meaning |", "|---|---|"]
    lines += [f"| `{name}` | {_cell(meaning)} |" for name, meaning in settings.OVERRIDES.items()]
    return "\n".join(lines) + "\n"


def _anchor(name: str) -> str:
    return "test-" + name.lower().replace("_", "-")


def _code(text: str) -> str:
    return f"`{text}`" if text else ""


def _cell(text: str) -> str:
    """Text for one Markdown table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


#: Generated page -> the function that writes it.
PAGES: dict[str, Callable[[], str]] = {
    "reference/commands.md": commands,
    "reference/status.md": statuses,
    "reference/rules.md": rules,
    "reference/profiles.md": profiles,
    "reference/schemas.md": schemas,
    "reference/testplan.md": testplan,
    "reference/environment.md": environment,
}
