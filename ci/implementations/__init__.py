"""The registry of implementations: the entry-point group `nvdla_verif.implementations`.

    names() -> [str]                          every registered implementation, sorted
    create("NAME" or "NAME:ARGUMENT") -> Implementation

The project registers its own in pyproject.toml (golden, rtl, command, dlhdl); a plugin package
registers more the same way:

    [project.entry-points."nvdla_verif.implementations"]
    mine = "my_package.adapter:MyImplementation"

The entry point is called with the text after the first ':' of the --impl value (None without one),
e.g. --impl 'command:./my_model --fast' calls Command("./my_model --fast").
"""

from __future__ import annotations

from importlib.metadata import EntryPoint, entry_points

from golden.errors import NvdlaVerifError
from golden.implementation import Implementation

GROUP = "nvdla_verif.implementations"


class ImplementationError(NvdlaVerifError):
    """An --impl value that names no registered implementation, or one that cannot be created."""


def _registered() -> dict[str, EntryPoint]:
    return {ep.name: ep for ep in entry_points(group=GROUP)}


def names() -> list[str]:
    return sorted(_registered())


def create(spec: str) -> Implementation:
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
    implementation = factory(argument or None)
    if not isinstance(implementation, Implementation):
        raise ImplementationError(f"implementation {name!r} ({registered[name].value}) has no name and run()")
    return implementation
