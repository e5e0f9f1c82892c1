"""Command-line entry points, nightly regression and report building."""
