"""Generated CDP layers reach the LUT slope scales' extremes and read the LUT back (cdp.*_flow_scale "negative
max" / "positive max", cdp.lut_access READ): the nightly's directed draw closes them on nv_small, and a read-back
trace expects the entries its own writes put there."""

from __future__ import annotations

import re

from ci.regression.plan import load_plan
from ci.regression.planning import count_for, derived_seed
from golden.config import get_profile
from stimulus.directed import directed
from stimulus.export import write_trace
from stimulus.families import layers

SMALL = get_profile("nv_small")
POINTS = [f"cdp.{table}_{flow}_scale" for table in ("le", "lo") for flow in ("uflow", "oflow")] + ["cdp.lut_access"]


def test_the_nightly_cdp_draw_closes_the_slope_extremes_and_the_read_back():
    entry = load_plan().tests["generated_cdp"]
    found = directed("cdp", SMALL, derived_seed(31, "generated_cdp:directed", 0), count_for(entry, "nightly"),
                     entry.get("patience", 200), entry["layers"], touched=True)
    open_ = found.open_bins()
    assert "cdp" in found.groups
    assert {name: bins for name, bins in open_.items() if name in POINTS} == {}


def _table_after(writes) -> dict[tuple[int, int], int]:
    """(table, address) -> entry, replaying the writes by hand: a CFG write with bit 17 starts a table at its
    address, each DATA write fills the next entry."""
    entries, table, address = {}, 0, 0
    for _, register, value in writes:
        if register == "S_LUT_ACCESS_CFG":
            table, address, writing = value >> 16 & 1, value & 0x3FF, value >> 17 & 1
        elif writing:
            entries[table, address] = value
            address += 1
    return entries


def test_a_read_back_trace_expects_the_entries_written(tmp_path):
    pair = next(p for i in range(100) for p in [layers("cdp", SMALL, 3, i, count=2)] if p[0].reads)
    writes = pair[0].writes
    read_cfg = writes[-1][2]
    assert writes[-1][1] == "S_LUT_ACCESS_CFG" and not read_cfg >> 17 & 1  # the port left at READ
    table, start, depth = read_cfg >> 16 & 1, read_cfg & 0x3FF, (65, 257)[read_cfg >> 16 & 1]
    entries = _table_after(writes)
    count = len(pair[0].reads) + len(pair[1].reads)  # the second layer's reads carry on (the LUT is written once)
    addresses = [min(start + n, depth - 1) for n in range(count)]  # the address stays on the last entry
    trace = write_trace(pair, tmp_path / "readback", "readback", SMALL)
    expected = [int(v, 16) for v in re.findall(r"reg_read_check\(NVDLA_CDP\.S_LUT_ACCESS_DATA_0, (0x[0-9a-f]+)\)",
                                               trace.read_text())]
    assert expected == [entries[table, a] for a in addresses]
