"""The project's import graph: every import statement of golden/, stimulus/, scoreboards/, rtl/ and ci/,
at module level or inside a function, read with ast (nothing is imported).

An import names the module it loads: `from golden.units.conv import cdma` is an edge to golden.units.conv.cdma,
`from golden.units.conv import convolve` one to the package golden.units.conv. Loading a module runs the packages
around it first, so `from golden.units.pdp.pooling import window_max` is an edge to golden.units.pdp and
golden.units too (not to a package the importing module lies in itself: that one is already running). A registry
that loads modules by name (golden.units.PACKAGES, the entry points, the command and test-kind lists) is the plugin
mechanism, not an edge.

Asserts
- no import cycle;
- the layers (DESIGN.md): golden < stimulus, scoreboards < rtl < ci; golden/, the reference, imports nothing from
  the others, and stimulus and scoreboards not each other;
- ci reaches rtl only through the implementation registry: no module of ci imports rtl. rtl's whole surface to ci
  is the `rtl` entry point of the group nvdla_verif.implementations (pyproject.toml: rtl.implementation:Rtl), what
  that class declares;
- a project import sits inside a function only to defer a heavy optional dependency and says which in a comment
  on its line: a dependency that is not a base one of pyproject.toml and that the imported module loads at module
  level (itself or through the project modules it imports), which the importing module does not;
- no module reaches a private (underscore) name of another top-level package, by import or as a module's
  attribute.
"""

from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("golden", "stimulus", "scoreboards", "rtl", "ci")
OUTSIDE_GOLDEN = ("rtl", "ci", "stimulus", "scoreboards")
#: The layers, lowest first (DESIGN.md): a package imports only from its own layer's packages or lower ones;
#: stimulus and scoreboards share a layer and do not import each other.
LAYERS = {"golden": 0, "stimulus": 1, "scoreboards": 1, "rtl": 2, "ci": 3}
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
#: The dependencies every install has (a function-level import never defers one of these).
BASE = frozenset(re.match(r"[\w.-]+", dep).group().lower().replace("-", "_")
                 for dep in PYPROJECT["project"]["dependencies"])
#: Edges that break a rule and wait for their issue. Delete an entry when its edge goes.
KNOWN_EXCEPTIONS: set[tuple[str, str]] = {
    ('ci.mutation', 'rtl'),
    ('ci.mutation', 'rtl.build'),
    ('ci.mutation', 'rtl.implementation'),
    ('ci.mutation', 'rtl.suite'),
    ('ci.regression.batch', 'rtl'),
    ('ci.regression.batch', 'rtl.build'),
    ('ci.regression.kinds.mutants', 'rtl'),
    ('ci.regression.kinds.mutants', 'rtl.build'),
    ('ci.regression.kinds.mutants', 'rtl.implementation'),
    ('ci.regression.kinds.mutants', 'rtl.suite'),
}
#: (module, imported modules) of function-level imports that defer no heavy optional dependency yet.
KNOWN_DEFERRALS: set[tuple[str, str]] = {
    ('ci.commands.fuzz', 'ci.fuzzing.campaign'),
    ('ci.commands.fuzz', 'ci.fuzzing.report'),
    ('ci.commands.fuzz', 'ci.implementations.command'),
    ('ci.commands.fuzz', 'ci.ownership'),
    ('ci.commands.regress', 'ci.options'),
    ('ci.commands.regress', 'ci.regression.batch'),
    ('ci.commands.regress', 'ci.regression.shrink'),
    ('ci.fuzzing.campaign', 'ci.fuzzing.candidates'),
    ('ci.fuzzing.campaign', 'ci.regression.shrink'),
    ('ci.fuzzing.feedback', 'ci.regression.coverage'),
    ('ci.fuzzing.feedback', 'golden.units.conv.config'),
    ('ci.fuzzing.feedback', 'golden.units.conv.rules'),
    ('ci.fuzzing.report', 'ci.fuzzing.campaign'),
    ('ci.implementations.dlhdl', 'ci.implementations'),
    ('ci.options', 'stimulus.families'),
    ('ci.regression.batch', 'rtl.build'),
    ('ci.regression.coverage', 'stimulus.coverage'),
    ('ci.regression.engine', 'ci.conformance'),
    ('ci.regression.kinds.fuzz', 'ci.fuzzing.campaign'),
    ('ci.regression.kinds.fuzz', 'ci.fuzzing.report'),
    ('ci.regression.kinds.fuzz', 'golden.config'),
    ('ci.regression.kinds.generated', 'stimulus.corner_data'),
    ('ci.regression.kinds.generated', 'stimulus.directed'),
    ('ci.regression.kinds.generated', 'stimulus.export'),
    ('ci.regression.kinds.generated', 'stimulus.families'),
    ('ci.regression.kinds.illegal', 'golden.errors'),
    ('ci.regression.kinds.illegal', 'golden.rules'),
    ('ci.regression.kinds.illegal', 'stimulus.choose'),
    ('ci.regression.kinds.illegal', 'stimulus.export'),
    ('ci.regression.kinds.illegal', 'stimulus.illegal'),
    ('ci.regression.kinds.mutants', 'rtl.build'),
    ('ci.regression.kinds.mutants', 'rtl.implementation'),
    ('ci.regression.kinds.mutants', 'rtl.suite'),
    ('ci.regression.kinds.random_sdp', 'stimulus.sdp.fixture'),
    ('ci.suite.build', 'golden.implementation'),
    ('ci.suite.build', 'scoreboards.verdict'),
    ('ci.suite.certify', 'golden.player'),
    ('ci.suite.certify', 'stimulus.coverage'),
    ('ci.tracemutate.harness', 'golden.config'),
    ('ci.tracemutate.mutations', 'golden.config'),
    ('ci.tracemutate.mutations', 'golden.trace'),
}


@dataclass(frozen=True)
class Import:
    """One import statement of a project module."""

    module: str
    line: int
    in_function: bool
    targets: frozenset[str]  # the project modules it loads (packages around them included)
    external: frozenset[str]  # the top-level names of the other modules it loads (numpy, cocotb, os)
    comment: str  # the comments on its lines
    type_only: bool = False  # under `if TYPE_CHECKING:`: read by the type checker, never run


def project_modules() -> dict[str, Path]:
    """Dotted module name -> file, for every .py file of the packages."""
    modules = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def loaded(name: str, package: str, modules) -> set[str]:
    """The project modules loading `name` runs when imported from a module of `package`: `name` (or the nearest
    module above it) and the packages around it that `package` does not lie in."""
    while name not in modules and "." in name:
        name = name.rpartition(".")[0]
    parts = name.split(".")
    around = (".".join(parts[:i]) for i in range(1, len(parts)))
    return {name} | {p for p in around if p in modules and package != p and not package.startswith(p + ".")}


def statement(node: ast.Import | ast.ImportFrom, package: str, modules) -> tuple[set[str], set[str]]:
    """(project modules, other top-level names) that one import statement loads."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
            base = ".".join([*anchor, *([base] if base else [])])
        names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
    targets, external = set(), set()
    for name in names:
        if name.split(".")[0] in PACKAGES:
            targets |= loaded(name, package, modules)
        elif name != "__future__":
            external.add(name.split(".")[0])
    return targets, external


def imports(name: str, source: str, modules, is_package: bool = False) -> list[Import]:
    """Every import statement of the module `name` (its `source`), in order."""
    package = name if is_package else name.rpartition(".")[0]
    lines = source.splitlines(keepends=True)
    found = []

    def visit(node: ast.AST, in_function: bool, type_only: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                targets, external = statement(child, package, modules)
                text = "".join(lines[child.lineno - 1:child.end_lineno]).strip() + "\n"
                comment = " ".join(token.string for token in tokenize.generate_tokens(io.StringIO(text).readline)
                                   if token.type == tokenize.COMMENT)
                found.append(Import(name, child.lineno, in_function, frozenset(targets - {name}),
                                    frozenset(external), comment, type_only))
            if _type_checking(child):
                for branch, only in ((child.body, True), (child.orelse, type_only)):
                    for statement_node in branch:
                        visit(ast.Module(body=[statement_node], type_ignores=[]), in_function, only)
                continue
            visit(child, in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda),
                  type_only)

    visit(ast.parse(source), False, False)
    return found


def _type_checking(node: ast.AST) -> bool:
    """An `if TYPE_CHECKING:` (or `typing.TYPE_CHECKING`) block."""
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"
                                         or isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def all_imports() -> list[Import]:
    modules = project_modules()
    return [found for name, path in modules.items()
            for found in imports(name, path.read_text(), modules, path.name == "__init__.py")]


IMPORTS = all_imports()
GRAPH: dict[str, set[str]] = {name: set() for name in project_modules()}
#: The imports that run: a cycle needs one (an annotation's import under TYPE_CHECKING never runs), the layers do not.
RUNTIME: dict[str, set[str]] = {name: set() for name in project_modules()}
for _import in IMPORTS:
    GRAPH[_import.module] |= _import.targets
    if not _import.type_only:
        RUNTIME[_import.module] |= _import.targets


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


def test_the_graph_reads_every_package_and_imports_inside_functions():
    assert {name.split(".")[0] for name in GRAPH} >= {"golden", "rtl", "ci"}
    assert "golden.units.conv.cdma" in GRAPH["golden.units.conv"]  # `from golden.units.conv import ... cdma`
    assert "golden.trace" in GRAPH["ci.commands.conform"]
    assert "scoreboards.picture" in GRAPH["scoreboards.report"]  # imported inside a function


def test_an_import_loads_the_packages_around_its_module():
    modules = {"golden", "golden.units", "golden.units.pdp", "golden.units.pdp.pooling", "golden.provenance",
               "golden.units.base"}
    source = "from golden.units.pdp.pooling import window_max\nfrom .units import base\n"
    assert [i.targets for i in imports("golden.provenance", source, modules)] == [
        {"golden.units", "golden.units.pdp", "golden.units.pdp.pooling"}, {"golden.units", "golden.units.base"}]
    inside = imports("golden.units.pdp.config", "from golden.units.pdp import pooling\n", modules)
    assert inside[0].targets == {"golden.units.pdp.pooling"}  # its own packages are already running


def test_cycles_are_found():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_an_import_under_type_checking_is_read_but_never_run():
    modules = {"golden", "golden.units", "golden.units.declaration", "golden.hardware"}
    source = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from golden.hardware import Hardware\n"
              "else:\n    from golden import hardware\n")
    found = imports("golden.units.declaration", source, modules)
    assert [(i.targets, i.type_only) for i in found if i.targets] == [
        ({"golden.hardware"}, True), ({"golden.hardware"}, False)]


def test_no_import_cycles():
    graph = {name: targets - {t for s, t in KNOWN_EXCEPTIONS if s == name} for name, targets in RUNTIME.items()}
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


def test_ci_reaches_rtl_only_through_the_implementation_registry():
    """ci creates the RTL bench as any implementation: by the registered name `rtl`, never by importing it."""
    registered = PYPROJECT["project"]["entry-points"]["nvdla_verif.implementations"]
    assert registered["rtl"].partition(":")[0] in GRAPH  # the one way in: rtl.implementation:Rtl
    wrong = sorted((name, target) for name, targets in GRAPH.items() if name.split(".")[0] == "ci"
                   for target in targets if target.split(".")[0] == "rtl")
    assert [edge for edge in wrong if edge not in KNOWN_EXCEPTIONS] == []


@cache
def loads_at_module_level(name: str) -> frozenset[str]:
    """The other top-level modules (numpy, cocotb, ...) that importing the project module `name` loads before
    any function runs: its own module-level imports and those of the project modules they load."""
    found, seen, todo = set(), set(), [name]
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        for each in BY_MODULE.get(module, ()):
            if not each.in_function:
                found |= each.external
                todo.extend(each.targets)
    return frozenset(found - set(sys.stdlib_module_names))


BY_MODULE: dict[str, list[Import]] = {}
for _import in IMPORTS:
    BY_MODULE.setdefault(_import.module, []).append(_import)


def unexplained(found: Import) -> bool:
    """Whether a function-level project import is there for no heavy optional dependency its comment names."""
    deferred = {name for target in found.targets for name in loads_at_module_level(target)}
    deferred -= loads_at_module_level(found.module) | BASE
    named = {word.split(".")[0].lower().replace("-", "_") for word in re.findall(r"[A-Za-z][\w.-]*", found.comment)}
    return not deferred & named


def deferrals() -> list[tuple[str, str]]:
    """(module, imported modules) of each function-level project import that defers nothing its comment names."""
    return sorted({(i.module, ", ".join(sorted(innermost(i.targets)))) for i in IMPORTS
                   if i.in_function and i.targets and unexplained(i)})


def innermost(targets) -> set[str]:
    """The modules an import names, without the packages around them."""
    return {t for t in targets if not any(other.startswith(t + ".") for other in targets)}


def test_an_unexplained_deferral_is_found():
    modules = {"ci", "ci.a", "ci.heavy", "ci.light"}
    BY_MODULE.update({m: imports(m, s, modules) for m, s in (
        ("ci.heavy", "import cocotb\n"), ("ci.light", "import numpy\nimport json\n"))})
    try:
        source = ("def f():\n    from ci.heavy import x  # defers cocotb (the rtl extra)\n"
                  "def g():\n    from ci.heavy import x  # defers matplotlib\n"
                  "def h():\n    from ci.light import y  # defers numpy\n"
                  "def i():\n    from ci import light\n")
        verdicts = [unexplained(i) for i in imports("ci.a", source, modules)]
    finally:
        for module in ("ci.heavy", "ci.light"):
            BY_MODULE.pop(module)
        loads_at_module_level.cache_clear()
    assert verdicts == [False, True, True, True]


def test_imports_inside_functions_only_defer_a_heavy_optional_dependency():
    assert [found for found in deferrals() if found not in KNOWN_DEFERRALS] == []


def test_known_exceptions_still_exist():
    """An exception whose edge has gone must be deleted from KNOWN_EXCEPTIONS (and KNOWN_DEFERRALS)."""
    assert [edge for edge in sorted(KNOWN_EXCEPTIONS) if edge[1] not in GRAPH.get(edge[0], ())] == []
    assert sorted(KNOWN_DEFERRALS - set(deferrals())) == []


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
