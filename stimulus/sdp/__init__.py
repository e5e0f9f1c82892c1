"""The sdp family: random legal SDP layers (layers.py, with lut.py the Y stage's LUT that a trace's layers share),
the breakers of SDP's rules (illegal.py), the corner aimer (corner.py; the fp16 one is stimulus/corner_fp16.py's),
the covergroup and its outcome covergroup (covergroup.py), and the RTL fixture's subset (fixture.py)."""
