"""Implementations registered through the entry-point group nvdla_verif.implementations: the documented adapter
(docs/guides/python-implementation.md), installed as a small package on sys.path, runs NVIDIA's traces and
appears in --impl's choices."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import ci.implementations as registry
from ci.cli import main
from suites.unit.plugin_site import install

GUIDE = Path(__file__).resolve().parents[3] / "docs" / "guides" / "python-implementation.md"

#: The vendor's model of the guide's example, here the golden hardware behind a CSB and memory API.
VENDOR_MODEL = '''
import numpy as np

from golden.config import get_profile
from golden.hardware import Hardware


class Model:
    def __init__(self, profile_name):
        self.hw = Hardware(get_profile(profile_name))

    def csb_write(self, address, value):
        self.hw.write(self.hw.regmap.at(address), value)

    def csb_read(self, address):
        return self.hw.read(self.hw.regmap.at(address))

    def mem_write(self, memory, address, data):
        self.hw.memory.by_name(memory).write(address, np.frombuffer(data, np.uint8))

    def mem_read(self, memory, address, size):
        return self.hw.memory.by_name(memory).read(address, size, unwritten="allow").tobytes()

    def run_until_idle(self):
        while self.hw.step() is not None:
            pass
'''


def documented_example(name: str) -> str:
    text = GUIDE.read_text()
    match = re.search(rf"<!-- example: {re.escape(name)} -->\n```python\n(.*?)```", text, re.DOTALL)
    assert match, f"{GUIDE} has no example {name}"
    return match.group(1)


@pytest.fixture
def vendor_plugin(tmp_path, monkeypatch):
    """The guide's adapter installed as a distribution with its entry point (a .dist-info on sys.path)."""
    return install(tmp_path / "site", "vendor-adapter",
                   "[nvdla_verif.implementations]\nvendor = vendor_adapter:VendorModel\n",
                   {"vendor_adapter.py": documented_example("vendor_adapter.py"), "vendor_model.py": VENDOR_MODEL},
                   monkeypatch)


def test_the_documented_adapter_is_about_thirty_lines():
    assert 25 <= len(documented_example("vendor_adapter.py").splitlines()) <= 40


def test_a_plugin_appears_among_the_choices(vendor_plugin, capsys):
    assert "vendor" in registry.names()
    with pytest.raises(SystemExit):
        main(["conform", "--help"])
    assert re.search(r"registered:.*\bvendor\b", " ".join(capsys.readouterr().out.split()))


def test_the_documented_adapter_runs_nvidia_traces(vendor_plugin, nvdla_data, tmp_path):
    out = tmp_path / "out.json"
    code = main(["conform", str(nvdla_data / "trace_tests/nv_small"), "-k", "sdp_3x3x33_b", "-k", "cdp_8x8x32",
                 "-k", "pdp_8x8x64_2x2", "--impl", "vendor", "--json", str(out)])
    results = json.loads(out.read_text())["results"]
    assert code == 0 and len(results) == 18
    assert {r["status"] for r in results} == {"passed"} and {r["implementation"] for r in results} == {"vendor"}


def test_an_unknown_implementation_is_one_error_naming_the_registered_ones(capsys):
    assert main(["conform", ".", "--impl", "nonesuch"]) == 2
    assert "unknown implementation 'nonesuch'; registered: command, dlhdl, golden, rtl" in capsys.readouterr().err
