"""The SDP LUT's limitation rules (programming guide "Limitation/LUT"), for a layer whose Y stage reads the LUT.

The index select of each linear table and the exponent LE table's index offset lie in the ranges of the guide's
table for SDP and the processing precision; each table's END - START equals the span its index configuration
covers (golden.units.lut.index_problems and span_problem hold the arithmetic). A span rule skips a layer whose
index setting is already out of range: the select rule names it, and the span would be 2 to a meaningless power.
"""

from __future__ import annotations

from golden.rules import rule
from golden.units.lut import RULE, index_problems, span_problem

INFO = "SDP.S_LUT_INFO"


def _index(cfg) -> dict[str, str]:
    return index_problems(cfg.lut, cfg.proc_precision, "SDP") if cfg.y.lut_active else {}


def _index_rule(name: str, field: str, text: str) -> None:
    @rule(f"SDP-LUT-{name}", "SDP", RULE, (f"{INFO}.{field}",), text)
    def index(cfg, facts):
        return _index(cfg).get(name.split("-")[0] if name != "OFFSET" else name)


_index_rule("LE-SELECT", "LUT_LE_INDEX_SELECT", "a linear LE table's index select is inside SDP's range")
_index_rule("LO-SELECT", "LUT_LO_INDEX_SELECT", "the LO table's index select is inside SDP's range")
_index_rule("OFFSET", "LUT_LE_INDEX_OFFSET", "an exponent LE table's index offset is inside SDP's range")


def _span_rule(table: str) -> None:
    index_key = ("LO",) if table == "LO" else ("LE", "OFFSET")

    @rule(f"SDP-LUT-{table}-SPAN", "SDP", RULE,
          (f"SDP.S_LUT_{table}_START.LUT_{table}_START", f"SDP.S_LUT_{table}_END.LUT_{table}_END"),
          f"{table}_END - {table}_START equals the span of the {table} table's index configuration")
    def span(cfg, facts):
        if not cfg.y.lut_active or any(k in _index(cfg) for k in index_key):
            return None
        return span_problem(cfg.lut, cfg.proc_precision, table)


_span_rule("LE")
_span_rule("LO")
