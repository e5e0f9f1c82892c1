"""Which register groups an SDP layer launches together (programming guide "SDP programming"): SDP, SDP_RDMA
when SDP reads memory (flying mode off, or an operand DMA enabled), and PDP on the fly when OUTPUT_DST=PDP.

`device` is golden.hardware.Hardware (its consumer_field reads a field of a group's consumer registers).
"""

from __future__ import annotations


def sdp_pipeline(device) -> tuple[list[str], list[str]]:
    """(groups, stages) of the SDP part of a layer."""
    groups, stages = ["SDP"], ["SDP"]
    flying = device.consumer_field("SDP", "D_FEATURE_MODE_CFG", "FLYING_MODE")
    reads_operands = any(not device.consumer_field("SDP_RDMA", f"D_{dma}_CFG", f"{dma}_DISABLE")
                         for dma in ("BRDMA", "NRDMA", "ERDMA"))
    if not flying or reads_operands:
        groups.append("SDP_RDMA")
    if device.consumer_field("SDP", "D_FEATURE_MODE_CFG", "OUTPUT_DST"):
        groups.append("PDP")
        stages.append("PDP")
    return groups, stages


def sdp_launch(device, unit, armed: dict[str, int], found: list) -> list:
    """An SDP layer of its own, unless a convolution layer runs SDP already."""
    if any("SDP" in stages for _, stages in found) or not ("SDP" in armed or "SDP_RDMA" in armed):
        return []
    return [sdp_pipeline(device)]


def conv_launch(device, unit, armed: dict[str, int], found: list) -> list:
    """A convolution layer: CDMA ... CACC and SDP on the fly (armed once any of them is, or SDP in flying mode)."""
    if any(group in armed for group in unit.groups) or (
            "SDP" in armed and device.consumer_field("SDP", "D_FEATURE_MODE_CFG", "FLYING_MODE")):
        groups, stages = sdp_pipeline(device)
        return [([*unit.groups, *groups], [unit.stage, *stages])]
    return []
