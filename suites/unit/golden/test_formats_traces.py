"""NVIDIA's dc_/img_ traces: decoding their weight and feature memory with the trace's register values
and re-encoding it gives byte-identical memory (../shared/nvdla/trace_tests)."""

import re
from pathlib import Path

import numpy as np
import pytest

from golden.config import PROFILES
from golden.formats.feature import (
    feature_span,
    pack_feature,
    surfaces,
    unpack_feature,
    unpack_feature_padded,
)
from golden.formats.weight import (
    aligned_size,
    pack_dc_weights,
    pack_image_weights,
    unpack_dc_weights,
    unpack_image_weights,
)
from golden.memory import Memory, read_memory_file
from golden.regs.regmap import RegisterMap
from golden.regs.values import RegisterValues

ROOT = Path(__file__).resolve().parents[4] / "shared" / "nvdla" / "trace_tests"
if not ROOT.is_dir():
    ROOT = Path("/work/shared/nvdla/trace_tests")
PRECISION = {0: "int8", 1: "int16", 2: "fp16"}
WRITE = re.compile(r"^\s*reg_write\(\s*([\w.]+)\s*,\s*(\w+)\s*\)")
INIT = re.compile(r"^\s*mem_init\(\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)\s*,")
LOAD = re.compile(r'^\s*mem_load\(\s*(\w+)\s*,\s*(\w+)\s*,\s*"([^"]+)"\s*\)')


def conv_traces():
    return sorted(p for config in ("nv_small", "nv_large") for p in (ROOT / config).glob("*")
                  if p.name.startswith(("dc_", "img_")))


class Trace:
    def __init__(self, folder: Path):
        self.profile = PROFILES[folder.parent.name]
        self.memory = Memory("pri_mem", unwritten="allow", outside="allow")
        self.missing = []
        writes = []
        for line in (folder / f"{folder.name}.cfg").read_text().splitlines():
            line = line.split("//")[0]
            if match := WRITE.match(line):
                writes.append((match.group(1), int(match.group(2), 0)))
            elif match := INIT.match(line):
                self.memory.fill(int(match.group(2), 0), int(match.group(3), 0))
            elif match := LOAD.match(line):
                path = folder / match.group(3)
                if path.exists():
                    self.memory.load_records(int(match.group(2), 0), read_memory_file(path))
                else:
                    self.missing.append(match.group(3))
        self.regs = RegisterValues.from_writes(RegisterMap("master"), writes)

    def field(self, unit, reg, name):
        return self.regs.field(unit, reg, name)

    def address(self, unit, high, low):
        return (self.regs.value(unit, high) << 32) | self.regs.value(unit, low)


@pytest.fixture(scope="module", params=conv_traces(), ids=lambda p: f"{p.parent.name}/{p.name}")
def trace(request):
    return request.param


def test_weights_are_byte_identical(trace):
    t = Trace(trace)
    if any("wt" in name or "weight" in name for name in t.missing):
        pytest.skip(f"weight file absent from the snapshot: {t.missing} (MISSING_FILES.tsv)")
    assert t.field("CDMA", "D_WEIGHT_FORMAT", "WEIGHT_FORMAT") == 0          # uncompressed in every trace
    precision = PRECISION[t.field("CDMA", "D_MISC_CFG", "PROC_PRECISION")]
    kernels = t.field("CDMA", "D_WEIGHT_SIZE_1", "WEIGHT_KERNEL") + 1
    rows = t.field("CSC", "D_WEIGHT_SIZE_EXT_0", "WEIGHT_HEIGHT_EXT") + 1
    cols_ext = t.field("CSC", "D_WEIGHT_SIZE_EXT_0", "WEIGHT_WIDTH_EXT") + 1
    channels_ext = t.field("CSC", "D_WEIGHT_SIZE_EXT_1", "WEIGHT_CHANNEL_EXT") + 1
    image = t.field("CDMA", "D_DATAIN_FORMAT", "DATAIN_FORMAT") == 1
    if image:
        channels = t.field("CDMA", "D_DATAIN_SIZE_1", "DATAIN_CHANNEL") + 1
        assert cols_ext == 1 and channels_ext % channels == 0                  # WEIGHT_SIZE_EXT for images
        shape = (kernels, channels, rows, channels_ext // channels)
        factor = {0: 1, 1: 2, 2: 4}[t.field("CSC", "D_POST_Y_EXTENSION", "Y_EXTENSION")]
    else:
        shape = (kernels, channels_ext, rows, cols_ext)
    nbytes = t.field("CDMA", "D_WEIGHT_BYTES", "WEIGHT_BYTES")
    # WEIGHT_BYTES holds the 128-byte aligned size (int8 traces: one byte per weight).
    assert nbytes == aligned_size(int(np.prod(shape)))
    assert t.field("CDMA", "D_WEIGHT_SIZE_0", "BYTE_PER_KERNEL") + 1 == int(np.prod(shape[1:]))
    base = t.address("CDMA", "D_WEIGHT_ADDR_HIGH", "D_WEIGHT_ADDR_LOW")
    stored = t.memory.read(base, nbytes)
    atomic_c, atomic_k = t.profile.mac_atomic_c, t.profile.mac_atomic_k
    if image:
        weights = unpack_image_weights(stored, 0, shape, precision, atomic_c, atomic_k, factor)
        again = pack_image_weights(weights, precision, atomic_c, atomic_k, factor)
    else:
        weights = unpack_dc_weights(stored, 0, shape, precision, atomic_c, atomic_k)
        again = pack_dc_weights(weights, precision, atomic_c, atomic_k)
    assert np.array_equal(again, stored)
    assert np.count_nonzero(weights) == np.count_nonzero(stored)               # nothing in the tail


def test_feature_input_is_byte_identical(trace):
    t = Trace(trace)
    if t.field("CDMA", "D_DATAIN_FORMAT", "DATAIN_FORMAT") == 1:
        pytest.skip("pixel input: decoded by golden.formats.pixel; the image .dat is absent from the snapshot"
                    if t.missing else "pixel input")
    precision = PRECISION[t.field("CDMA", "D_MISC_CFG", "IN_PRECISION")]
    shape = (t.field("CDMA", "D_DATAIN_SIZE_1", "DATAIN_CHANNEL") + 1,
             t.field("CDMA", "D_DATAIN_SIZE_0", "DATAIN_HEIGHT") + 1,
             t.field("CDMA", "D_DATAIN_SIZE_0", "DATAIN_WIDTH") + 1)
    line = t.field("CDMA", "D_LINE_STRIDE", "LINE_STRIDE")
    surface = t.field("CDMA", "D_SURF_STRIDE", "SURF_STRIDE")
    atom = t.profile.memory_atomic_size
    assert t.field("CDMA", "D_BATCH_NUMBER", "BATCHES") == 0
    base = t.address("CDMA", "D_DAIN_ADDR_HIGH_0", "D_DAIN_ADDR_LOW_0")
    span = feature_span(shape, precision, line, surface, atom)
    stored = t.memory.read(base, span)
    padded = unpack_feature_padded(stored, 0, shape, precision, line, surface, atom)
    assert np.array_equal(pack_feature(padded, precision, line, surface, atom, buf=stored.copy()), stored)
    # Re-encoding over zeros reproduces memory too, so every loaded byte sits inside an atom of the
    # layout -- except in nv_large/dc_8x16x128_3x3x128x32_int8, whose generator also filled the
    # unused half of each 512-byte line (8 atoms of data, line stride 0x200).
    over_zeros = pack_feature(padded, precision, line, surface, atom)
    gaps = stored[over_zeros != stored]
    if (trace.parent.name, trace.name) == ("nv_large", "dc_8x16x128_3x3x128x32_int8"):
        assert gaps.size and line == 2 * shape[2] * atom
        mask = np.zeros((surfaces(shape[0], atom), shape[1], line), dtype=bool)
        mask[:, :, shape[2] * atom:] = True
        assert np.array_equal(over_zeros != stored, mask.reshape(-1)[:span] & (stored != 0))
    else:
        assert gaps.size == 0
    cube = unpack_feature(stored, 0, shape, precision, line, surface, atom)
    assert np.count_nonzero(cube) == np.count_nonzero(padded)                  # padding channels are zero
