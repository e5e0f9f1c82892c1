"""The deconv family: a transposed convolution as its hardware layers, the convolution phases and the Rubik
contract that interleaves them (layers.py)."""
