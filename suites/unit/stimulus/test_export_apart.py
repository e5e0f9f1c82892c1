"""Layers of one trace run back to back, so write_trace refuses layers whose memory overlaps (stimulus.export.apart).

Found by an nv_full conv trace of two layers: the second layer's WMB image (0x88000000 + the 16 MiB slot)
landed on the first layer's WGS (0x89000000), and the golden model rejected the first layer's WGS.
"""

import pytest

from stimulus.export import GenerationError, apart
from stimulus.layer import Image, Layer, Region


def _layer(*areas) -> Layer:
    images = [Image("pri_mem", base, bytes(size), label) for base, size, label in areas if label != "out"]
    checks = [Region("pri_mem", base, size, label) for base, size, label in areas if label == "out"]
    return Layer("sdp", {}, images, checks, "SDP", ("SDP",))


def test_disjoint_layers_pass():
    apart([_layer((0x1000, 0x100, "in"), (0x2000, 0x40, "out")), _layer((0x1100, 0x100, "in"), (0x2040, 0x40, "out"))])


def test_a_layer_may_overlap_itself():
    apart([_layer((0x1000, 0x100, "in"), (0x1000, 0x100, "out"))])


def test_an_image_on_an_earlier_layers_image_is_refused_naming_both():
    with pytest.raises(GenerationError, match=r"layer 0's in and layer 1's wmb overlap at pri_mem 0x10ff"):
        apart([_layer((0x1000, 0x100, "in")), _layer((0x10FF, 0x10, "wmb"))])


def test_an_image_on_another_layers_output_is_refused():
    with pytest.raises(GenerationError, match="layer 0's out and layer 1's in"):
        apart([_layer((0x1000, 0x10, "in"), (0x2000, 0x100, "out")), _layer((0x20F0, 0x100, "in"))])


def test_an_overlap_hidden_behind_a_nested_image_is_found():
    # layer 0: a large image holding a small one; layer 1 starts after the small one but inside the large one
    with pytest.raises(GenerationError, match="layer 0's big and layer 1's late"):
        apart([_layer((0x1000, 0x1000, "big"), (0x1010, 0x10, "small")), _layer((0x1800, 0x10, "late"))])


def test_memories_are_separate_address_spaces():
    cv = Layer("sdp", {}, [Image("sec_mem", 0x1000, bytes(0x100), "in")], [], "SDP", ("SDP",))
    apart([_layer((0x1000, 0x100, "in")), cv])


def test_a_waiting_layer_may_reuse_earlier_images_but_not_earlier_results():
    waiting = _layer((0x1000, 0x100, "weights"))
    waiting.waits = True
    apart([_layer((0x1000, 0x100, "weights")), waiting])
    with pytest.raises(GenerationError, match="layer 0's out and layer 1's weights"):
        apart([_layer((0x1000, 0x100, "out")), waiting])


@pytest.mark.parametrize("family", ["rubik", "cdp"])
def test_a_register_group_is_written_again_only_after_its_layer_is_done(family, tmp_path):
    """Three layers on two register groups: the third one's registers come after a wait, since nvdlav1's
    register files drop writes to a group whose OP_EN is set (NVIDIA's C model stops on them: every three-layer
    Rubik trace of generate --unit rubik --profile nv_full --seed 2516 hung it before)."""
    from golden.config import get_profile
    from golden.regs.regmap import RegisterMap
    from golden.trace import RegWrite, Wait
    from stimulus import families
    from stimulus.export import _form, _Writer

    profile = get_profile("nv_full")
    layers = families.layers(family, profile, 2516, 0, 3)
    commands = _Writer(layers, tmp_path, "t", RegisterMap.for_profile(profile), _form(profile)).build()
    unit = layers[0].enable_order()[-1]
    launches = [i for i, c in enumerate(commands) if isinstance(c, RegWrite) and c.register.unit == unit
                and c.register.name == "D_OP_ENABLE"]
    assert len(launches) == 3
    third = next(i for i in range(launches[1] + 1, len(commands)) if isinstance(commands[i], RegWrite)
                 and commands[i].register.name.startswith("D_"))
    assert any(isinstance(c, Wait) for c in commands[launches[1]:third])
