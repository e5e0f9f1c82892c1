"""The sdp_reg family: SDP layers with register operands only, which on nv_small is the RTL fixture's subset;
measured by the sdp covergroup."""
