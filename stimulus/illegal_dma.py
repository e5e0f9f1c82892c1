"""Breakers of the DMAs' address and stride rules (golden/units/dma_rules.py), one per rule, for every family.

A feature-DMA change (stimulus/breakers.py) takes the legal layer's fields (a copy), the DMA's surface as the rule's
own predicate sees it (DmaSurface, decoded from the legal layer), the chooser and the profile, and returns the
changed fields or None when this layer cannot break the rule (another legal layer is drawn):

* -ALIGN: one of the DMA's Table 35 values (chosen at random) moves by half its alignment; a line stride that
  grows takes the surface stride along by a whole number of alignments, so no other rule breaks;
* -LINE-STRIDE: the line stride becomes one alignment less than a line (a layer of more than one line);
* -SURFACE-STRIDE: the surface stride becomes one alignment less than the surface (more than one surface).

BDMA changes take the writes (`Layer.writes`) and the operations they cache, and change one operation's
CFG_<SRC|DST>_LINE / _SURF writes the same way.
"""

from __future__ import annotations

from dataclasses import replace

from golden.regs.regmap import RegisterMap
from golden.rules import Facts
from golden.units.bdma import ATOM as BDMA_ATOM
from golden.units.bdma import BdmaOperation
from golden.units.dma_rules import DMAS, Dma, DmaSurface
from stimulus.bdma import layers as bdma
from stimulus.breakers import Breaker, Fields, declare
from stimulus.families import drawn_by


def _align_breaker(dma: Dma):
    def breaker(fields: dict, surface: DmaSurface, choose, profile):
        atom = profile.memory_atomic_size
        columns = [c for c, name in dma.fields.items()
                   if getattr(surface, c) is not None and dma.required(c, atom, surface) and name in fields]
        if not columns:
            return None
        column = choose.choice(columns)
        align = dma.required(column, atom, surface)
        fields[dma.fields[column]] += align // 2
        surface_field = dma.fields.get("surface_stride")
        if column == "line_stride" and surface.surfaces > 1 and surface_field in fields:
            fields[surface_field] += surface.lines * dma.required("surface_stride", atom, surface)
        return fields
    return breaker


def _line_breaker(dma: Dma):
    def breaker(fields: dict, surface: DmaSurface, choose, profile):
        atom = profile.memory_atomic_size
        step = dma.required("line_stride", atom) or atom
        if surface.lines < 2 or surface.line_bytes < step or dma.fields["line_stride"] not in fields:
            return None
        fields[dma.fields["line_stride"]] = surface.line_bytes - step
        return fields
    return breaker


def _surface_breaker(dma: Dma):
    def breaker(fields: dict, surface: DmaSurface, choose, profile):
        atom = profile.memory_atomic_size
        step = dma.required("surface_stride", atom) or atom
        needed = surface.line_stride * (surface.lines - 1) + surface.line_bytes
        if surface.surfaces < 2 or needed < step or dma.fields["surface_stride"] not in fields:
            return None
        fields[dma.fields["surface_stride"]] = needed - step
        return fields
    return breaker


def _surface_of(dma: Dma):
    """What a feature-DMA change sees: the DMA's surface in the decoded legal layer (None: the layer has none)."""
    def seen(cfg, regs, profile):
        return dma.surface(cfg, Facts(regs, profile))
    return seen


def _feature_breakers(dma: Dma) -> tuple[Breaker, ...]:
    changes = {f"{dma.id}-ALIGN": _align_breaker(dma)}
    if dma.strides and dma.line_rule:
        changes[f"{dma.id}-LINE-STRIDE"] = _line_breaker(dma)
    if dma.strides and "surface_stride" in dma.fields:
        changes[f"{dma.id}-SURFACE-STRIDE"] = _surface_breaker(dma)
    return declare(changes, Fields(drawn_by(dma.unit), seen=_surface_of(dma)), requires)


# -- BDMA --------------------------------------------------------------------------------------------------------
def _rewrite(writes: list, index: int, register: str, value: int) -> list:
    """The writes with operation `index`'s write of `register` set to `value`."""
    seen, out = -1, []
    for unit, name, old in writes:
        if unit == "BDMA" and name == "CFG_OP":
            seen += 1
        if unit == "BDMA" and name == register and seen == index - 1:
            old = value
        out.append((unit, name, old))
    return out


def _bdma_breaker(side: str, what: str):
    low = side.lower()

    def breaker(writes: list, operations: list[BdmaOperation], choose, profile):
        if what == "LINE":
            candidates = [i for i, op in enumerate(operations) if op.lines > 1]
        else:
            candidates = [i for i, op in enumerate(operations) if op.surfaces > 1]
        if not candidates:
            return None
        index = choose.choice(candidates)
        op = operations[index]
        if what == "LINE":
            return _rewrite(writes, index, f"CFG_{side}_LINE", op.line_bytes - BDMA_ATOM)
        surface = (op.lines - 1) * getattr(op, f"{low}_line_stride") + op.line_bytes
        return _rewrite(writes, index, f"CFG_{side}_SURF", surface - BDMA_ATOM)
    return breaker


def _empty_group(writes: list, operations: list[BdmaOperation], choose, profile):
    """The group launched with no operation enabled: every CFG_OP write goes."""
    return [w for w in writes if w[:2] != ("BDMA", "CFG_OP")]


def _two_destinations(writes: list, operations: list[BdmaOperation], choose, profile):
    """One operation of a group of several writes to the other memory (same address: no buffer overlaps)."""
    if len(operations) < 2:
        return None
    index = choose.choice(range(len(operations)))
    op = operations[index]
    # CFG_CMD: 1 = MC (the primary memory), 0 = CV-SRAM
    value = RegisterMap.for_profile(profile).get("BDMA", "CFG_CMD").encode(SRC_RAM_TYPE=int(not op.src_cvsram),
                                                                           DST_RAM_TYPE=int(op.dst_cvsram))
    return _rewrite(writes, index, "CFG_CMD", value)


def _bdma_draw(breaker: Breaker, choose, profile):
    """A legal BDMA layer (stimulus/bdma/layers.py) with its writes changed."""
    legal = bdma.random_layer(choose, profile, 0)
    writes = breaker.change(list(legal.writes), bdma.bdma_operations(legal.writes, RegisterMap.for_profile(profile)),
                            choose, profile)
    return None if writes is None else replace(legal, writes=writes, choices=dict(legal.choices))


BDMA_CHANGES = {f"BDMA-{side}-{what}-STRIDE": _bdma_breaker(side, what if what == "LINE" else "SURF")
                 for side in ("SRC", "DST") for what in ("LINE", "SURFACE")}
BDMA_CHANGES.update({"BDMA-GROUP-NOT-EMPTY": _empty_group, "BDMA-GROUP-DST-RAM": _two_destinations})


def requires(rule_id: str, profile) -> bool:
    """Whether the profile has what breaking the rule needs."""
    if rule_id.endswith("-ALIGN") and not _can_misalign(DMAS[rule_id.removesuffix("-ALIGN")], profile):
        return False
    if rule_id.startswith(("CONV-CDMA-WMB", "CONV-CDMA-WGS")):
        return bool(profile.weight_compression)
    if rule_id.startswith("SDP-ERDMA"):
        return profile.has("SDP_EW")
    if rule_id.startswith("SDP-NRDMA"):
        return profile.has("SDP_BN")
    if rule_id.startswith("SDP-BRDMA"):
        return profile.has("SDP_BS")
    if rule_id == "BDMA-GROUP-DST-RAM":
        return bool(profile.secondary_memif)
    return True


def _can_misalign(dma: Dma, profile) -> bool:
    """Whether some field of the DMA keeps the bit of half an atom: nvdlav1's register files keep only bits 31:5
    of every address and stride (golden/regs/hardware_fields.json), so nv_full cannot be programmed off its
    32-byte atom, and the -ALIGN rules cannot be broken there."""
    regmap = RegisterMap.for_profile(profile)
    half = (profile.memory_atomic_size // 2).bit_length() - 1
    for name in dma.fields.values():
        unit, register, field = name.split(".")
        if regmap.get(unit, register).field(field).stored_mask >> half & 1:
            return True
    return False


BREAKERS = (*(b for dma in DMAS.values() for b in _feature_breakers(dma)), *declare(BDMA_CHANGES, _bdma_draw, requires))
