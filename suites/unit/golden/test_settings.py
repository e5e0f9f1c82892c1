"""The settings object: typed, frozen, through JSON and back; a bad value names its field; the overrides."""

import dataclasses
import json

import pytest

from golden.settings import OVERRIDES, CommandSettings, RtlSettings, Settings, SettingsError, override


def test_settings_go_through_json_and_back():
    settings = Settings(RtlSettings(filelist="/x/files.f", top="NV_nvdla", defines=("A=1", "B"), profile="nv_small",
                                    coverage="/tmp/cov", axi_pause=0.3, clock="py", cache="/tmp/cache"),
                        CommandSettings(timeout_s=12.5, keep="always", keep_dir="/tmp/kept"), memory_limit=1 << 30)
    text = json.dumps(settings.to_json())
    again = Settings.from_json(json.loads(text))
    assert again == settings and again.rtl.defines == ("A=1", "B")
    assert Settings.from_json({}) == Settings()


def test_settings_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Settings().memory_limit = 3


@pytest.mark.parametrize(("data", "named"), [
    ({"rtl": {"axi_pause": 1.5}}, "rtl.axi_pause"),
    ({"rtl": {"axi_pause": "often"}}, "rtl.axi_pause"),
    ({"rtl": {"clock": "fast"}}, "rtl.clock"),
    ({"rtl": {"defines": [1]}}, "rtl.defines"),
    ({"rtl": {"filelist": 3}}, "rtl.filelist"),
    ({"rtl": {"speed": 1}}, "speed"),
    ({"rtl": []}, "rtl"),
    ({"command": {"keep": "sometimes"}}, "command.keep"),
    ({"command": {"timeout_s": 0}}, "command.timeout_s"),
    ({"memory_limit": -1}, "memory_limit"),
    ({"memory_limit": True}, "memory_limit"),
    ({"colour": "blue"}, "colour"),
])
def test_a_bad_value_names_its_field(data, named):
    with pytest.raises(SettingsError, match=named.replace(".", r"\.")):
        Settings.from_json(data)


def test_the_overrides_fill_the_defaults(monkeypatch):
    for name in OVERRIDES:
        monkeypatch.delenv(name, raising=False)
    assert Settings.from_environment() == Settings()
    monkeypatch.setenv("NVDLA_RTL_FILELIST", "/x/files.f")
    monkeypatch.setenv("NVDLA_RTL_DEFINES", "A=1 B")
    monkeypatch.setenv("NVDLA_RTL_AXI_PAUSE", "0.25")
    monkeypatch.setenv("NVDLA_RTL_PROFILE", "nv_small")
    monkeypatch.setenv("NVDLA_COMMAND_TIMEOUT", "30")
    monkeypatch.setenv("NVDLA_KEEP_FOLDERS", "1")
    settings = Settings.from_environment()
    assert (settings.rtl.filelist, settings.rtl.defines, settings.rtl.axi_pause, settings.rtl.profile) == \
        ("/x/files.f", ("A=1", "B"), 0.25, "nv_small")
    assert (settings.command.timeout_s, settings.command.keep) == (30.0, "always")


@pytest.mark.parametrize(("name", "value"), [("NVDLA_RTL_AXI_PAUSE", "1.5"), ("NVDLA_RTL_AXI_PAUSE", "often"),
                                             ("NVDLA_RTL_CLOCK", "fast"), ("NVDLA_COMMAND_KEEP", "sometimes"),
                                             ("NVDLA_COMMAND_TIMEOUT", "soon")])
def test_a_bad_override_names_the_variable(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError, match=name):
        Settings.from_environment()


def test_only_documented_variables_are_read():
    with pytest.raises(KeyError, match="NVDLA_RTL_JOB"):
        override("NVDLA_RTL_JOB")


def test_keeping_in_a_folder_leaves_the_persons_choice():
    assert CommandSettings().keeping_in("/out/kept").keep_dir == "/out/kept"
    assert CommandSettings(keep_dir="/mine").keeping_in("/out/kept").keep_dir == "/mine"
