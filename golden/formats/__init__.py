"""In-memory data layouts: feature, pixel, weight, compression, auxiliary data, alignment, DL HDL.

Conventions shared by every module here:

* Cubes are numpy arrays (C, H, W), or (N, C, H, W) for multi-batch feature data;
  weights are (K, C, R, S) = (kernels, channels, rows/height, columns/width).
* Precision is "int8", "int16" or "fp16". Elements are np.int8, np.int16 (little-endian)
  and np.float16 for fp16: the fp16 bit pattern is carried exactly (NaN payloads included);
  use `.view(np.uint16)` for raw bits. Pack functions also accept raw uint16 bits for fp16.
* Memory is a flat np.uint8 buffer (or bytes) plus a byte offset: a unit reads
  `feature_span(...)` bytes at the surface address with Memory.read and calls
  unpack_feature(buf, 0, ...); pack functions return a new zero-filled buffer, or write in
  place into `buf=` at `base_offset=` (gap bytes then keep their contents).
* Profile geometry is passed explicitly: atom_bytes = Profile.memory_atomic_size,
  atomic_c / atomic_k = Profile.mac_atomic_c / mac_atomic_k.
* Bad programming raises golden.errors.ConfigurationError naming the register field and
  the document section.

Modules: feature (feature data), auxiliary (bias/PReLU/BN/element-wise operands), weight
(direct convolution, image input pre/post-extension, deconvolution split), winograd,
compression (WMB/WGS sparse weights), pixel (Table 33 pitch-linear formats), alignment
(Table 35), dlhdl (MathWorks DL HDL Toolbox external memory layout).
program_file writes and reads a compiled program as files (program.schema.json); the external-program protocol's
request.json and result.json have their schemas here too (command_request/command_result.schema.json, used by
ci/implementations/command_files.py).
"""
