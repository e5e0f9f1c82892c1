"""BDMA's group rules (programming guide "BDMA programming" and "Limitation/BDMA"), in the registry.

The predicates take a golden.units.bdma.BdmaGroup: the operations of a launched group (`group` None for one
operation run on its own, where these rules do not apply). The operations' stride rules are
golden/units/dma_rules.py's.
"""

from __future__ import annotations

from golden.rules import rule

GUIDE = "programming-guide: BDMA programming"
LIMIT = "programming-guide: Limitation/BDMA"
LAUNCH = ("BDMA.CFG_LAUNCH0.GRP0_LAUNCH", "BDMA.CFG_LAUNCH1.GRP1_LAUNCH")


@rule("BDMA-GROUP-NOT-EMPTY", "BDMA", GUIDE, LAUNCH + ("BDMA.CFG_OP.EN",),
      "a launched group holds at least one operation (CFG_OP.EN since the last launch)")
def _not_empty(group, facts):
    if group.group is not None and not group.operations:
        return (f"group {group.group} was launched with no operation enabled since the last launch; the "
                "hardware would never finish it")


@rule("BDMA-GROUP-DST-RAM", "BDMA", LIMIT, ("BDMA.CFG_CMD.DST_RAM_TYPE",) + LAUNCH,
      "all operations of one group have the same destination memory (DST_RAM_TYPE)")
def _one_destination(group, facts):
    if group.group is not None and len({op.dst_cvsram for op in group.operations}) > 1:
        return f"the operations of group {group.group} write to both DRAM and CV-SRAM"
