"""Limitation checks of the convolution pipeline, run before any data is read."""

from __future__ import annotations

from golden.config import Profile
from golden.units.conv.config import ConvConfig


def check(profile: Profile, cfg: ConvConfig) -> None:
    return None
