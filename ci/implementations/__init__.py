"""The registry of implementations: the entry-point group `nvdla_verif.implementations`.

    names() -> [str]                          every registered implementation, sorted
    create("NAME" or "NAME:ARGUMENT", settings=None) -> Implementation

The project registers its own in pyproject.toml (golden, rtl, command, dlhdl); a plugin package
registers more the same way:

    [project.entry-points."nvdla_verif.implementations"]
    mine = "my_package.adapter:MyImplementation"

The entry point is called with the text after the first ':' of the --impl value (None without one),
e.g. --impl 'command:./my_model --fast' calls Command("./my_model --fast"); an entry point that takes a
`settings` keyword also gets what the command line decided (golden/settings.py Settings: the RTL under test, how an
external program runs), which is how the project's own learn it (none reads the environment).
"""

from __future__ import annotations

import inspect
from importlib.metadata import EntryPoint, entry_points

from golden.errors import NvdlaVerifError
from golden.implementation import Implementation
from golden.settings import Settings

GROUP = "nvdla_verif.implementations"


class ImplementationError(NvdlaVerifError):
    """An --impl value that names no registered implementation, or one that cannot be created."""


def _registered() -> dict[str, EntryPoint]:
    return {ep.name: ep for ep in entry_points(group=GROUP)}


def names() -> list[str]:
    return sorted(_registered())


def create(spec: str, settings: Settings | None = None) -> Implementation:
    name, _, argument = spec.partition(":")
    registered = _registered()
    if name not in registered:
        known = ", ".join(sorted(registered)) or "none (is nvdla-verif installed? pip install -e .)"
        raise ImplementationError(f"unknown implementation {name!r}; registered: {known}")
    try:
        factory = registered[name].load()
    except ImportError as exc:
        raise ImplementationError(f"implementation {name!r} cannot be loaded: {exc} "
                                  "(bash ci/setup.sh --test installs the RTL bench's packages)") from None
    implementation = factory(argument or None, **_handed(factory, settings))
    if not isinstance(implementation, Implementation):
        raise ImplementationError(f"implementation {name!r} ({registered[name].value}) has no name and run()")
    return implementation


def _handed(factory, settings: Settings | None) -> dict:
    """settings= for an entry point that takes them (a plugin's may not)."""
    if settings is None:
        return {}
    try:
        parameters = inspect.signature(factory).parameters
    except (TypeError, ValueError):  # a callable without a signature to read: called as a plugin's
        return {}
    return {"settings": settings} if "settings" in parameters else {}
