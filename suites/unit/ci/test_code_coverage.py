"""Verilator coverage files: read, summed point by point, a test's simulations kept as one file, per unit."""

from __future__ import annotations

import gzip

from ci.regression.code_coverage import collect_test, line_ranges, per_unit, read_points, sum_points, uncovered, unit_of


def _point(hierarchy: str, page: str, comment: str, count: int) -> str:
    key = f"\x01f\x02a.v\x01l\x0210\x01page\x02{page}\x01o\x02{comment}\x01h\x02{hierarchy}"
    return f"C '{key}' {count}\n"


def test_a_tests_simulations_become_one_file_with_the_counts_added(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "a.dat").write_text("# SystemC::Coverage-3\n" + _point("top.u_glb", "v_line/glb", "block", 0)
                                + _point("top.u_engine.u_x", "v_toggle/x", "q[0]:0->1", 2))
    (runs / "b.dat").write_text("# SystemC::Coverage-3\n" + _point("top.u_glb", "v_line/glb", "block", 3)
                                + _point("top.u_engine.u_x", "v_toggle/x", "q[0]:0->1", 0)
                                + _point("top", "v_branch/top", "if", 0))
    target = tmp_path / "t.dat.gz"
    assert collect_test(runs, target) == 2 and not runs.exists()
    points = read_points(gzip.open(target, "rt").read())
    assert sorted(points.values()) == [0, 2, 3]
    assert per_unit(sum_points([target])) == {"GLB": {"line": [1, 1], "toggle": [0, 0]},
                                              "top": {"line": [0, 1], "toggle": [0, 0]},
                                              "u_engine": {"line": [0, 0], "toggle": [1, 1]}}


def test_a_unit_is_the_nvdla_unit_the_hierarchy_names_or_the_first_instance():
    assert unit_of("NV_nvdla.u_partition_p.u_NV_NVDLA_pdp.u_core") == "PDP"
    assert unit_of("NV_nvdla.u_partition_o.u_NV_NVDLA_sdp.u_rdma") == "SDP"
    assert unit_of("nvdla_fixture.u_engine.g_lane[3].u_cvt") == "u_engine"
    assert unit_of("nvdla_fixture") == "nvdla_fixture"
    assert unit_of("NV_nvdla.u_partition_*_fifo.u_ram") == "shared cells"  # one cell, instances merged
    assert unit_of("NV_nvdla.u_partition_*.u_NV_NVDLA_cdp.u_dp") == "CDP"
    assert unit_of("NV_nvdla.u_partition_o.u_glue") == "u_partition_o"


def _at(hierarchy: str, file: str, line: int, page: str, comment: str, count: int) -> tuple[str, int]:
    return f"'\x01f\x02/rtl/{file}\x01l\x02{line}\x01page\x02{page}\x01o\x02{comment}\x01h\x02{hierarchy}'", count


def test_uncovered_lines_are_those_with_a_point_no_instance_reached():
    points = dict([
        _at("NV_nvdla.u_NV_NVDLA_pdp.u_a", "pdp_core.v", 7, "v_line/core", "block", 0),
        _at("NV_nvdla.u_NV_NVDLA_pdp.u_b", "pdp_core.v", 7, "v_line/core", "block", 5),  # the other instance
        _at("NV_nvdla.u_NV_NVDLA_pdp.u_a", "pdp_core.v", 9, "v_branch/core", "if", 3),
        _at("NV_nvdla.u_NV_NVDLA_pdp.u_a", "pdp_core.v", 9, "v_branch/core", "else", 0),  # half a branch
        _at("NV_nvdla.u_NV_NVDLA_pdp.u_a", "pdp_core.v", 10, "v_line/core", "block", 0),
        _at("NV_nvdla.u_NV_NVDLA_pdp.u_a", "pdp_core.v", 11, "v_line/core", "block", 0),
        _at("NV_nvdla.u_NV_NVDLA_pdp.u_a", "pdp_core.v", 12, "v_toggle/core", "q[0]:0->1", 0),  # not a line
        _at("NV_nvdla.u_NV_NVDLA_cdp.u_c", "cdp_intp.v", 40, "v_line/intp", "block", 0),
    ])
    missed = uncovered(points)
    assert missed == {"CDP": {"cdp_intp.v": [40]}, "PDP": {"pdp_core.v": [9, 10, 11]}}
    assert line_ranges(missed["PDP"]["pdp_core.v"]) == "9-11"
    assert line_ranges([1, 3, 4, 8]) == "1 3-4 8"
