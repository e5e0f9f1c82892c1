import numpy as np

from rtl.compare import BitExact, coordinates

LAYOUT = {"base": 0x1000, "line_stride": 0x40, "surface_stride": 0x200, "width": 8, "height": 8, "channel": 20,
          "atom": 8, "element": 1}


def test_coordinates_of_an_element():
    # surface 2, line 3, atom 5, byte 6 -> C = 2*8 + 6
    assert coordinates(0x1000 + 2 * 0x200 + 3 * 0x40 + 5 * 8 + 6, LAYOUT) == {"w": 5, "h": 3, "c": 22}


def test_coordinates_outside_the_cube():
    assert coordinates(0x1000 + 3 * 0x200, LAYOUT) == {}
    assert coordinates(0x0fff, LAYOUT) == {}


def test_bit_exact_match():
    data = np.arange(64, dtype=np.uint8)
    assert BitExact().compare("r", data.tobytes(), data, LAYOUT, 0x1000).ok


def test_bit_exact_report_names_surface_count_and_first_whc():
    expected = np.zeros(0x600, np.uint8)
    got = expected.copy()
    got[[0x48 + 1, 0x200 + 7, 0x5ff]] = 1
    result = BitExact().compare("SDP destination", got.tobytes(), expected, LAYOUT, 0x1000)
    assert not result.ok and result.mismatches == 3
    report = result.report()
    assert report.startswith("SDP destination: 3 mismatching bytes")
    assert "W=1 H=1 C=1" in report and "W=0 H=0 C=15" in report
    assert result.first[0] == {"addr": 0x1049, "got": 1, "want": 0, "w": 1, "h": 1, "c": 1}


def test_bit_exact_size_mismatch_fails():
    assert not BitExact().compare("r", b"\0" * 4, np.zeros(5, np.uint8)).ok
