"""The bench's default layer set: a handful of NVIDIA nv_small SDP traces inside the fixture's
subset, a few random layers (one and two ping-pong layers) and one trace of sdp_reg layers aimed at
arithmetic corners (stimulus/corner_data.py: exact ties at the output convertor, which random data
almost never meets, so a tie rounded the wrong way survives the rest). The CI suite (suites/rtl),
the mutation run (ci/mutation.py) and the regression's mutants play exactly this set."""

from __future__ import annotations

from pathlib import Path

from golden.config import get_profile
from golden.settings import nvdla_data
from stimulus.corner_data import write_aimed
from stimulus.sdp.fixture import write_random_trace

#: NVIDIA's reference data when none is named, as for the other suites: $NVDLA_DATA, else ../shared/nvdla next to
#: the checkout
DATA_ROOT = Path(nvdla_data(str(Path(__file__).resolve().parents[2] / "shared" / "nvdla")))
NVIDIA_TRACES = (
    "sdp_8x8x32_bypass_int8_1",      # pass-through: 4 surfaces, 8 lines, packed
    "sdp_1x1x1_pass_through_int8",   # convertor saturates every lane
    "sdp_3x3x33_bs_int8_reg_0",      # X1 SUM + MUL + ReLU, register operands, ALU shift
    "sdp_3x3x33_bs_bn_int8_0",       # X1 and X2
    "sdp_3x3x33_bn_int8_reg_2",      # X2 MIN, PReLU
    "sdp_4x22x42_bypass_int8",       # padded line and surface strides
)
RANDOM_LAYERS = ((1, 1), (4, 1), (7, 2), (10, 2))  # (seed, layers)
CORNER_LAYERS = ((0, 0, 2),)  # (seed, trace index, layers) of stimulus.corner_data.write_aimed("sdp_reg", ...)
ALL_SUPPORTED = (
    "sdp_1x1x1_pass_through_int8", "sdp_1x1x8_pass_through_int8_0", "sdp_1x8192x1_pass_through_int8_0",
    "sdp_3x3x33_bn_int8_reg_0", "sdp_3x3x33_bn_int8_reg_1", "sdp_3x3x33_bn_int8_reg_2", "sdp_3x3x33_bn_int8_reg_3",
    "sdp_3x3x33_bs_bn_int8_0", "sdp_3x3x33_bs_bn_int8_1", "sdp_3x3x33_bs_int8_reg_0", "sdp_3x3x33_bs_int8_reg_1",
    "sdp_4x1x8192_pass_through_int8_0", "sdp_4x22x42_bypass_int8", "sdp_8192x1x1_pass_through_int8_0",
    "sdp_8x8x32_bypass_int8_0", "sdp_8x8x32_bypass_int8_1",
)
UNSUPPORTED = {
    "sdp_23x13x42_bs_int8_mem_0": "BS operands from memory", "sdp_5x24x18_bs_int8_mem_0": "BS operands from memory",
    "sdp_3x3x33_bn_int8_mem_0": "BN operands from memory", "sdp_3x3x32_ew_lo_lin_int8": "the Y (EW)",
    "sdp_3x3x33_ew_int8_reg_0": "the Y (EW)", "sdp_3x3x33_ew_le_exp_int8": "the Y (EW)",
    "sdp_3x3x33_ew_le_lin_int8": "the Y (EW)", "sdp_pdp_32x16x32_pass_through_int8_0": "units PDP",
}


def nvidia_trace(name: str, data_root: Path = DATA_ROOT) -> Path:
    return data_root / "trace_tests" / "nv_small" / name


def default_layers(random_dir: Path, data_root: Path = DATA_ROOT) -> list[tuple[str, Path]]:
    """(test name, trace path) of the default set (NVIDIA's traces from data_root); random traces are written into
    random_dir."""
    layers = [(name, nvidia_trace(name, data_root)) for name in NVIDIA_TRACES]
    for seed, count in RANDOM_LAYERS:
        layers.append((f"random_{seed}_{count}l", write_random_trace(random_dir, seed, count)))
    for seed, index, count in CORNER_LAYERS:
        path = write_aimed("sdp_reg", get_profile("nv_small"), seed, index, random_dir, count)
        layers.append((f"corners_sdp_reg_{seed}_{index}_{count}l", path))
    return layers
