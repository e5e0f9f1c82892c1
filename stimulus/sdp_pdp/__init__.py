"""The sdp_pdp family: an SDP layer handing its output to PDP on the fly (layers.py); measured by the pdp
covergroup."""
