"""Command lines printed for a person to paste into a POSIX shell: reproduce and resume lines, shrink commands, the
HTML report's commands. Each is built here from a list of words, every word quoted, so that a trace folder named
`$(...)`, with quotes, spaces, newlines or globs, stays one word and runs nothing; the names a line holds come
from traces, plans and folders, which the project does not trust.

    line(words, environment=None) -> str     `NAME=VALUE ... WORD ...`: runs exactly `words`
    in_folder(folder, line) -> str           `cd -- FOLDER && LINE`: a line whose relative paths are in folder
    chain(*lines) -> str                     the lines one after the other, each while the ones before succeed
    option(name, value) -> [words]           `--name value`, or `--name=value` when value would read as an option
    positional(path) -> str                  a path as a positional word no parser takes for an option
    fenced(text) -> str                      a Markdown code block holding text as it is (the HTML report's)
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def line(words: Sequence[str], environment: Mapping[str, str] | None = None) -> str:
    """The words as one shell command, preceded by the environment assignments it needs."""
    assignments = []
    for name, value in (environment or {}).items():
        if not _NAME.fullmatch(name):
            raise ValueError(f"{name!r} is not an environment variable name")
        assignments.append(f"{name}={shlex.quote(str(value))}")
    return " ".join([*assignments, shlex.join(str(word) for word in words)])


def in_folder(folder: str | Path, command: str) -> str:
    """`command` run in `folder` (made absolute: `cd` looks a bare relative name up in $CDPATH)."""
    return chain(line(["cd", "--", str(Path(folder).absolute())]), command)


def chain(*commands: str) -> str:
    return " && ".join(commands)


def option(name: str, value: str | Path) -> list[str]:
    """An option and its value as words; a value that starts with a dash is joined to the option with `=`, as
    argparse would take it for an option of its own otherwise."""
    value = str(value)
    return [f"{name}={value}"] if value.startswith("-") else [name, value]


def positional(path: str | Path) -> str:
    """A path given as a positional argument: a relative one that starts with a dash gets `./` before it."""
    text = str(path)
    return f"./{text}" if text.startswith("-") else text


def fenced(text: str) -> str:
    """A Markdown code block around text, its fence longer than any run of backticks in it (CommonMark)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{text}\n{fence}"
