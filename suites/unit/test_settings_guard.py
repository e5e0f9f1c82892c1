"""No NVDLA_* environment variable is read or set outside golden/settings.py: what the command line decides travels
as one settings object, and the variables a person may set are read there alone (its OVERRIDES, `override`).

Reads every .py file of the project's packages, the benchmarks and the top conftest.py with ast (nothing is
imported) and finds os.environ / os.getenv / environ uses whose variable is an NVDLA_* name, written out or held
by a module-level constant; and environments built for other processes (a dict with an NVDLA_* key) except the
reproduce lines that show a person which override to set. The test suites are left out: they set the overrides
they test, and some stand in for external programs that read variables of their own.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("golden", "stimulus", "scoreboards", "rtl", "ci", "benchmarks")
SETTINGS_MODULE = ROOT / "golden" / "settings.py"
#: The accessors that read or change one variable: os.environ.get(NAME), os.getenv(NAME), os.putenv(NAME, ...).
CALLS = {"get", "pop", "setdefault", "getenv", "putenv", "unsetenv"}
#: Functions whose NVDLA_* dict is the text of a printed reproduce line (the overrides a person sets), not an
#: environment handed to a process.
REPRODUCE_LINES = {("ci/fuzzing/campaign.py", "_environment")}


def scanned_files() -> list[Path]:
    files = [path for package in SCANNED for path in sorted((ROOT / package).rglob("*.py"))]
    return [*files, ROOT / "conftest.py"]


def _constants(tree: ast.Module) -> dict[str, str]:
    """Module-level NAME = "NVDLA_..." assignments (a variable's name kept in a constant)."""
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = node.value.value
    return found


def _is_environ(node: ast.AST) -> bool:
    """os.environ, or a bare `environ` (from os import environ)."""
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or (isinstance(node, ast.Name)
                                                                             and node.id == "environ")


def _variable(node: ast.AST, constants: dict[str, str]) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
    elif isinstance(node, ast.Name):
        text = constants.get(node.id, "")
    elif isinstance(node, ast.Attribute):  # limits.ENVIRONMENT and the like
        text = _ATTRIBUTE_CONSTANTS.get(node.attr, "")
    else:
        return None
    return text if text.startswith("NVDLA_") else None


def environment_uses(path: Path) -> list[str]:
    """'file:line NAME' for every use of an NVDLA_* variable through the environment in the file."""
    tree = ast.parse(path.read_text(), str(path))
    constants = _constants(tree)
    uses = []

    def use(node: ast.AST, argument: ast.AST) -> None:
        name = _variable(argument, constants)
        if name:
            shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            uses.append(f"{shown}:{node.lineno} {name}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and _is_environ(node.value):
            use(node, node.slice)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            if node.func.attr in CALLS and (_is_environ(node.func.value) or node.func.attr.endswith("env")):
                use(node, node.args[0])
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in CALLS and node.args:
            use(node, node.args[0])
        elif isinstance(node, ast.Compare) and any(_is_environ(c) for c in node.comparators):
            use(node, node.left)
    return uses


def environments_built(path: Path) -> list[str]:
    """'file:line NAME' for every dict literal with an NVDLA_* key (an environment for another process) outside
    REPRODUCE_LINES."""
    tree = ast.parse(path.read_text(), str(path))
    shown = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
    allowed = {id(node) for function in ast.walk(tree) if isinstance(function, ast.FunctionDef)
               and (shown, function.name) in REPRODUCE_LINES for node in ast.walk(function)}
    return [f"{shown}:{node.lineno} {key.value}" for node in ast.walk(tree)
            if isinstance(node, ast.Dict) and id(node) not in allowed
            for key in node.keys if isinstance(key, ast.Constant) and isinstance(key.value, str)
            and key.value.startswith("NVDLA_") and "." not in key.value]


def _attribute_constants() -> dict[str, str]:
    """Every module-level NVDLA_* constant of the scanned files, by name (module.NAME reaches them too)."""
    found = {}
    for path in scanned_files():
        found.update({name: value for name, value in _constants(ast.parse(path.read_text())).items()
                      if value.startswith("NVDLA_")})
    return found


_ATTRIBUTE_CONSTANTS: dict[str, str] = {}


def test_no_nvdla_variable_is_read_outside_the_settings_module():
    _ATTRIBUTE_CONSTANTS.update(_attribute_constants())
    uses = [use for path in scanned_files() if path != SETTINGS_MODULE for use in environment_uses(path)]
    assert not uses, ("NVDLA_* variables used through the environment outside golden/settings.py (read them with "
                      "golden.settings.override, or hand the setting on in the settings object):\n" + "\n".join(uses))


def test_no_environment_carries_an_nvdla_variable_to_a_process():
    built = [use for path in scanned_files() if path != SETTINGS_MODULE for use in environments_built(path)]
    assert not built, ("environments with NVDLA_* variables built for other processes (hand the setting on in the "
                       "settings object or a file instead):\n" + "\n".join(built))


def test_the_guard_finds_each_kind_of_use(tmp_path):
    """The scan itself: each way of reading or setting a variable is found, and a register name is not."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import os\nfrom os import environ\nVARIABLE = 'NVDLA_B'\n"
        "a = os.environ.get('NVDLA_A')\nb = os.environ[VARIABLE]\nc = os.getenv('NVDLA_C')\n"
        "d = 'NVDLA_D' in os.environ\nos.environ['NVDLA_E'] = '1'\nf = environ.get('NVDLA_F', '')\n"
        "g = 'reg_write(NVDLA_SDP.D_OP_ENABLE_0, 0x1);'\nh = os.environ.get('HOME')\n")
    found = sorted(use.split()[-1] for use in environment_uses(sample))
    assert found == ["NVDLA_A", "NVDLA_B", "NVDLA_C", "NVDLA_D", "NVDLA_E", "NVDLA_F"]
    sample.write_text("import subprocess\nsubprocess.run(['x'], env={'NVDLA_G': '1', 'HOME': '/'})\n"
                      "h = {'NVDLA_SDP.D_OP_ENABLE_0': 1}\n")
    assert [use.split()[-1] for use in environments_built(sample)] == ["NVDLA_G"]
