"""In-memory data layouts: feature, pixel, weight, compression, auxiliary data, alignment, DL HDL."""
