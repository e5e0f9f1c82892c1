"""Constrained-random layer generators (hypothesis strategies) and the legality rules as data."""
