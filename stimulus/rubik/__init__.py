"""The rubik family: random legal Rubik layers, contract, split and merge (layers.py), the breakers of Rubik's rules
(illegal.py) and the covergroup (covergroup.py)."""
