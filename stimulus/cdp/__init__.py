"""The cdp family: random legal CDP layers and their LUT (layers.py), the breakers of CDP's rules (illegal.py),
the corner aimer (corner.py; the fp16 one is stimulus/corner_fp16.py's), the covergroup and its outcome
covergroup (covergroup.py)."""
