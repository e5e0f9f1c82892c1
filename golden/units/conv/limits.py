"""Limitation checks of the convolution pipeline, run before any data is read.

The profile's features first (ProfileFeatureError, or the MAX_BATCH_SIZE ConfigurationError), then the rules of
the registry (golden/rules.py) for the CONV unit: golden/units/conv/rules.py and the CDMA reads' rules of
golden/units/dma_rules.py. Each violated rule raises ConfigurationError naming the rule's id, document and
section and the register fields involved. Sources: programming guide "Convolution pipeline programming"
(Register definition) and "Limitation" (Data Format, Convolution/General, Image, Winograd, Multi-batch,
supported feature crossing), in-memory-data-formats Table 29 (precision conversion), Table 33 (pixel
formats), Table 34 (weight formats and options) and Table 35 (alignment).
"""

from __future__ import annotations

from golden import rules
from golden.config import Profile
from golden.errors import ConfigurationError
from golden.units.conv.config import ConvConfig
from golden.units.conv.rules import (  # noqa: F401  (the names are used from here)
    CROSSING,
    GENERAL,
    REGDEF,
    TABLE29,
    WINOGRAD,
    dc_entries_per_slice,
    entry_bytes,
    image_entries_per_slice,
    kernel_size,
)

BATCH = "programming-guide: Limitation/Convolution/Multi-batch"


def _fail(message: str, fields: tuple[str, ...], rule: str):
    raise ConfigurationError(message, fields=fields, rule=rule)


def validate(cfg: ConvConfig, facts: rules.Facts, strict: bool = False) -> None:
    """The profile's features, then every rule of the registry's CONV unit in order (golden/units/conv/rules.py,
    then the CDMA reads' Table 35 and stride rules of golden/units/dma_rules.py). `facts.cbuf`: what the layers
    before left in the CBUF (golden/units/conv/cbuf.py: Left); None for a layer run alone, whose reuse is not
    modelled."""
    assert facts.profile is not None, "a layer's rules are judged with its profile"
    check_profile(facts.profile, cfg)
    rules.enforce("CONV", cfg, facts, strict)


def check_profile(profile: Profile, cfg: ConvConfig) -> None:
    profile.require_precision(cfg.proc_precision, "the convolution layer",
                              fields=("CDMA.D_MISC_CFG.PROC_PRECISION",))
    if cfg.image:
        # Table 33's "valid input precision": nv_small's CDMA decodes only the 8-bit formats (nvdla/hw
        # NV_NVDLA_CDMA_IMG_ctrl.v leaves the others out when FEATURE_DATA_TYPE_INT8 is the only type)
        profile.require_precision(cfg.in_precision, f"{cfg.pixel_format} image input",
                                  fields=("CDMA.D_MISC_CFG.IN_PRECISION", "CDMA.D_DATAIN_FORMAT.PIXEL_FORMAT"))
    if cfg.winograd:
        profile.require("WINOGRAD", "Winograd convolution", fields=("CSC.D_MISC_CFG.CONV_MODE",))
    if cfg.batches > 1:
        profile.require("BATCH", "multi-batch convolution", fields=("CDMA.D_BATCH_NUMBER.BATCHES",))
        if profile.max_batch_size and cfg.batches > profile.max_batch_size:
            _fail(f"{cfg.batches} batches exceed MAX_BATCH_SIZE {profile.max_batch_size}",
                  ("CDMA.D_BATCH_NUMBER.BATCHES",), BATCH)
    if cfg.weight_format == "compressed":
        profile.require("WEIGHT_COMPRESSION", "compressed weights", fields=("CDMA.D_WEIGHT_FORMAT.WEIGHT_FORMAT",))
    for ram, name in ((cfg.data_ram, "CDMA.D_DAIN_RAM_TYPE.DATAIN_RAM_TYPE"),
                      (cfg.weight_ram, "CDMA.D_WEIGHT_RAM_TYPE.WEIGHT_RAM_TYPE")):
        if ram == "sec":
            profile.require("SECONDARY_MEMIF", "reading from CV-SRAM (CVIF)", fields=(name,))
