"""Which layers the fixture DUT implements; anything else is reported unsupported, never run.

The subset (docs/guides/rtl-bench.md, "The bench and the fixture"): SDP offline (input from SDP_RDMA's main read DMA),
int8 in/proc/out, X1 (BS) and X2 (BN) with register operands or bypassed,
Y (EW) bypassed, output to memory over the DBB port, 32-bit addresses.
"""

from __future__ import annotations

from golden.regs.values import RegisterValues

UNITS = {"GLB", "SDP", "SDP_RDMA"}
#: The fixture has nv_small's DBB port: 64-bit data and 8-byte memory atoms.
ATOM_BYTES = 8


def unsupported_reason(values: RegisterValues, units_written: set[str]) -> str | None:
    """None when the fixture implements the layer, else the first feature it lacks."""
    f = values.field
    others = sorted(units_written - UNITS)
    if others:
        return f"units {', '.join(others)} are not in the fixture (only GLB, SDP, SDP_RDMA)"
    checks = [
        (f("SDP", "D_FEATURE_MODE_CFG", "FLYING_MODE") == 0, "SDP on-the-fly input (FLYING_MODE=ON)"),
        (f("SDP", "D_FEATURE_MODE_CFG", "OUTPUT_DST") == 0, "SDP output to PDP (OUTPUT_DST=PDP)"),
        (f("SDP", "D_FEATURE_MODE_CFG", "WINOGRAD") == 0, "SDP Winograd output"),
        (f("SDP", "D_FEATURE_MODE_CFG", "BATCH_NUMBER") == 0, "SDP batches"),
        (f("SDP", "D_DATA_FORMAT", "PROC_PRECISION") == 0, "SDP PROC_PRECISION other than int8"),
        (f("SDP", "D_DATA_FORMAT", "OUT_PRECISION") == 0, "SDP OUT_PRECISION other than int8"),
        (f("SDP_RDMA", "D_FEATURE_MODE_CFG", "IN_PRECISION") == 0, "SDP_RDMA IN_PRECISION other than int8"),
        (f("SDP_RDMA", "D_BRDMA_CFG", "BRDMA_DISABLE") == 1, "BS operands from memory (BRDMA enabled)"),
        (f("SDP_RDMA", "D_NRDMA_CFG", "NRDMA_DISABLE") == 1, "BN operands from memory (NRDMA enabled)"),
        (f("SDP_RDMA", "D_ERDMA_CFG", "ERDMA_DISABLE") == 1, "EW operands from memory (ERDMA enabled)"),
        (f("SDP", "D_DP_EW_CFG", "EW_BYPASS") == 1, "the Y (EW) sub-unit or its LUT"),
        (f("SDP_RDMA", "D_SRC_DMA_CFG", "SRC_RAM_TYPE") == 1, "input from CV-SRAM"),
        (f("SDP", "D_DST_DMA_CFG", "DST_RAM_TYPE") == 1, "output to CV-SRAM"),
        (values.value("SDP_RDMA", "D_SRC_BASE_ADDR_HIGH") == 0, "addresses above 32 bits"),
        (values.value("SDP", "D_DST_BASE_ADDR_HIGH") == 0, "addresses above 32 bits"),
    ]
    for x in ("BS", "BN"):
        if f("SDP", f"D_DP_{x}_CFG", f"{x}_BYPASS") == 0:
            if f("SDP", f"D_DP_{x}_CFG", f"{x}_ALU_BYPASS") == 0:
                checks.append((f("SDP", f"D_DP_{x}_ALU_CFG", f"{x}_ALU_SRC") == 0, f"{x} ALU operand from memory"))
            if f("SDP", f"D_DP_{x}_CFG", f"{x}_MUL_BYPASS") == 0:
                checks.append((f("SDP", f"D_DP_{x}_MUL_CFG", f"{x}_MUL_SRC") == 0, f"{x} MUL operand from memory"))
    for dim in ("WIDTH", "HEIGHT", "CHANNEL"):
        reg = f"D_DATA_CUBE_{dim}"
        checks.append((f("SDP", reg, dim) == f("SDP_RDMA", reg, dim), f"SDP and SDP_RDMA cube {dim} differ"))
    for ok, feature in checks:
        if not ok:
            return f"fixture does not implement {feature}"
    return None
