"""Example layers the project ships and wrote itself (see make_sdp_bias_relu.py)."""

from __future__ import annotations

from pathlib import Path

#: `nvdla-verif play` with no TRACE plays this nv_small SDP layer.
DEFAULT_TRACE = Path(__file__).with_name("sdp_bias_relu_int8.cfg")
DEFAULT_PROFILE = "nv_small"
