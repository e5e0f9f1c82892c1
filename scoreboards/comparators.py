"""The comparator interface and the choice of comparator for a surface.

A comparator judges the elements of one output cube: `judge(got, expected)` takes the element
patterns (uint16 for fp16, signed integers for int8/int16) shaped like the cube and returns a
Judgement: which elements pass, their error and the error allowed, as numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np


@dataclass
class Judgement:
    ok: np.ndarray  # bool per element
    error: np.ndarray  # |got - expected| as float64 (inf for a NaN/INF disagreement)
    allowed: np.ndarray  # the error allowed per element (0 where bit-exact)
    got: np.ndarray  # element values as float64, for reports
    expected: np.ndarray


class Comparator(Protocol):
    rule: str  # short name, e.g. "bit-exact" or "CC DC FP16 threshold"
    source: str  # the document and section it applies

    def judge(self, got: np.ndarray, expected: np.ndarray, precision: str) -> Judgement: ...


def values(patterns: np.ndarray, precision: str) -> np.ndarray:
    """Element patterns as float64 numbers (fp16 decoded; integers as they are)."""
    if precision == "fp16":
        return np.asarray(patterns, np.uint16).view(np.float16).astype(np.float64)
    return np.asarray(patterns).astype(np.float64)


class BitExact:
    """Every element's bits equal (precision-preservation, FP16 thresholds: "SDP: Bit-by-bit identical";
    integer paths have no threshold at all)."""

    rule = "bit-exact"
    source = "nvdla-precision-preservation.md, FP16 thresholds: SDP bit-by-bit identical; integer paths exact"

    def judge(self, got, expected, precision) -> Judgement:
        ok = np.asarray(got) == np.asarray(expected)
        got_v, expected_v = values(got, precision), values(expected, precision)
        with np.errstate(invalid="ignore"):
            error = np.where(ok, 0.0, np.abs(got_v - expected_v))
        error = np.where(np.isnan(error), np.inf, error)
        return Judgement(ok, error, np.zeros(ok.shape), got_v, expected_v)


def special_agreement(got_v: np.ndarray, expected_v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(elements that are NaN or INF on either side, whether those agree): a NaN must meet a NaN and
    an INF the same INF; no threshold applies to them."""
    special = ~np.isfinite(got_v) | ~np.isfinite(expected_v)
    agree = (np.isnan(got_v) & np.isnan(expected_v)) | (got_v == expected_v)
    return special, agree
