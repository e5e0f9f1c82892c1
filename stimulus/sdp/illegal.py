"""Breakers of the SDP's rules (golden/units/sdp/rules.py): each changes a legal SDP layer's fields.

A change (stimulus/breakers.py) takes the legal layer's fields (a copy), its decoded SdpConfig, the chooser and
the profile, and returns the changed fields or None when this layer cannot be changed that way (another legal layer
is drawn); a changed layer needing a feature the profile lacks is dropped too (that is a profile error, not the
rule). EQL layers are
not generated legal, so the EQL breakers first turn a legal layer into a legal EQL one (`_eql`).
"""

from __future__ import annotations

from golden.config import Profile
from golden.errors import NvdlaVerifError
from golden.formats import auxiliary
from golden.formats.feature import PRECISION_CODES
from golden.regs.regmap import RegisterMap
from golden.units.lut import OFFSET_LIMITS, SELECT_LIMITS
from golden.units.sdp.checks import check_profile
from golden.units.sdp.config import decode
from stimulus.breakers import Fields, declare
from stimulus.sdp import lut as sdp_lut

STAGE = {"B": "BS", "N": "BN", "E": "EW"}


def _get(fields: dict, key: str, default=None):
    return fields.get(key, default)


def _is(fields: dict, key: str, *values) -> bool:
    return _get(fields, key) in values


def _precision(fields: dict, which: str) -> str:
    key = {"in": "SDP_RDMA.D_FEATURE_MODE_CFG.IN_PRECISION", "proc": "SDP.D_DATA_FORMAT.PROC_PRECISION",
           "out": "SDP.D_DATA_FORMAT.OUT_PRECISION"}[which]
    return str(fields[key]).lower()


def _set_precisions(fields: dict, proc: str | None = None, out: str | None = None) -> None:
    if proc:
        fields["SDP.D_DATA_FORMAT.PROC_PRECISION"] = proc.upper()
        fields["SDP_RDMA.D_FEATURE_MODE_CFG.PROC_PRECISION"] = proc.upper()
    if out:
        fields["SDP.D_DATA_FORMAT.OUT_PRECISION"] = out.upper()
        fields["SDP_RDMA.D_FEATURE_MODE_CFG.OUT_PRECISION"] = out.upper()


def _memory_operand(fields: dict, letter: str) -> bool:
    return not _is(fields, f"SDP_RDMA.D_{letter}RDMA_CFG.{letter}RDMA_DISABLE", 1)


def _conversion(fields, cfg, choose, profile: Profile):
    proc = _precision(fields, "proc")
    out = {"int8": "fp16", "fp16": "int8"}.get(proc)
    if proc != _precision(fields, "out") or out not in profile.feature_types:
        return None
    _set_precisions(fields, out=out)
    return fields


def _input_processing(fields, cfg, choose, profile: Profile):
    """An integer input processed as fp16 or the reverse; the output stays (a valid Table 30 case)."""
    proc = _precision(fields, "proc")
    other = "fp16" if proc != "fp16" else choose.choice(sorted(profile.feature_types - {"fp16"}) or ["int8"])
    if other not in profile.feature_types or any(_memory_operand(fields, x) for x in "BNE"):
        return None
    _set_precisions(fields, proc=other)
    return fields


def _int16_to_int8(fields, cfg, choose, profile: Profile):
    """An offline int16 -> int16 layer with an int8 output instead, still processed as int16."""
    if not _is(fields, "SDP_RDMA.D_FEATURE_MODE_CFG.FLYING_MODE", "OFF") or \
            _precision(fields, "in") != "int16" or _precision(fields, "out") != "int16":
        return None
    _set_precisions(fields, out="int8")
    return fields


def _to_pdp(fields, cfg, choose, profile: Profile):
    if _precision(fields, "proc") == _precision(fields, "out"):
        return None
    fields["SDP.D_FEATURE_MODE_CFG.OUTPUT_DST"] = "PDP"
    return fields


def _mirror(key: str):
    def breaker(fields, cfg, choose, profile: Profile):
        if key in ("WIDTH", "HEIGHT", "CHANNEL"):
            name = f"SDP_RDMA.D_DATA_CUBE_{key}.{key}"
            fields[name] = fields[name] + 1
        elif key == "FLYING_MODE":
            fields["SDP_RDMA.D_FEATURE_MODE_CFG.FLYING_MODE"] = "ON"
        else:
            name = f"SDP_RDMA.D_FEATURE_MODE_CFG.{key}"
            fields[name] = (PRECISION_CODES[str(fields[name]).lower()] + 1) % 3
        return fields
    return breaker


def _stage_uses_memory(fields, letter: str) -> bool:
    name = STAGE[letter]
    return any(_is(fields, f"SDP.D_DP_{name}_{which}_CFG.{name}_{which}_SRC", "MEM") for which in ("ALU", "MUL")) \
        and _memory_operand(fields, letter)


def _unused(letter: str):
    def breaker(fields, cfg, choose, profile: Profile):
        if _memory_operand(fields, letter):
            return None
        fields[f"SDP_RDMA.D_{letter}RDMA_CFG.{letter}RDMA_DISABLE"] = 0
        return fields
    return breaker


def _needed(letter: str):
    def breaker(fields, cfg, choose, profile: Profile):
        if not _stage_uses_memory(fields, letter):
            return None
        fields[f"SDP_RDMA.D_{letter}RDMA_CFG.{letter}RDMA_DISABLE"] = 1
        return fields
    return breaker


def _data_use(letter: str):
    def breaker(fields, cfg, choose, profile: Profile):
        if not _stage_uses_memory(fields, letter):
            return None
        key = f"SDP_RDMA.D_{letter}RDMA_CFG.{letter}RDMA_DATA_USE"
        fields[key] = choose.choice([u for u in ("ALU", "MUL", "BOTH") if u != fields[key]])
        return fields
    return breaker


def _one_byte(letter: str, precision: str):
    """A memory operand of a 16-bit pipeline (`precision`) read as one byte."""
    def breaker(fields, cfg, choose, profile: Profile):
        if not _stage_uses_memory(fields, letter) or _precision(fields, "proc") != precision:
            return None
        fields[f"SDP_RDMA.D_{letter}RDMA_CFG.{letter}RDMA_DATA_SIZE"] = "ONE_BYTE"
        return fields
    return breaker


def _x_eql(name: str):
    def breaker(fields, cfg, choose, profile: Profile):
        if not _is(fields, f"SDP.D_DP_{name}_CFG.{name}_BYPASS", 0) or \
                not _is(fields, f"SDP.D_DP_{name}_CFG.{name}_ALU_BYPASS", 0):
            return None
        fields[f"SDP.D_DP_{name}_CFG.{name}_ALU_ALGO"] = 3
        return fields
    return breaker


def _prelu(name: str):
    def breaker(fields, cfg, choose, profile: Profile):
        prefix = f"SDP.D_DP_{name}_CFG.{name}_"
        if not (_is(fields, prefix + "BYPASS", 0) and _is(fields, prefix + "ALU_BYPASS", 0)
                and _is(fields, prefix + "MUL_BYPASS", 0)):
            return None
        fields[prefix + "MUL_PRELU"] = 1
        return fields
    return breaker


def _fp16_cvt(which: str):
    def breaker(fields, cfg, choose, profile: Profile):
        if _precision(fields, "proc") != "fp16" or not _stage_uses_memory(fields, "E") \
                or not _is(fields, f"SDP.D_DP_EW_{which}_CFG.EW_{which}_SRC", "MEM") \
                or not _is(fields, f"SDP.D_DP_EW_CFG.EW_{which}_BYPASS", 0):
            return None
        fields[f"SDP.D_DP_EW_{which}_CFG.EW_{which}_CVT_BYPASS"] = 1
        return fields
    return breaker


def _eql(fields, profile: Profile, memory: bool | None = None) -> dict | None:
    """The layer turned into a legal EQL one (Y ALU compares, identity convertor), or None."""
    if not _is(fields, "SDP.D_DP_EW_CFG.EW_BYPASS", 0) or not _is(fields, "SDP.D_DP_EW_CFG.EW_ALU_BYPASS", 0) \
            or _precision(fields, "proc") != _precision(fields, "out"):
        return None
    if memory is not None and _is(fields, "SDP.D_DP_EW_ALU_CFG.EW_ALU_SRC", "MEM") != memory:
        return None
    fields.update({"SDP.D_DP_EW_CFG.EW_ALU_ALGO": "EQL", "SDP.D_DP_EW_CFG.EW_LUT_BYPASS": 1,
                   "SDP.D_CVT_OFFSET.CVT_OFFSET": 0, "SDP.D_CVT_SCALE.CVT_SCALE": 1, "SDP.D_CVT_SHIFT.CVT_SHIFT": 0})
    if _precision(fields, "proc") != "fp16":
        fields["SDP.D_DP_EW_ALU_CFG.EW_ALU_CVT_BYPASS"] = 1
    return fields


def _eql_breaker(change: dict, memory: bool | None = None, integer: bool = False, needs: str | None = None):
    def breaker(fields, cfg, choose, profile: Profile):
        if integer and _precision(fields, "proc") == "fp16" or needs and not profile.has(needs):
            return None
        eql = _eql(fields, profile, memory)
        if eql is None:
            return None
        eql.update(change)
        return eql
    return breaker


def _batch_offline(fields, cfg, choose, profile: Profile):
    if not profile.batch:
        return None
    fields["SDP.D_FEATURE_MODE_CFG.BATCH_NUMBER"] = 1
    return fields


def _batch_alignment(fields, cfg, choose, profile: Profile):
    if not profile.batch:
        return None
    base = fields["SDP.D_DST_BASE_ADDR_LOW.DST_BASE_ADDR_LOW"]
    misaligned = base - base % 64 + (profile.memory_atomic_size % 64 or 32)  # whole atoms, not 64 bytes
    fields.update({"SDP.D_FEATURE_MODE_CFG.FLYING_MODE": "ON", "SDP_RDMA.D_FEATURE_MODE_CFG.FLYING_MODE": "ON",
                   "SDP.D_FEATURE_MODE_CFG.BATCH_NUMBER": 1, "SDP.D_DST_BASE_ADDR_LOW.DST_BASE_ADDR_LOW": misaligned})
    return fields


def _line_stride(prefix: str, register: str):
    def breaker(fields, cfg, choose, profile: Profile):
        height = fields["SDP.D_DATA_CUBE_HEIGHT.HEIGHT"] + 1
        width = fields["SDP.D_DATA_CUBE_WIDTH.WIDTH"] + 1
        if height < 2:
            return None
        fields[f"{prefix}_LINE_STRIDE.{register}_LINE_STRIDE"] = (width - 1) * profile.memory_atomic_size
        return fields
    return breaker


def _one_by_one(prefix: str, register: str):
    def breaker(fields, cfg, choose, profile: Profile):
        atom = profile.memory_atomic_size
        for unit in ("SDP", "SDP_RDMA"):
            fields[f"{unit}.D_DATA_CUBE_WIDTH.WIDTH"] = 0
            fields[f"{unit}.D_DATA_CUBE_HEIGHT.HEIGHT"] = 0
            fields[f"{unit}.D_DATA_CUBE_CHANNEL.CHANNEL"] = max(fields[f"{unit}.D_DATA_CUBE_CHANNEL.CHANNEL"], atom)
        for other, name in (("SDP.D_DST", "DST"), ("SDP_RDMA.D_SRC", "SRC")):
            fields[f"{other}_LINE_STRIDE.{name}_LINE_STRIDE"] = atom
            fields[f"{other}_SURFACE_STRIDE.{name}_SURFACE_STRIDE"] = atom
        fields[f"{prefix}_LINE_STRIDE.{register}_LINE_STRIDE"] = 2 * atom
        fields[f"{prefix}_SURFACE_STRIDE.{register}_SURFACE_STRIDE"] = 2 * atom
        return fields
    return breaker


CHANGES = {
    "SDP-PRECISION-CONVERSION": _conversion,
    "SDP-INPUT-PROCESSING": _input_processing,
    "SDP-INT16-TO-INT8": _int16_to_int8,
    "SDP-NO-CONVERSION-TO-PDP-OR-EQL": _to_pdp,
    "SDP-RDMA-WIDTH": _mirror("WIDTH"), "SDP-RDMA-HEIGHT": _mirror("HEIGHT"), "SDP-RDMA-CHANNEL": _mirror("CHANNEL"),
    "SDP-RDMA-FLYING": _mirror("FLYING_MODE"), "SDP-RDMA-PROC-PRECISION": _mirror("PROC_PRECISION"),
    "SDP-RDMA-OUT-PRECISION": _mirror("OUT_PRECISION"),
    **{f"SDP-{x}RDMA-UNUSED": _unused(x) for x in "BNE"},
    **{f"SDP-{x}RDMA-NEEDED": _needed(x) for x in "BNE"},
    **{f"SDP-{x}RDMA-DATA-USE": _data_use(x) for x in "BNE"},
    **{f"SDP-{x}RDMA-FP16-SIZE": _one_byte(x, "fp16") for x in "BNE"},
    **{f"SDP-{x}RDMA-INT16-SIZE": _one_byte(x, "int16") for x in "BNE"},
    "SDP-BS-NO-EQL": _x_eql("BS"), "SDP-BN-NO-EQL": _x_eql("BN"),
    "SDP-BS-PRELU-ALU": _prelu("BS"), "SDP-BN-PRELU-ALU": _prelu("BN"), "SDP-EW-PRELU-ALU": _prelu("EW"),
    "SDP-EW-FP16-ALU-CVT": _fp16_cvt("ALU"), "SDP-EW-FP16-MUL-CVT": _fp16_cvt("MUL"),
    "SDP-EQL-ALU-CVT": _eql_breaker({"SDP.D_DP_EW_ALU_CFG.EW_ALU_CVT_BYPASS": 0}, memory=True, integer=True),
    "SDP-EQL-LUT": _eql_breaker({"SDP.D_DP_EW_CFG.EW_LUT_BYPASS": 0}, needs="SDP_LUT"),
    "SDP-EQL-OUTPUT-CVT": _eql_breaker({"SDP.D_CVT_SCALE.CVT_SCALE": 2}, integer=True),
    "SDP-EQL-NO-WINOGRAD-BATCH": _eql_breaker({"SDP.D_FEATURE_MODE_CFG.BATCH_NUMBER": 1}, needs="BATCH"),
    "SDP-BATCH-ON-THE-FLY": _batch_offline,
    "SDP-BATCH-ALIGNMENT": _batch_alignment,
    "SDP-DST-LINE-STRIDE": _line_stride("SDP.D_DST", "DST"),
    "SDP-SRC-LINE-STRIDE": _line_stride("SDP_RDMA.D_SRC", "SRC"),
    "SDP-DST-1X1XC-PACKED": _one_by_one("SDP.D_DST", "DST"),
    "SDP-SRC-1X1XC-PACKED": _one_by_one("SDP_RDMA.D_SRC", "SRC"),
}

#: Rules a breaker necessarily breaks too.
COMPANIONS = {
    # an offline layer cannot have batches either
    "SDP-EQL-NO-WINOGRAD-BATCH": {"SDP-BATCH-ON-THE-FLY"},
}


def _has(*switches: str, types: tuple = (), count: int = 1):
    def reachable(profile: Profile) -> bool:
        return all(profile.has(s) for s in switches) and set(types) <= profile.feature_types \
            and len(profile.feature_types) >= count
    return reachable


#: What a profile needs for a rule's breaker to find a layer (rules not listed: every profile with SDP).
REQUIRES = {
    "SDP-PRECISION-CONVERSION": _has(types=("int8", "fp16")),
    "SDP-INPUT-PROCESSING": _has(types=("fp16",), count=2),
    "SDP-INT16-TO-INT8": _has(types=("int8", "int16")),
    "SDP-NO-CONVERSION-TO-PDP-OR-EQL": _has(count=2),
    **{f"SDP-{x}RDMA-FP16-SIZE": _has(types=("fp16",)) for x in "BNE"},
    **{f"SDP-{x}RDMA-INT16-SIZE": _has(types=("int16",)) for x in "BNE"},
    "SDP-ERDMA-NEEDED": _has("SDP_EW"), "SDP-ERDMA-DATA-USE": _has("SDP_EW"), "SDP-EW-PRELU-ALU": _has("SDP_EW"),
    "SDP-EW-FP16-ALU-CVT": _has("SDP_EW", types=("fp16",)), "SDP-EW-FP16-MUL-CVT": _has("SDP_EW", types=("fp16",)),
    "SDP-EQL-ALU-CVT": _has("SDP_EW"), "SDP-EQL-LUT": _has("SDP_EW", "SDP_LUT"),
    "SDP-EQL-OUTPUT-CVT": _has("SDP_EW"), "SDP-EQL-NO-WINOGRAD-BATCH": _has("SDP_EW", "BATCH"),
    "SDP-BATCH-ON-THE-FLY": _has("BATCH"), "SDP-BATCH-ALIGNMENT": _has("BATCH"),
}


def _operand_one_by_one(letter: str):
    """A legal layer with a per-element operand `letter` made 1x1xC, every other surface packed, that operand not."""
    def breaker(fields, cfg, choose, profile: Profile):
        cfg = f"SDP_RDMA.D_{letter}RDMA_CFG.{letter}RDMA_"
        if fields.get(cfg + "DISABLE") != 0 or fields.get(cfg + "DATA_MODE") != "PER_ELEMENT":
            return None
        fields = _one_by_one("SDP.D_DST", "DST")(fields, cfg, choose, profile)
        atom = profile.memory_atomic_size
        fields["SDP.D_DST_LINE_STRIDE.DST_LINE_STRIDE"] = fields["SDP.D_DST_SURFACE_STRIDE.DST_SURFACE_STRIDE"] = atom
        proc = fields["SDP.D_DATA_FORMAT.PROC_PRECISION"].lower()
        for other, reg in (("B", "BS"), ("N", "BN"), ("E", "EW")):
            other_cfg = f"SDP_RDMA.D_{other}RDMA_CFG.{other}RDMA_"
            if fields.get(other_cfg + "DATA_MODE") != "PER_ELEMENT" or fields.get(other_cfg + "DISABLE") != 0:
                continue
            use, size = fields[other_cfg + "DATA_USE"], fields[other_cfg + "DATA_SIZE"]
            packed = auxiliary.bytes_per_atom(proc, use, size, atom)
            stride = 2 * packed if other == letter else packed
            fields[f"SDP_RDMA.D_{reg}_LINE_STRIDE.{reg}_LINE_STRIDE"] = stride
            fields[f"SDP_RDMA.D_{reg}_SURFACE_STRIDE.{reg}_SURFACE_STRIDE"] = stride
        return fields
    return breaker


CHANGES.update({f"SDP-{x}RDMA-1X1XC-PACKED": _operand_one_by_one(x) for x in "BNE"})
REQUIRES["SDP-ERDMA-1X1XC-PACKED"] = _has("SDP_EW")


# ---- the LUT (golden/units/sdp/lut_rules.py) ------------------------------------------------------------------

LUT_CFG = "SDP.S_LUT_CFG.LUT_LE_FUNCTION"


def _lut_breaker(rule_id: str):
    """A legal layer whose Y stage reads the LUT, with one index setting just outside its range (the next value
    above the range, or below it where the 8-bit field has no room above) or one table's END moved by one."""
    def breaker(fields, cfg, choose, profile: Profile):
        if not (_is(fields, "SDP.D_DP_EW_CFG.EW_BYPASS", 0) and _is(fields, "SDP.D_DP_EW_CFG.EW_LUT_BYPASS", 0)):
            return None
        linear = _is(fields, LUT_CFG, "LINEAR")
        proc = _precision(fields, "proc")
        le, lo = SELECT_LIMITS["SDP", proc]
        field, bounds = {"SDP-LUT-LE-SELECT": ("SDP.S_LUT_INFO.LUT_LE_INDEX_SELECT", le if linear else None),
                         "SDP-LUT-LO-SELECT": ("SDP.S_LUT_INFO.LUT_LO_INDEX_SELECT", lo),
                         "SDP-LUT-OFFSET": ("SDP.S_LUT_INFO.LUT_LE_INDEX_OFFSET",
                                            None if linear else OFFSET_LIMITS["SDP", proc]),
                         }.get(rule_id, (None, None))
        if rule_id.endswith("-SPAN"):
            table = rule_id.split("-")[2]
            key = f"SDP.S_LUT_{table}_END.LUT_{table}_END"
            fields[key] = (int(fields[key]) + 1) & 0xFFFFFFFF
            return fields
        if bounds is None:
            return None
        low, high = bounds
        fields[field] = (high + 1 if high < 127 else low - 1) & 0xFF
        return fields
    return breaker


LUT_RULES = ("SDP-LUT-LE-SELECT", "SDP-LUT-LO-SELECT", "SDP-LUT-OFFSET", "SDP-LUT-LE-SPAN", "SDP-LUT-LO-SPAN")
CHANGES.update({rule_id: _lut_breaker(rule_id) for rule_id in LUT_RULES})
REQUIRES.update({rule_id: _has("SDP_EW", "SDP_LUT") for rule_id in LUT_RULES})


def _lut_if_read(rule_id: str, choose, profile: Profile) -> dict:
    """The LUT's rules (and EQL's "no LUT") need a layer whose Y stage may read a legal LUT."""
    return {"lut": sdp_lut.random_lut(choose, profile) if rule_id in (*LUT_RULES, "SDP-EQL-LUT") else None}


def _within_profile(legal, layer, profile: Profile):
    """None for a change that needs a feature the profile lacks (golden/units/sdp/checks.py: check_profile)."""
    try:
        check_profile(decode(layer.values(RegisterMap.for_profile(profile))), profile)
    except NvdlaVerifError:
        return None
    return layer


BREAKERS = declare(CHANGES, Fields("sdp", shared=_lut_if_read, finish=_within_profile),
                   lambda rule_id, profile: rule_id not in REQUIRES or REQUIRES[rule_id](profile), COMPANIONS)
