"""NVDLA numerics: integer convertor/truncation/shifter/saturation and NVDLA's fp16/fp17/fp32."""
