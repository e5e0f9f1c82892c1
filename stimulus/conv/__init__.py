"""The conv family: random legal convolution layers through SDP (layers.py; modes.py the image, Winograd and
weight-compression modes), the breakers of the convolution rules (illegal.py; illegal_sequence.py those over what
earlier layers left in the CBUF), the corner aimers (corner.py, corner_image.py) and the covergroup
(covergroup.py). Two layers per trace cover data/weight reuse and the weight ring."""
