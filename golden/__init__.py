"""nvdla-verif golden model: a bit-accurate Python model of NVIDIA's NVDLA."""

__version__ = "0.1.0"
