"""stimulus.registry: what a generator asks the rule registry while it draws."""

from types import SimpleNamespace

from stimulus.registry import ids, keeps


def test_a_drawn_kernel_is_kept_up_to_eight():
    # programming-guide Limitation/PDP: the pooling kernel is at most 8x8
    assert keeps(("PDP-KERNEL-SIZE",), kernel=(8, 8))
    assert not keeps(("PDP-KERNEL-SIZE",), kernel=(9, 1))


def test_prelu_beside_an_active_alu_is_not_kept():
    # programming-guide Limitation/SDP/General: PReLU needs the stage's ALU bypassed
    def bs(alu_bypass):
        return SimpleNamespace(mul_active=True, mul_prelu=True, alu_bypass=alu_bypass)

    assert not keeps(("SDP-BS-PRELU-ALU",), x1=bs(False))
    assert keeps(("SDP-BS-PRELU-ALU", "PDP-KERNEL-SIZE"), x1=bs(True), kernel=(3, 3))
    assert not keeps(("SDP-BS-PRELU-ALU", "PDP-KERNEL-SIZE"), x1=bs(True), kernel=(3, 9))


def test_rule_ids_by_prefix_in_checking_order():
    assert ids("PDP", "PDP-SPLIT-") == ("PDP-SPLIT-OFFLINE", "PDP-SPLIT-OUT-SUM", "PDP-SPLIT-FIRST-IN",
                                        "PDP-SPLIT-MID-IN", "PDP-SPLIT-LAST-IN", "PDP-SPLIT-OVERLAP",
                                        "PDP-SPLIT-IN-SUM")


def test_pooling_bounds_read_from_the_registry_are_the_guides():
    # programming-guide Limitation/PDP: kernel up to 8, PL/PR < kernel width; (PL + W + PR - kernel) % stride == 0
    from stimulus.pdp import layers as pdp

    assert pdp.kernel_max() == 8
    assert [pdp.pad_max(k) for k in range(1, 9)] == list(range(8))
    assert pdp.strided(3, 2, 1, 0, 6) and not pdp.strided(3, 2, 1, 1, 6)  # 1 + 6 + 0 - 3 = 4; 1 + 6 + 1 - 3 = 5
