"""Register map (generated from NVIDIA's SystemRDL), register file and decoded register values."""
