"""The CDP's limitation rules (in-memory-data-formats Table 31, programming guide "Limitation/LUT").

Each predicate takes the decoded CdpConfig and the facts (register values, profile); None means the layer keeps
the rule. The LUT's span rules skip a layer whose index select is outside its range (the select rule names it;
the span would be 2 to a meaningless power).
"""

from __future__ import annotations

from golden.rules import rule
from golden.units.lut import OFFSET_LIMITS, SELECT_LIMITS

LUT = "programming-guide: Limitation/LUT"
TABLE31 = "in-memory-data-formats: Table 31 (precision conversion for LRN layer)"
INFO = "CDP.S_LUT_INFO"


def _bound_fields(name: str) -> tuple[str, ...]:
    return tuple(f"CDP.S_LUT_{name}_{end}_{half}.LUT_{name}_{end}_{half}" for end in ("START", "END")
                 for half in ("LOW", "HIGH"))


@rule("CDP-RDMA-PRECISION", "CDP", TABLE31, ("CDP_RDMA.D_DATA_FORMAT.INPUT_DATA", "CDP.D_DATA_FORMAT.INPUT_DATA_TYPE"),
      "CDP_RDMA reads the precision CDP processes (LRN has no precision conversion)")
def _rdma_precision(cfg, facts):
    rdma = facts.regs.enum("CDP_RDMA", "D_DATA_FORMAT", "INPUT_DATA").lower()
    if rdma != cfg.precision:
        return f"CDP_RDMA reads {rdma} but CDP processes {cfg.precision}: LRN has no precision conversion"


def _select_ok(cfg, table: str) -> bool:
    le, lo = SELECT_LIMITS["CDP", cfg.precision]
    low, high = le if table == "LE" else lo
    value = cfg.lut.le_index_select if table == "LE" else cfg.lut.lo_index_select
    return low <= value <= high


def _select_rule(table: str) -> None:
    @rule(f"CDP-LUT-{table}-SELECT", "CDP", LUT, (f"{INFO}.LUT_{table}_INDEX_SELECT",),
          f"a linear {table} table's index select is inside the CDP range of its precision")
    def select(cfg, facts):
        if table == "LE" and cfg.lut.le_function != "LINEAR":
            return None
        if not _select_ok(cfg, table):
            value = cfg.lut.le_index_select if table == "LE" else cfg.lut.lo_index_select
            low, high = SELECT_LIMITS["CDP", cfg.precision][0 if table == "LE" else 1]
            return f"linear {table}_INDEX_SELECT {value} outside [{low}, {high}] for CDP {cfg.precision}"


for _table in ("LE", "LO"):
    _select_rule(_table)


@rule("CDP-LUT-LE-OFFSET", "CDP", LUT, (f"{INFO}.LUT_LE_INDEX_OFFSET",),
      "an exponent LE table's index offset is inside the CDP range of its precision")
def _le_offset(cfg, facts):
    low, high = OFFSET_LIMITS["CDP", cfg.precision]
    if cfg.lut.le_function != "LINEAR" and not low <= cfg.lut.le_index_offset <= high:
        return f"exponent LE_INDEX_OFFSET {cfg.lut.le_index_offset} outside [{low}, {high}] for CDP {cfg.precision}"


def _span_rule(table: str, extra: int) -> None:
    # The exponent rule "LE_END-LE_START == 1<<(LE_INDEX_OFFSET+64)" is not a rule: NVIDIA's own CDP traces
    # program LE_END-LE_START = 18 with LE_INDEX_OFFSET = 0, and the CDP datapath never reads LE_END in exponent
    # mode except for the overflow extrapolation. fp16 START/END are fp32 patterns, left unchecked on CDP.
    @rule(f"CDP-LUT-{table}-SPAN", "CDP", LUT, _bound_fields(table) + (f"{INFO}.LUT_{table}_INDEX_SELECT",),
          f"linear {table}_END - {table}_START == 1 << ({table}_INDEX_SELECT + {extra}) (integer precisions)")
    def span(cfg, facts):
        lut = cfg.lut
        if cfg.precision == "fp16" or (table == "LE" and lut.le_function != "LINEAR") or not _select_ok(cfg, table):
            return None
        start, end, select = ((lut.le_start, lut.le_end, lut.le_index_select) if table == "LE"
                              else (lut.lo_start, lut.lo_end, lut.lo_index_select))
        if end - start != 1 << (select + extra):
            return (f"linear {table}_END - {table}_START = {end - start} must equal 1<<({table}_INDEX_SELECT+"
                    f"{extra}) = {1 << (select + extra)}")


_span_rule("LE", 6)
_span_rule("LO", 8)


INT8_START_BITS = 22


def _start_fields() -> tuple[str, ...]:
    return tuple(key for table in ("LE", "LO") for key in _bound_fields(table) if "_START_" in key)


# NVIDIA's RTL runs int8 LRN two elements a cycle: the second lane compares the square sum with START[21:0] and
# subtracts in 22 bits, and the first lane's 38-bit difference carries the assert "CDP_LUT_ctrl: no overflow
# is allowed" on its bits 36:22. A START outside 22 bits is read as its low 22 bits by one lane only (on
# nv_small an exponent LE_START of -12884901909 indexed entry 45 where the 38-bit value overflows the table).
@rule("CDP-LUT-START-INT8", "CDP", f"{LUT}, with NVIDIA RTL NV_NVDLA_CDP_DP_LUT_CTRL_unit.v (int8 lanes: "
      "dec_offset_msb[21:0], assert on dec_offset_lsb[36:22])", _start_fields(),
      "int8: LE_START and LO_START are 22-bit signed values")
def _start_int8(cfg, facts):
    if cfg.precision != "int8":
        return None
    low, high = -(1 << (INT8_START_BITS - 1)), (1 << (INT8_START_BITS - 1)) - 1
    for table, start in (("LE", cfg.lut.le_start), ("LO", cfg.lut.lo_start)):
        if not low <= start <= high:
            return (f"int8 {table}_START {start} outside the 22-bit range [{low}, {high}] the int8 LUT lanes "
                    f"compare and subtract in")
