"""Comparators: bit-exact, per-module FP16 thresholds, mismatch reports."""
