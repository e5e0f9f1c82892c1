"""The report of a fuzzing campaign, and one campaign against another (directed against random).

    write_report(out, other=None) -> text   OUT/summary.txt, OUT/report.json, OUT/coverage.png (with matplotlib,
                                            the `report` extra): coverage over runs and over wall time;
                                            OUT/uncovered.txt: the RTL lines no run reached, per unit and file
    compare(a, b) -> dict                   runs `a` needed to reach `b`'s final coverage, final coverage per unit

Coverage of a run is the RTL's line+toggle points hit (Verilator, merged over the campaign's runs) when the
implementation has code coverage, else the golden-side covergroup bins seen.
"""

from __future__ import annotations

import json
from pathlib import Path

from ci import shell
from ci.fuzzing.campaign import FINDING_KIND
from ci.regression.code_coverage import line_ranges, read_dat, read_points, uncovered
from ci.regression.code_coverage import lines as unit_table
from ci.regression.results import buckets


def load(out: Path) -> dict:
    out = Path(out)
    if not (out / "state.json").is_file():
        from ci.fuzzing.campaign import FuzzError

        raise FuzzError(f"{out}: no fuzzing campaign there (no state.json)")
    state = json.loads((out / "state.json").read_text())
    rows = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()][:state["runs"]] \
        if (out / "runs.jsonl").is_file() else []
    findings = [json.loads((out / "findings" / f"{i}.json").read_text()) for i in state["findings"]]
    return {"out": str(out), "state": state, "rows": rows, "findings": findings}


def covered(row: dict) -> tuple[int, int, str]:
    """(hit, total, what) of the run's coverage measure."""
    if "rtl_total" in row:
        total = row["rtl_total"]
        return total["line"][0] + total["toggle"][0], total["line"][1] + total["toggle"][1], "RTL line+toggle points"
    return row["golden"].get("bins", 0), 0, "golden covergroup bins"


def runs_to_reach(rows: list[dict], target: int) -> int | None:
    return next((row["run"] for row in rows if covered(row)[0] >= target), None)


def compare(a: dict, b: dict) -> dict:
    """`a` against `b` (e.g. directed against random): the runs `a` needed to reach `b`'s final coverage."""
    if not a["rows"] or not b["rows"]:
        return {"note": "a campaign without runs"}
    target, total, what = covered(b["rows"][-1])
    reached = runs_to_reach(a["rows"], target)
    return {"measure": what, "b_final": target, "total": total, "b_runs": len(b["rows"]),
            "a_final": covered(a["rows"][-1])[0], "a_runs": len(a["rows"]), "a_runs_to_b_final": reached,
            "ratio": round(reached / len(b["rows"]), 3) if reached else None,
            "a_findings": len(a["findings"]), "b_findings": len(b["findings"]),
            "a_units": a["rows"][-1].get("rtl_units"), "b_units": b["rows"][-1].get("rtl_units")}


def _mode(campaign: dict) -> str:
    options = campaign["state"]["options"]
    return f"{'directed' if options['directed'] else 'random'} ({campaign['out']})"


def summary(campaign: dict, other: dict | None = None) -> str:
    state, rows = campaign["state"], campaign["rows"]
    options = state["options"]
    lines = [f"fuzzing campaign: {_mode(campaign)}, --impl {options['impl']}, profile {options['profile']}, "
             f"families {', '.join(options['families'])}, seed {options['seed']}",
             f"runs {state['runs']}, candidates tried {state['step']} (skipped without golden-side novelty "
             f"{state['skipped']}, dropped {sum(state['dropped'].values())}), corpus {len(state['corpus'])}, "
             f"findings {len(campaign['findings'])}, {state['elapsed_s']:.0f} s"]
    if state["dropped"]:
        lines.append("dropped: " + ", ".join(f"{k} {v}" for k, v in sorted(state["dropped"].items())))
    if rows:
        lines.append("golden-side features seen: " + ", ".join(f"{k} {v}" for k, v in rows[-1]["golden"].items()))
        if "rtl_units" in rows[-1]:
            lines += unit_table({"tests": len(rows), "merged_by": "the campaign's runs, summed point by point",
                                 "units": rows[-1]["rtl_units"], "total": rows[-1]["rtl_total"]})
    shrunk = {f["id"]: f["shrunk"] for f in campaign["findings"] if f.get("shrunk")}
    found = buckets(campaign["findings"], shrunk, {FINDING_KIND})
    if found:
        lines.append("finding buckets (count, signature; first run; reproduce):")
        for bucket in found:
            first = min(f["run"] for f in campaign["findings"] if f["id"] in bucket["tests"])
            lines.append(f"  {bucket['count']:3}  {bucket['signature']}")
            lines.append(f"       first at run {first}; {shell.in_folder(campaign['out'], bucket['reproduce'])}")
            if bucket.get("shrunk", {}).get("path"):
                lines.append(f"       shrunk: {bucket['shrunk']['path']} ({bucket['shrunk']['bytes']} bytes); "
                             f"{shell.in_folder(campaign['out'], bucket['shrunk']['reproduce'])}")
    if other is not None:
        c = compare(campaign, other)
        lines.append(f"against {_mode(other)}:")
        if "measure" in c:
            lines.append(f"  {c['measure']}: this campaign {c['a_final']} after {c['a_runs']} runs, the other "
                         f"{c['b_final']} after {c['b_runs']}; runs this one needed to reach the other's final: "
                         f"{c['a_runs_to_b_final'] or 'not reached'}"
                         + (f" (ratio {c['ratio']})" if c["ratio"] else ""))
            lines.append(f"  findings: this campaign {c['a_findings']}, the other {c['b_findings']}")
            if c["a_units"] and c["b_units"]:
                lines.append(f"  {'unit':24} {'line this/other':>22} {'toggle this/other':>22}")
                for unit in sorted(set(c["a_units"]) | set(c["b_units"])):
                    cells = [f"{_pct(c['a_units'].get(unit), k)}/{_pct(c['b_units'].get(unit), k)}"
                             for k in ("line", "toggle")]
                    lines.append(f"  {unit:24} {cells[0]:>22} {cells[1]:>22}")
    return "\n".join(lines) + "\n"


def _pct(row: dict | None, kind: str) -> str:
    if not row or not row[kind][1]:
        return "-"
    return f"{100 * row[kind][0] / row[kind][1]:.1f}%"


def plot(campaigns: list[dict], path: Path) -> Path | None:
    """Coverage over runs and over wall time, one line per campaign (None without matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    rtl = all("rtl_total" in c["rows"][-1] for c in campaigns if c["rows"])
    measures = [("line", "RTL line %"), ("toggle", "RTL toggle %")] if rtl else []
    measures.append(("bins", "golden covergroup bins"))
    figure, axes = plt.subplots(len(measures), 2, figsize=(11, 3.2 * len(measures)), squeeze=False)
    for campaign in campaigns:
        rows = campaign["rows"]
        if not rows:
            continue
        label = "directed" if campaign["state"]["options"]["directed"] else "random"
        for place, (kind, title) in enumerate(measures):
            values = [row["golden"].get("bins", 0) if kind == "bins" else
                      100.0 * row["rtl_total"][kind][0] / max(row["rtl_total"][kind][1], 1) for row in rows]
            for column, xs, xlabel in ((0, [r["run"] for r in rows], "runs"),
                                       (1, [r["elapsed_s"] for r in rows], "wall time (s)")):
                axes[place][column].plot(xs, values, label=label, drawstyle="steps-post")
                axes[place][column].set_xlabel(xlabel)
                axes[place][column].set_ylabel(title)
                axes[place][column].grid(alpha=0.3)
    for row in axes:
        for ax in row:
            if ax.lines:
                ax.legend(loc="lower right")
    figure.tight_layout()
    figure.savefig(path, dpi=90)
    plt.close(figure)
    return path


def uncovered_text(campaign: dict) -> str | None:
    """Per unit and source file, the line numbers with a block or branch the campaign's RTL runs never reached."""
    name = campaign["state"].get("coverage")
    if not name or not (Path(campaign["out"]) / name).is_file():
        return None
    missed = uncovered(read_points(read_dat(Path(campaign["out"]) / name)))
    lines = [f"RTL lines with a block or branch no run of {_mode(campaign)} reached "
             f"({campaign['state']['runs']} runs), per unit and file:"]
    for unit, files in missed.items():
        lines.append(f"{unit}: {sum(map(len, files.values()))} lines in {len(files)} files")
        lines += [f"  {file} ({len(numbers)}): {line_ranges(numbers)}" for file, numbers in files.items()]
    return "\n".join(lines) + "\n"


def write_report(out: Path, other: Path | None = None) -> str:
    return write(load(out), load(other) if other else None)[0]


def write(campaign: dict, against: dict | None = None) -> tuple[str, dict | None]:
    """A loaded campaign's report files in its folder (against another loaded one): (the printed text, the
    comparison or None)."""
    out = Path(campaign["out"])
    text = summary(campaign, against)
    missed = uncovered_text(campaign)
    if missed:
        (out / "uncovered.txt").write_text(missed)
        text += f"uncovered RTL lines per unit and file: {out / 'uncovered.txt'}\n"
    (out / "summary.txt").write_text(text)
    report = {"state": {k: v for k, v in campaign["state"].items() if k != "seen"}, "runs": campaign["rows"],
              "findings": campaign["findings"],
              "buckets": buckets(campaign["findings"], {f["id"]: f["shrunk"] for f in campaign["findings"]
                                                        if f.get("shrunk")}, {FINDING_KIND})}
    compared = compare(campaign, against) if against is not None else None
    if compared is not None:
        report["compare"] = {"other": against["out"], **compared}
    (out / "report.json").write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    picture = plot([campaign] + ([against] if against else []), out / "coverage.png")
    text += f"plot: {picture}\n" if picture else "plot: none (matplotlib is not installed: the report extra)\n"
    return text, compared
