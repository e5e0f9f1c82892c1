"""Every ConfigurationError the project constructs names its rule (document and section) and its register
fields (golden/errors.py; DESIGN.md "Conventions"), read from the source with ast.

`fields=()` says on purpose that no register is involved: allowed only in golden/formats and
golden/numerics, whose functions take arrays and plain parameters rather than registers.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("golden", "stimulus", "scoreboards", "rtl", "ci")
NO_REGISTER_ALLOWED = ("golden/formats/", "golden/numerics/")


def problems(source: str, where: str) -> list[str]:
    """What each ConfigurationError(...) call of `source` lacks."""
    found = []
    for node in ast.walk(ast.parse(source, where)):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None))
                == "ConfigurationError"):
            continue
        keywords = {k.arg: k.value for k in node.keywords}
        place = f"{where}:{node.lineno}"
        for name in ("rule", "fields"):
            value = keywords.get(name)
            if value is None:
                found.append(f"{place}: no {name}=")
            elif isinstance(value, ast.Constant) and not value.value:
                found.append(f"{place}: {name}={value.value!r}")
        fields = keywords.get("fields")
        if (isinstance(fields, ast.Tuple) and not fields.elts
                and not any(where.startswith(folder) for folder in NO_REGISTER_ALLOWED)):
            found.append(f"{place}: fields=() outside {', '.join(NO_REGISTER_ALLOWED)}")
    return found


def test_the_scan_finds_what_is_missing():
    source = '''
raise ConfigurationError("a")
raise ConfigurationError("b", rule="guide: X")
raise errors.ConfigurationError("c", fields=("SDP.D_X.Y",), rule=None)
raise ConfigurationError("d", fields=(), rule=RULE)
raise ConfigurationError("e", fields=("SDP.D_X.Y",), rule=RULE)
'''
    assert problems(source, "golden/units/x.py") == [
        "golden/units/x.py:2: no rule=", "golden/units/x.py:2: no fields=", "golden/units/x.py:3: no fields=",
        "golden/units/x.py:4: rule=None", "golden/units/x.py:5: fields=() outside golden/formats/, golden/numerics/"]
    assert problems(source.splitlines()[5], "golden/formats/x.py") == []


def test_every_configuration_error_names_its_rule_and_fields():
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found += problems(path.read_text(), path.relative_to(ROOT).as_posix())
    assert found == []
