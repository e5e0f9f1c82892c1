"""The pyuvm environment for NVDLA's top level (runs inside a cocotb simulation)."""
