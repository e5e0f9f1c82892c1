"""The pdp family: random legal offline PDP layers (layers.py), the breakers of PDP's rules (illegal.py), the
corner aimer (corner.py; the fp16 one is stimulus/corner_fp16.py's) and the covergroup (covergroup.py)."""
