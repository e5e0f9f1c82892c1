"""The project's import graph: every import statement of golden/, stimulus/, scoreboards/, rtl/ and ci/,
at module level or inside a function, read with ast (nothing is imported).

Asserts that there is no import cycle and that golden/, the reference, imports nothing from rtl/, ci/,
stimulus/ or scoreboards/ (DESIGN.md: "golden/ is the reference and imports nothing from the other
packages"), and that no module reaches a private (underscore) name of another top-level package, by import
or as a module's attribute. An import names the module it loads: `from golden.units.conv import cdma` is an edge to
golden.units.conv.cdma, `from golden.units.conv import convolve` one to the package golden.units.conv.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("golden", "stimulus", "scoreboards", "rtl", "ci")
OUTSIDE_GOLDEN = ("rtl", "ci", "stimulus", "scoreboards")
#: The layers, lowest first (DESIGN.md): a package imports only from its own layer's packages or lower ones;
#: stimulus and scoreboards share a layer and do not import each other.
LAYERS = {"golden": 0, "stimulus": 1, "scoreboards": 1, "rtl": 2, "ci": 3}
#: Edges that break a rule and wait for their issue. Delete an entry when its edge goes.
KNOWN_EXCEPTIONS: set[tuple[str, str]] = set()


def project_modules() -> dict[str, Path]:
    """Dotted module name -> file, for every .py file of the packages."""
    modules = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def imported(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules that `name` imports anywhere in its file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                target = f"{base}.{alias.name}"
                if target in modules:
                    found.add(target)
                elif base in modules:
                    found.add(base)
    found.discard(name)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = project_modules()
    return {name: imported(name, path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph.get(node, ())):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


GRAPH = import_graph()


def test_the_graph_reads_every_package_and_imports_inside_functions():
    assert {name.split(".")[0] for name in GRAPH} >= {"golden", "rtl", "ci"}
    assert "golden.units.conv.cdma" in GRAPH["golden.units.conv"]  # `from golden.units.conv import ... cdma`
    assert "golden.trace" in GRAPH["ci.commands.conform"]
    assert "scoreboards.picture" in GRAPH["scoreboards.report"]  # imported inside a function


def test_cycles_are_found():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_no_import_cycles():
    graph = {name: targets - {t for s, t in KNOWN_EXCEPTIONS if s == name} for name, targets in GRAPH.items()}
    assert cycles(graph) == []


def test_golden_imports_nothing_from_the_other_packages():
    wrong = sorted((name, target) for name, targets in GRAPH.items() if name.split(".")[0] == "golden"
                   for target in targets if target.split(".")[0] in OUTSIDE_GOLDEN)
    assert [edge for edge in wrong if edge not in KNOWN_EXCEPTIONS] == []


def upward(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Edges from a package to a higher layer, or across the stimulus / scoreboards layer."""
    wrong = []
    for name, targets in graph.items():
        source = name.split(".")[0]
        for target in targets:
            other = target.split(".")[0]
            if LAYERS[other] > LAYERS[source] or (other != source and LAYERS[other] == LAYERS[source]):
                wrong.append((name, target))
    return sorted(wrong)


def test_upward_imports_are_found():
    graph = {"rtl.a": {"ci.b", "golden.c"}, "stimulus.d": {"scoreboards.e"}, "ci.f": {"rtl.a"}}
    assert upward(graph) == [("rtl.a", "ci.b"), ("stimulus.d", "scoreboards.e")]


def test_no_package_imports_upward():
    assert [edge for edge in upward(GRAPH) if edge not in KNOWN_EXCEPTIONS] == []


def test_known_exceptions_still_exist():
    """An exception whose edge has gone must be deleted from KNOWN_EXCEPTIONS."""
    assert [edge for edge in sorted(KNOWN_EXCEPTIONS) if edge[1] not in GRAPH.get(edge[0], ())] == []


def private_names(name: str, source: str, modules: set[str]) -> list[tuple[str, str]]:
    """(module, name) for each underscore name of another top-level package that the module `name` imports
    (`from golden.x import _y`) or reads as an attribute of an imported module (`x._y`, `golden.x._y`).
    Dunder names (`__version__`) are public."""
    def private(attr: str) -> bool:
        return attr.startswith("_") and not attr.startswith("__")

    top = name.split(".")[0]
    found = []
    bound: dict[str, str] = {}  # a local name -> the project module it stands for
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for alias in node.names:
                if f"{node.module}.{alias.name}" in modules:
                    bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                if node.module.split(".")[0] in PACKAGES and private(alias.name) \
                        and node.module.split(".")[0] != top:
                    found.append((node.module, alias.name))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in PACKAGES:
                    bound[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname \
                        else alias.name.split(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and private(node.attr):
            chain, value = [], node.value
            while isinstance(value, ast.Attribute):
                chain.insert(0, value.attr)
                value = value.value
            if isinstance(value, ast.Name) and value.id in bound:
                owner = ".".join([bound[value.id], *chain])
                if owner.split(".")[0] != top:
                    found.append((owner, node.attr))
    return sorted(set(found))


def test_private_names_across_packages_are_found():
    modules = {"golden", "golden.units", "golden.units.pdp", "stimulus.pdp"}
    source = """
from golden.units.pdp import _recip, pooling
from golden import __version__
from stimulus.pdp import _own
import golden.units.pdp
import golden.units as units
from golden import units as again
value = golden.units.pdp._table + units._declared + again.pdp._spans + _own._fine
"""
    assert private_names("stimulus.pdp_corners", source, modules) == [
        ("golden.units", "_declared"), ("golden.units.pdp", "_recip"), ("golden.units.pdp", "_spans"),
        ("golden.units.pdp", "_table")]


def test_no_private_name_crosses_a_package():
    modules = project_modules()
    wrong = {name: private_names(name, path.read_text(), set(modules)) for name, path in modules.items()}
    assert {name: names for name, names in wrong.items() if names} == {}
