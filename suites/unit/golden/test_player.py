"""golden/player.py with fake unit models registered through golden.units.MODELS.

The real unit models are tested against NVIDIA's traces by their own suites; here
trivial stand-ins check what the player itself does: file-order memory commands,
launching layers in hardware order with on-the-fly hand-over, interrupts, checks
and the verdicts.
"""

from __future__ import annotations

import json
import sys
import types

import numpy as np
import pytest

import golden.units
from golden.config import get_profile
from golden.errors import ProfileFeatureError
from golden.player import Player, play
from golden.trace import load_trace
from golden.units.base import UnitResult

NV_SMALL, NV_LARGE, NV_FULL = (get_profile(n) for n in ("nv_small", "nv_large", "nv_full"))


def _copy_sdp(ctx, upstream=None):
    """A fake SDP that copies its SDP_RDMA input surface(s) to its destination unchanged."""
    r = ctx.regs
    channels = r.field("SDP_RDMA", "D_DATA_CUBE_CHANNEL", "CHANNEL") + 1
    count = -(-channels // ctx.profile.memory_atomic_size)
    size = count * r.value("SDP_RDMA", "D_SRC_SURFACE_STRIDE")
    data = ctx.memory.pri.read(r.address("SDP_RDMA", "D_SRC_BASE_ADDR_HIGH", "D_SRC_BASE_ADDR_LOW"), size)
    ctx.memory.pri.write(r.address("SDP", "D_DST_BASE_ADDR_HIGH", "D_DST_BASE_ADDR_LOW"), data)
    return UnitResult(status={("SDP", "D_PERF_OUT_SATURATION"): 3})


@pytest.fixture
def fake_units(monkeypatch):
    """Register fake stage models: fake_units({"SDP": run_function, ...}); returns the call log."""
    calls = []

    def install(runs):
        for stage, run in runs.items():
            module = types.ModuleType(f"fake_units_{stage.lower()}")

            def logged(ctx, upstream=None, _run=run, _stage=stage):
                calls.append((_stage, upstream))
                return _run(ctx, upstream)

            module.run = logged
            monkeypatch.setitem(sys.modules, module.__name__, module)
            monkeypatch.setitem(golden.units.MODELS, stage, module.__name__)
        return calls

    return install


def test_passthrough_trace_passes_with_a_copying_sdp(nvdla_data, fake_units):
    fake_units({"SDP": _copy_sdp})
    trace = load_trace(nvdla_data / "trace_tests/nv_large/sdp_passthrough_8x8x32_pack_inc_int8")
    player = Player(trace, NV_LARGE)
    result = player.run()
    assert [c.passed for c in result.checks] == [True]
    assert "0x9f5edd58" in result.checks[0].message
    assert [layer.describe() for layer in result.layers] == ["SDP (SDP[0], SDP_RDMA[0])"]
    regs = player.regs
    assert regs.read(regs.regmap.lookup("SDP.D_OP_ENABLE")) == 0
    assert regs.consumer["SDP"] == 1 and regs.consumer["SDP_RDMA"] == 1
    assert regs.raw("SDP", "D_PERF_OUT_SATURATION", 0) == 3  # UnitResult.status lands in group 0
    assert regs.raw("GLB", "S_INTR_STATUS") == 0  # the intr_notify handler cleared SDP_DONE_STATUS0
    assert play(trace, NV_LARGE).status == "passed"


def test_a_model_that_writes_nothing_fails_with_both_crcs(nvdla_data, fake_units):
    fake_units({"SDP": lambda ctx, upstream=None: UnitResult()})
    result = play(nvdla_data / "trace_tests/nv_large/sdp_passthrough_8x8x32_pack_inc_int8", NV_LARGE)
    assert result.status == "failed"
    assert "expected 0x9f5edd58" in result.detail and "CRC 0x" in result.detail


def test_missing_model_is_unsupported_never_passed(nvdla_data, monkeypatch):
    monkeypatch.setitem(golden.units.MODELS, "SDP", "golden.units.no_such_sdp_model")
    result = play(nvdla_data / "trace_tests/nv_large/sdp_passthrough_8x8x32_pack_inc_int8", NV_LARGE)
    assert result.status == "unsupported" and result.detail.startswith("SDP")


def test_profile_feature_error_is_invalid_naming_the_switch(nvdla_data, fake_units):
    def needs_ew(ctx, upstream=None):
        raise ProfileFeatureError("SDP EW stage", profile=ctx.profile.name, switch="SDP_EW_ENABLE")

    fake_units({"SDP": needs_ew})
    result = play(nvdla_data / "trace_tests/nv_small/sdp_3x3x33_ew_int8_reg_0", NV_SMALL)
    assert result.status == "invalid" and result.detail.startswith("SDP_EW_ENABLE")


def test_enabling_a_unit_the_profile_lacks_is_invalid(tmp_path):
    (tmp_path / "t.cfg").write_text("reg_write(NVDLA_BDMA.CFG_LAUNCH0_0, 0x1);\n")
    result = play(tmp_path / "t.cfg", NV_SMALL)
    assert result.status == "invalid" and "BDMA_ENABLE" in result.detail


def test_missing_input_file_is_an_error_naming_it(nvdla_data):
    result = play(nvdla_data / "traceplayer/cc_alexnet_conv5_relu5_int16_dtest_cvsram", NV_FULL)
    assert (result.status, result.detail) == ("error", "missing file: input_weight.dat")


def test_a_check_whose_layer_never_launches_is_an_error(tmp_path):
    (tmp_path / "t.cfg").write_text(
        "reg_write(NVDLA_SDP.D_OP_ENABLE_0, 0x1);\n"  # offline SDP also needs SDP_RDMA
        "intr_notify(SDP_0, s);\n"
        "check_crc(s, pri_mem, 0x80000000, 0x10, 0x0);\n")
    result = play(tmp_path / "t.cfg", NV_SMALL)
    assert result.status == "error"
    assert "t.cfg:3" in result.detail and "waits for SDP_RDMA" in result.detail


def test_memory_commands_apply_in_file_order(tmp_path):
    (tmp_path / "d.dat").write_text("{\n{offset:0x0, size:4, payload:0x01 0x02 0x03 0x04} ,\n}\n")
    (tmp_path / "t.cfg").write_text(
        'mem_load(pri_mem, 0x80000000, "d.dat");\n'
        "mem_init(pri_mem, 0x80000002, 0x2, ALL_ZERO);\n")
    player = Player(load_trace(tmp_path / "t.cfg"), NV_SMALL)
    player.run()
    assert player.memory.pri.read(0x80000000, 4).tolist() == [1, 2, 0, 0]


def test_sdp_to_pdp_on_the_fly_runs_in_hardware_order(nvdla_data, fake_units):
    cube = np.arange(6, dtype=np.int32)
    calls = fake_units({"SDP": lambda ctx, upstream=None: UnitResult(output=cube),
                        "PDP": lambda ctx, upstream=None: UnitResult()})
    result = play(nvdla_data / "trace_tests/nv_small/sdp_pdp_32x16x32_pass_through_int8_0", NV_SMALL)
    assert [stage for stage, _ in calls] == ["SDP", "PDP"]
    assert calls[0][1] is None and calls[1][1] is cube
    assert [layer.name for layer in result.layers] == ["SDP+PDP"]
    assert result.status == "failed"  # both interrupts fired (check_nothing passed); the CRC did not match


def test_convolution_chain_and_its_four_interrupts(nvdla_data, fake_units):
    partial = np.zeros((32, 8, 8), np.int32)
    calls = fake_units({"CONV": lambda ctx, upstream=None: UnitResult(output=partial),
                        "SDP": lambda ctx, upstream=None: UnitResult()})
    result = play(nvdla_data / "trace_tests/nv_large/dc_8x8x32_1x1x32x32_int8_0", NV_LARGE)
    assert [stage for stage, _ in calls] == ["CONV", "SDP"] and calls[1][1] is partial
    # check_nothing on the CACC, CDMA_DAT and CDMA_WT interrupts passed; the SDP wrote nothing.
    assert result.status == "failed" and "check_crc" in result.detail


def test_txn_wait_readback_and_dump_mismatch_summary(tmp_path, fake_units):
    def write_ones(ctx, upstream=None):
        ctx.memory.pri.write(0x80001000, np.full(8, 1, np.uint8))
        return UnitResult()

    fake_units({"CDP": write_ones})
    (tmp_path / "golden.dat").write_text("memory type:dram\n" + " 0x01" * 6 + " 0x02 0x02\ndump done\n")
    (tmp_path / "input.txn").write_text(
        "write_reg 0xffff3c12 0x1 #NVDLA_CDP.D_OP_ENABLE_0\n"
        "read_reg 0xffff3c12 0x1 0x1 #NVDLA_CDP.D_OP_ENABLE_0\n"  # still armed: reads 1
        "write_reg 0xffff3802 0x1 #NVDLA_CDP_RDMA.D_OP_ENABLE_0\n"
        "wait\n"
        "read_reg 0xffff3c12 0x1 0x0 #NVDLA_CDP.D_OP_ENABLE_0\n"  # done: cleared
        "read_reg 0xffff0003 0xffffffff 0x4\n"  # CDP_DONE_STATUS0
        "write_reg 0xffff0003 0xffffffff\n"
        "read_reg 0xffff0003 0xffffffff 0x0\n"
        "dump_mem 0x80001000 0x8 golden.dat\n")
    result = play(tmp_path / "input.txn", NV_FULL)
    assert [c.passed for c in result.checks] == [True, True, True, True, False]
    assert result.status == "failed"
    assert "2 of 8 bytes differ; first: 0x80001006 (got 0x01, expected 0x02)" in result.detail


def test_wait_without_any_launch_is_an_error(tmp_path):
    (tmp_path / "input.txn").write_text("wait\n")
    result = play(tmp_path / "input.txn", NV_FULL)
    assert result.status == "error" and "input.txn:1" in result.detail and "no interrupt" in result.detail


def test_nvdlav1_register_checks_pass(nvdla_data):
    result = play(nvdla_data / "traceplayer/sanity0", NV_FULL)
    assert result.status == "passed" and len(result.checks) == 2


def test_conform_cli_counts_and_exit_code(nvdla_data, tmp_path, fake_units, capsys):
    from ci.cli import main

    fake_units({"SDP": _copy_sdp})
    out = tmp_path / "out.json"
    code = main(["conform", str(nvdla_data / "trace_tests/nv_large"), str(nvdla_data / "traceplayer"),
                 "-k", "sdp_passthrough_8x8x32_pack_inc", "-k", "sanity0", "-k", "cc_alexnet",
                 "--json", str(out)])
    report = json.loads(out.read_text())
    assert report["summary"] == {"total": 3, "passed": 2, "failed": 0, "unsupported": 0, "invalid": 0,
                                 "error": 1, "not applicable": 0}
    assert {r["name"]: r["profile"] for r in report["results"]} == {
        "sdp_passthrough_8x8x32_pack_inc_int8": "nv_large", "sanity0": "nv_full",
        "cc_alexnet_conv5_relu5_int16_dtest_cvsram": "nv_full"}
    assert code == 0  # the missing-file trace does not count
    assert "passed" in capsys.readouterr().out


def test_play_cli_default_example_runs(capsys, fake_units):
    from ci.cli import main

    fake_units({"SDP": _copy_sdp})
    code = main(["play"])
    out = capsys.readouterr().out
    assert "sdp_bias_relu_int8" in out and "layer 0: SDP" in out
    assert code == 1  # a copy is not bias+ReLU+CVT: the example's CRC catches it


def test_done_interrupts_arrive_one_per_wait_in_pipeline_order(tmp_path, fake_units):
    fake_units({"CONV": lambda ctx, upstream=None: UnitResult(output=np.zeros((1, 8, 1, 1), np.int32)),
                "SDP": lambda ctx, upstream=None: UnitResult()})
    enables = "".join(f"write_reg {a} 0x1\n" for a in ("0xffff2c2c", "0xffff2402", "0xffff1c02",
                                                        "0xffff2002", "0xffff1802"))
    # SDP.D_FEATURE_MODE_CFG=1 (flying) above, then SDP, CACC, CMAC_A, CMAC_B, CSC, CDMA op-enables.
    lines = [enables.replace("0xffff2c2c 0x1", "0xffff2c2c 0x1\nwrite_reg 0xffff2c0e 0x1"),
             "write_reg 0xffff1404 0x1\n"]
    for bit in (16, 18, 20, 0):  # CDMA_DAT, CDMA_WT, CACC, SDP (conv_8x8_fc_int16 reads this order)
        lines.append(f"wait\nread_reg 0xffff0003 0xffffffff {1 << bit:#x}\nwrite_reg 0xffff0003 0xffffffff\n")
    lines.append("wait\n")  # a fifth wait: nothing left to wait for
    (tmp_path / "input.txn").write_text("".join(lines))
    result = play(tmp_path / "input.txn", NV_FULL)
    assert [c.passed for c in result.checks] == [True] * 4
    assert result.status == "error" and "input.txn:20: wait: no interrupt is pending" in result.detail


def test_cbuf_flush_reads_zero_until_time_passes(tmp_path):
    (tmp_path / "input.txn").write_text("read_reg 0xffff1403 0x1 0x0\nread_reg 0xffff1403 0x1 0x1\n")
    assert play(tmp_path / "input.txn", NV_FULL).status == "passed"  # the second read polls
    (tmp_path / "t.cfg").write_text("poll_reg_equal(NVDLA_CDMA.S_CBUF_FLUSH_STATUS_0, 0x1);\n")
    assert play(tmp_path / "t.cfg", NV_SMALL).status == "passed"


def test_lut_writes_reach_the_model(tmp_path, fake_units):
    seen = {}

    def sdp(ctx, upstream=None):
        tables = ctx.luts["SDP"].tables
        seen["le"], seen["lo"] = tables.le[:3].tolist(), tables.lo[:2].tolist()
        return UnitResult()

    fake_units({"SDP": sdp})
    (tmp_path / "t.cfg").write_text(
        "reg_write(NVDLA_SDP.S_LUT_ACCESS_CFG_0, 0x20000);\n"  # WRITE, LE, address 0
        + "".join(f"reg_write(NVDLA_SDP.S_LUT_ACCESS_DATA_0, {v:#x});\n" for v in (7, 8, 9))
        + "reg_write(NVDLA_SDP.S_LUT_ACCESS_CFG_0, 0x30000);\n"  # WRITE, LO, address 0
        + "reg_write(NVDLA_SDP.S_LUT_ACCESS_DATA_0, 0x5);\n"
        "reg_write(NVDLA_SDP.D_OP_ENABLE_0, 0x1);\nreg_write(NVDLA_SDP_RDMA.D_OP_ENABLE_0, 0x1);\n"
        "intr_notify(SDP_0, done);\ncheck_nothing(done);\n")
    assert play(tmp_path / "t.cfg", NV_SMALL).status == "passed"
    assert seen == {"le": [7, 8, 9], "lo": [5, 0]}


def test_ping_pong_groups_run_in_consumer_order(tmp_path, fake_units):
    widths = []

    def cdp(ctx, upstream=None):
        widths.append(ctx.regs.field("CDP", "D_DST_LINE_STRIDE", "DST_LINE_STRIDE"))
        return UnitResult()

    fake_units({"CDP": cdp})
    program = "".join(
        f"reg_write(NVDLA_CDP.S_POINTER_0, {g});\nreg_write(NVDLA_CDP_RDMA.S_POINTER_0, {g});\n"
        f"reg_write(NVDLA_CDP.D_DST_LINE_STRIDE_0, {w});\n"
        "reg_write(NVDLA_CDP.D_OP_ENABLE_0, 0x1);\nreg_write(NVDLA_CDP_RDMA.D_OP_ENABLE_0, 0x1);\n"
        for g, w in ((0, 0x40), (1, 0x80)))
    (tmp_path / "t.cfg").write_text(program + "intr_notify(CDP_0, a);\nintr_notify(CDP_1, b);\n"
                                    "check_nothing(a);\ncheck_nothing(b);\n")
    result = play(tmp_path / "t.cfg", NV_SMALL)
    assert result.status == "passed" and widths == [0x40, 0x80]
    assert [layer.describe() for layer in result.layers] == ["CDP (CDP_RDMA[0], CDP[0])",
                                                             "CDP (CDP_RDMA[1], CDP[1])"]


def test_every_nvdlav1_register_read_back_passes(nvdla_data, fake_units):
    """The register file alone (models stubbed) satisfies all 808 read_reg checks of the traceplayer tests."""
    idle = lambda ctx, upstream=None: UnitResult(output=np.zeros((1, 1, 1, 1), np.int32))  # noqa: E731
    fake_units({stage: idle for stage in ("CONV", "SDP", "PDP", "CDP", "BDMA", "RUBIK")})
    reads = 0
    for path in sorted((nvdla_data / "traceplayer").glob("*/input.txn")):
        trace = load_trace(path)
        if trace.missing_files():
            trace.commands = [c for c in trace.commands if type(c).__name__ != "MemLoad"]
        result = Player(trace, NV_FULL).run()
        checks = [c for c in result.checks if c.command == "read_reg"]
        assert all(c.passed for c in checks), [c for c in checks if not c.passed][:3]
        reads += len(checks)
    assert reads == 808


def test_conform_exits_nonzero_when_a_valid_trace_is_not_passed(nvdla_data, monkeypatch, capsys):
    from ci.cli import main

    monkeypatch.setitem(golden.units.MODELS, "SDP", "golden.units.no_such_sdp_model")
    code = main(["conform", str(nvdla_data / "trace_tests/nv_large"), "-k", "sdp_passthrough_8x8x32_pack_inc"])
    assert code == 1 and "UNSUPPORTED" in capsys.readouterr().out
