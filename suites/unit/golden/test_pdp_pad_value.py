"""PAD_VALUE_nX: the cmod reads its low 8..11 bits as signed, NVIDIA's nv_small RTL all 19 (rule PDP-PAD-VALUE-SIGN).

The generator writes n x the pad value sign-extended over the field, which both read alike; a value written in
the low bits only is advisory: the golden model warns and pools with the cmod's reading, strict validation rejects.
"""

from __future__ import annotations

import dataclasses
import importlib
import warnings

import numpy as np
import pytest

from golden.config import get_profile
from golden.errors import ConfigurationError
from golden.memory import MemorySystem
from golden.regs.regmap import RegisterMap
from golden.rules import Facts
from golden.units import pdp as golden_pdp
from golden.units.base import LayerContext
from stimulus.choose import Seeded
from stimulus.pdp import layers as pdp

pdp_config = importlib.import_module("golden.units.pdp.config")
PROFILE = get_profile("nv_small")
FIELD = "PDP.D_POOLING_PADDING_VALUE_{n}_CFG.PAD_VALUE_{n}X"


def _average_layer(pad_value: int, overrides: dict | None = None):
    """A 1x1 int8 input, 3x3 average window padded by 1 on every side: the output is mostly padding."""
    spec = pdp.PdpSpec("int8", "average", (1, 1, 1), (1, 1), (3, 3), (1, 1), (1, 1, 1, 1), pad_value=pad_value,
                       src=(pdp.BASE, 32, 32), dst=(pdp.BASE + pdp.DST_OFFSET, 32, 32))
    spec = dataclasses.replace(spec, overrides=overrides or {})
    layer = pdp.build(spec, PROFILE, Seeded(3).data())
    return layer, layer.values(RegisterMap.for_profile(PROFILE))


def _run(layer, regs) -> int:
    memory = MemorySystem.for_profile(PROFILE)
    for image in layer.images:
        memory.by_name(image.memory).write(image.base, image.data)
    golden_pdp.run(LayerContext(PROFILE, regs, memory))
    out = memory.by_name("pri_mem").read(pdp.BASE + pdp.DST_OFFSET, 1)
    return int(np.frombuffer(out, np.int8)[0])


@pytest.mark.parametrize("pad_value", [-128, -3, -1, 5, 127])
def test_generator_sign_extends_over_the_whole_field_and_is_strictly_legal(pad_value):
    layer, regs = _average_layer(pad_value)
    for n in range(1, 8):
        assert layer.fields[FIELD.format(n=n)] == (n * pad_value) % 2**19
    pdp_config.validate(pdp_config.decode(regs), Facts(regs, PROFILE), strict=True)


def test_low_bits_only_warns_and_pools_like_the_cmod_but_strict_rejects():
    extended, regs = _average_layer(-3)
    low_only = {FIELD.format(n=n): (n * -3) % 2**bits for n, bits in enumerate((8, 9, 10, 10, 11, 11, 11), 1)}
    narrow, narrow_regs = _average_layer(-3, low_only)
    with pytest.raises(ConfigurationError) as info:
        pdp_config.validate(pdp_config.decode(narrow_regs), Facts(narrow_regs, PROFILE), strict=True)
    assert info.value.rule.startswith("PDP-PAD-VALUE-SIGN") and FIELD.format(n=1) in info.value.fields
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = _run(narrow, narrow_regs)
    assert any("PDP-PAD-VALUE-SIGN" in str(w.message) for w in caught)
    assert got == _run(extended, regs)  # the cmod reads the low bits: the same result as the extended value


def test_max_pooling_ignores_the_pad_value_bits():
    spec = pdp.PdpSpec("int8", "max", (1, 1, 1), (1, 1), (3, 3), (1, 1), (1, 1, 1, 1),
                       src=(pdp.BASE, 32, 32), dst=(pdp.BASE + pdp.DST_OFFSET, 32, 32),
                       overrides={FIELD.format(n=1): 0x52098})
    regs = pdp.build(spec, PROFILE, Seeded(3).data()).values(RegisterMap.for_profile(PROFILE))
    pdp_config.validate(pdp_config.decode(regs), Facts(regs, PROFILE), strict=True)
