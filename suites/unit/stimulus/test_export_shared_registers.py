"""A trace whose layers give a single S_LUT_* parameter different values waits for the earlier layers before
reprogramming it: the datapath reads those registers live, so changing one under a running layer is a race the
golden model refuses (golden.hardware.SharedRegisterRace). The fuzzing campaign's c000197 was such a trace."""

from __future__ import annotations

from dataclasses import replace

from golden.config import get_profile
from stimulus.export import write_trace
from stimulus.families import layers

NV_SMALL = get_profile("nv_small")
SLOPE = "CDP.S_LUT_LE_SLOPE_SCALE.LUT_LE_SLOPE_UFLOW_SCALE"


def _lines(path):
    return path.read_text().splitlines()


def test_a_changed_lut_parameter_waits_for_the_earlier_layer(tmp_path):
    first, second = layers("cdp", NV_SMALL, 829194428, 0, 2)
    same = write_trace([first, second], tmp_path / "same", "same", NV_SMALL)
    moved = dict(second.fields, **{SLOPE: (int(first.fields.get(SLOPE, 0)) + 1) & 0xFFFF})
    changed = write_trace([first, replace(second, fields=moved)], tmp_path / "changed", "changed", NV_SMALL)

    def waits_before_second_slope(path):
        text = _lines(path)
        writes = [i for i, line in enumerate(text) if "S_LUT_LE_SLOPE_SCALE" in line]
        return any(line.startswith("check_nothing(layer0_done") for line in text[:writes[-1]])
    assert not waits_before_second_slope(same)  # the same values: no wait, the layers overlap as before
    assert waits_before_second_slope(changed)


def test_a_third_bdma_layer_waits_for_the_groups_before_enabling_an_operation(tmp_path):
    """BDMA's two groups alternate; its layers program through `writes` alone, so the exporter's reuse wait
    follows the done unit: without it the third layer enabled an operation while group 0 and group 1 were both
    busy, which the golden model refuses (programming-guide, Limitation/BDMA)."""
    from golden.config import get_profile
    from stimulus.export import write_trace
    from stimulus.families import layers

    profile = get_profile("nv_full")
    path = write_trace(layers("bdma", profile, 0, 0, 3), tmp_path / "t", "t", profile)
    text = path.read_text().splitlines()
    launches = [i for i, line in enumerate(text) if "CFG_LAUNCH" in line]
    assert len(launches) == 3
    waits = [i for i, line in enumerate(text) if line == "wait"]
    enables = [i for i, line in enumerate(text) if "BDMA.CFG_OP_0" in line and line.split()[2] == "0x1"]
    third = min(i for i in enables if i > launches[1])
    assert any(launches[1] < w < third for w in waits)
