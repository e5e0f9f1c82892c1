"""Programming checks run before an SDP layer: profile features, Table 30, and the guide's limitations."""

from __future__ import annotations

from golden import rules
from golden.errors import ConfigurationError, NotModelledError
from golden.units.sdp.config import SdpConfig
from golden.units.sdp.rules import BATCH


def _fail(message, fields, rule):
    raise ConfigurationError(message, fields=tuple(fields), rule=rule)


def check_profile(cfg: SdpConfig, profile) -> None:
    what = "this SDP layer"
    for precision, field in ((cfg.proc_precision, "SDP.D_DATA_FORMAT.PROC_PRECISION"),
                             (cfg.out_precision, "SDP.D_DATA_FORMAT.OUT_PRECISION")):
        profile.require_precision(precision, what, fields=(field,))
    if not cfg.flying:
        profile.require_precision(cfg.in_precision, what, fields=("SDP_RDMA.D_FEATURE_MODE_CFG.IN_PRECISION",))
    stages = (("SDP_BS", not cfg.x1.bypass, "SDP.D_DP_BS_CFG.BS_BYPASS", "X1 (BS)"),
              ("SDP_BN", not cfg.x2.bypass, "SDP.D_DP_BN_CFG.BN_BYPASS", "X2 (BN)"),
              ("SDP_EW", not cfg.y.bypass, "SDP.D_DP_EW_CFG.EW_BYPASS", "Y (EW)"),
              ("SDP_LUT", cfg.y.lut_active, "SDP.D_DP_EW_CFG.EW_LUT_BYPASS", "the Y LUT"))
    for switch, used, field, name in stages:
        if used:
            profile.require(switch, f"this SDP layer uses {name}", fields=(field,))
    if cfg.batch > 1:
        profile.require("BATCH", "this SDP layer is multi-batch", fields=("SDP.D_FEATURE_MODE_CFG.BATCH_NUMBER",))
        if profile.max_batch_size and cfg.batch > profile.max_batch_size:
            _fail(f"{cfg.batch} batches exceed the profile's MAX_BATCH_SIZE {profile.max_batch_size}",
                  ("SDP.D_FEATURE_MODE_CFG.BATCH_NUMBER",), BATCH)
    if cfg.winograd:
        profile.require("WINOGRAD", "this SDP layer is Winograd", fields=("SDP.D_FEATURE_MODE_CFG.WINOGRAD",))
        # On the fly, WINOGRAD only tells SDP the order CACC delivers atoms in: nvdla/sw's driver (kmd firmware
        # sdp.c, processor_sdp_program) sets it from the convolution's CONV_MODE and programs the destination
        # as the ordinary feature surface the next layer reads, so the memory result is the feature layout.
        if not cfg.flying:
            raise NotModelledError("SDP Winograd output other than on the fly from CACC is not modelled "
                                   "(programming-guide: Limitation/SDP/Winograd/Batch)", unit="SDP")


def validate(cfg: SdpConfig, facts: rules.Facts, strict: bool = False) -> None:
    """Raise ProfileFeatureError / ConfigurationError / NotModelledError for an invalid or unmodelled layer.

    The limitation rules are the registry's (golden/rules.py; golden/units/sdp/rules.py and lut_rules.py, and the
    DMAs' Table 35 and stride rules in golden/units/dma_rules.py). Advisory rules
    (LimitationWarning) raise too when `strict` (what a stimulus generator should use).
    """
    check_profile(cfg, facts.profile)
    rules.enforce("SDP", cfg, facts, strict)
