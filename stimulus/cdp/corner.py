"""Corner-aimed CDP layers (integer): one channel per pixel differs from DATIN_OFFSET, every other one enters
the datapath as 0 after the input convertor, so the square sum at that channel is its own square and its
output an elementwise function of its value (golden/units/cdp/lrn.py: channels outside add nothing). Every
value of the precision is run through the golden lrn_int as a one-channel cube, observed; each pixel's chosen
channel takes a value that lands on a class of a stage (input convertor, LUT, output convertor), classes in
turn.

The registers are aimed too, one of these per layer:

* "redraw": the convertors redrawn so that ties exist (shifters >= 1, odd scales);
* "trace": the drawn convertors (wider ranges, so the saturation bounds come up by chance);
* "in_bound": DATIN_OFFSET the precision's minimum and DATIN_SCALE = 2**DATIN_SHIFTER, so the largest input
  lands exactly on the input convertor's upper bound (2**8 - 1 / 2**16 - 1, 9 / 17 bits), or DATIN_OFFSET 0
  and DATIN_SCALE = 2**(DATIN_SHIFTER + 1), so the smallest lands on its lower bound (-2**8 / -2**16);
* "out_solve": DATOUT_OFFSET solved from one input's product so that its output convertor input is zero or its
  output exactly the lower / upper bound.

and per trace (the LUT is one per unit, shared by the trace's layers; its aim is drawn from a stream seeded by
the trace's LUT, so every layer of the trace aims it alike), sometimes:

* "interp": an EXPONENT LE table far below the square sums (START < 0), so that the 16-bit fraction keeps odd
  bits (a linear CDP table's select is at most 15 for int8, programming-guide Limitation/LUT, so its fraction
  is even), entries one apart and START solved for one input's square sum to land on a tie, or one LSB
  below / above it; the entry is a saturation bound of the LUT output, so small fractions give it exactly.
* "reach": "interp" aimed at a tie the output shows (the classes tie+_out / tie-_out, golden/numerics/
  corners.py): the fraction exactly one half, entries 0 and +/-1 (y0 -> y1: 0 -> 1 or -1 -> 0 a positive tie,
  1 -> 0 or 0 -> -1 a negative one), so the tie's two roundings give 0 and +/-1, the product 0 and +/-x, and
  DATOUT the identity (OFFSET 0, SCALE 2**SHIFTER) passes that to the output unsaturated (out_solve is skipped).
* "extrap": a LINEAR LE table whose START lies above one input's square sum by half the underflow shift's
  unit (or one less / more), UFLOW_SCALE +/-1: the underflow extrapolation's rounding meets a tie or one LSB
  either side; at the tie, entry 0 set so that its two roundings give 0 and +/-1 and DATOUT the identity, as
  "reach" does for the interpolation.

Both set DATIN to the identity and all priorities to LE, so that the aimed table is the one used.
"""

from __future__ import annotations

import zlib
from dataclasses import replace

import numpy as np

from golden.config import Profile
from golden.formats.feature import element_bits, pack_feature
from golden.numerics import corners
from golden.numerics.integer import as_signed
from golden.regs.regmap import RegisterMap
from golden.units.cdp.config import decode as cdp_decode
from golden.units.cdp.lrn import INT_WIDTHS, lrn_int, lrn_int_product
from golden.units.lut import LE_DEPTH, OFFSET_LIMITS, LutRam
from stimulus.choose import Seeded
from stimulus.corner_fill import fill, legal, targets
from stimulus.data import INT_RANGES
from stimulus.layer import Image, Layer

#: per layer: how the convertors' registers are aimed
CONVERTORS = ("redraw", "redraw", "trace", "in_bound", "out_solve", "out_solve")
#: per trace: how the LUT is aimed (None: the trace's LUT)
LUTS = (None, None, "interp", "extrap", "reach")
LUT_FIELD = "CDP.S_LUT_"
#: interpolation fractions (of 2**16) at a tie and one LSB below / above it
FRACTIONS = (0x8000, 0x7FFF, 0x8001)
OUT_SCALE = "CDP.D_DATOUT_SCALE.DATOUT_SCALE"


def _tables(writes):
    ram = LutRam("CDP")
    for unit, register, value in writes:
        if unit == "CDP":
            ram.write(register, value)
    return ram.tables


def _signed16(value: int) -> int:
    return value & 0xFFFF


def _bound(fields: dict, name: str, value: int) -> None:
    raw = value & ((1 << 38) - 1)
    fields[f"{LUT_FIELD}{name}_LOW.LUT_{name}_LOW"] = raw & 0xFFFFFFFF
    fields[f"{LUT_FIELD}{name}_HIGH.LUT_{name}_HIGH"] = raw >> 32


def _convertors(kind: str, choose, precision: str) -> dict:
    lo, _ = INT_RANGES[precision]
    if kind == "redraw":
        scale = choose.integer(1, 1 << 10) | 1
        return {"CDP.D_DATIN_SCALE.DATIN_SCALE": _signed16(scale if choose.flag() else -scale),
                "CDP.D_DATIN_SHIFTER.DATIN_SHIFTER": choose.integer(1, 12),
                "CDP.D_DATOUT_SCALE.DATOUT_SCALE": _signed16(choose.integer(1, 1 << 12) | 1),
                "CDP.D_DATOUT_SHIFTER.DATOUT_SHIFTER": choose.integer(1, 24),
                "CDP.D_DATOUT_OFFSET.DATOUT_OFFSET": choose.integer(-(1 << 12), 1 << 12) & 0xFFFFFFFF}
    if kind == "in_bound":  # upper: (hi - lo) = 2**bits - 1; lower: 2 * lo = -2**bits, the 9/17-bit bounds
        shift, upper = choose.integer(0, 7), choose.flag()
        return {"CDP.D_DATIN_OFFSET.DATIN_OFFSET": _signed16(lo) if upper else 0,
                "CDP.D_DATIN_SCALE.DATIN_SCALE": 1 << (shift + (0 if upper else 1)),
                "CDP.D_DATIN_SHIFTER.DATIN_SHIFTER": shift}
    return {}


def _lut(layer: Layer, precision: str) -> tuple[dict, tuple]:
    """The trace's LUT aimed (fields, writes), drawn from a stream of its own seeded by the trace's LUT."""
    lut_fields = {k: v for k, v in sorted(layer.fields.items()) if k.startswith(LUT_FIELD)}
    choose = Seeded([zlib.crc32(repr((lut_fields, layer.writes)).encode()), zlib.crc32(b"cdp lut")])
    kind = choose.choice(LUTS)
    if kind is None:
        return {}, tuple(layer.writes)
    lo, hi = INT_RANGES[precision]
    value = choose.integer(lo, hi)  # the input aimed at: its square sum, DATIN being the identity
    square = value * value
    fields = {"CDP.D_DATIN_OFFSET.DATIN_OFFSET": 0, "CDP.D_DATIN_SCALE.DATIN_SCALE": 1,
              "CDP.D_DATIN_SHIFTER.DATIN_SHIFTER": 0, **{f"{LUT_FIELD}CFG.LUT_{p}_PRIORITY": "LE"
                                                          for p in ("UFLOW", "OFLOW", "HYBRID")}}
    entries = _tables(layer.writes).le.view(np.int16).astype(np.int64)
    if kind in ("interp", "reach"):
        # every square sum (below 2**(k-2)) lies in [2**k, 2**(k+1)) above START: one entry, j; the aimed one at
        # fraction f (the 16 bits below the leading one), i.e. START = square - 2**k - f * 2**(k-16) - low bits
        top = int(max(lo * lo, hi * hi)).bit_length() + 2
        k = choose.integer(top, top + 2)
        reach = kind == "reach"
        fraction = 0x8000 if reach else choose.choice(FRACTIONS)
        low = choose.integer(0, (1 << (k - 16)) - 1)
        offset_lo, offset_hi = OFFSET_LIMITS["CDP", precision]
        j = choose.integer(max(0, k - offset_hi), min(LE_DEPTH - 2, k - offset_lo))
        fields.update({f"{LUT_FIELD}CFG.LUT_LE_FUNCTION": "EXPONENT",
                       f"{LUT_FIELD}INFO.LUT_LE_INDEX_OFFSET": (k - j) & 0xFF})
        _bound(fields, "LE_START", square - (1 << k) - (fraction << (k - 16)) - low)
        if reach:  # one tie's roundings: 0 and +/-1, the output 0 and +/-x through the identity
            entries[j:j + 2] = choose.choice(((0, 1), (-1, 0), (1, 0), (0, -1)))
            fields.update(_identity_out(choose))
        else:  # one apart from a saturation bound of the LUT output: -1 from 32767 (negative products), +1 from
            entries[j:j + 2] = (32767, 32766) if choose.flag() else (-32768, -32767)  # -32768
    else:
        shift = choose.integer(2, 15)
        step = choose.choice((0, 0, -1, 1))  # the tie twice as often: its output-reaching signs are bins too
        units = choose.integer(0, 3)
        start = square + (1 << (shift - 1)) + step + (units << shift)
        select = as_signed(layer.fields.get(f"{LUT_FIELD}INFO.LUT_LE_INDEX_SELECT", 0), 8)
        select = min(max(select, 0), 10)
        lo_select = as_signed(layer.fields.get(f"{LUT_FIELD}INFO.LUT_LO_INDEX_SELECT", 0), 8)
        scale = choose.choice((1, -1))
        fields.update({f"{LUT_FIELD}CFG.LUT_LE_FUNCTION": "LINEAR", f"{LUT_FIELD}INFO.LUT_LE_INDEX_SELECT": select,
                       f"{LUT_FIELD}LE_SLOPE_SCALE.LUT_LE_SLOPE_UFLOW_SCALE": _signed16(scale),
                       f"{LUT_FIELD}LE_SLOPE_SHIFT.LUT_LE_SLOPE_UFLOW_SHIFT": shift})
        if step == 0:  # the tie (square - START) * scale = -scale * (units + 1/2) rounds to -scale * (units + 1)
            # or, toward zero, -scale * units: entry 0 = scale * units (or + scale) makes one of them 0 and the
            # other -/+scale (the identity's output 0 and -/+x), a tie the output shows
            entries[0] = scale * (units + choose.integer(0, 1))
            fields.update(_identity_out(choose))
        _bound(fields, "LE_START", start)
        _bound(fields, "LE_END", start + (1 << (select + 6)))
        _bound(fields, "LO_START", start)  # both tables under: UFLOW_PRIORITY (LE) picks
        _bound(fields, "LO_END", start + (1 << (lo_select + 8)))
    writes = [w for w in layer.writes]
    first = next(i for i, (unit, register, value) in enumerate(writes)
                 if register == "S_LUT_ACCESS_CFG" and not (value >> 16) & 1)  # the LE table's CFG write
    writes[first + 1:first + 1 + LE_DEPTH] = [("CDP", "S_LUT_ACCESS_DATA", int(v) & 0xFFFF) for v in entries]
    return fields, tuple(writes)


def _identity_out(choose) -> dict:
    """DATOUT the identity (OFFSET 0, SCALE 2**SHIFTER): a product of magnitude up to 2**7 - 1 (the input's) passes
    to the output unchanged, one LSB of it too."""
    shift = choose.integer(0, 3)
    return {"CDP.D_DATOUT_OFFSET.DATOUT_OFFSET": 0, OUT_SCALE: 1 << shift, "CDP.D_DATOUT_SHIFTER.DATOUT_SHIFTER": shift}


def _out_solve(cfg, tables, candidates, choose) -> dict:
    """DATOUT_* for one candidate's product to meet zero or a bound of the output convertor exactly."""
    widths = INT_WIDTHS[cfg.precision]
    product, _ = lrn_int_product(candidates.reshape(1, 1, -1), 1, cfg, tables)
    p = int(product.ravel()[choose.integer(0, candidates.size - 1)])
    shift = choose.integer(0, 3)
    target = choose.choice((0, -(1 << (widths["out"] - 1)), (1 << (widths["out"] - 1)) - 1))
    offset = p - (target << shift)
    if not -(1 << (widths["out_offset"] - 1)) <= offset < 1 << (widths["out_offset"] - 1):
        return {}
    return {"CDP.D_DATOUT_OFFSET.DATOUT_OFFSET": offset & 0xFFFFFFFF, "CDP.D_DATOUT_SCALE.DATOUT_SCALE": 1,
            "CDP.D_DATOUT_SHIFTER.DATOUT_SHIFTER": shift}


def aim_cdp(layer: Layer, profile: Profile, choose, slot: int = 0) -> Layer:
    regmap = RegisterMap.for_profile(profile)
    cfg = cdp_decode(layer.values(regmap))
    if cfg.precision not in INT_RANGES:
        return layer
    rng = choose.data()
    bits = element_bits(cfg.precision)
    kind = choose.choice(CONVERTORS)
    lut_fields, writes = _lut(layer, cfg.precision)
    fields = {**layer.fields, **_convertors(kind, choose, cfg.precision), **lut_fields}
    aimed = replace(layer, fields=fields, writes=list(writes))
    lo, hi = INT_RANGES[cfg.precision]
    candidates = np.arange(lo, hi + 1, dtype=np.int64)
    tables = _tables(aimed.writes)
    if kind == "out_solve" and OUT_SCALE not in lut_fields:  # the LUT's aim needs its output convertor
        aimed = replace(aimed, fields=dict(aimed.fields, **_out_solve(cdp_decode(aimed.values(regmap)), tables,
                                                                      candidates, choose)))
    regs = aimed.values(regmap)
    cfg = cdp_decode(regs)
    if not legal("CDP", cfg, regs, profile):
        return layer
    layer = aimed
    with corners.observe(masks=True) as seen:
        lrn_int(candidates.reshape(1, 1, -1), 1, cfg, tables)
    hits = targets(seen, candidates.size)
    if not hits:
        return layer
    channels, height, width = cfg.shape
    quiet = as_signed(cfg.datin[0], INT_WIDTHS[cfg.precision]["offset"])  # 0 after the input convertor
    cube = np.full(cfg.shape, quiet, np.int64)
    chosen = rng.integers(0, channels, (height, width))
    cube[chosen, np.arange(height)[:, None], np.arange(width)[None, :]] = fill(rng, (height, width), candidates,
                                                                                 hits)
    base, line, surface, _ = cfg.src
    atom = profile.memory_atomic_size
    images = []
    for image in layer.images:
        if image.label == "src":
            buf = np.frombuffer(image.data, np.uint8).copy()
            pack_feature(cube.astype(np.int8 if bits == 8 else np.int16), cfg.precision, line, surface, atom, buf=buf)
            image = Image(image.memory, image.base, buf.tobytes(), image.label)
        images.append(image)
    return replace(layer, images=images, choices=dict(layer.choices, corners="aimed"))
