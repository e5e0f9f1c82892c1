"""No verdict word written as a literal outside golden/status.py and the declared translation tables.

A status is one of golden/status.py's enums (Verdict, Ending, RecordStatus) or a word of an outside vocabulary
declared once in one table beside the adapter that speaks it. A literal status word anywhere else (a comparison
with "passed", a record made with "skipped") is a second declaration of the word; this test finds them with the
ast. Field names are not values: a dict key or a subscript ("passed" in counts["passed"]) is left alone, as are
docstrings and the text of f-strings.
"""

from __future__ import annotations

import ast
from pathlib import Path

from ci.regression.record import Finding
from ci.suite.verify import Certification
from golden.status import Ending, RecordStatus, Verdict

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("golden", "scoreboards", "stimulus", "ci", "rtl")
#: Words that mean a status wherever they appear as a value.
STATUS_ONLY = {"passed", "failed", "skipped", "not applicable", "unsupported", "completed", "caught", "survived",
               "rejected", "accepted", "errored", "wrong rule", "waived", "not supported", "pass", "fail", "broken"}
#: Every status word: a comparison of one with something named status, verdict or result is a status test.
EVERY_WORD = STATUS_ONLY | {str(w) for vocabulary in (Verdict, Ending, RecordStatus, Certification, Finding)
                            for w in vocabulary} - {"-"}
#: Where the words are declared: a module, or (module, name) for a table or an enum declared there.
DECLARED = {
    "golden/status.py",
    ("ci/regression/record.py", "Finding"),  # the record's verdict column beyond a trace's verdict
    ("ci/suite/verify.py", "Certification"),  # a certification package's results
    ("ci/regression/results.py", "JUNIT"),  # JUnit XML
    ("ci/regression/report_page.py", "ALLURE"),  # Allure (and the pytest outcome it reads)
    ("ci/implementations/command.py", "PROTOCOL"),  # the command protocol's result.json
}
#: Words that are another setting's, not a status: (module, word).
OTHER_MEANING = {
    ("golden/settings.py", "failed"),  # NVDLA_COMMAND_KEEP=failed: keep the folders of failed runs
    ("ci/implementations/command.py", "failed"),  # the same keep mode, where the folder is kept or removed
}


def offences(source: str, module: str = "<test>") -> list[str]:
    """`module:line: 'word'` for each literal status word used as a value outside its declarations."""
    tree = ast.parse(source)
    exempt: set[int] = set()  # ids of Constant nodes that are field names, docstrings or declarations
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            exempt.update(id(key) for key in node.keys if key is not None)
        elif isinstance(node, ast.Subscript):
            exempt.add(id(node.slice))
        elif isinstance(node, ast.JoinedStr):
            exempt.update(id(part) for part in ast.walk(node))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            exempt.add(id(node.value))
        elif isinstance(node, ast.ClassDef | ast.Assign | ast.AnnAssign) and (module, _declared(node)) in DECLARED:
            exempt.update(id(part) for part in ast.walk(node))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and id(node) not in exempt and node.value in STATUS_ONLY \
                and (module, node.value) not in OTHER_MEANING:
            found.append(f"{module}:{node.lineno}: {node.value!r}")
        elif isinstance(node, ast.Compare) and _about_status(node):
            for side in [node.left, *node.comparators]:
                for part in ast.walk(side):
                    if isinstance(part, ast.Constant) and part.value in EVERY_WORD - STATUS_ONLY:
                        found.append(f"{module}:{part.lineno}: {part.value!r} compared with a status")
    return found


def _declared(node: ast.AST) -> str | None:
    if isinstance(node, ast.ClassDef):
        return node.name
    target = node.targets[0] if isinstance(node, ast.Assign) else node.target
    return target.id if isinstance(target, ast.Name) else None


def _about_status(node: ast.Compare) -> bool:
    """Whether a comparison reads something named status, verdict or result (r.status, r["verdict"], status)."""
    named = set()
    for part in ast.walk(node):
        if isinstance(part, ast.Name):
            named.add(part.id)
        elif isinstance(part, ast.Attribute):
            named.add(part.attr)
        elif isinstance(part, ast.Subscript) and isinstance(part.slice, ast.Constant):
            named.add(str(part.slice.value))
    return bool(named & {"status", "verdict", "result"})


def test_no_status_word_outside_its_declaration():
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            module = path.relative_to(ROOT).as_posix()
            if module not in DECLARED:
                found += offences(path.read_text(), module)
    assert not found, "status words written as literals (use golden/status.py's enums or a declared table):\n" \
                      + "\n".join(found)


def test_the_scan_finds_a_status_word_and_leaves_field_names_alone():
    assert offences('if r["status"] == "passed":\n    pass\n') == ["<test>:1: 'passed'"]
    assert offences('ok = result.status in ("error", "invalid")\n') == [
        "<test>:1: 'error' compared with a status", "<test>:1: 'invalid' compared with a status"]
    assert offences('record = make(item, "skipped", "-")\n') == ["<test>:1: 'skipped'"]
    assert offences('n = counts["passed"] + 1\nrow = {"failed": 0}\nline = f"{n} passed"\n"""passed"""\n') == []
    assert offences('policy = "error"\nif policy == "error":\n    pass\n') == []  # a memory policy, no status
