"""summary.html of a certification package: one static page a person reads, with no script, no external style or
image (its style is inline)."""

from __future__ import annotations

from html import escape
from pathlib import Path

from ci.suite.verify import COLUMNS, PLURAL, SHOWN, Certification

#: summary.html's column headers: the results as the verdict lines count them
HEADERS = "".join(f"<th>{PLURAL.get(c, SHOWN[c])}</th>" for c in COLUMNS)
STYLE = """body{font-family:sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #999;padding:.2em .6em;text-align:left;vertical-align:top}td.n{text-align:right}
.bad{background:#fdd}.ok{background:#dfd}pre{white-space:pre-wrap;margin:0;font-size:90%}"""


def write_summary(path: Path, statement: dict, entries: list[dict], waivers: dict[str, str], verdict) -> None:
    impl = statement["implementation"]
    suite = statement["suite"]
    rows = [_row(family, [e for e in entries if e["family"] == family], True)
            for family in sorted({e["family"] for e in entries})]
    unit_rows = [_row(unit, [e for e in entries if unit in e.get("units", [])], False)
                 for unit in sorted({u for e in entries for u in e.get("units", [])})]
    failing = [e for e in entries if e["result"] in (Certification.FAIL, Certification.ERROR)]
    unsupported = [e for e in entries if e["result"] == Certification.NOT_SUPPORTED]
    parts = [
        "<!DOCTYPE html>", "<html lang=en><head><meta charset=utf-8>",
        f"<title>NVDLA conformance: {escape(impl['name'])} on suite {escape(suite['profile'])} "
        f"{escape(suite['version'])}</title><style>{STYLE}</style></head><body>",
        f"<h1>NVDLA conformance of {escape(impl['name'])}</h1>",
        f"<p class=\"{'ok' if verdict.conformant else 'bad'}\"><strong>{escape(verdict.line)}</strong></p>",
        "<table>" + "".join(f"<tr><th>{escape(k)}</th><td>{escape(str(v))}</td></tr>" for k, v in (
            ("implementation", impl["spec"]), ("implementation version", impl.get("version") or "-"),
            ("declared profile", impl.get("declared_profile") or "-"),
            ("reference", statement.get("reference") or "none (each test's own checks only)"),
            ("profile", statement["profile"]),
            ("suite", f"{suite['profile']} {suite['version']} ({suite['tests']} tests, suite.json sha256 "
                      f"{suite['sha256']})"),
            ("date", statement["date"]), ("machine", f"{statement['machine']['host']}, "
                                                     f"{statement['machine']['platform']}"),
            ("nvdla-verif", statement["nvdla_verif_version"]))) + "</table>",
        "<h2>Per family</h2><table><tr><th>family</th><th>units</th><th>tests</th>"
        + HEADERS + "</tr>",
        *rows, "</table>",
        "<h2>Per unit</h2><p>A test counts for every unit its layers enable.</p><table><tr><th>unit</th><th>tests</th>"
        + HEADERS + "</tr>",
        *unit_rows, "</table>",
        f"<h2>Failing tests ({len(failing)})</h2>",
    ]
    if failing:
        parts.append("<table><tr><th>test</th><th>result</th><th>family</th><th>units</th><th>detail</th></tr>")
        parts += [f"<tr class=bad><td>{escape(e['id'])}</td><td>{SHOWN.get(e['result'], e['result'])}</td>"
                  f"<td>{escape(e['family'])}</td>"
                  f"<td>{escape(' '.join(e.get('units', [])))}</td><td>{escape(e['detail'])}"
                  + (f"<pre>{escape(e['mismatch'])}</pre>" if e.get("mismatch") else "") + "</td></tr>"
                  for e in failing]
        parts.append("</table>")
    else:
        parts.append("<p>none</p>")
    parts.append(f"<h2>Waivers ({len(waivers)})</h2>")
    if waivers:
        used = {e["id"]: e for e in entries if e["result"] == Certification.WAIVED}
        parts.append("<table><tr><th>test</th><th>reason</th><th>result without the waiver</th></tr>")
        parts += [f"<tr><td>{escape(test)}</td><td>{escape(reason)}</td><td>"
                  + (escape(f"{used[test]['status']}: {used[test]['detail']}") if test in used else
                     "not needed: the test did not fail") + "</td></tr>" for test, reason in sorted(waivers.items())]
        parts.append("</table>")
    else:
        parts.append("<p>none</p>")
    parts.append(f"<h2>Not supported ({len(unsupported)})</h2>")
    if unsupported:
        parts.append("<table><tr><th>test</th><th>why</th></tr>")
        parts += [f"<tr><td>{escape(e['id'])}</td><td>{escape(e['detail'])}</td></tr>" for e in unsupported]
        parts.append("</table>")
    else:
        parts.append("<p>none</p>")
    parts.append("</body></html>")
    path.write_text("\n".join(parts) + "\n")


def _row(name: str, mine: list[dict], with_units: bool) -> str:
    numbers = [sum(e["result"] == c for e in mine) for c in COLUMNS]
    units = sorted({u for e in mine for u in e.get("units", [])})
    cells = f"<td>{escape(name)}</td>" + (f"<td>{escape(' '.join(units))}</td>" if with_units else "")
    return (f"<tr class=\"{'bad' if numbers[1] + numbers[2] else 'ok'}\">{cells}<td class=n>{len(mine)}</td>"
            + "".join(f"<td class=n>{n}</td>" for n in numbers) + "</tr>")
