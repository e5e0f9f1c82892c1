"""Corner-aimed SDP layers: integer, offline, operands from registers, Y off (other SDP layers are returned
unchanged). The registers are solved for a corner, then the input data is chosen value by value.

* The output convertor ((x - CVT_OFFSET) * CVT_SCALE rounded half away from zero by CVT_SHIFT, saturated to 17
  bits: precision-preservation "Convertor") aims at one goal per layer, from one X output value v:
  an exact tie (three layers in five: an odd scale k, a shift s of 1..10, CVT_OFFSET = v - sign(k) * 2**(s-1),
  so v's product is k * 2**(s-1) > 0, a positive tie whose result |k|/2 stays inside int8 and shows a
  wrong rounding; where the X outputs are dense, v - sign(k) * 2**s gives the negative tie), or a bound b, the
  17-bit result's (65535, -65536) or the output precision's, met exactly: scale k = +-1, CVT_OFFSET =
  v - k * b * 2**s (offsets beyond 16 bits: CVT_OFFSET is 32-bit).
* In one layer in two, one X stage (BS or BN) is set to reach its int32 bounds: ALU SUM with the register
  operand -32768 << 16 (exactly -2**31: the ALU shifter's at_min) or 32767 << 17 (saturated to 2**31 - 1),
  MUL bypassed and MUL_SHIFT 0, so an input of 0 lands on the truncation's bound exactly (precision-preservation
  "Shifter", "Truncate"). An aimed BN has BS bypassed (every input reaches it).
* In three layers in ten, one X stage's truncation (MUL_SHIFT) is aimed at its ties instead: ALU bypassed, a small
  odd multiplier and a shift of 2..8, so the products of the inputs take every residue of the shift.

Then every input value of the precision (256 for int8, 65536 for int16) is run through the golden X1, X2 and
output convertor, observing per element; each element of the cube takes a value that lands on a corner class
of a stage, classes in turn.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from golden.config import Profile
from golden.formats.feature import pack_feature, unpack_feature
from golden.numerics import corners
from golden.regs.regmap import RegisterMap
from golden.units.sdp import datapath
from golden.units.sdp.config import decode as sdp_decode
from stimulus.corner_fill import fill, targets
from stimulus.layer import Image, Layer

RANGES = {"int8": (-128, 127), "int16": (-32768, 32767)}
INT32 = (-(1 << 31), (1 << 31) - 1)
#: the convertor's 17-bit result (precision-preservation "Convertor"; cmod sdp_c)
CVT_BOUNDS = {"at_max": (1 << 16) - 1, "at_min": -(1 << 16)}
#: ALU operand and the ALU shifts whose saturated shift is the int32 bound (the operand is 16 bits):
#: -2**15 << 16 is -2**31 exactly (the shifter's at_min), << 17 passes it (sat_min); 2**15 - 1 << 17 passes 2**31
X_BOUNDS = {"at_min": (-(1 << 15), (16, 17)), "at_max": ((1 << 15) - 1, (17,))}
#: Shares of the layers whose X stage (BS or BN) is aimed: at an int32 bound below X_BOUND, at its truncation's
#: ties below X_ROUND; the rest leave X as drawn.
X_BOUND, X_ROUND = 0.5, 0.8
#: Share of the layers whose output convertor is aimed at a tie (the others: at a bound).
CVT_TIE = 0.5


def aim_sdp(layer: Layer, profile: Profile, choose, slot: int = 0) -> Layer:
    rng = choose.rng
    regmap = RegisterMap.for_profile(profile)
    cfg = sdp_decode(layer.values(regmap))
    memory_operands = any(getattr(s, "alu_src", "REG") == "MEM" or getattr(s, "mul_src", "REG") == "MEM"
                          for s in (cfg.x1, cfg.x2) if not s.bypass)
    if (cfg.flying or cfg.in_precision not in RANGES or cfg.proc_precision not in RANGES or memory_operands
            or not cfg.y.bypass):
        return layer
    fields = dict(layer.fields)
    stages = [name for name, switch in (("BS", "SDP_BS"), ("BN", "SDP_BN")) if profile.has(switch)]
    chance = rng.random() if stages else 1.0
    if chance < X_ROUND:
        name = str(rng.choice(stages))
        fields.update(_x_bound(name, str(rng.choice(sorted(X_BOUNDS))), rng) if chance < X_BOUND else
                      _x_round(name, rng))
        if name == "BN":  # BN alone: a BS ReLU or MAX before it would keep the negative inputs from it
            fields["SDP.D_DP_BS_CFG.BS_BYPASS"] = 1
    cfg = sdp_decode(dataclasses.replace(layer, fields=fields).values(regmap))
    lo, hi = RANGES[cfg.in_precision]
    candidates = np.arange(lo, hi + 1, dtype=np.int64)
    x_out = _x_outputs(candidates, cfg)
    fields.update(_convertor(rng, np.unique(x_out), cfg.out_precision))
    layer = dataclasses.replace(layer, fields=fields)
    cfg = sdp_decode(layer.values(regmap))
    with corners.observe(masks=True) as seen:
        datapath.int_output(_x_outputs(candidates, cfg), cfg.cvt, cfg.out_precision)
    hits = targets(seen, candidates.size)
    if not hits:
        return layer
    shape = (cfg.channel, cfg.height, cfg.width)
    atom, src = profile.memory_atomic_size, cfg.src
    images = []
    for image in layer.images:
        if image.label == "src":
            buf = np.frombuffer(image.data, np.uint8).copy()
            unpack_feature(buf, 0, shape, cfg.in_precision, src.line_stride, src.surface_stride, atom)  # checks
            pack_feature(fill(rng, shape, candidates, hits), cfg.in_precision, src.line_stride, src.surface_stride,
                         atom, buf=buf)
            image = Image(image.memory, image.base, buf.tobytes(), image.label)
        images.append(image)
    return dataclasses.replace(layer, images=images, choices=dict(layer.choices, corners="aimed"))


def _x_outputs(candidates: np.ndarray, cfg) -> np.ndarray:
    """The X2 output of each candidate (observed by the caller's observer, if any: X1's and X2's classes)."""
    x = candidates
    for stage, where in ((cfg.x1, "sdp.x1"), (cfg.x2, "sdp.x2")):
        x = datapath.int_x(x, stage, None, None, where=where)
    return x


def _x_bound(name: str, bound: str, rng) -> dict:
    """An X stage whose ALU adds the saturated operand X_BOUNDS[bound] and whose truncation passes it unshifted."""
    operand, shifts = X_BOUNDS[bound]
    shift = int(rng.choice(shifts))
    key = f"SDP.D_DP_{name}"
    return {f"{key}_CFG.{name}_BYPASS": 0, f"{key}_CFG.{name}_ALU_BYPASS": 0, f"{key}_CFG.{name}_ALU_ALGO": "SUM",
            f"{key}_CFG.{name}_MUL_BYPASS": 1, f"{key}_CFG.{name}_MUL_PRELU": 0,
            f"{key}_CFG.{name}_RELU_BYPASS": int(rng.random() < 0.5),
            f"{key}_ALU_CFG.{name}_ALU_SRC": "REG", f"{key}_ALU_CFG.{name}_ALU_SHIFT_VALUE": shift,
            f"{key}_ALU_SRC_VALUE.{name}_ALU_OPERAND": operand & 0xFFFF,
            f"{key}_MUL_CFG.{name}_MUL_SRC": "REG", f"{key}_MUL_CFG.{name}_MUL_SHIFT_VALUE": 0}


def _x_round(name: str, rng) -> dict:
    """An X stage whose truncation meets its ties: ALU bypassed, the multiplier an odd REG operand below 2**7
    and MUL_SHIFT 2..8, so a * operand modulo 2**shift takes every residue over 256 consecutive inputs (an odd
    operand is invertible modulo a power of two): both ties, one LSB either side and zero (precision-preservation
    "Truncate")."""
    key = f"SDP.D_DP_{name}"
    operand = int(rng.integers(0, 1 << 6)) * 2 + 1
    operand = operand if rng.random() < 0.5 else -operand
    return {f"{key}_CFG.{name}_BYPASS": 0, f"{key}_CFG.{name}_ALU_BYPASS": 1, f"{key}_CFG.{name}_MUL_BYPASS": 0,
            f"{key}_CFG.{name}_MUL_PRELU": 0, f"{key}_MUL_CFG.{name}_MUL_SRC": "REG",
            f"{key}_MUL_CFG.{name}_MUL_SHIFT_VALUE": int(rng.integers(2, 9)),
            f"{key}_MUL_SRC_VALUE.{name}_MUL_OPERAND": operand & 0xFFFF}


def _convertor(rng, values: np.ndarray, out_precision: str) -> dict:
    """CVT_OFFSET/SCALE/SHIFT aiming at a tie or a bound (17-bit or the output's) from one of `values` (the X
    outputs)."""
    # a value with others on both sides (where there are): a bound met exactly has values beyond it too
    v = int(rng.choice(values[1:-1] if values.size > 2 else values))
    if rng.random() < CVT_TIE:
        shift, scale = int(rng.integers(1, 11)), int(rng.integers(1, 1 << 7)) | 1
        scale = scale if rng.random() < 0.5 else -scale
        offset = v - np.sign(scale) * (1 << (shift - 1))
    else:
        shift, scale = int(rng.integers(0, 5)), int(rng.choice([-1, 1]))
        # the 17-bit bounds twice as often as the output's (ties meet those too); fp16: no narrowing
        bound = int(rng.choice([*CVT_BOUNDS.values(), *CVT_BOUNDS.values(), *RANGES.get(out_precision, ())]))
        offset = v - scale * bound * (1 << shift)
        if not INT32[0] <= offset <= INT32[1]:  # v near an int32 bound (an X stage at its bound): the other sign
            scale, offset = -scale, v + scale * bound * (1 << shift)
    offset = int(np.clip(offset, *INT32))  # v near an int32 bound: the goal may be missed, the layer stays legal
    return {"SDP.D_CVT_SHIFT.CVT_SHIFT": shift, "SDP.D_CVT_SCALE.CVT_SCALE": scale & 0xFFFF,
            "SDP.D_CVT_OFFSET.CVT_OFFSET": offset & 0xFFFFFFFF}
