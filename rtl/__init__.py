"""cocotb + pyuvm bench for NVDLA's CSB/AXI top level, the fixture DUT and the NVDLA RTL hook-up."""
