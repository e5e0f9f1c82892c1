"""The bdma covergroup: each operation of a launched group (from a generated layer's writes, or the operations a
run launched), and CFG_OP.EN and STATUS after each CFG_OP / launch write of a generated layer's programming."""

from __future__ import annotations

from golden.regs.regfile import BDMA_SLOTS, RegisterFile
from golden.units.bdma import operation_from
from stimulus.bdma.layers import bdma_operations
from stimulus.covergroups import Samplers
from stimulus.covergroups.common import SIZE_CLASSES, memories, packed, ram, size_class, stack


def covergroup(coverage, group: str) -> Samplers:
    sample_operation, sample_status = _operations(coverage, group), _status(coverage, group)
    regmap = coverage.regmap
    registers = None

    def launched(operations, number: int) -> None:
        for operation in operations:
            sample_operation((operation, number, len(operations)))

    def replay(writes, number: int) -> None:
        """The status after each CFG_OP / CFG_LAUNCH write. The layers of a trace are programmed back to back
        (stimulus/export.py) and a group-0 layer starts a trace or follows a wait for every earlier layer, so the
        register file starts empty at group 0 and carries on to the group-1 layer after it."""
        nonlocal registers
        if number == 0 or registers is None:
            registers = RegisterFile(regmap)
        status, op = regmap.get("BDMA", "STATUS"), regmap.get("BDMA", "CFG_OP")
        for unit, name, value in writes:
            if unit != "BDMA":
                continue
            registers.write(regmap.get(unit, name), value)
            if name in ("CFG_OP", "CFG_LAUNCH0", "CFG_LAUNCH1"):
                word = registers.read(status)
                sample = {f.name: f.decode(word) for f in status.fields}
                sample["EN"] = op.field("EN").decode(registers.read(op))
                sample_status(sample)

    def sample_writes(stages, writes) -> None:
        """A generated BDMA layer's programming: the group its CFG_LAUNCH<g> write starts."""
        launches = [name for unit, name, _ in writes if unit == "BDMA" and name.startswith("CFG_LAUNCH")]
        if not launches:
            return
        number = int(launches[-1].removeprefix("CFG_LAUNCH"))
        launched(bdma_operations(writes, regmap), number)
        replay(writes, number)

    def sample_launch(operations, groups) -> None:
        if "BDMA" in groups:
            launched([operation_from(regs) for regs in operations], groups["BDMA"])

    return Samplers(writes=sample_writes, launch=sample_launch)


def _operations(coverage, g: str):
    """Sampled once per operation of a launched group: (operation, launch group, operations in the group)."""
    p = coverage.profile
    rams = memories(p)
    decorators = [
        coverage.point(g, "operations", lambda s: "4+" if s[2] >= 4 else "2-3" if s[2] > 1 else "1",
                       ("1", "2-3", "4+")),
        coverage.point(g, "launch", lambda s: s[1], (0, 1)),
        coverage.point(g, "memories", lambda s: (ram(s[0].src_cvsram), ram(s[0].dst_cvsram)),
                       [(i, o) for i in rams for o in rams]),
        coverage.point(g, "line_atoms", lambda s: size_class(s[0].line_bytes // 32), SIZE_CLASSES[:3]),
        coverage.point(g, "lines", lambda s: size_class(s[0].lines), SIZE_CLASSES[:2]),
        coverage.point(g, "surfaces", lambda s: size_class(s[0].surfaces), SIZE_CLASSES[:2]),
        coverage.point(g, "src_line_stride", lambda s: packed(s[0].src_line_stride, s[0].line_bytes),
                       ("packed", "gap")),
        coverage.point(g, "dst_line_stride", lambda s: packed(s[0].dst_line_stride, s[0].line_bytes),
                       ("packed", "gap")),
        coverage.cross(g, "launch_x_memories", ["launch", "memories"]),
        coverage.cross(g, "operations_x_launch", ["operations", "launch"]),
        # NVIDIA's bdma_cg meanings the points above do not hold (stimulus/coverage_parity.json): positions
        # in 32-byte atoms modulo 8 (where in a 256-byte block an address, a line's end or a stride falls)
        coverage.point(g, "line_atoms_mod8", lambda s: s[0].line_bytes // 32 % 8, range(8)),
        coverage.point(g, "src_line_end", lambda s: (s[0].src_addr // 32 + s[0].line_bytes // 32 - 1) % 8, range(8)),
        coverage.point(g, "dst_line_end", lambda s: (s[0].dst_addr // 32 + s[0].line_bytes // 32 - 1) % 8, range(8)),
        coverage.point(g, "src_line_stride_mod8", lambda s: s[0].src_line_stride // 32 % 8, range(8)),
        coverage.point(g, "dst_line_stride_mod8", lambda s: s[0].dst_line_stride // 32 % 8, range(8)),
        coverage.point(g, "src_surface_stride_mod8", lambda s: s[0].src_surf_stride // 32 % 8, range(8)),
        coverage.point(g, "dst_surface_stride_mod8", lambda s: s[0].dst_surf_stride // 32 % 8, range(8)),
    ]
    for side in ("src", "dst"):
        decorators += [
            coverage.point(g, f"{side}_ram", lambda s, x=side: ram(getattr(s[0], f"{x}_cvsram")), rams),
            coverage.point(g, f"{side}_addr_mod8", lambda s, x=side: getattr(s[0], f"{x}_addr") // 32 % 8, range(8)),
            coverage.cross(g, f"{side}_addr_mod8_x_{side}_ram", [f"{side}_addr_mod8", f"{side}_ram"]),
        ]
    return stack(decorators)


def _status(coverage, g: str):
    """Sampled after each CFG_OP and CFG_LAUNCH<g> write, as NVIDIA's bdma_cg (which reads STATUS back then):
    CFG_OP.EN and STATUS as the golden model's register file holds them (golden/regs/regfile.py)."""
    decorators = [
        coverage.point(g, "op_en", lambda s: s["EN"], (0, 1)),
        coverage.point(g, "free_slot", lambda s: s["FREE_SLOT"], range(BDMA_SLOTS + 1)),
        coverage.point(g, "idle", lambda s: s["IDLE"], (0, 1)),
        coverage.point(g, "grp0_busy", lambda s: s["GRP0_BUSY"], (0, 1)),
        coverage.point(g, "grp1_busy", lambda s: s["GRP1_BUSY"], (0, 1)),
    ]
    return stack(decorators)
